// SPDX-License-Identifier: MIT
/*
 * stats: fliplat's statistics against hand-computed values: nearest-rank
 * percentiles, mean and population standard deviation, empty and one-sample
 * input, and which flips fl_run_stats() counts (not warm-up, only observed
 * values, one CRTC or all); vblank intervals <= 0 kept and counted; the
 * judgement of missed/early flips (blocking commits, in-fence flips the
 * driver showed unready, no vblank query) and of flip events (cookie,
 * CRTC, duplicates).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fliplat.h"
#include "../lib/result.h"

/* CLOCK_MONOTONIC times are never 0, which means "not observed". */
#define T0	1000000000LL

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

static void one_to_hundred_shuffled(void)
{
	double v[100];
	struct rp_stats s;
	unsigned int seed = 7;
	int i, j;

	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	for (i = 99; i > 0; i--) {
		double t;

		j = rand_r(&seed) % (i + 1);
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
	rp_stats_compute(v, 100, &s);
	check_near("1-100/n", 100, s.n);
	check_near("1-100/min", 1, s.min);
	check_near("1-100/max", 100, s.max);
	check_near("1-100/p50", 50, s.p50);
	check_near("1-100/p90", 90, s.p90);
	check_near("1-100/p99", 99, s.p99);
	check_near("1-100/mean", 50.5, s.mean);
	check_near("1-100/stddev", sqrt((100.0 * 100 - 1) / 12), s.stddev);
}

static void small_sets(void)
{
	double three[] = { 3, 1, 2 }, dup[] = { 5, 5, 1, 5 }, one[] = { 42 }, ten[10];
	struct rp_stats s;
	int i;

	rp_stats_compute(three, 3, &s);
	check_near("three/p50-is-second", 2, s.p50);
	check_near("three/p90-is-third", 3, s.p90);
	check_near("three/p99-is-third", 3, s.p99);

	rp_stats_compute(dup, 4, &s);
	check_near("duplicates/min", 1, s.min);
	check_near("duplicates/p50", 5, s.p50);
	check_near("duplicates/mean", 4, s.mean);
	check_near("duplicates/stddev", sqrt(3), s.stddev);

	for (i = 0; i < 10; i++)
		ten[i] = 10 - i;
	rp_stats_compute(ten, 10, &s);
	check_near("ten/p90-is-ninth", 9, s.p90);
	check_near("ten/p99-is-tenth", 10, s.p99);

	rp_stats_compute(one, 1, &s);
	check_near("one/n", 1, s.n);
	check_near("one/p50", 42, s.p50);
	check_near("one/p99", 42, s.p99);
	check_near("one/stddev", 0, s.stddev);

	memset(&s, 0x55, sizeof(s));
	rp_stats_compute(NULL, 0, &s);
	check_near("empty/n", 0, s.n);
	check_near("empty/mean", 0, s.mean);
	check_near("empty/max", 0, s.max);
}

/*
 * Two CRTCs, 10 flips each; flips 0-1 of each are warm-up. CRTC 0's
 * signal - submit is 100 us * (k + 1) for its k-th flip; CRTC 1's flip 5
 * has no signal (not observed). Intervals are 16667 us except each CRTC's
 * first flip (0: none).
 */
static void run_filtering(void)
{
	struct fl_flip flips[20];
	struct fl_crtc crtcs[2] = { { .crtc_id = 40 }, { .crtc_id = 41 } };
	struct fl_run run = { .ncrtcs = 2, .crtcs = crtcs, .nflips = 20, .flips = flips };
	struct rp_stats s;
	double us;
	int i;

	for (i = 0; i < 20; i++) {
		int k = i / 2, c = i % 2;

		flips[i] = (struct fl_flip){
			.index = i, .crtc = c, .warmup = k < 2,
			.submit_ns = T0 + 1000000 * (int64_t)i,
			.signal_ns = T0 + 1000000 * (int64_t)i + 100000 * (k + 1),
			.wake_ns = T0 + 1000000 * (int64_t)i + 100000 * (k + 1) + 5000 * c,
			.event_ns = T0 + 1000000 * (int64_t)i + 100000 * (k + 1),
			.interval_ns = k ? 16667000 : 0, .has_interval = k > 0,
			.missed = (k == 7),
		};
		if (c == 1 && k == 5)
			flips[i].signal_ns = 0;
	}
	check_near("flip-metric/us", 100.0, fl_flip_metric(&flips[0], FL_SIGNAL_MINUS_SUBMIT, &us) ? us : -1);
	check_near("flip-metric/unobserved", 0, fl_flip_metric(&flips[11], FL_SIGNAL_MINUS_SUBMIT, &us));

	fl_run_stats(&run, FL_SIGNAL_MINUS_SUBMIT, 0, &s);
	check_near("run/crtc0-skips-warmup-n", 8, s.n);
	check_near("run/crtc0-min", 300, s.min);
	check_near("run/crtc0-max", 1000, s.max);
	check_near("run/crtc0-mean", 650, s.mean);
	fl_run_stats(&run, FL_SIGNAL_MINUS_SUBMIT, 1, &s);
	check_near("run/crtc1-skips-unobserved-n", 7, s.n);
	fl_run_stats(&run, FL_SIGNAL_MINUS_SUBMIT, -1, &s);
	check_near("run/all-crtcs-n", 15, s.n);
	fl_run_stats(&run, FL_WAKE_MINUS_SIGNAL, 1, &s);
	check_near("run/wake-signal-crtc1", 5, s.mean);
	fl_run_stats(&run, FL_EVENT_MINUS_SIGNAL, -1, &s);
	check_near("run/event-signal-zero", 0, s.max);
	fl_run_stats(&run, FL_VBLANK_INTERVAL, -1, &s);
	check_near("run/interval-n", 16, s.n);
	check_near("run/interval-us", 16667, s.p50);
	fl_run_stats(&run, FL_MISSED_VBLANKS, -1, &s);
	check_near("run/missed-max", 1, s.max);
	check_near("run/missed-mean", 2.0 / 16, s.mean);
}

/*
 * Two flips at one vblank (interval 0) and an event time going back
 * (-5 ms) are a driver's bug: in the statistics and counted, never dropped.
 */
static void bad_intervals(void)
{
	struct fl_flip flips[4];
	struct fl_crtc crtc = { .crtc_id = 40 };
	struct fl_run run = { .ncrtcs = 1, .crtcs = &crtc, .nflips = 4, .flips = flips };
	int64_t interval[4] = { 0, 16667000, 0, -5000000 };
	struct fl_counts c;
	struct rp_stats s;
	double us;
	int i;

	for (i = 0; i < 4; i++)
		flips[i] = (struct fl_flip){
			.index = i, .submit_ns = T0 + i, .signal_ns = T0 + 10 + i,
			.event_ns = T0 + 10 + i, .interval_ns = interval[i], .has_interval = i > 0,
		};
	fl_run_stats(&run, FL_VBLANK_INTERVAL, -1, &s);
	check_near("interval/zero-and-negative-kept-n", 3, s.n);
	check_near("interval/negative-is-min", -5000, s.min);
	check_near("interval/first-flip-has-none", 0, fl_flip_metric(&flips[0], FL_VBLANK_INTERVAL, &us));
	fl_run_counts(&run, &c);
	check_near("interval/bad-counted", 2, c.bad_intervals);
}

static void judging(void)
{
	struct fl_flip f;
	struct fl_bounds b;
	struct fl_counts c;
	struct fl_run run = { .nflips = 1, .flips = &f };
	double v;

	/* Nonblocking: counts 100 before, 101 after; the vblank in the ioctl
	 * (101) is not a miss, 102 is on time, 103 missed one. */
	b = (struct fl_bounds){ .known = true, .before = 100, .after = 101, .ready = true };
	f = (struct fl_flip){ .submit_ns = T0, .event_ns = T0 + 1, .event_seq = 102 };
	fl_judge_flip(&f, &b);
	check_near("judge/nonblocking-on-time", 0, f.missed);
	f.event_seq = 103;
	fl_judge_flip(&f, &b);
	check_near("judge/nonblocking-missed-one", 1, f.missed);
	f.event_seq = 100;
	fl_judge_flip(&f, &b);
	check_near("judge/early", 1, f.early);

	/* Blocking: the count after the ioctl (104) follows the flip shown at
	 * 103; from 100 before submit, 101 was the first chance: 2 missed. */
	b = (struct fl_bounds){ .known = true, .blocking = true, .before = 100, .after = 104,
				.ready = true };
	f = (struct fl_flip){ .submit_ns = T0, .event_ns = T0 + 1, .event_seq = 103 };
	fl_judge_flip(&f, &b);
	check_near("judge/blocking-counts-missed", 2, f.missed);
	f.event_seq = 101;
	fl_judge_flip(&f, &b);
	check_near("judge/blocking-on-time", 0, f.missed);
	check_near("judge/blocking-not-early", 0, f.early);

	/* Counts across the 32-bit wrap of event sequences. */
	b = (struct fl_bounds){ .known = true, .before = 0xffffffffULL, .after = 0x100000000ULL,
				.ready = true };
	f = (struct fl_flip){ .submit_ns = T0, .event_ns = T0 + 1, .event_seq = 3 };
	fl_judge_flip(&f, &b);
	check_near("judge/wrap-missed-two", 2, f.missed);

	/* In-fence: the driver stopped waiting and showed the flip 2 s on,
	 * unready: no miss judged from the submit's counts, the frame late. */
	b = (struct fl_bounds){ .known = true, .before = 100, .after = 100, .ready = false };
	f = (struct fl_flip){ .submit_ns = T0, .event_ns = T0 + 2000000000LL, .event_seq = 221 };
	fl_judge_flip(&f, &b);
	check_near("judge/unready-flagged", 1, f.unready);
	check_near("judge/unready-late", 1, f.late);
	check_near("judge/unready-missed-not-observed", 0, fl_flip_metric(&f, FL_MISSED_VBLANKS, &v));
	fl_run_counts(&run, &c);
	check_near("judge/unready-counted", 1, c.unready);
	check_near("judge/unready-no-missed-vblanks", 0, c.missed_vblanks);

	/* No vblank query: periods from submit to the event, the first free. */
	b = (struct fl_bounds){ .ready = true, .period_ns = 16666667 };
	f = (struct fl_flip){ .submit_ns = T0, .event_ns = T0 + 15000000 };
	fl_judge_flip(&f, &b);
	check_near("judge/estimate-on-time", 0, f.missed);
	f.event_ns = T0 + 40000000;
	fl_judge_flip(&f, &b);
	check_near("judge/estimate-missed-two", 2, f.missed);
}

static void events(void)
{
	struct fl_crtc crtcs[2] = { { .crtc_id = 40 }, { .crtc_id = 41 } };
	struct fl_flip flips[2] = { { .crtc = 0 }, { .crtc = 1, .event_ns = T0 } };
	struct fl_run run = { .ncrtcs = 2, .crtcs = crtcs, .nflips = 2, .flips = flips };

	check_near("event/right-crtc", 1, fl_check_event(&run, 0, 40) == NULL);
	check_near("event/crtc-not-said", 1, fl_check_event(&run, 0, 0) == NULL);
	check_near("event/wrong-crtc", 1, fl_check_event(&run, 0, 41) != NULL);
	check_near("event/unknown-cookie", 1, fl_check_event(&run, 2, 40) != NULL);
	check_near("event/second-event", 1, fl_check_event(&run, 1, 41) != NULL);
}

int main(void)
{
	one_to_hundred_shuffled();
	small_sets();
	run_filtering();
	bad_intervals();
	judging();
	events();
	return failures ? 1 : 0;
}
