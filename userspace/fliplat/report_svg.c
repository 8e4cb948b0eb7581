// SPDX-License-Identifier: MIT
/*
 * --plot: a standalone SVG (no scripts, no external references) with two
 * panels: a histogram of the flips' latency (signal - submit; event -
 * submit in legacy mode, which has no fence) with its p50 and p99 marked,
 * and the same latency per flip in submit order, one colour per CRTC, flips
 * that missed a vblank ringed in red.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "fliplat.h"

#define WIDTH		900
#define PANEL_H		320
#define LEFT		70
#define RIGHT		20
#define TOP		40
#define BOTTOM		45
#define PLOT_W		(WIDTH - LEFT - RIGHT)
#define PLOT_H		(PANEL_H - TOP - BOTTOM)
#define MAX_BINS	50

static const char *const colours[] = { "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e" };

/* The plotted latency of a flip in µs; false if it has none. */
static bool latency(const struct fl_run *run, const struct fl_flip *f, double *us)
{
	if (run->mode != FL_MODE_LEGACY)
		return fl_flip_metric(f, FL_SIGNAL_MINUS_SUBMIT, us);
	if (!f->event_ns || !f->submit_ns)
		return false;
	*us = (f->event_ns - f->submit_ns) / 1e3;
	return true;
}

static void text(FILE *f, double x, double y, const char *anchor, const char *extra,
		 const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
	fputs("</text>\n", f);
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for @span in ~@n steps. */
static double tick_step(double span, int n)
{
	double raw = span / n, mag, r;

	if (raw <= 0)
		return 1;
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

/* Axes of a panel at vertical offset @y0 with x in [@x0, @x1], y in [0, @ymax]. */
static void axes(FILE *f, int y0, double x0, double x1, double ymax, const char *xlabel,
		 const char *ylabel, const char *title)
{
	double step, v;
	char buf[64];
	long k;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#333\"/>\n", LEFT, y0 + TOP, PLOT_W, PLOT_H);
	text(f, WIDTH / 2.0, y0 + 24, "middle", " font-size=\"15\" font-weight=\"bold\"", title);
	text(f, LEFT + PLOT_W / 2.0, y0 + PANEL_H - 8, "middle", "", xlabel);
	fprintf(f, "<g transform=\"translate(16 %d) rotate(-90)\">", y0 + TOP + PLOT_H / 2);
	text(f, 0, 0, "middle", "", ylabel);
	fputs("</g>\n", f);

	step = tick_step(x1 - x0, 8);
	for (k = (long)ceil(x0 / step); k * step <= x1 + step * 1e-9; k++) {
		double x;

		v = k * step;
		x = LEFT + (v - x0) / (x1 - x0) * PLOT_W;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n",
			x, y0 + TOP + PLOT_H, x, y0 + TOP + PLOT_H + 5);
		snprintf(buf, sizeof(buf), "%g", v);
		text(f, x, y0 + TOP + PLOT_H + 18, "middle", " font-size=\"11\"", buf);
	}
	step = tick_step(ymax, 5);
	for (k = 0; k * step <= ymax + step * 1e-9; k++) {
		double y;

		v = k * step;
		y = y0 + TOP + PLOT_H - v / ymax * PLOT_H;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			LEFT, y, LEFT + PLOT_W, y);
		snprintf(buf, sizeof(buf), "%g", v);
		text(f, LEFT - 6, y + 4, "end", " font-size=\"11\"", buf);
	}
}

static void histogram(FILE *f, const struct fl_run *run, const double *v, size_t n,
		      const struct fl_stats *s, const char *what)
{
	unsigned int counts[MAX_BINS] = { 0 }, bins, b, top = 1;
	double lo = s->min, hi = s->max, width;
	char title[160];
	size_t i;

	bins = (unsigned int)ceil(sqrt((double)n));
	bins = bins < 5 ? 5 : bins > MAX_BINS ? MAX_BINS : bins;
	if (hi - lo < 1) {
		lo -= 0.5;
		hi += 0.5;
	}
	width = (hi - lo) / bins;
	for (i = 0; i < n; i++) {
		b = (unsigned int)((v[i] - lo) / width);
		counts[b < bins ? b : bins - 1]++;
	}
	for (b = 0; b < bins; b++)
		top = counts[b] > top ? counts[b] : top;

	snprintf(title, sizeof(title), "%s on %s: %s, %zu flips (%s mode)", what, run->driver,
		 run->ncrtcs ? run->crtcs[0].mode_name : "?", n, fl_mode_name(run->mode));
	axes(f, 0, lo, hi, top, "latency (us)", "flips", title);
	for (b = 0; b < bins; b++) {
		double h = (double)counts[b] / top * PLOT_H;

		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"#1f77b4\"/>\n", LEFT + (double)b / bins * PLOT_W,
			TOP + PLOT_H - h, (double)PLOT_W / bins - 1, h);
	}
	for (i = 0; i < 2; i++) {
		double p = i ? s->p99 : s->p50;
		double x = LEFT + (p - lo) / (hi - lo) * PLOT_W;
		char label[48];

		snprintf(label, sizeof(label), "%s %.1f us", i ? "p99" : "p50", p);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" "
			"stroke-dasharray=\"4 3\"/>\n", x, TOP, x, TOP + PLOT_H);
		text(f, x + 3, TOP + 12 + 14 * i, "start", " font-size=\"11\" fill=\"#d62728\"",
		     label);
	}
}

static void timeline(FILE *f, const struct fl_run *run, const struct fl_stats *s,
		     const char *what)
{
	double top = s->max > 0 ? s->max * 1.05 : 1, us;
	size_t i, last = run->nflips ? run->nflips - 1 : 1;
	char title[160];

	snprintf(title, sizeof(title), "%s per flip (red ring: missed a vblank)", what);
	axes(f, PANEL_H, 0, (double)last, top, "flip (submit order)", "latency (us)", title);
	for (i = 0; i < run->nflips; i++) {
		const struct fl_flip *p = &run->flips[i];
		double x, y;

		if (p->warmup || !latency(run, p, &us))
			continue;
		x = LEFT + (double)p->index / (double)last * PLOT_W;
		y = PANEL_H + TOP + PLOT_H - us / top * PLOT_H;
		fprintf(f, "<circle class=\"flip\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\" fill=\"%s\"/>\n",
			x, y, colours[p->crtc % 4]);
		if (p->missed)
			fprintf(f, "<circle class=\"missed\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"none\" stroke=\"#d62728\"/>\n", x, y);
	}
	for (i = 0; run->ncrtcs > 1 && i < run->ncrtcs; i++) {
		char label[48];

		snprintf(label, sizeof(label), "CRTC %u", run->crtcs[i].crtc_id);
		fprintf(f, "<rect x=\"%d\" y=\"%zu\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			LEFT + 10, PANEL_H + TOP + 8 + 16 * i, colours[i % 4]);
		text(f, LEFT + 26, PANEL_H + TOP + 17 + 16 * i, "start", " font-size=\"11\"",
		     label);
	}
}

int fl_report_svg(FILE *f, const struct fl_run *run)
{
	const char *what = run->mode == FL_MODE_LEGACY ? "event - submit" : "signal - submit";
	double *v = malloc((run->nflips ? run->nflips : 1) * sizeof(*v)), *sorted;
	struct fl_stats s;
	size_t i, n = 0;

	if (!v)
		return -1;
	for (i = 0; i < run->nflips; i++)
		if (!run->flips[i].warmup && latency(run, &run->flips[i], &v[n]))
			n++;
	sorted = v;
	fl_stats_compute(sorted, n, &s);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		WIDTH, 2 * PANEL_H, WIDTH, 2 * PANEL_H);
	if (n) {
		histogram(f, run, sorted, n, &s, what);
		timeline(f, run, &s, what);
	} else {
		text(f, WIDTH / 2.0, PANEL_H, "middle", " font-size=\"15\"",
		     "no flip completed: nothing to plot");
	}
	fputs("</svg>\n", f);
	free(v);
	if (ferror(f)) {
		errno = EIO;
		return -1;
	}
	return 0;
}
