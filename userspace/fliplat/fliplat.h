/* SPDX-License-Identifier: MIT */
/*
 * fliplat: what one run measured, shared by the part that drives the flips
 * (drm.c, modes, main.c) and the part that reports them (stats.c,
 * report*.c). Every time is CLOCK_MONOTONIC in nanoseconds; 0 means "not
 * observed" (e.g. no out-fence in legacy mode).
 */
#ifndef FLIPLAT_H
#define FLIPLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

enum fl_mode {
	FL_MODE_ATOMIC,		/* atomic commit + OUT_FENCE_PTR (default) */
	FL_MODE_LEGACY,		/* drmModePageFlip with an event, no fence */
	FL_MODE_INFENCE,	/* atomic + IN_FENCE_FD from a sw_sync renderer */
	/*
	 * drmModePageFlip with DRM_MODE_PAGE_FLIP_ASYNC: a tearing flip, shown
	 * at once, not at a vblank. Legacy on every kernel: 6.12's atomic form
	 * refuses OUT_FENCE_PTR, so it would measure nothing more.
	 */
	FL_MODE_ASYNC,
};

/* The modes whose flips have an out-fence (and a fence waiter). */
static inline bool fl_mode_has_fence(enum fl_mode mode)
{
	return mode == FL_MODE_ATOMIC || mode == FL_MODE_INFENCE;
}

/*
 * --vrr: how the refresh that showed a flip was placed, by the model of
 * Documentation/fliplat.rst, "Variable refresh" (the CSV's vrr_kind).
 */
enum fl_vrr_kind {
	FL_VRR_UNJUDGED = 0,	/* not --vrr, or no previous refresh to start from */
	FL_VRR_FLUSH = 1,	/* started at the flip's flush */
	FL_VRR_WAIT = 2,	/* the flip came sooner: one mode period after the last */
	FL_VRR_REPEAT = 3,	/* repeated frames at 1/MIN came first, then the flip's */
};

/* One flip, in submit order. */
struct fl_flip {
	unsigned int index;	/* position in the run, warm-up included */
	unsigned int crtc;	/* index into fl_run.crtcs */
	bool warmup;		/* left out of the statistics */
	int64_t submit_ns;	/* just before the commit / page-flip ioctl */
	int64_t ready_ns;	/* in-fence mode: when the renderer signalled */
	/*
	 * In-fence mode: the deadline the commit set on the in-fence (the
	 * start of the vblank it must make, Linux 6.4+), read just before the
	 * renderer signalled it; 0 if none was set by then, or the kernel
	 * cannot tell (fl_run.deadlines_unsupported).
	 */
	int64_t deadline_ns;
	int64_t event_ns;	/* flip event timestamp (µs precision) */
	int64_t event_read_ns;	/* poll() on the DRM fd returned with the event */
	int64_t signal_ns;	/* out-fence SYNC_IOC_FILE_INFO timestamp_ns */
	int64_t wake_ns;	/* a thread's poll() on this out-fence alone returned */
	uint32_t event_seq;	/* vblank sequence from the flip event */
	unsigned int retries;	/* EBUSY refusals before the commit was taken */
	/*
	 * event_ns minus the previous flip's event_ns on the same CRTC, if
	 * @has_interval (not for the first flip of a CRTC). Zero (two flips
	 * at one vblank) or negative (time going back) is a driver bug: it is
	 * kept, and counted apart.
	 */
	int64_t interval_ns;
	bool has_interval;
	/*
	 * Vblanks between the last one that could have been the first to show
	 * the flip (the vblank after the count read once the commit ioctl, or
	 * in in-fence mode the renderer's signal, had returned) and the one
	 * that did. See Documentation/fliplat.rst, "Method".
	 */
	unsigned int missed;
	/* Shown at a vblank that had passed before the flip was submitted (or,
	 * in in-fence mode, ready): a bug in the driver under test. */
	bool early;
	/* In-fence mode: the renderer signalled after the first vblank that
	 * could have shown the frame had it been ready at submit. */
	bool late;
	/* In-fence mode: the flip was shown before its in-fence signalled (the
	 * driver stopped waiting for it); @missed and @early are not judged. */
	bool unready;
	bool seq_known;		/* the vblank counts above could be read */
	int fence_error;	/* < 0: the out-fence signalled with this error */
	/*
	 * --vrr: submit minus the previous refresh that showed a flip
	 * (@vrr_gap_ns, the pace fliplat drove), the repeated frames between
	 * (from the vblank count), when the model says the refresh could
	 * start at the earliest, and whether the event broke the model.
	 */
	enum fl_vrr_kind vrr_kind;
	int64_t vrr_gap_ns;
	unsigned int vrr_repeats;
	int64_t vrr_earliest_ns;
	bool vrr_broken;
};

struct fl_crtc {
	uint32_t crtc_id, connector_id;
	char connector[32];	/* e.g. "Virtual-1" */
	char mode_name[32];	/* e.g. "1920x1080" */
	unsigned int hdisplay, vdisplay;
	uint32_t vrefresh_mhz;	/* from the mode's clock/htotal/vtotal */
	int64_t period_ns;	/* one frame at that refresh rate */
	/* --vrr: the range refreshes follow; the longest frame is 1/MIN s. */
	unsigned int vrr_min_hz, vrr_max_hz;
};

/*
 * The thresholds of a CI's verdict (Documentation/fliplat.rst, "Thresholds"),
 * over the counted flips; -1: not set.
 */
struct fl_limits {
	long max_missed;	/* --max-missed: flips that missed a vblank */
	long max_late;		/* --max-late: in-fence frames the renderer made late */
	long max_early;		/* --max-early: flips shown before possible */
	long max_vrr_breaks;	/* --max-vrr-breaks: refreshes that broke the VRR model */
	struct rp_p99_limits p99;	/* --max-p99-us METRIC=US */
};

#define FL_NO_LIMITS ((struct fl_limits){ .max_missed = -1, .max_late = -1, .max_early = -1, \
				     .max_vrr_breaks = -1 })

/* The version of fliplat's JSON (Documentation/fliplat-formats.rst). */
#define FL_JSON_SCHEMA	2

struct fl_run {
	/* What ran where, and what it was asked to keep. */
	struct rp_provenance prov;
	struct fl_limits limits;
	char device[64];	/* /dev/dri/cardN */
	char driver[64];	/* drmGetVersion name, e.g. "flipkms" */
	char driver_desc[128];
	char kernel[160];	/* uname -sr */
	enum fl_mode mode;
	bool nonblock;		/* DRM_MODE_ATOMIC_NONBLOCK / async legacy flip */
	bool vrr;		/* --vrr: VRR_ENABLED set, flips paced by fl_vrr_gap_ns() */
	int64_t render_ns;	/* in-fence mode: fixed render time ... */
	int64_t render_jitter_ns; /* ... plus uniform random [0, jitter) */
	unsigned int warmup;	/* flips per CRTC left out of the statistics */
	unsigned int flips_per_crtc;	/* asked for after warm-up (0: --duration) */
	double duration_s;	/* --duration, 0 if not given */
	unsigned int seed;	/* --seed, of the renderer's jitter */
	int64_t started_ns, finished_ns;
	/* In-fence mode: SW_SYNC_GET_DEADLINE said ENOTTY (no fence deadlines). */
	bool deadlines_unsupported;
	/* NULL for a complete run, else why it stopped (the flips so far stay). */
	const char *failure;
	size_t ncrtcs;
	struct fl_crtc *crtcs;
	/* What it measured. */
	size_t nflips;
	struct fl_flip *flips;
};

/* --- stats.c ------------------------------------------------------------ */

/* The metrics fliplat reports, in the order the table and JSON list them. */
enum fl_metric {
	FL_SIGNAL_MINUS_SUBMIT,
	FL_EVENT_MINUS_SUBMIT,
	FL_WAKE_MINUS_SIGNAL,
	FL_EVENT_MINUS_SIGNAL,
	FL_READ_MINUS_EVENT,
	FL_VBLANK_INTERVAL,
	FL_MISSED_VBLANKS,
	/*
	 * wlroots' question: how late the out-fence tells what the flip event
	 * already told. fence-event: its timestamp minus the event's; wake-read:
	 * a thread polling the fence woke this long after one reading the event.
	 */
	FL_FENCE_MINUS_EVENT,
	FL_WAKE_MINUS_READ,
	FL_NMETRICS,
};

/* The time metrics, in µs; the rest count vblanks. */
bool fl_metric_is_time(enum fl_metric m);

/* What went wrong or late in a run, over its non-warm-up flips. */
struct fl_counts {
	size_t flips;		/* counted (non-warm-up) flips */
	size_t incomplete;	/* no event, or (atomic) no signalled out-fence */
	size_t fence_errors;	/* out-fences that signalled an error */
	size_t missed_flips;	/* flips shown at least one vblank late */
	size_t missed_vblanks;	/* the vblanks those flips missed, summed */
	size_t early;		/* flips shown before they were possible */
	size_t late;		/* in-fence mode: frames the renderer finished late */
	size_t unready;		/* in-fence mode: shown before the in-fence signalled */
	size_t bad_intervals;	/* vblank intervals <= 0: a driver bug */
	size_t retries;		/* EBUSY refusals retried */
	size_t vrr_judged;	/* --vrr: flips judged by the refresh model ... */
	size_t vrr_breaks;	/* ... and those whose refresh broke it */
	/* --vrr: the judged flips by kind, and the frames the display repeated */
	size_t vrr_at_flush, vrr_waited, vrr_after_repeats, vrr_repeated_frames;
};

void fl_run_counts(const struct fl_run *run, struct fl_counts *out);

/*
 * In-fence mode: the in-fences' deadlines, over the counted flips whose
 * renderer signalled. Slack is the deadline minus ready_ns: positive, the
 * frame was ready that long before its deadline; negative, late.
 */
struct fl_deadlines {
	bool supported;		/* in-fence mode on a kernel with deadlines */
	size_t with;		/* flips whose in-fence had a deadline */
	size_t without;		/* read, and none set (ENOENT) */
	size_t past;		/* slack < 0: signalled after the deadline */
	struct rp_stats slack;	/* µs, over the flips @with a deadline */
};

/* The slack of flip @f in ns; false if it has no deadline. */
bool fl_flip_slack(const struct fl_flip *f, int64_t *slack_ns);
void fl_run_deadlines(const struct fl_run *run, struct fl_deadlines *out);

const char *fl_metric_name(enum fl_metric m);	/* e.g. "signal-submit" */
/* Metric @m of one flip (µs or vblanks); false if the flip did not observe it. */
bool fl_flip_metric(const struct fl_flip *f, enum fl_metric m, double *value);
const char *fl_metric_unit(enum fl_metric m);	/* "us" or "vblanks" */
/*
 * Statistics of metric @m over the non-warm-up flips of @run (all CRTCs if
 * @crtc is -1), skipping flips where it was not observed. Time metrics are
 * in microseconds.
 */
void fl_run_stats(const struct fl_run *run, enum fl_metric m, int crtc,
		  struct rp_stats *out);

/* The metrics' names and units, for the shared reports and --max-p99-us. */
extern const struct rp_metric fl_metrics[FL_NMETRICS];

/* @run's thresholds (run->limits) judged over its counted flips. */
void fl_run_checks(const struct fl_run *run, struct rp_checks *out);

/*
 * The run as a sample table for the shared reports: a row per flip (its
 * CRTC the group, warm-up not counted, flagged if it missed a vblank), a
 * column per metric. -1 with errno ENOMEM.
 */
int fl_run_samples(const struct fl_run *run, struct rp_samples *out);

/*
 * What fliplat knew about the vblank that could first show a flip, for
 * fl_judge_flip(): the CRTC's vblank counts read just before (@before) and
 * just after (@after) the commit ioctl, or in in-fence mode the renderer's
 * signal. A blocking commit returns after the flip was shown, so its
 * @after says nothing: the bound is then @before.
 */
struct fl_bounds {
	bool known;		/* the counts could be read */
	bool blocking;		/* @after was read after a blocking commit */
	uint64_t before, after;
	bool ready;		/* in-fence mode: the in-fence had signalled */
	int64_t period_ns;	/* the CRTC's frame, for the estimate without counts */
};

/*
 * Judges flip @f, whose event (event_ns, event_seq) has arrived, by the
 * rules of Documentation/fliplat.rst, "Method": sets missed, early and
 * unready (a frame shown unready is also late).
 */
void fl_judge_flip(struct fl_flip *f, const struct fl_bounds *b);

/*
 * NULL if a flip event with cookie @rec for CRTC @crtc_id (0: the driver
 * did not say) is the one flip @rec of @run still waits for, else why not:
 * a cookie fliplat never gave, a second event for one flip, or an event on
 * another CRTC than the flip's.
 */
const char *fl_check_event(const struct fl_run *run, size_t rec, uint32_t crtc_id);

/* --- vrr.c: the variable refresh model, as flipkms and a VRR panel follow it */

/* The longest frame of a VRR range whose slowest rate is @min_hz. */
int64_t fl_vrr_max_frame_ns(unsigned int min_hz);

/*
 * The pause fliplat leaves between the refresh that showed flip @k's
 * predecessor and flip @k's submit: a sweep that repeats every 10 flips,
 * from half the mode period @period_ns to 2.5 longest frames @max_frame_ns,
 * so that every rule of the model is met in turn.
 */
int64_t fl_vrr_gap_ns(unsigned int k, int64_t period_ns, int64_t max_frame_ns);

/*
 * Judges flip @f's refresh (its submit_ns, event_ns and event_seq) after
 * the previous one that showed a flip (@last_ns, @last_seq): sets vrr_kind,
 * vrr_gap_ns, vrr_repeats, vrr_earliest_ns and vrr_broken. The refresh must
 * come no sooner than one period after the latest refresh, repeated frames
 * (the vblank count's extra steps) each exactly 1/MIN s after the one
 * before; either exactly one period after it, or later and then at most one
 * period after submit (the flush follows submit by the commit's own work);
 * and no later than 1/MIN s after it (else a repeated frame was due first).
 * The count's extra steps are frames the display repeated, judged here, not
 * vblanks the flip missed: it clears @missed.
 */
void fl_vrr_judge(struct fl_flip *f, int64_t last_ns, uint32_t last_seq, int64_t period_ns,
		  int64_t max_frame_ns);

/* --- report*.c: 0 on success, -1 with errno set ------------------------- */

const char *fl_mode_name(enum fl_mode mode);	/* "atomic", "legacy", "infence", "async" */
/*
 * The mode a run used, as the reports' titles name it: "atomic mode",
 * "atomic mode, VRR 48-144 Hz", "async mode (tearing flips)", ...
 */
void fl_run_mode_desc(const struct fl_run *run, char *buf, size_t len);

int fl_report_table(FILE *f, const struct fl_run *run);
int fl_report_csv(FILE *f, const struct fl_run *run);
int fl_report_json(FILE *f, const struct fl_run *run);
int fl_report_svg(FILE *f, const struct fl_run *run);

#endif /* FLIPLAT_H */
