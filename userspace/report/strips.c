// SPDX-License-Identifier: MIT
/*
 * Strips: one metric on several setups, side by side (see report.h). Made
 * for questions like wlroots' about OUT_FENCE_PTR, where the answer is how
 * one driver's values sit against another's, not one distribution's shape.
 */
#include <stdlib.h>

#include "svg-draw.h"

#define HEAD_H		56	/* the page's title and subtitle */
#define TOP		34	/* a panel's title */
#define STRIP_H		56	/* a strip: its label, then its dots */
#define BOTTOM		48
#define DOTS_H		26

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank of @p percent in @n sorted values. */
static double rank(const double *v, size_t n, double p)
{
	size_t r = (size_t)ceil(p / 100 * n);

	return v[r ? r - 1 : 0];
}

static int panel_height(const struct rp_strip_panel *p)
{
	return TOP + (int)p->nseries * STRIP_H + BOTTOM;
}

static double x_of(double v, double lo, double hi)
{
	return SVG_LEFT + (v - lo) / (hi - lo) * SVG_PLOT_W;
}

static void strip(FILE *f, double y, const struct rp_series *s, const char *unit, double lo,
		  double hi)
{
	size_t i, beyond = 0;
	char label[256];

	for (i = 0; i < s->n; i++)
		beyond += s->v[i] < lo || s->v[i] > hi;
	if (s->n)
		snprintf(label, sizeof(label), "%s: p50 %.1f, p99 %.1f, max %.1f %s (n = %zu)",
			 s->label, rank(s->v, s->n, 50), rank(s->v, s->n, 99), s->v[s->n - 1],
			 unit, s->n);
	else
		snprintf(label, sizeof(label), "%s: nothing measured", s->label);
	fprintf(f, "<g class=\"strip\" data-n=\"%zu\" data-beyond=\"%zu\">\n", s->n, beyond);
	svg_text(f, SVG_LEFT + 4, y + 14, "start", " font-size=\"12\"", label);
	if (beyond) {
		snprintf(label, sizeof(label), "%zu beyond the axis, on its edges", beyond);
		svg_text(f, SVG_LEFT + SVG_PLOT_W - 4, y + 14, "end",
			 " font-size=\"11\" fill=\"#555\"", label);
	}
	for (i = 0; i < s->n; i++) {
		/* A fixed scatter across the strip's height, so dots do not hide dots. */
		double dy = (double)((i * 7919) % 97) / 96 * (DOTS_H - 6);
		double v = fmin(fmax(s->v[i], lo), hi);

		fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\" "
			"fill-opacity=\"0.5\"/>\n", v == s->v[i] ? "value" : "beyond",
			x_of(v, lo, hi), y + 22 + dy, v == s->v[i] ? "#1f77b4" : SVG_RED);
	}
	for (i = 0; s->n && i < 2; i++) {
		double x = x_of(fmin(fmax(rank(s->v, s->n, i ? 99 : 50), lo), hi), lo, hi);

		fprintf(f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2\"/>\n", i ? "p99" : "p50", x, y + 18, x,
			y + 20 + DOTS_H, i ? SVG_RED : "#333");
	}
	fputs("</g>\n", f);
}

static void panel(FILE *f, int y0, struct rp_strip_panel *p)
{
	double lo = INFINITY, hi = -INFINITY, pad;
	double plot_h = (double)p->nseries * STRIP_H;
	char xlabel[128];
	size_t i;

	for (i = 0; i < p->nseries; i++) {
		struct rp_series *s = &p->series[i];

		qsort(s->v, s->n, sizeof(*s->v), cmp_double);
		if (!s->n)
			continue;
		lo = fmin(lo, rank(s->v, s->n, 1));
		hi = fmax(hi, rank(s->v, s->n, 99));
	}
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	/* Zero in view: "how late" reads against "not late at all". */
	lo = fmin(lo, 0);
	hi = fmax(hi, 0);
	pad = fmax((hi - lo) * 0.04, 0.5);
	lo -= pad;
	hi += pad;
	fprintf(f, "<g class=\"strips\">\n");
	svg_text(f, SVG_WIDTH / 2.0, y0 + 22, "middle", " font-size=\"15\" font-weight=\"bold\"",
		 p->title);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#333\"/>\n", SVG_LEFT, y0 + TOP, SVG_PLOT_W, plot_h);
	fprintf(f, "<line class=\"zero\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#999\" stroke-dasharray=\"3 3\"/>\n", x_of(0, lo, hi), y0 + TOP,
		x_of(0, lo, hi), y0 + TOP + plot_h);
	for (i = 0; i < p->nseries; i++) {
		if (i)
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				"stroke=\"#ddd\"/>\n", SVG_LEFT, y0 + TOP + (double)i * STRIP_H,
				SVG_LEFT + SVG_PLOT_W, y0 + TOP + (double)i * STRIP_H);
		strip(f, y0 + TOP + (double)i * STRIP_H, &p->series[i], p->unit, lo, hi);
	}
	svg_x_ticks(f, y0 + TOP + plot_h, lo, hi);
	snprintf(xlabel, sizeof(xlabel), "%s (%s); black tick p50, red tick p99", p->title,
		 p->unit);
	svg_text(f, SVG_WIDTH / 2.0, y0 + TOP + plot_h + 36, "middle", " font-size=\"12\"",
		 xlabel);
	fputs("</g>\n", f);
}

int rp_svg_strips(FILE *f, const char *title, const char *subtitle,
		  struct rp_strip_panel *panels, size_t npanels)
{
	int height = HEAD_H, y0 = HEAD_H;
	size_t i;

	for (i = 0; i < npanels; i++)
		height += panel_height(&panels[i]);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	svg_text(f, SVG_WIDTH / 2.0, 24, "middle", " font-size=\"17\" font-weight=\"bold\"", title);
	if (subtitle)
		svg_text(f, SVG_WIDTH / 2.0, 44, "middle", " font-size=\"12\" fill=\"#333\"",
			 subtitle);
	for (i = 0; i < npanels; i++) {
		panel(f, y0, &panels[i]);
		y0 += panel_height(&panels[i]);
	}
	fputs("</svg>\n", f);
	return rp_finish(f);
}
