// SPDX-License-Identifier: MIT
/*
 * strips: the side-by-side picture of make demo's out-fence part
 * (rp_svg_strips(), userspace/report/strips.c) against series whose
 * picture is known: three strips of 200 values, "at 0" (0.0 to 0.9),
 * "delayed" (2000.0 to 2000.9) and "outlier" (like "at 0" but one value of
 * 9000, beyond every strip's p99). Every value is a dot; the axis runs
 * from the lowest p1 to the highest p99, so the 9000 is drawn on its edge
 * and counted as beyond it, and nothing else is; each strip has its p50
 * and p99 ticks and a label with its p50.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "../lib/result.h"

#define N	200

int main(void)
{
	static double at0[N], delayed[N], outlier[N];
	struct rp_series series[] = {
		{ "at 0", at0, N }, { "delayed", delayed, N }, { "outlier", outlier, N },
	};
	struct rp_strip_panel panel = { "fence - event", "us", series, 3 };
	char *svg = NULL;
	size_t size = 0;
	FILE *f;
	int i;

	for (i = 0; i < N; i++) {
		/* Out of order: the picture sorts them. */
		at0[i] = (double)((i * 37) % N) / N;
		delayed[i] = 2000 + (double)((i * 53) % N) / N;
		outlier[i] = i == 17 ? 9000 : (double)((i * 61) % N) / N;
	}
	f = open_memstream(&svg, &size);
	if (!f || rp_svg_strips(f, "title", "subtitle", &panel, 1) || fclose(f)) {
		printf("not ok - strips-written: rp_svg_strips failed\n");
		return 1;
	}
	result_equal("strips", 3, result_count(svg, NULL, "class=\"strip\""));
	result_equal("dots", 3 * N - 1, result_count(svg, NULL, "class=\"value\""));
	result_equal("beyond-the-axis", 1, result_count(svg, NULL, "class=\"beyond\""));
	result_equal("beyond-counted", 1, result_count(svg, NULL, "data-beyond=\"1\""));
	result_equal("beyond-labelled", 1, result_count(svg, NULL, "1 beyond the axis"));
	result_equal("p50-ticks", 3, result_count(svg, NULL, "class=\"p50\""));
	result_equal("p99-ticks", 3, result_count(svg, NULL, "class=\"p99\""));
	result_equal("zero-line", 1, result_count(svg, NULL, "class=\"zero\""));
	result_equal("delayed-p50-labelled", 1, result_count(svg, NULL, "delayed: p50 2000.5, p99 2001.0, max 2001.0 us"));
	free(svg);
	return result_failures ? 1 : 0;
}
