// SPDX-License-Identifier: MIT
/*
 * stats: fliplat's statistics against hand-computed values: nearest-rank
 * percentiles, mean and population standard deviation, empty and one-sample
 * input, and which flips fl_run_stats() counts (not warm-up, only observed
 * values, one CRTC or all).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fliplat.h"

/* CLOCK_MONOTONIC times are never 0, which means "not observed". */
#define T0	1000000000LL

static int failures;

static void check_near(const char *name, double want, double got)
{
	if (fabs(want - got) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1)) {
		printf("ok - %s\n", name);
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
			.interval_ns = k ? 16667000 : 0,
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

int main(void)
{
	one_to_hundred_shuffled();
	small_sets();
	run_filtering();
	return failures ? 1 : 0;
}
