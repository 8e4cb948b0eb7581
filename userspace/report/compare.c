// SPDX-License-Identifier: MIT
/*
 * Side-by-side comparison of one benchmark metric measured in paired
 * rounds (make bench: flipfence and mainline in each round). The method,
 * Documentation/benchmarks.rst "Method":
 *
 *   d_i = ln(a_i / b_i) for times and rates, a_i - b_i for offsets, over
 *   the rounds where both sides were measured (a failed round, NAN, is left
 *   out and counted; a ratio with a side <= 0 is left out and counted);
 *   the estimate is the mean of d (for ratios exp(mean): the geometric mean
 *   of the paired ratios) with the two-sided Student t interval at level
 *   1 - alpha, alpha being the family-wise error divided by the number of
 *   rows the report decides (Bonferroni).
 *
 * The verdict is "better" or "worse" (offsets: "higher", "lower") only when
 * the whole interval lies beyond the equivalence margin (a ratio outside
 * [1 / (1 + margin), 1 + margin], a difference outside [-margin, margin]);
 * else "no difference": no difference larger than the margin was shown.
 * With fewer than 3 pairs there is no interval: "too few rounds".
 */
#include <math.h>
#include <stdlib.h>

#include "report.h"

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularised incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with @df degrees of freedom. */
static double t_cdf(double t, double df)
{
	double tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

double rp_t_quantile(double p, double df)
{
	double lo = 0, hi = 1e7;
	int i;

	if (p <= 0 || p >= 1 || df <= 0)
		return NAN;
	if (p < 0.5)
		return -rp_t_quantile(1 - p, df);
	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

const char *rp_verdict_name(enum rp_verdict v)
{
	switch (v) {
	case RP_TOO_FEW:
		return "too few rounds";
	case RP_NO_DIFFERENCE:
		return "no difference";
	case RP_BETTER:
		return "flipfence better";
	case RP_WORSE:
		return "flipfence worse";
	case RP_HIGHER:
		return "flipfence higher";
	case RP_LOWER:
		return "flipfence lower";
	}
	return "?";
}

int rp_compare(const double *a, const double *b, size_t n, enum rp_cmp_kind kind,
	       double margin, double alpha, struct rp_comparison *out)
{
	double *d, sum = 0, ss = 0, mean, half, band;
	bool ratio = kind != RP_CMP_OFFSET;
	size_t i, k = 0;

	*out = (struct rp_comparison){ .verdict = RP_TOO_FEW, .estimate = NAN, .lo = NAN,
				       .hi = NAN };
	if (!(alpha > 0 && alpha < 1) || !(margin >= 0))
		return -1;
	d = malloc((n ? n : 1) * sizeof(*d));
	if (!d)
		return -1;
	for (i = 0; i < n; i++) {
		if (isnan(a[i]) || isnan(b[i])) {
			out->failed++;
			continue;
		}
		if (ratio && !(a[i] > 0 && b[i] > 0)) {
			out->excluded++;
			continue;
		}
		d[k++] = ratio ? log(a[i] / b[i]) : a[i] - b[i];
	}
	out->pairs = k;
	if (!k) {
		free(d);
		return 0;
	}
	for (i = 0; i < k; i++)
		sum += d[i];
	mean = sum / (double)k;
	for (i = 0; i < k; i++)
		ss += (d[i] - mean) * (d[i] - mean);
	free(d);
	out->estimate = ratio ? exp(mean) : mean;
	if (k < 3)
		return 0;
	half = rp_t_quantile(1 - alpha / 2, (double)(k - 1)) * sqrt(ss / (double)(k - 1) / (double)k);
	/* Identical rounds: no spread at all, the interval is the point. */
	if (!(half > 0))
		half = 0;
	out->lo = ratio ? exp(mean - half) : mean - half;
	out->hi = ratio ? exp(mean + half) : mean + half;
	band = ratio ? log1p(margin) : margin;
	if (mean - half > band)
		out->verdict = kind == RP_CMP_TIME ? RP_WORSE :
			       kind == RP_CMP_RATE ? RP_BETTER : RP_HIGHER;
	else if (mean + half < -band)
		out->verdict = kind == RP_CMP_TIME ? RP_BETTER :
			       kind == RP_CMP_RATE ? RP_WORSE : RP_LOWER;
	else
		out->verdict = RP_NO_DIFFERENCE;
	return 0;
}
