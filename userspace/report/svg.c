// SPDX-License-Identifier: MIT
/*
 * A standalone SVG (no scripts, no external references): one histogram per
 * time metric, each with its p50 and p99 marked and a y axis that reaches
 * above its tallest bar, then one metric per row in order, one colour per
 * group, flagged rows ringed in red.
 */
#include <errno.h>
#include <stdlib.h>

#include "report.h"

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

/* The y axis's top: the tallest bar rounded up to a whole tick. */
static double axis_top(double tallest)
{
	double step = tick_step(tallest, 5);

	return ceil(tallest / step) * step;
}

static void histogram(FILE *f, int y0, const struct rp_metric *m, const struct rp_svg *how,
		      const double *v, const struct rp_stats *s)
{
	unsigned int counts[MAX_BINS] = { 0 }, bins, b, tallest = 1;
	double lo = s->min, hi = s->max, width, ymax;
	char title[200], xlabel[64];
	size_t i;

	bins = (unsigned int)ceil(sqrt((double)s->n));
	bins = bins < 5 ? 5 : bins > MAX_BINS ? MAX_BINS : bins;
	if (hi - lo < 1) {
		lo -= 0.5;
		hi += 0.5;
	}
	width = (hi - lo) / bins;
	for (i = 0; i < s->n; i++) {
		b = (unsigned int)((v[i] - lo) / width);
		counts[b < bins ? b : bins - 1]++;
	}
	for (b = 0; b < bins; b++)
		tallest = counts[b] > tallest ? counts[b] : tallest;
	ymax = axis_top(tallest);

	snprintf(title, sizeof(title), "%s %s, %zu %s", m->name, how->subject, s->n, how->noun);
	snprintf(xlabel, sizeof(xlabel), "%s (%s)", m->name, m->unit);
	fprintf(f, "<g class=\"histogram\" data-metric=\"%s\" data-ymax=\"%g\">\n", m->name,
		ymax);
	axes(f, y0, lo, hi, ymax, xlabel, how->noun, title);
	for (b = 0; b < bins; b++) {
		double h = (double)counts[b] / ymax * PLOT_H;

		fprintf(f, "<rect class=\"bar\" data-count=\"%u\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"#1f77b4\"/>\n", counts[b],
			LEFT + (double)b / bins * PLOT_W, y0 + TOP + PLOT_H - h,
			(double)PLOT_W / bins - 1, h);
	}
	for (i = 0; i < 2; i++) {
		double p = i ? s->p99 : s->p50;
		double x = LEFT + (p - lo) / (hi - lo) * PLOT_W;
		char label[48];

		snprintf(label, sizeof(label), "%s %.1f %s", i ? "p99" : "p50", p, m->unit);
		fprintf(f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n", i ? "p99" : "p50",
			x, y0 + TOP, x, y0 + TOP + PLOT_H);
		text(f, x + 3, y0 + TOP + 12 + 14 * i, "start",
		     " font-size=\"11\" fill=\"#d62728\"", label);
	}
	fputs("</g>\n", f);
}

static void timeline(FILE *f, int y0, const struct rp_samples *s, const struct rp_svg *how,
		     const struct rp_stats *st)
{
	double top = st->max > 0 ? st->max * 1.05 : 1, last = 1;
	char title[200], xlabel[64], ylabel[64];
	size_t i;

	for (i = 0; i < s->nrows; i++)
		last = s->rows[i].index > last ? s->rows[i].index : last;
	snprintf(title, sizeof(title), "%s per %s (red ring: %s)", how->timeline_label,
		 how->noun, how->flag_label);
	snprintf(xlabel, sizeof(xlabel), "%s, in order", how->noun);
	snprintf(ylabel, sizeof(ylabel), "%s (%s)", how->timeline_label,
		 s->metrics[how->timeline_metric].unit);
	fputs("<g class=\"timeline\">\n", f);
	axes(f, y0, 0, last, top, xlabel, ylabel, title);
	for (i = 0; i < s->nrows; i++) {
		const struct rp_row *r = &s->rows[i];
		double v = *rp_value(s, i, how->timeline_metric), x, y;

		if (!r->counted || isnan(v))
			continue;
		x = LEFT + r->index / last * PLOT_W;
		y = y0 + TOP + PLOT_H - v / top * PLOT_H;
		fprintf(f, "<circle class=\"flip\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\" fill=\"%s\"/>\n",
			x, y, colours[r->group % 4]);
		if (r->flagged)
			fprintf(f, "<circle class=\"missed\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"none\" stroke=\"#d62728\"/>\n", x, y);
	}
	for (i = 0; how->ngroups > 1 && i < how->ngroups; i++) {
		fprintf(f, "<rect x=\"%d\" y=\"%zu\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			LEFT + 10, y0 + TOP + 8 + 16 * i, colours[i % 4]);
		text(f, LEFT + 26, y0 + TOP + 17 + 16 * i, "start", " font-size=\"11\"",
		     how->group_names[i]);
	}
	fputs("</g>\n", f);
}

/* Metric @m over the counted rows into @v (sorted), and its statistics. */
static void metric_values(const struct rp_samples *s, size_t m, double *v, struct rp_stats *st)
{
	rp_stats_compute(v, rp_samples_values(s, m, -1, v), st);
}

int rp_svg_write(FILE *f, const struct rp_samples *s, const struct rp_svg *how)
{
	double *v = malloc((s->nrows ? s->nrows : 1) * sizeof(*v));
	struct rp_stats st;
	int panels = 1, y0 = 0;
	size_t m;

	if (!v)
		return -1;
	for (m = 0; m < s->nmetrics; m++) {
		metric_values(s, m, v, &st);
		panels += rp_metric_is_time(&s->metrics[m]) && st.n;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		WIDTH, panels * PANEL_H, WIDTH, panels * PANEL_H);
	for (m = 0; m < s->nmetrics; m++) {
		if (!rp_metric_is_time(&s->metrics[m]))
			continue;
		metric_values(s, m, v, &st);
		if (!st.n)
			continue;
		histogram(f, y0, &s->metrics[m], how, v, &st);
		y0 += PANEL_H;
	}
	metric_values(s, how->timeline_metric, v, &st);
	if (st.n) {
		timeline(f, y0, s, how, &st);
	} else {
		char none[96];

		snprintf(none, sizeof(none), "no %s completed: nothing to plot", how->noun);
		text(f, WIDTH / 2.0, y0 + PANEL_H / 2.0, "middle", " font-size=\"15\"", none);
	}
	fputs("</svg>\n", f);
	free(v);
	return rp_finish(f);
}
