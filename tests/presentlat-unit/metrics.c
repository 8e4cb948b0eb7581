// SPDX-License-Identifier: MIT
/*
 * metrics: presentlat's judgement of each presented frame against
 * hand-made feedback: a frame presented before its commit or with refresh 0
 * is neither late nor on time (counted apart, vblanks-late unobserved); the
 * MSC step is signed and unknown when the compositor sends seq 0; the
 * report names an unknown presentation clock as unknown; pl_clock_ns() says
 * when a clock cannot be read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "presentlat.h"
#include "../lib/result.h"

#define T0	1000000000LL
#define P	16666667LL

static int failures;

static void check_near(const char *name, double want, double got)
{
	if (fabs(want - got) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1)) {
		result_ok(name);
	} else {
		printf("not ok - %s: expected %.9g, got %.9g\n", name, want, got);
		failures++;
	}
}

/*
 * Frame i committed at T0 + i P; shown 10 ms later (on time) except:
 * 1 shown one vblank late, 2 shown 1 ms before its commit, 3 with refresh
 * 0; MSCs 100, 102, 103, 104, 0 (unknown), 106, 105 (going back).
 */
static void judgement(void)
{
	static const uint64_t msc[] = { 100, 102, 103, 104, 0, 106, 105 };
	struct pl_frame frames[7];
	struct pl_run run = { .nframes = 7, .cap = 7, .frames = frames };
	struct rp_samples s;
	struct pl_counts c;
	struct rp_stats st;
	size_t i;

	for (i = 0; i < 7; i++) {
		int64_t commit = T0 + (int64_t)i * P;

		frames[i] = (struct pl_frame){
			.index = i, .commit_ns = commit, .fate = PL_PRESENTED,
			.presented_ns = commit + 10000000, .refresh_ns = P, .msc = msc[i],
			.flags = PL_VSYNC | PL_HW_CLOCK | PL_HW_COMPLETION,
		};
	}
	frames[1].presented_ns += P;
	frames[2].presented_ns = frames[2].commit_ns - 1000000;
	frames[3].refresh_ns = 0;

	pl_run_counts(&run, &c);
	check_near("counts/presented", 7, c.presented);
	check_near("counts/late", 1, c.late);
	check_near("counts/on-time", 4, c.on_time);
	check_near("counts/before-commit", 1, c.before_commit);
	check_near("counts/refresh-unknown", 1, c.refresh_unknown);
	check_near("counts/every-frame-judged-once", c.presented,
		   c.late + c.on_time + c.before_commit + c.refresh_unknown);
	check_near("counts/next-vblank", 2, c.next_vblank);
	check_near("counts/msc-unknown", 2, c.msc_unknown);

	if (pl_run_samples(&run, &s)) {
		check_near("samples", 0, -1);
		return;
	}
	rp_samples_stats(&s, PL_VBLANKS_LATE, -1, &st);
	check_near("vblanks-late/unknown-left-out-n", 5, st.n);
	check_near("vblanks-late/max", 1, st.max);
	rp_samples_stats(&s, PL_MSC_STEP, -1, &st);
	check_near("msc-step/seq-0-left-out-n", 4, st.n);
	check_near("msc-step/signed-min", -1, st.min);
	check_near("msc-step/max", 2, st.max);
	rp_samples_stats(&s, PL_PRESENT_MINUS_COMMIT, -1, &st);
	check_near("present-commit/before-commit-kept", -1000, st.min);
	check_near("flagged/before-commit", 1, s.rows[2].flagged);
	rp_samples_free(&s);
}

static void clock_report(void)
{
	struct pl_frame frame = { .fate = PL_PENDING, .commit_ns = T0 };
	struct pl_run run = { .nframes = 1, .cap = 1, .frames = &frame };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&text, &len);
	if (!f || pl_report_json(f, &run) || fclose(f)) {
		check_near("clock/json-written", 0, -1);
		free(text);
		return;
	}
	check_near("clock/unknown-not-realtime", 1,
		   strstr(text, "\"clock\": \"unknown\"") && !strstr(text, "REALTIME"));
	check_near("clock/id-null", 1, strstr(text, "\"clock_id\": null") != NULL);
	free(text);

	check_near("clock/monotonic-readable", 1, pl_clock_ns(CLOCK_MONOTONIC) > 0);
	/* A clock id no kernel has (a dynamic one of fd 0x3ffff): -1, not garbage. */
	check_near("clock/unreadable-is-minus-1", -1, pl_clock_ns(0x7ffffffb));
}

int main(void)
{
	judgement();
	clock_report();
	return failures ? 1 : 0;
}
