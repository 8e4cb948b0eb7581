/* SPDX-License-Identifier: MIT */
/*
 * The statistics and reports fliplat and presentlat share: a sample table
 * (one row per flip or frame, one column per metric), its distribution per
 * metric, and the table, CSV, JSON and SVG writers. Nothing here knows
 * about DRM or Wayland; each tool turns its own records into a sample
 * table and adds the text only it can write.
 *
 * Writers return 0 on success, -1 with errno set.
 */
#ifndef REPORT_H
#define REPORT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct rp_stats {
	size_t n;		/* samples; the rest is 0 when n == 0 */
	double min, p50, p90, p99, max;
	double mean, stddev;	/* stddev: population (divide by n) */
};

/*
 * Fills @out from @n samples in @v (which it sorts). Percentiles are
 * nearest-rank: the smallest sample with at least p% of the samples at or
 * below it.
 */
void rp_stats_compute(double *v, size_t n, struct rp_stats *out);

struct rp_metric {
	const char *name;	/* e.g. "signal-submit" */
	const char *unit;	/* "us" for a time (plotted), else a count */
};

bool rp_metric_is_time(const struct rp_metric *m);

/*
 * How the refresh that showed a row began, for the frame timeline: on the
 * mode's fixed vblank grid; under variable refresh, at the flip's flush or
 * held to one mode period after the previous refresh (the maximum rate);
 * or at no vblank: a tearing (async) flip, on screen at once.
 */
enum rp_refresh {
	RP_REFRESH_GRID = 0,
	RP_REFRESH_FLUSH,
	RP_REFRESH_WAIT,
	RP_REFRESH_TEAR,
};

/* What a row of a sample table is, beyond its values. */
struct rp_row {
	unsigned int index;	/* position in the run, warm-up included */
	unsigned int group;	/* CRTC, output: an index into the run's groups */
	bool counted;		/* false: warm-up, left out of every statistic */
	bool flagged;		/* missed a vblank: ringed in the SVG timeline */
	unsigned int missed;	/* vblanks it missed that it could have made */
	int64_t period_ns;	/* its output's frame, for the vblank grid; 0: unknown */
	enum rp_refresh refresh;
	/*
	 * Under variable refresh: the frames the display repeated on its own
	 * before this row's refresh, @repeat_ns (1/MIN s) apart, the first
	 * @repeat_ns after @repeat_from_ns (the refresh before).
	 */
	unsigned int repeats;
	int64_t repeat_ns, repeat_from_ns;
};

/*
 * The moments of each row, for the frame timeline (frames.c): up to
 * RP_MAX_MARKS times a row on one clock, in ns, 0 where not observed. Mark
 * 0 starts a row (submit, commit); mark @vblank is the time of the vblank
 * that showed it (the flip event's, the presentation's), which anchors the
 * grid of vblanks drawn behind the rows.
 */
#define RP_MAX_MARKS	5
struct rp_marks {
	size_t n;
	const char *names[RP_MAX_MARKS];	/* "submit", "latch", ... */
	size_t vblank;
	int64_t *t;				/* t[row * n + mark] */
};

struct rp_samples {
	const struct rp_metric *metrics;
	size_t nmetrics;
	size_t nrows;
	struct rp_row *rows;
	/* values[row * nmetrics + metric]; NAN where the row did not observe it */
	double *values;
	struct rp_marks marks;	/* none (n = 0) unless rp_samples_marks() */
};

/* @nrows rows, every value NAN; -1 with errno ENOMEM. */
int rp_samples_init(struct rp_samples *s, const struct rp_metric *metrics,
		    size_t nmetrics, size_t nrows);
void rp_samples_free(struct rp_samples *s);
/* Room for @n marks a row named @names (all 0); -1 with errno ENOMEM or EINVAL. */
int rp_samples_marks(struct rp_samples *s, size_t n, const char *const *names,
		     size_t vblank);

static inline int64_t *rp_mark(const struct rp_samples *s, size_t row, size_t mark)
{
	return &s->marks.t[row * s->marks.n + mark];
}

static inline double *rp_value(const struct rp_samples *s, size_t row, size_t metric)
{
	return &s->values[row * s->nmetrics + metric];
}

/*
 * Metric @metric's observed values over the counted rows of @group (-1: all)
 * into @v (room for nrows values), in row order; returns how many.
 */
size_t rp_samples_values(const struct rp_samples *s, size_t metric, int group, double *v);

/* Metric @metric over the counted rows of @group (-1: all) that observed it. */
void rp_samples_stats(const struct rp_samples *s, size_t metric, int group,
		      struct rp_stats *out);

/*
 * The statistics table: a header line, then one line per metric of the
 * counted rows of @group (-1: all), each indented by two spaces and
 * starting with the metric's name; @unobserved follows a metric nothing
 * observed.
 */
void rp_table_write(FILE *f, const struct rp_samples *s, int group, const char *unobserved);

/* The end of a writer: -1 with errno EIO if anything written to @f failed. */
int rp_finish(FILE *f);

/*
 * CSV: one table of columns makes both the header and every row. Column
 * @name's cell of row @row is what @cell stores in *@value, or empty when
 * it returns false (not observed).
 */
struct rp_csv_column {
	const char *name;
	bool (*cell)(const void *ctx, size_t row, int64_t *value);
};

/* A column whose name is its getter's: RP_CSV_COLUMN(index) needs col_index(). */
#define RP_CSV_COLUMN(name) { #name, col_##name }

int rp_csv_write(FILE *f, const struct rp_csv_column *columns, size_t ncols, size_t nrows,
		 const void *ctx);

/*
 * A streaming JSON writer that cannot produce invalid JSON from valid
 * calls: strings are escaped, and numbers that are not finite (or marked
 * not valid) become null. @key is NULL for a value in an array.
 */
#define RP_JSON_DEPTH 8
struct rp_json {
	FILE *f;
	int depth;
	bool has_items[RP_JSON_DEPTH];
	bool is_array[RP_JSON_DEPTH];
};

void rp_json_begin(struct rp_json *j, FILE *f);		/* the top-level object */
int rp_json_end(struct rp_json *j);			/* closes it; rp_finish() */
void rp_json_object(struct rp_json *j, const char *key);
void rp_json_array(struct rp_json *j, const char *key);
void rp_json_close(struct rp_json *j);			/* the innermost object/array */
void rp_json_string(struct rp_json *j, const char *key, const char *s);	/* NULL: null */
void rp_json_int(struct rp_json *j, const char *key, int64_t v);
void rp_json_number(struct rp_json *j, const char *key, double v, bool valid);
void rp_json_bool(struct rp_json *j, const char *key, bool v);
/*
 * An object with one member per metric: its unit, n, min, p50, p90, p99,
 * max, mean and stddev over the counted rows of @group (-1: all).
 */
void rp_json_summary(struct rp_json *j, const char *key, const struct rp_samples *s,
		     int group);

/*
 * verdict.c: where a JSON report came from, and the thresholds a CI sets.
 */
extern const char rp_tool_version[];	/* git describe of the build */

struct rp_provenance {
	int argc;
	char **argv;		/* the command line, as run */
	time_t started;		/* wall clock, UTC in the JSON */
	char sysname[65], release[65], version[65], machine[65];	/* uname */
};

/* The command line, now, and uname. */
void rp_provenance_init(struct rp_provenance *p, int argc, char **argv);
/*
 * The first members of a JSON report: schema_version, tool, tool_version,
 * command_line (an array), started_at (ISO 8601 UTC) and kernel (uname).
 */
void rp_json_provenance(struct rp_json *j, const char *tool, int schema,
			const struct rp_provenance *p);

/* One threshold: broken when @value > @limit, or when nothing was observed. */
#define RP_MAX_CHECKS	16
struct rp_check {
	const char *option;	/* "--max-late" */
	char what[64];		/* "late frames" */
	double limit, value;
	bool observed, broken;
};

struct rp_checks {
	size_t n;
	struct rp_check c[RP_MAX_CHECKS];
};

void rp_check(struct rp_checks *c, const char *option, const char *what, double limit,
	      double value, bool observed);
size_t rp_checks_broken(const struct rp_checks *c);
/* One line on @f per broken threshold: "TOOL: threshold broken: ...". */
void rp_checks_print(FILE *f, const char *tool, const struct rp_checks *c);
/* "thresholds": [ { option, what, limit, value, broken } ], "thresholds_broken": n */
void rp_json_checks(struct rp_json *j, const struct rp_checks *c);

/*
 * A whole number from @min to @max ending at @stop (digits only: no sign,
 * no space) into @out, @rest after the stop if not NULL; 0, or -1.
 */
int rp_parse_uint_until(const char *arg, char stop, unsigned long min, unsigned long max,
			unsigned int *out, const char **rest);
/* The same for all of @arg; -1 after "TOOL: OPT wants a number from MIN to MAX". */
int rp_parse_uint(const char *tool, const char *opt, const char *arg, unsigned long min,
		  unsigned long max, unsigned int *out);
/* Seconds above 0 and below 1e6; -1 after "TOOL: OPT wants seconds > 0". */
int rp_parse_seconds(const char *tool, const char *opt, const char *arg, double *out);

/* --max-p99-us METRIC=US, repeatable: the p99 of a time metric, all groups. */
#define RP_MAX_P99	8
struct rp_p99_limits {
	size_t n;
	struct { size_t metric; double us; } l[RP_MAX_P99];
};

/* Parses METRIC=US into @out; -1 after saying what is wrong. */
int rp_parse_p99_limit(const char *tool, const char *arg, const struct rp_metric *metrics,
		       size_t nmetrics, struct rp_p99_limits *out);
void rp_check_p99(struct rp_checks *c, const struct rp_samples *s,
		  const struct rp_p99_limits *l);

/*
 * SVG: a header line; if the samples have marks, the frame timeline of the
 * first rows of group 0 and of the rows around its worst one (frames.c);
 * one histogram per time metric some counted row observed and that is not
 * constant, binned over [p1, p99] with the rows outside counted and its
 * p50 and p99 marked; then @timeline_metric per row in index order, one
 * colour per group, flagged rows ringed in red, its y axis clipped above
 * the p99 with the rows beyond marked at the edge.
 */
struct rp_svg {
	const char *header;	/* tool, version, driver, kernel, date; NULL: none */
	const char *subject;	/* after the metric in a histogram's title:
				 * e.g. "on flipkms: 1920x1080 (atomic mode)" */
	const char *noun;	/* what a row is, plural: "flips", "frames" */
	size_t timeline_metric;
	const char *timeline_label;	/* e.g. "signal - submit" */
	const char *flag_label;		/* e.g. "missed a vblank" */
	const char *const *group_names;	/* legend, when there are several */
	size_t ngroups;
};

int rp_svg_write(FILE *f, const struct rp_samples *s, const struct rp_svg *how);

/*
 * strips.c: one metric measured on several setups, side by side. A panel
 * per metric, a strip per setup: each value a dot on one shared x axis
 * (from the lowest p1 to the highest p99 of the strips), its p50 and p99
 * as ticks, and a label with n, p50, p99, max and how many values lie
 * beyond the axis (drawn on its edge).
 */
struct rp_series {
	const char *label;	/* "flipkms, signal_delay_us=0" */
	double *v;		/* sorted in place */
	size_t n;
};

struct rp_strip_panel {
	const char *title;	/* "out-fence time - flip event time" */
	const char *unit;	/* "us" */
	struct rp_series *series;
	size_t nseries;
};

int rp_svg_strips(FILE *f, const char *title, const char *subtitle,
		  struct rp_strip_panel *panels, size_t npanels);

/*
 * frames.c: how many rows a frame timeline window shows; the first
 * window's and, when the worst row is outside it, the second's.
 */
#define RP_FRAMES_WINDOW	16

/*
 * compare.c: one benchmark metric measured on two sides, A (flipfence) and
 * B (mainline), in paired rounds. See compare.c and
 * Documentation/benchmarks.rst, "Method".
 */
enum rp_cmp_kind {
	RP_CMP_TIME,	/* compared as the ratio A / B; lower is better */
	RP_CMP_RATE,	/* compared as the ratio A / B; higher is better */
	RP_CMP_OFFSET,	/* around zero, maybe negative: the difference A - B */
};

enum rp_verdict {
	RP_TOO_FEW,		/* fewer than 3 rounds with both sides */
	RP_NO_DIFFERENCE,	/* none beyond the margin shown */
	RP_BETTER, RP_WORSE,	/* times and rates */
	RP_HIGHER, RP_LOWER,	/* offsets */
};

struct rp_comparison {
	size_t pairs;		/* rounds with both sides measured and usable */
	size_t failed;		/* rounds where a side failed (NAN) */
	size_t excluded;	/* ratio rounds with a side <= 0 */
	/* The ratio (geometric mean of the paired ratios) or the mean
	 * difference, and its interval (NAN with fewer than 3 pairs). */
	double estimate, lo, hi;
	enum rp_verdict verdict;
};

/*
 * Compares @n paired rounds @a[i], @b[i] (NAN: that round failed on that
 * side) with an interval at level 1 - @alpha (already divided by the
 * number of rows decided) against an equivalence margin: a fraction for
 * ratios (0.03: 3 %), in the values' unit for offsets. -1 on a bad
 * argument or ENOMEM.
 */
int rp_compare(const double *a, const double *b, size_t n, enum rp_cmp_kind kind,
	       double margin, double alpha, struct rp_comparison *out);
const char *rp_verdict_name(enum rp_verdict v);	/* "flipfence better", ... */
/* The @p quantile of Student's t distribution with @df degrees of freedom. */
double rp_t_quantile(double p, double df);

#endif /* REPORT_H */
