// SPDX-License-Identifier: MIT
/*
 * The frame timeline: a run's story as a gpuvis-style picture. One row per
 * flip or frame, time left to right, a bar from its first mark (submit,
 * commit) through each later one (latch, signal, wake; present), coloured
 * by the stage it ends, over the grid of the vblanks its output had. A row
 * that missed a vblank it could have made is outlined in red and says how
 * many.
 *
 * A run has hundreds of rows and a readable picture some sixteen, so it
 * shows two windows of group 0's counted rows: the first ones, and the ones
 * around the worst (the most vblanks missed, else the longest from first to
 * last mark), each titled with which rows it holds and why.
 *
 * Under variable refresh there is no grid: the lines behind are the
 * refreshes themselves, each as it began (at a flip's flush, held to the
 * maximum rate, or a frame the display repeated on its own at 1/MIN s).
 * A tearing flip is on screen at once, between vblanks: a tick across its
 * row where it took effect, and no grid (its event is no vblank to anchor
 * one on). A second legend line names what the window shows of these.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "svg-draw.h"

#define ROW_H		18
#define BAR_H		10
#define TOP		74	/* the title, what the window holds, the legend */
#define BOTTOM		45
#define MAX_GRID	400	/* vblank lines a window draws at most */
#define LEGEND_H	16	/* the second legend line, when there is one */
#define TEAR_COLOUR	"#e377c2"

/* Refresh lines under VRR: how each kind is drawn, by enum rp_refresh. */
static const char *const refresh_names[] = { "vblank", "flush", "wait", "tear" };
static const char *const refresh_colours[] = { "#bbb", "#17becf", "#bcbd22", TEAR_COLOUR };
#define REPEAT_COLOUR	"#9467bd"

static const char *const stage_colours[RP_MAX_MARKS] = {
	"#333", "#8c564b", "#1f77b4", "#ff7f0e", "#2ca02c",
};

struct window {
	size_t first, n;	/* into the group's rows */
	bool around_worst;
};

/* Group 0's counted rows that have a first mark, in order, into @idx. */
static size_t group_rows(const struct rp_samples *s, size_t *idx)
{
	size_t i, n = 0;

	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].group == 0 && s->rows[i].counted && *rp_mark(s, i, 0))
			idx[n++] = i;
	return n;
}

/* The last mark row @r observed (0 if only its first). */
static size_t last_mark(const struct rp_samples *s, size_t r)
{
	size_t k, last = 0;

	for (k = 1; k < s->marks.n; k++)
		last = *rp_mark(s, r, k) ? k : last;
	return last;
}

static int64_t span_ns(const struct rp_samples *s, size_t r)
{
	return *rp_mark(s, r, last_mark(s, r)) - *rp_mark(s, r, 0);
}

/* The worst of @n rows @idx: the most vblanks missed, then the longest. */
static size_t worst_of(const struct rp_samples *s, const size_t *idx, size_t n)
{
	size_t i, w = 0;

	for (i = 1; i < n; i++) {
		const struct rp_row *a = &s->rows[idx[i]], *b = &s->rows[idx[w]];

		if (a->missed > b->missed ||
		    (a->missed == b->missed && span_ns(s, idx[i]) > span_ns(s, idx[w])))
			w = i;
	}
	return w;
}

/* The windows over @n rows: the first ones, and those around the worst. */
static size_t plan(const struct rp_samples *s, const size_t *idx, size_t n, struct window *w)
{
	size_t worst, start;

	if (!n)
		return 0;
	w[0] = (struct window){ 0, n < RP_FRAMES_WINDOW ? n : RP_FRAMES_WINDOW, false };
	worst = worst_of(s, idx, n);
	if (worst < w[0].n)
		return 1;
	start = worst > w[0].n + RP_FRAMES_WINDOW / 2 ? worst - RP_FRAMES_WINDOW / 2 : w[0].n;
	if (start + RP_FRAMES_WINDOW > n)
		start = n - RP_FRAMES_WINDOW > w[0].n ? n - RP_FRAMES_WINDOW : w[0].n;
	w[1] = (struct window){ start, n - start < RP_FRAMES_WINDOW ? n - start : RP_FRAMES_WINDOW,
				true };
	return 2;
}

/* Whether any row has refresh @kind. */
static bool has_refresh(const struct rp_samples *s, enum rp_refresh kind)
{
	size_t i;

	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].refresh == kind)
			return true;
	return false;
}

/* Variable refresh: the rows' refreshes are drawn instead of a grid. */
static bool variable(const struct rp_samples *s)
{
	return has_refresh(s, RP_REFRESH_FLUSH) || has_refresh(s, RP_REFRESH_WAIT);
}

/* The space above a window's plot: titles and one or two legend lines. */
static int top_of(const struct rp_samples *s)
{
	return TOP + (variable(s) || has_refresh(s, RP_REFRESH_TEAR) ? LEGEND_H : 0);
}

static int window_height(const struct rp_samples *s, const struct window *w)
{
	return top_of(s) + (int)w->n * ROW_H + BOTTOM;
}

int rp_svg_frames_height(const struct rp_samples *s)
{
	size_t *idx, n, i, nw;
	struct window w[2];
	int h = 0;

	if (!s->marks.n || !s->nrows)
		return 0;
	idx = malloc(s->nrows * sizeof(*idx));
	if (!idx)
		return 0;
	n = group_rows(s, idx);
	nw = plan(s, idx, n, w);
	for (i = 0; i < nw; i++)
		h += window_height(s, &w[i]);
	free(idx);
	return h;
}

/* Why the second window's row is the worst, e.g. "missed 2 vblanks". */
static void worst_reason(char *buf, size_t size, const struct rp_samples *s, size_t r)
{
	const struct rp_row *row = &s->rows[r];

	if (row->missed)
		snprintf(buf, size, "missed %u vblank%s it could have made", row->missed,
			 row->missed == 1 ? "" : "s");
	else
		snprintf(buf, size, "%s to %s %.2f ms, the longest; none missed a vblank",
			 s->marks.names[0], s->marks.names[last_mark(s, r)],
			 span_ns(s, r) / 1e6);
}

/* Whether any row observed mark @k. */
static bool observed(const struct rp_samples *s, size_t k)
{
	size_t i;

	for (i = 0; i < s->nrows; i++)
		if (*rp_mark(s, i, k))
			return true;
	return false;
}

/* A legend entry: a line @dash (NULL: solid) in @colour, then @label; the next x. */
static double legend_line(FILE *f, double x, double y, const char *colour, const char *dash,
			  double width, const char *label)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-width=\"%.1f\"%s%s%s/>\n", x + 7, y - BAR_H, x + 7, y + 2, colour, width,
		dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
	svg_text(f, x + 14, y, "start", " font-size=\"11\"", label);
	return x + 34 + 6.2 * strlen(label);
}

/* The second legend line: the kinds of refresh and of flip the rows show. */
static void legend_refreshes(FILE *f, const struct rp_samples *s, double y)
{
	double x = SVG_LEFT;

	fprintf(f, "<g class=\"legend-refreshes\">\n");
	if (variable(s)) {
		x = legend_line(f, x, y, refresh_colours[RP_REFRESH_FLUSH], NULL, 2,
				"VRR refresh started by the flip's flush");
		x = legend_line(f, x, y, refresh_colours[RP_REFRESH_WAIT], NULL, 2,
				"held to the max rate");
		x = legend_line(f, x, y, REPEAT_COLOUR, "3 2", 1.5,
				"frame repeated by the display (1/MIN)");
	}
	if (has_refresh(s, RP_REFRESH_TEAR))
		legend_line(f, x, y, TEAR_COLOUR, NULL, 2.5,
			    "tearing flip: on screen at once, between vblanks");
	fputs("</g>\n", f);
}

/* The legend: a swatch per stage observed, the grid, the late outline. */
static void legend(FILE *f, const struct rp_samples *s, double y)
{
	double x = SVG_LEFT;
	char label[64];
	size_t k;

	for (k = 1; k < s->marks.n; k++) {
		if (!observed(s, k))
			continue;
		snprintf(label, sizeof(label), "to %s", s->marks.names[k]);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"%d\" fill=\"%s\"/>\n",
			x, y - BAR_H + 1, BAR_H, stage_colours[k]);
		svg_text(f, x + 18, y, "start", " font-size=\"11\"", label);
		x += 28 + 6.2 * strlen(label);
	}
	/* Under VRR the refreshes are drawn instead; a tear's vblanks are not known. */
	if (!variable(s) && !has_refresh(s, RP_REFRESH_TEAR)) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#bbb\"/>\n", x + 7, y - BAR_H, x + 7, y + 2);
		svg_text(f, x + 14, y, "start", " font-size=\"11\"", "vblank");
		x += 70;
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"%d\" fill=\"none\" "
		"stroke=\"" SVG_RED "\" stroke-width=\"1.5\"/>\n", x, y - BAR_H + 1, BAR_H);
	svg_text(f, x + 18, y, "start", " font-size=\"11\"", "missed a vblank it could have made");
	if (top_of(s) > TOP)
		legend_refreshes(f, s, y + LEGEND_H);
}

static double x_of(int64_t t, int64_t t0, int64_t t1)
{
	return SVG_LEFT + (double)(t - t0) / (double)(t1 - t0) * SVG_PLOT_W;
}

/* The vblanks in [@t0, @t1] ns, from the first of @n @rows that know them. */
static size_t grid(FILE *f, const struct rp_samples *s, const size_t *rows, size_t n,
		   int64_t t0, int64_t t1, double ytop, double ybottom)
{
	int64_t period = 0, anchor = 0, k, k0, k1;
	size_t i, lines = 0;

	for (i = 0; i < n && (!period || !anchor); i++) {
		period = period ? period : s->rows[rows[i]].period_ns;
		anchor = anchor ? anchor : *rp_mark(s, rows[i], s->marks.vblank);
	}
	if (period <= 0 || !anchor || (t1 - t0) / period > MAX_GRID)
		return 0;
	k0 = (t0 - anchor) / period - 1;
	k1 = (t1 - anchor) / period + 1;
	for (k = k0; k <= k1; k++) {
		int64_t t = anchor + k * period;

		if (t < t0 || t > t1)
			continue;
		fprintf(f, "<line class=\"vblank\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#bbb\"/>\n", x_of(t, t0, t1), ytop, x_of(t, t0, t1), ybottom);
		lines++;
	}
	return lines;
}

/* A vertical line of kind @kind at @t behind the rows, if inside [@t0, @t1]. */
static void refresh_line(FILE *f, const char *kind, const char *colour, const char *dash,
			 int64_t t, int64_t t0, int64_t t1, double ytop, double ybottom)
{
	if (t < t0 || t > t1)
		return;
	fprintf(f, "<line class=\"refresh\" data-refresh=\"%s\" x1=\"%.1f\" y1=\"%.1f\" "
		"x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"%s%s%s/>\n", kind,
		x_of(t, t0, t1), ytop, x_of(t, t0, t1), ybottom, colour,
		dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
}

/*
 * Variable refresh: each of @n @rows' refreshes (its vblank mark) and the
 * frames the display repeated before it, in [@t0, @t1] ns.
 */
static void refreshes(FILE *f, const struct rp_samples *s, const size_t *rows, size_t n,
		      int64_t t0, int64_t t1, double ytop, double ybottom)
{
	size_t i;
	unsigned int j;

	for (i = 0; i < n; i++) {
		const struct rp_row *r = &s->rows[rows[i]];
		int64_t t = *rp_mark(s, rows[i], s->marks.vblank);

		for (j = 1; j <= r->repeats && r->repeat_ns > 0; j++)
			refresh_line(f, "repeat", REPEAT_COLOUR, "3 2",
				     r->repeat_from_ns + (int64_t)j * r->repeat_ns, t0, t1, ytop,
				     ybottom);
		if (t && r->refresh != RP_REFRESH_TEAR)
			refresh_line(f, refresh_names[r->refresh], refresh_colours[r->refresh],
				     NULL, t, t0, t1, ytop, ybottom);
	}
}

/* One row: its stages as bars, a red outline and a label if it was late. */
static void row(FILE *f, const struct rp_samples *s, size_t r, double y, int64_t t0, int64_t t1)
{
	const struct rp_row *rw = &s->rows[r];
	int64_t from = *rp_mark(s, r, 0), to;
	double x0 = x_of(from, t0, t1), xend = x0;
	char label[48];
	size_t k;

	fprintf(f, "<g class=\"frame\" data-index=\"%u\" data-missed=\"%u\" data-refresh=\"%s\">\n",
		rw->index, rw->missed, refresh_names[rw->refresh]);
	snprintf(label, sizeof(label), "#%u", rw->index);
	svg_text(f, SVG_LEFT - 6, y + BAR_H - 1, "end", " font-size=\"10\"", label);
	for (k = 1; k < s->marks.n; k++) {
		double xa, xb;

		to = *rp_mark(s, r, k);
		if (!to)
			continue;
		xa = x_of(from, t0, t1);
		xb = x_of(to, t0, t1);
		/* A stage of no length (or a mark before the last) stays visible. */
		fprintf(f, "<rect class=\"stage\" data-stage=\"%s\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", s->marks.names[k],
			fmin(xa, xb), y, fmax(fabs(xb - xa), 1), BAR_H, stage_colours[k]);
		xend = fmax(xend, fmax(xa, xb));
		from = to > from ? to : from;
	}
	to = *rp_mark(s, r, s->marks.vblank);
	if (rw->refresh == RP_REFRESH_TEAR && to)
		fprintf(f, "<line class=\"tear\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"" TEAR_COLOUR "\" stroke-width=\"2.5\"/>\n", x_of(to, t0, t1),
			y - 3, x_of(to, t0, t1), y + BAR_H + 3);
	if (!last_mark(s, r)) {
		/* Discarded, or no feedback or event: a dot where it began. */
		fprintf(f, "<circle class=\"unshown\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
			"fill=\"#999\"/>\n", x0, y + BAR_H / 2.0);
		if (x0 + 200 < SVG_LEFT + SVG_PLOT_W)
			svg_text(f, x0 + 6, y + BAR_H - 1, "start",
				 " font-size=\"10\" fill=\"#555\"", "never shown");
		else
			svg_text(f, x0 - 6, y + BAR_H - 1, "end",
				 " font-size=\"10\" fill=\"#555\"", "never shown");
	}
	if (rw->missed) {
		fprintf(f, "<rect class=\"late\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
			"fill=\"none\" stroke=\"" SVG_RED "\" stroke-width=\"1.5\"/>\n", x0 - 2,
			y - 2, xend - x0 + 4, BAR_H + 4);
		snprintf(label, sizeof(label), "missed %u", rw->missed);
		/* Right of the bar, or left of it where the page ends. */
		if (xend + 70 < SVG_LEFT + SVG_PLOT_W)
			svg_text(f, xend + 6, y + BAR_H - 1, "start",
				 " font-size=\"10\" fill=\"" SVG_RED "\"", label);
		else
			svg_text(f, x0 - 6, y + BAR_H - 1, "end",
				 " font-size=\"10\" fill=\"" SVG_RED "\"", label);
	}
	fputs("</g>\n", f);
}

static void window(FILE *f, int y0, const struct rp_samples *s, const struct rp_svg *how,
		   const size_t *idx, const struct window *w, size_t worst)
{
	const size_t *rows = idx + w->first;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN, pad, origin;
	double plot_h = (double)w->n * ROW_H + 8, ytop = y0 + top_of(s);
	char title[200], which[200], xlabel[96];
	size_t i, k;

	for (i = 0; i < w->n; i++) {
		for (k = 0; k < s->marks.n; k++) {
			int64_t t = *rp_mark(s, rows[i], k);

			if (!t)
				continue;
			t0 = t < t0 ? t : t0;
			t1 = t > t1 ? t : t1;
		}
	}
	pad = (t1 - t0) / 50 + 1;
	t0 -= pad;
	t1 += pad;
	if (w->around_worst) {
		char why[120];

		worst_reason(why, sizeof(why), s, idx[worst]);
		snprintf(title, sizeof(title), "%s #%u-#%u, around the worst%s%s", how->noun,
			 s->rows[rows[0]].index, s->rows[rows[w->n - 1]].index,
			 how->ngroups > 1 ? ", of " : "", how->ngroups > 1 ? how->group_names[0] : "");
		snprintf(which, sizeof(which), "the worst: #%u, %s", s->rows[idx[worst]].index, why);
	} else {
		snprintf(title, sizeof(title), "%s #%u-#%u, the first counted%s%s", how->noun,
			 s->rows[rows[0]].index, s->rows[rows[w->n - 1]].index,
			 how->ngroups > 1 ? ", of " : "", how->ngroups > 1 ? how->group_names[0] : "");
		snprintf(which, sizeof(which), "the first %zu %s after the warm-up", w->n, how->noun);
	}
	/* "flips #10-#40 ...": a title starts with a capital. */
	title[0] = (char)toupper((unsigned char)title[0]);
	fprintf(f, "<g class=\"frames\" data-window=\"%s\" data-rows=\"%zu\">\n",
		w->around_worst ? "worst" : "first", w->n);
	svg_text(f, SVG_WIDTH / 2.0, y0 + 20, "middle", " font-size=\"15\" font-weight=\"bold\"",
		 title);
	svg_text(f, SVG_WIDTH / 2.0, y0 + 38, "middle", " class=\"which\" font-size=\"12\"", which);
	legend(f, s, ytop - 12 - (top_of(s) - TOP));
	fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#333\"/>\n", SVG_LEFT, ytop, SVG_PLOT_W, plot_h);
	/* A tearing flip's event is no vblank: no grid to anchor on it. */
	if (variable(s))
		refreshes(f, s, rows, w->n, t0, t1, ytop, ytop + plot_h);
	else if (!has_refresh(s, RP_REFRESH_TEAR))
		grid(f, s, rows, w->n, t0, t1, ytop, ytop + plot_h);
	for (i = 0; i < w->n; i++)
		row(f, s, rows[i], ytop + 4 + (double)i * ROW_H, t0, t1);
	/* The axis in ms from the window's first mark. */
	origin = *rp_mark(s, rows[0], 0);
	svg_x_ticks(f, ytop + plot_h, (t0 - origin) / 1e6, (t1 - origin) / 1e6);
	snprintf(xlabel, sizeof(xlabel), "ms since #%u's %s %s", s->rows[rows[0]].index,
		 s->marks.names[0], how->subject);
	svg_text(f, SVG_LEFT + SVG_PLOT_W / 2.0, ytop + plot_h + 34, "middle", " font-size=\"12\"",
		 xlabel);
	fputs("</g>\n", f);
}

void rp_svg_frames(FILE *f, int y0, const struct rp_samples *s, const struct rp_svg *how)
{
	size_t *idx, n, i, nw, worst;
	struct window w[2];

	if (!s->marks.n || !s->nrows)
		return;
	idx = malloc(s->nrows * sizeof(*idx));
	if (!idx)
		return;
	n = group_rows(s, idx);
	nw = plan(s, idx, n, w);
	worst = n ? worst_of(s, idx, n) : 0;
	for (i = 0; i < nw; i++) {
		window(f, y0, s, how, idx, &w[i], worst);
		y0 += window_height(s, &w[i]);
	}
	free(idx);
}
