// SPDX-License-Identifier: MIT
/*
 * The distribution of one metric over a sample table's counted rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the ceil(p/100 * n)-th smallest sample (1-based). */
static double percentile(const double *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

void rp_stats_compute(double *v, size_t n, struct rp_stats *out)
{
	double sum = 0, sq = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	out->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (v[i] - out->mean) * (v[i] - out->mean);
	out->n = n;
	out->stddev = sqrt(sq / (double)n);
	out->min = v[0];
	out->max = v[n - 1];
	out->p50 = percentile(v, n, 50);
	out->p90 = percentile(v, n, 90);
	out->p99 = percentile(v, n, 99);
}

bool rp_metric_is_time(const struct rp_metric *m)
{
	return !strcmp(m->unit, "us");
}

int rp_samples_init(struct rp_samples *s, const struct rp_metric *metrics,
		    size_t nmetrics, size_t nrows)
{
	size_t i, cells = nrows * nmetrics;

	memset(s, 0, sizeof(*s));
	if (nmetrics && cells / nmetrics != nrows) {
		errno = ENOMEM;
		return -1;
	}
	/* One spare of each, so that an empty table is not a 0-byte allocation. */
	s->rows = calloc(nrows + 1, sizeof(*s->rows));
	s->values = calloc(cells + 1, sizeof(*s->values));
	if (!s->rows || !s->values) {
		rp_samples_free(s);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < cells; i++)
		s->values[i] = NAN;
	s->metrics = metrics;
	s->nmetrics = nmetrics;
	s->nrows = nrows;
	return 0;
}

int rp_samples_marks(struct rp_samples *s, size_t n, const char *const *names,
		     size_t vblank)
{
	size_t i;

	if (!n || n > RP_MAX_MARKS || vblank >= n) {
		errno = EINVAL;
		return -1;
	}
	free(s->marks.t);
	s->marks.t = calloc(s->nrows * n + 1, sizeof(*s->marks.t));
	if (!s->marks.t) {
		s->marks.n = 0;
		errno = ENOMEM;
		return -1;
	}
	s->marks.n = n;
	s->marks.vblank = vblank;
	for (i = 0; i < n; i++)
		s->marks.names[i] = names[i];
	return 0;
}

void rp_samples_free(struct rp_samples *s)
{
	free(s->rows);
	free(s->values);
	free(s->marks.t);
	memset(s, 0, sizeof(*s));
}

/* Metric @metric's observed values over the counted rows of @group into @v. */
size_t rp_samples_values(const struct rp_samples *s, size_t metric, int group, double *v)
{
	size_t i, n = 0;

	for (i = 0; i < s->nrows; i++) {
		const struct rp_row *r = &s->rows[i];
		double x = *rp_value(s, i, metric);

		if (!r->counted || isnan(x) || (group >= 0 && r->group != (unsigned int)group))
			continue;
		v[n++] = x;
	}
	return n;
}

void rp_samples_stats(const struct rp_samples *s, size_t metric, int group,
		      struct rp_stats *out)
{
	double *v = malloc((s->nrows ? s->nrows : 1) * sizeof(*v));

	memset(out, 0, sizeof(*out));
	if (!v)
		return;
	rp_stats_compute(v, rp_samples_values(s, metric, group, v), out);
	free(v);
}

int rp_finish(FILE *f)
{
	if (ferror(f)) {
		errno = EIO;
		return -1;
	}
	return 0;
}
