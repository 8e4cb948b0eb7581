/* SPDX-License-Identifier: MIT */
/*
 * What the SVG writers (svg.c: histograms and the per-row timeline;
 * frames.c: the frame timeline) share: the page's geometry and a few
 * drawing helpers. Internal to libreport.
 */
#ifndef SVG_DRAW_H
#define SVG_DRAW_H

#include "report.h"

#define SVG_WIDTH	900
#define SVG_LEFT	70
#define SVG_RIGHT	20
#define SVG_PLOT_W	(SVG_WIDTH - SVG_LEFT - SVG_RIGHT)
#define SVG_RED		"#d62728"

/* <text> at (@x, @y), @anchor start/middle/end, @extra attributes, @s escaped. */
void svg_text(FILE *f, double x, double y, const char *anchor, const char *extra,
	      const char *s);
/* A "nice" tick step (1, 2 or 5 times a power of ten) for @span in ~@n steps. */
double svg_tick_step(double span, int n);
/* Ticks and labels of an x axis over [@x0, @x1] under a plot whose bottom is @y. */
void svg_x_ticks(FILE *f, double y, double x0, double x1);

/* frames.c: the frame timeline's height (0 without marks), and drawing it at @y0. */
int rp_svg_frames_height(const struct rp_samples *s);
void rp_svg_frames(FILE *f, int y0, const struct rp_samples *s, const struct rp_svg *how);

#endif /* SVG_DRAW_H */
