// SPDX-License-Identifier: MIT
/*
 * A standalone SVG (no scripts, no external references): a header line,
 * the frame timeline (frames.c) when the rows have marks, one histogram per
 * time metric, then one metric per row in order, one colour per group,
 * flagged rows ringed in red.
 *
 * One outlier must not hide the jitter a compositor developer looks for:
 * a histogram bins [p1, p99] and counts the rows outside it in a label,
 * and the per-row timeline's y axis stops a little above the p99, with the
 * rows beyond drawn as marks on its edge. A metric that is constant gets a
 * line in the header, not a panel. Labels sit above the plots, anchored so
 * that they cannot run off the page.
 */
#include <errno.h>
#include <stdlib.h>

#include "svg-draw.h"

#define PANEL_H		330
#define TOP		54	/* the title, then a line of labels */
#define BOTTOM		45
#define PLOT_H		(PANEL_H - TOP - BOTTOM)
#define HEADER_H	40	/* two lines: what ran, the constant metrics */
#define MAX_BINS	50
#define LEFT		SVG_LEFT
#define PLOT_W		SVG_PLOT_W

static const char *const colours[] = { "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e" };

void svg_text(FILE *f, double x, double y, const char *anchor, const char *extra,
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

double svg_tick_step(double span, int n)
{
	double raw = span / n, mag, r;

	if (raw <= 0)
		return 1;
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

void svg_x_ticks(FILE *f, double y, double x0, double x1)
{
	double step = svg_tick_step(x1 - x0, 8);
	char buf[64];
	long k;

	for (k = (long)ceil(x0 / step); k * step <= x1 + step * 1e-9; k++) {
		double v = k * step, x = LEFT + (v - x0) / (x1 - x0) * PLOT_W;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
			x, y, x, y + 5);
		/* -0 reads as a bug */
		snprintf(buf, sizeof(buf), "%g", fabs(v) < step * 1e-9 ? 0 : v);
		svg_text(f, x, y + 18, "middle", " font-size=\"11\"", buf);
	}
}

/* Axes of a panel at vertical offset @y0 with x in [@x0, @x1], y in [@ymin, @ymax]. */
static void axes(FILE *f, int y0, double x0, double x1, double ymin, double ymax,
		 const char *xlabel, const char *ylabel, const char *title)
{
	double step, v;
	char buf[64];
	long k;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#333\"/>\n", LEFT, y0 + TOP, PLOT_W, PLOT_H);
	svg_text(f, SVG_WIDTH / 2.0, y0 + 22, "middle", " font-size=\"15\" font-weight=\"bold\"",
		 title);
	svg_text(f, LEFT + PLOT_W / 2.0, y0 + PANEL_H - 8, "middle", "", xlabel);
	fprintf(f, "<g transform=\"translate(16 %d) rotate(-90)\">", y0 + TOP + PLOT_H / 2);
	svg_text(f, 0, 0, "middle", "", ylabel);
	fputs("</g>\n", f);
	svg_x_ticks(f, y0 + TOP + PLOT_H, x0, x1);
	step = svg_tick_step(ymax - ymin, 5);
	for (k = (long)ceil(ymin / step); k * step <= ymax + step * 1e-9; k++) {
		double y;

		v = k * step;
		y = y0 + TOP + PLOT_H - (v - ymin) / (ymax - ymin) * PLOT_H;
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			LEFT, y, LEFT + PLOT_W, y);
		snprintf(buf, sizeof(buf), "%g", v);
		svg_text(f, LEFT - 6, y + 4, "end", " font-size=\"11\"", buf);
	}
}

/* The y axis's top: the tallest bar rounded up to a whole tick. */
static double axis_top(double tallest)
{
	double step = svg_tick_step(tallest, 5);

	return ceil(tallest / step) * step;
}

/* The nearest-rank @p percentile of @n sorted values. */
static double percentile(const double *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100 * n);

	return v[rank ? rank - 1 : 0];
}

/* A histogram of @s->n sorted values @v over [p1, p99]. */
static void histogram(FILE *f, int y0, const struct rp_metric *m, const struct rp_svg *how,
		      const double *v, const struct rp_stats *s)
{
	unsigned int counts[MAX_BINS] = { 0 }, bins, b, tallest = 1;
	double lo = percentile(v, s->n, 1), hi = s->p99, width, ymax;
	char title[200], xlabel[64], label[160];
	size_t i, below = 0, above = 0, inside = 0;

	if (hi - lo < 1) {
		lo -= 0.5;
		hi += 0.5;
	}
	for (i = 0; i < s->n; i++)
		inside += v[i] >= lo && v[i] <= hi;
	bins = (unsigned int)ceil(sqrt((double)inside));
	bins = bins < 5 ? 5 : bins > MAX_BINS ? MAX_BINS : bins;
	width = (hi - lo) / bins;
	for (i = 0; i < s->n; i++) {
		if (v[i] < lo) {
			below++;
			continue;
		}
		if (v[i] > hi) {
			above++;
			continue;
		}
		b = (unsigned int)((v[i] - lo) / width);
		counts[b < bins ? b : bins - 1]++;
	}
	for (b = 0; b < bins; b++)
		tallest = counts[b] > tallest ? counts[b] : tallest;
	ymax = axis_top(tallest);

	snprintf(title, sizeof(title), "%s %s, %zu %s", m->name, how->subject, s->n, how->noun);
	snprintf(xlabel, sizeof(xlabel), "%s (%s), p1 to p99", m->name, m->unit);
	fprintf(f, "<g class=\"histogram\" data-metric=\"%s\" data-ymax=\"%g\" data-below=\"%zu\" "
		"data-above=\"%zu\">\n", m->name, ymax, below, above);
	axes(f, y0, lo, hi, 0, ymax, xlabel, how->noun, title);
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

		fprintf(f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"" SVG_RED "\" stroke-dasharray=\"4 3\"/>\n", i ? "p99" : "p50",
			x, y0 + TOP, x, y0 + TOP + PLOT_H);
	}
	/* Above the plot, not on its bars: the percentiles left, the outliers right. */
	snprintf(label, sizeof(label), "dashed: p50 %.1f %s, p99 %.1f %s", s->p50, m->unit,
		 s->p99, m->unit);
	svg_text(f, LEFT, y0 + TOP - 6, "start", " font-size=\"11\" fill=\"" SVG_RED "\"", label);
	snprintf(label, sizeof(label), "left out: %zu below p1 (min %.1f), %zu above p99 (max %.1f)",
		 below, s->min, above, s->max);
	svg_text(f, LEFT + PLOT_W, y0 + TOP - 6, "end", " class=\"outliers\" font-size=\"11\" "
		 "fill=\"#555\"", label);
	fputs("</g>\n", f);
}

static void timeline(FILE *f, int y0, const struct rp_samples *s, const struct rp_svg *how,
		     const struct rp_stats *st, const double *sorted)
{
	double p1 = percentile(sorted, st->n, 1), last = 1, lo, top, margin;
	char title[240], xlabel[64], ylabel[64], label[160];
	const char *unit = s->metrics[how->timeline_metric].unit;
	size_t i, above = 0, below = 0;

	/* A quarter of the p1..p99 spread around them: the jitter stays visible. */
	margin = fmax((st->p99 - p1) / 4, fabs(st->p50) * 0.05);
	margin = margin > 0 ? margin : 1;
	lo = fmax(p1 - margin, st->min - margin / 4);
	lo = st->min >= 0 && lo < 0 ? 0 : lo;
	top = fmin(st->p99 + margin, st->max + margin / 4);
	for (i = 0; i < s->nrows; i++) {
		double v = *rp_value(s, i, how->timeline_metric);

		last = s->rows[i].index > last ? s->rows[i].index : last;
		above += s->rows[i].counted && v > top;
		below += s->rows[i].counted && v < lo;
	}
	snprintf(title, sizeof(title), "%s, all %s in order (red ring: %s)", how->timeline_label,
		 how->noun, how->flag_label);
	snprintf(xlabel, sizeof(xlabel), "%s, in order", how->noun);
	snprintf(ylabel, sizeof(ylabel), "%s (%s)", how->timeline_label, unit);
	fprintf(f, "<g class=\"timeline\" data-above=\"%zu\" data-below=\"%zu\">\n", above,
		below);
	axes(f, y0, 0, last, lo, top, xlabel, ylabel, title);
	snprintf(label, sizeof(label), "y from %.0f to %.0f %s; on its edges: %zu above (max %.1f), "
		 "%zu below (min %.1f)", lo, top, unit, above, st->max, below, st->min);
	svg_text(f, LEFT + PLOT_W, y0 + TOP - 6, "end", " font-size=\"11\" fill=\"#555\"", label);
	for (i = 0; i < s->nrows; i++) {
		const struct rp_row *r = &s->rows[i];
		double v = *rp_value(s, i, how->timeline_metric), x, y;

		if (!r->counted || isnan(v))
			continue;
		x = LEFT + r->index / last * PLOT_W;
		y = y0 + TOP + PLOT_H - (fmax(fmin(v, top), lo) - lo) / (top - lo) * PLOT_H;
		if (v > top || v < lo)
			fprintf(f, "<path class=\"clipped\" d=\"M%.1f %.1f l-4 %d h8 z\" fill=\"%s\"/>\n",
				x, y, v > top ? 7 : -7, colours[r->group % 4]);
		else
			fprintf(f, "<circle class=\"flip\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\" "
				"fill=\"%s\"/>\n", x, y, colours[r->group % 4]);
		if (r->flagged)
			fprintf(f, "<circle class=\"missed\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"none\" stroke=\"" SVG_RED "\"/>\n", x, y);
	}
	for (i = 0; how->ngroups > 1 && i < how->ngroups; i++) {
		fprintf(f, "<rect x=\"%d\" y=\"%zu\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			LEFT + 10, y0 + TOP + 8 + 16 * i, colours[i % 4]);
		svg_text(f, LEFT + 26, y0 + TOP + 17 + 16 * i, "start", " font-size=\"11\"",
			 how->group_names[i]);
	}
	fputs("</g>\n", f);
}

/* Metric @m over the counted rows into @v (sorted), and its statistics. */
static void metric_values(const struct rp_samples *s, size_t m, double *v, struct rp_stats *st)
{
	rp_stats_compute(v, rp_samples_values(s, m, -1, v), st);
}

/* A histogram of @st is worth a panel: a time, observed, not one value. */
static bool plotted(const struct rp_metric *m, const struct rp_stats *st)
{
	return rp_metric_is_time(m) && st->n && st->min != st->max;
}

/* The header: what ran, then the metrics that had one value throughout. */
static void header(FILE *f, const struct rp_samples *s, const struct rp_svg *how, double *v)
{
	char line[512] = "";
	struct rp_stats st;
	size_t m, len = 0;

	if (how->header)
		svg_text(f, 8, 16, "start", " class=\"header\" font-size=\"12\" fill=\"#333\"",
			 how->header);
	for (m = 0; m < s->nmetrics; m++) {
		metric_values(s, m, v, &st);
		if (!rp_metric_is_time(&s->metrics[m]) || !st.n || st.min != st.max ||
		    len >= sizeof(line))
			continue;
		len += snprintf(line + len, sizeof(line) - len, "%s%s %g %s", len ? ", " : "",
				s->metrics[m].name, st.min, s->metrics[m].unit);
	}
	if (len) {
		char what[600];

		snprintf(what, sizeof(what), "the same in all %s (so no histogram): %s",
			 how->noun, line);
		svg_text(f, 8, 32, "start", " class=\"constant\" font-size=\"11\" fill=\"#333\"",
			 what);
	}
}

int rp_svg_write(FILE *f, const struct rp_samples *s, const struct rp_svg *how)
{
	double *v = malloc((s->nrows ? s->nrows : 1) * sizeof(*v));
	int height = HEADER_H, y0 = HEADER_H, frames_h;
	struct rp_stats st;
	size_t m;

	if (!v)
		return -1;
	frames_h = rp_svg_frames_height(s);
	height += frames_h;
	for (m = 0; m < s->nmetrics; m++) {
		metric_values(s, m, v, &st);
		height += plotted(&s->metrics[m], &st) ? PANEL_H : 0;
	}
	height += PANEL_H;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	header(f, s, how, v);
	rp_svg_frames(f, y0, s, how);
	y0 += frames_h;
	for (m = 0; m < s->nmetrics; m++) {
		metric_values(s, m, v, &st);
		if (!plotted(&s->metrics[m], &st))
			continue;
		histogram(f, y0, &s->metrics[m], how, v, &st);
		y0 += PANEL_H;
	}
	metric_values(s, how->timeline_metric, v, &st);
	if (st.n) {
		timeline(f, y0, s, how, &st, v);
	} else {
		char none[96];

		snprintf(none, sizeof(none), "no %s completed: nothing to plot", how->noun);
		svg_text(f, SVG_WIDTH / 2.0, y0 + PANEL_H / 2.0, "middle", " font-size=\"15\"", none);
	}
	fputs("</svg>\n", f);
	free(v);
	return rp_finish(f);
}
