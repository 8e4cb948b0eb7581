/* SPDX-License-Identifier: MIT */
/*
 * presentlat: what a Wayland compositor presented, frame by frame, from
 * wp_presentation feedback. Every time is on the compositor's presentation
 * clock (CLOCK_MONOTONIC for a KMS compositor), in nanoseconds.
 */
#ifndef PRESENTLAT_H
#define PRESENTLAT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "report.h"

/* wp_presentation_feedback.kind, as the protocol numbers it. */
#define PL_VSYNC		0x1
#define PL_HW_CLOCK		0x2
#define PL_HW_COMPLETION	0x4
#define PL_ZERO_COPY		0x8

enum pl_fate {
	PL_PENDING,		/* no feedback yet */
	PL_PRESENTED,
	PL_DISCARDED,
};

/* One committed frame, in commit order. */
struct pl_frame {
	unsigned int index;	/* position in the run, warm-up included */
	bool warmup;		/* left out of the statistics */
	int64_t commit_ns;	/* just before wl_surface.commit */
	enum pl_fate fate;
	int64_t presented_ns;	/* feedback tv_sec/tv_nsec */
	uint32_t refresh_ns;	/* feedback refresh: 0 if unknown */
	uint64_t msc;		/* feedback seq: the DRM vblank count, 0 if unknown */
	uint32_t flags;		/* PL_VSYNC ... */
};

/*
 * The thresholds of a CI's verdict (Documentation/presentlat-formats.rst),
 * over the counted frames; -1: not set.
 */
struct pl_limits {
	long max_late;		/* --max-late: presented after the first vblank after commit */
	long max_discarded;	/* --max-discarded */
	uint32_t require_flags;	/* --require-flags: every presented frame has these */
	struct rp_p99_limits p99;	/* --max-p99-us METRIC=US */
};

#define PL_NO_LIMITS ((struct pl_limits){ .max_late = -1, .max_discarded = -1 })

/* The version of presentlat's JSON (Documentation/presentlat-formats.rst). */
#define PL_JSON_SCHEMA	1

struct pl_options {
	unsigned int frames;	/* counted frames (0: --duration) */
	double duration_s;
	unsigned int warmup;
	unsigned int busy, idle_ms;	/* --pattern BUSY:IDLE_MS: 0 = always busy */
	unsigned int render_us;	/* simulated rendering before each commit */
	unsigned int width, height;
	bool fullscreen;	/* ask for it; the buffers take the size configured */
	const char *output;	/* fullscreen on the wl_output of this name */
	const char *csv, *json, *plot;
	struct pl_limits limits;	/* --max-*, --require-flags */
	bool quiet;
};

struct pl_run {
	struct pl_options opt;
	struct rp_provenance prov;
	char compositor[64];	/* WAYLAND_DISPLAY's name */
	char kernel[160];
	bool clock_known;	/* the compositor said which clock it presents on */
	uint32_t clock_id;	/* that clock, if @clock_known */
	int64_t started_ns, finished_ns;
	const char *failure;	/* NULL: complete */
	size_t nframes, cap;
	struct pl_frame *frames;
};

/*
 * Frame @frame's pixel (@x, @y), XRGB8888: red (x + frame) & 0xff, green
 * y & 0xff, blue (x ^ y) & 0xff. Every frame differs from the last, so each
 * commit damages the whole surface, and a screenshot says which frame it
 * shows (its red at x = 0). tests/compositor/screenshot checks a captured
 * frame against this definition, written out again there.
 */
static inline uint32_t pl_pixel(unsigned int x, unsigned int y, unsigned int frame)
{
	return 0xff000000u | ((x + frame) & 0xff) << 16 | (y & 0xff) << 8 | ((x ^ y) & 0xff);
}

/* Exit statuses, also listed in --help. */
enum {
	PL_EXIT_OK = 0,
	PL_EXIT_FAILED = 1,	/* the run failed: frames without feedback, a stall */
	PL_EXIT_USAGE = 2,
	PL_EXIT_NO_COMPOSITOR = 3,	/* no display, no wp_presentation, another clock */
	PL_EXIT_THRESHOLD = 7,	/* the run completed but broke a threshold (as fliplat's 7) */
};

/* --- options.c: 0, 1 after --help/--version, -1 after saying what is wrong */
int pl_parse_options(int argc, char **argv, struct pl_options *o);


/* --- stop.c: SIGINT/SIGTERM end the run cleanly ------------------------- */
/* How many stop signals came, and the last one's number. */
extern volatile sig_atomic_t pl_stop_signals, pl_stop_signal;
/*
 * From the first frame on: the handlers set, SIGINT and SIGTERM blocked;
 * *@waiting gets the mask for ppoll(), with them unblocked.
 */
void pl_catch_stop_signals(sigset_t *waiting);
void pl_release_stop_signals(const sigset_t *waiting);
/* "SIGINT" or "SIGTERM": the last stop signal. */
const char *pl_stop_signal_name(void);

/*
 * --- client.c: runs the frames until the last one, or a stop signal;
 * PL_EXIT_OK with the run filled, else an exit status with run->failure set
 * (and what was measured until then).
 */
int pl_client_run(struct pl_run *run);

/* --- metrics.c ----------------------------------------------------------- */
enum pl_metric {
	PL_PRESENT_MINUS_COMMIT,	/* us */
	PL_PRESENT_INTERVAL,		/* us, since the previous presented frame */
	PL_REFRESH,			/* us, as the compositor reported it */
	PL_MSC_STEP,			/* vblanks since the previous presented frame
					 * (signed; unknown if either MSC is 0) */
	PL_VBLANKS_LATE,		/* vblanks after the first one after commit
					 * (unknown with refresh 0 or presented
					 * before commit) */
	PL_NMETRICS,
};

struct pl_counts {
	size_t frames;		/* counted */
	size_t presented, discarded, pending;
	size_t not_vsync;	/* presented without VSYNC|HW_CLOCK|HW_COMPLETION */
	size_t late;		/* presented after the first vblank after commit */
	size_t on_time;		/* presented at the first vblank after commit */
	size_t before_commit;	/* presented at or before its commit: a wrong clock
				 * or a compositor's bug; neither late nor on time */
	size_t refresh_unknown;	/* presented with refresh 0: neither late nor on time */
	size_t next_vblank;	/* presented at the vblank after the previous frame's */
	size_t msc_unknown;	/* presented, but this or the previous presented
				 * frame's MSC is 0: next_vblank cannot tell */
};

extern const struct rp_metric pl_metrics[PL_NMETRICS];

int pl_run_samples(const struct pl_run *run, struct rp_samples *out);
/* @run's thresholds (run->opt.limits) judged over its counted frames. */
void pl_run_checks(const struct pl_run *run, struct rp_checks *out);
/* "vsync,hw-clock,..." into PL_VSYNC | PL_HW_CLOCK ...; -1 if a name is unknown. */
int pl_parse_flags(const char *arg, uint32_t *flags);
/* Counted presented frames without every flag of @flags. */
size_t pl_frames_without(const struct pl_run *run, uint32_t flags);
/* CLOCK @clock now in ns, or -1 if this system cannot read it. */
int64_t pl_clock_ns(clockid_t clock);
void pl_run_counts(const struct pl_run *run, struct pl_counts *out);

/* --- reports.c: 0 on success, -1 with errno set -------------------------- */
int pl_report_table(FILE *f, const struct pl_run *run);
int pl_report_csv(FILE *f, const struct pl_run *run);
int pl_report_json(FILE *f, const struct pl_run *run);
int pl_report_svg(FILE *f, const struct pl_run *run);

#endif /* PRESENTLAT_H */
