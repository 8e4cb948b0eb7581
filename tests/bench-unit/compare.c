// SPDX-License-Identifier: MIT
/*
 * compare: make bench's statistics (userspace/report/compare.c) against
 * known values: Student t quantiles from tables; two identical samples read
 * "no difference"; clearly different ones read better/worse (offsets:
 * higher/lower); a failed round is left out and counted, not fatal; a
 * difference inside the margin is no difference; fewer than 3 rounds decide
 * nothing; and, over 2000 made-up reports of 20 rows whose two sides run
 * "the same code" (one distribution, independent noise of 20 %), the share
 * of reports with any verdict other than "no difference" stays within the
 * stated family-wise error of 5 %.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "../lib/result.h"

static int failures;

static void check_near(const char *name, double want, double got, double tol)
{
	if (fabs(want - got) <= tol) {
		result_ok(name);
	} else {
		printf("not ok - %s: expected %.6g, got %.6g\n", name, want, got);
		failures++;
	}
}

static void check_verdict(const char *name, enum rp_verdict want, enum rp_verdict got)
{
	if (want == got) {
		result_ok(name);
	} else {
		printf("not ok - %s: expected '%s', got '%s'\n", name, rp_verdict_name(want),
		       rp_verdict_name(got));
		failures++;
	}
}

static void quantiles(void)
{
	/* Two-sided critical values from any t table. */
	check_near("t/0.975-df1", 12.7062, rp_t_quantile(0.975, 1), 1e-3);
	check_near("t/0.975-df6", 2.44691, rp_t_quantile(0.975, 6), 1e-4);
	check_near("t/0.995-df10", 3.16927, rp_t_quantile(0.995, 10), 1e-4);
	check_near("t/0.9995-df6", 5.95882, rp_t_quantile(0.9995, 6), 1e-3);
	check_near("t/0.025-df6", -2.44691, rp_t_quantile(0.025, 6), 1e-4);
	check_near("t/0.975-df1000", 1.96234, rp_t_quantile(0.975, 1000), 1e-3);
}

/* Seven rounds of a noisy benchmark (about +-10 %). */
static const double noisy[7] = { 18919, 16736, 19974, 18267, 17365, 23887, 18001 };

static void verdicts(void)
{
	double a[7], b[7], r[7];
	struct rp_comparison c;
	int i;

	/* The same samples on both sides: nothing to tell them apart. */
	rp_compare(noisy, noisy, 7, RP_CMP_TIME, 0.03, 0.0025, &c);
	check_verdict("identical/time", RP_NO_DIFFERENCE, c.verdict);
	check_near("identical/ratio-1", 1, c.estimate, 1e-12);
	check_near("identical/pairs", 7, c.pairs, 0);
	rp_compare(noisy, noisy, 7, RP_CMP_RATE, 0.03, 0.0025, &c);
	check_verdict("identical/rate", RP_NO_DIFFERENCE, c.verdict);
	rp_compare(noisy, noisy, 7, RP_CMP_OFFSET, 0, 0.0025, &c);
	check_verdict("identical/offset-margin-0", RP_NO_DIFFERENCE, c.verdict);

	/* The same values in another order (rounds are paired, noise is not
	 * shared): still no difference. */
	for (i = 0; i < 7; i++)
		r[i] = noisy[(i + 3) % 7];
	rp_compare(noisy, r, 7, RP_CMP_TIME, 0.03, 0.0025, &c);
	check_verdict("same-values-shuffled/time", RP_NO_DIFFERENCE, c.verdict);

	/* Half the time, with noise: flipfence better; as a rate, worse. */
	for (i = 0; i < 7; i++) {
		a[i] = noisy[i] / 2;
		b[i] = noisy[(i + 3) % 7];
	}
	rp_compare(a, b, 7, RP_CMP_TIME, 0.03, 0.0025, &c);
	check_verdict("half/time-better", RP_BETTER, c.verdict);
	check_near("half/ratio", 0.5, c.estimate, 0.05);
	rp_compare(a, b, 7, RP_CMP_RATE, 0.03, 0.0025, &c);
	check_verdict("half/rate-worse", RP_WORSE, c.verdict);
	rp_compare(b, a, 7, RP_CMP_TIME, 0.03, 0.0025, &c);
	check_verdict("double/time-worse", RP_WORSE, c.verdict);
	rp_compare(b, a, 7, RP_CMP_RATE, 0.03, 0.0025, &c);
	check_verdict("double/rate-better", RP_BETTER, c.verdict);

	/* Offsets: 5 us more on every round, with +-0.5 us of noise. */
	for (i = 0; i < 7; i++) {
		a[i] = 5 + (i % 3 - 1) * 0.5;
		b[i] = (i % 2) * 0.3;
	}
	rp_compare(a, b, 7, RP_CMP_OFFSET, 1, 0.0025, &c);
	check_verdict("offset/higher", RP_HIGHER, c.verdict);
	rp_compare(b, a, 7, RP_CMP_OFFSET, 1, 0.0025, &c);
	check_verdict("offset/lower", RP_LOWER, c.verdict);
	rp_compare(a, b, 7, RP_CMP_OFFSET, 10, 0.0025, &c);
	check_verdict("offset/inside-margin", RP_NO_DIFFERENCE, c.verdict);

	/* 1 % faster on every round, exactly: real, but inside the 3 % margin. */
	for (i = 0; i < 7; i++)
		a[i] = noisy[i] * 0.99;
	rp_compare(a, noisy, 7, RP_CMP_TIME, 0.03, 0.0025, &c);
	check_verdict("one-percent/inside-margin", RP_NO_DIFFERENCE, c.verdict);
	rp_compare(a, noisy, 7, RP_CMP_TIME, 0, 0.0025, &c);
	check_verdict("one-percent/no-margin-better", RP_BETTER, c.verdict);
}

static void failed_rounds(void)
{
	double a[7], b[7];
	struct rp_comparison c;
	int i;

	for (i = 0; i < 7; i++) {
		a[i] = noisy[i] / 2;
		b[i] = noisy[(i + 3) % 7];
	}
	a[2] = NAN;	/* flipfence's third round failed */
	b[5] = NAN;	/* mainline's sixth */
	check_near("failed/no-error", 0, rp_compare(a, b, 7, RP_CMP_TIME, 0.03, 0.0025, &c), 0);
	check_near("failed/pairs", 5, c.pairs, 0);
	check_near("failed/counted", 2, c.failed, 0);
	check_verdict("failed/still-decided", RP_BETTER, c.verdict);

	/* A ratio with a 0 side cannot be taken: left out and counted. */
	b[0] = 0;
	rp_compare(a, b, 7, RP_CMP_TIME, 0.03, 0.0025, &c);
	check_near("zero/excluded", 1, c.excluded, 0);
	check_near("zero/pairs", 4, c.pairs, 0);

	/* Two rounds left: no interval, no verdict. */
	rp_compare(a, b, 2, RP_CMP_TIME, 0.03, 0.0025, &c);
	check_verdict("two-rounds/too-few", RP_TOO_FEW, c.verdict);
	check_near("two-rounds/no-interval", 1, isnan(c.lo) && isnan(c.hi), 0);

	/* Every round failed on one side. */
	for (i = 0; i < 7; i++)
		b[i] = NAN;
	rp_compare(a, b, 7, RP_CMP_RATE, 0.03, 0.0025, &c);
	check_near("all-failed/pairs", 0, c.pairs, 0);
	check_verdict("all-failed/too-few", RP_TOO_FEW, c.verdict);
}

/* A standard normal deviate (Box-Muller) from a private generator. */
static double normal(unsigned int *seed)
{
	double u1 = (rand_r(seed) + 1.0) / ((double)RAND_MAX + 2.0);
	double u2 = (rand_r(seed) + 1.0) / ((double)RAND_MAX + 2.0);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * A/A: both sides draw from one distribution (log-normal, 20 % per round,
 * plus a round effect both share); 20 rows a report, 7 rounds a row, the
 * report's 5 % shared among its 20 rows and no margin at all (the
 * hardest case). Bonferroni bounds the share of reports with a spurious
 * verdict by 5 %; allow for the simulation's own noise (sd 0.5 %).
 */
static void aa_error_rate(void)
{
	const int reports = 2000, rows = 20, n = 7;
	unsigned int seed = 25;
	int rep, row, i, spurious = 0, rows_spurious = 0;

	for (rep = 0; rep < reports; rep++) {
		bool any = false;

		for (row = 0; row < rows; row++) {
			double a[7], b[7];
			struct rp_comparison c;

			for (i = 0; i < n; i++) {
				double shared = 0.1 * normal(&seed);

				a[i] = 1000 * exp(shared + 0.2 * normal(&seed));
				b[i] = 1000 * exp(shared + 0.2 * normal(&seed));
			}
			rp_compare(a, b, n, RP_CMP_TIME, 0, 0.05 / rows, &c);
			if (c.verdict != RP_NO_DIFFERENCE) {
				any = true;
				rows_spurious++;
			}
		}
		spurious += any;
	}
	printf("# A/A: %d of %d reports, %d of %d rows with a spurious verdict\n", spurious,
	       reports, rows_spurious, reports * rows);
	check_near("aa/family-error-at-most-5-percent", 1, spurious <= reports * 0.06, 0);
	/* The same rows decided by the old rule (every paired ratio on one
	 * side of 1, over 5 rounds) give about 70 % of reports a verdict. */
	seed = 25;
	spurious = 0;
	for (rep = 0; rep < reports; rep++) {
		bool any = false;

		for (row = 0; row < rows; row++) {
			int below = 0;

			for (i = 0; i < 5; i++) {
				double shared = 0.1 * normal(&seed);
				double a = exp(shared + 0.2 * normal(&seed));
				double b = exp(shared + 0.2 * normal(&seed));

				below += a < b;
			}
			any |= below == 0 || below == 5;
		}
		spurious += any;
	}
	printf("# the old rule: %d of %d reports with a spurious verdict\n", spurious, reports);
	check_near("aa/old-rule-fails-it", 1, spurious > reports * 0.5, 0);
}

int main(void)
{
	quantiles();
	verdicts();
	failed_rounds();
	aa_error_rate();
	return failures ? 1 : 0;
}
