// SPDX-License-Identifier: MIT
/*
 * The statistics table the tools print on stdout: one line per metric.
 */
#include "report.h"

void rp_table_write(FILE *f, const struct rp_samples *s, int group, const char *unobserved)
{
	struct rp_stats st;
	size_t m;

	fprintf(f, "  %-16s %-7s %6s %9s %9s %9s %9s %9s %9s %9s\n", "metric", "unit", "n",
		"min", "p50", "p90", "p99", "max", "mean", "stddev");
	for (m = 0; m < s->nmetrics; m++) {
		rp_samples_stats(s, m, group, &st);
		fprintf(f, "  %-16s %-7s %6zu", s->metrics[m].name, s->metrics[m].unit, st.n);
		if (!st.n) {
			fprintf(f, "   %s\n", unobserved);
			continue;
		}
		fprintf(f, " %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", st.min, st.p50,
			st.p90, st.p99, st.max, st.mean, st.stddev);
	}
}
