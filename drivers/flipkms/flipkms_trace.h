/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flipkms's trace events: the kernel's side of every frame, to match what
 * a client saw (an event, a fence, a compositor's presentation feedback)
 * with what the display did. Every time is CLOCK_MONOTONIC in ns, the
 * clock of the events and fences they describe; "ideal" is the time a
 * vblank stands for, which the timer reaches a little later.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM flipkms

#if !defined(_FLIPKMS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FLIPKMS_TRACE_H

#include <linux/ktime.h>
#include <linux/tracepoint.h>

#include "flipkms_compat.h"

/*
 * A commit's planes are flushed: the next vblank after @flushed shows it;
 * an @async flip is shown at once (@active is then true as well).
 */
TRACE_EVENT(flipkms_commit_flush,
	TP_PROTO(unsigned int crtc, u64 seqno, ktime_t flushed, bool active,
		 bool async),
	TP_ARGS(crtc, seqno, flushed, active, async),

	TP_STRUCT__entry(
		__field(unsigned int, crtc)
		__field(u64, seqno)
		__field(s64, flushed_ns)
		__field(bool, active)
		__field(bool, async)
	),

	TP_fast_assign(
		__entry->crtc = crtc;
		__entry->seqno = seqno;
		__entry->flushed_ns = ktime_to_ns(flushed);
		__entry->active = active;
		__entry->async = async;
	),

	TP_printk("crtc=%u seqno=%llu flushed=%lld active=%d async=%d",
		  __entry->crtc, __entry->seqno, __entry->flushed_ns,
		  __entry->active, __entry->async)
);

/* A vblank is counted: @count is the DRM vblank counter, @missed the periods the timer skipped. */
TRACE_EVENT(flipkms_vblank,
	TP_PROTO(unsigned int crtc, u64 count, ktime_t ideal, u64 missed),
	TP_ARGS(crtc, count, ideal, missed),

	TP_STRUCT__entry(
		__field(unsigned int, crtc)
		__field(u64, count)
		__field(s64, ideal_ns)
		__field(u64, missed)
	),

	TP_fast_assign(
		__entry->crtc = crtc;
		__entry->count = count;
		__entry->ideal_ns = ktime_to_ns(ideal);
		__entry->missed = missed;
	),

	TP_printk("crtc=%u count=%llu ideal=%lld missed=%llu", __entry->crtc,
		  __entry->count, __entry->ideal_ns, __entry->missed)
);

/*
 * Commit @seqno (and any before it) is on screen since the vblank of
 * ideal time @vblank, or for an @async flip since @vblank between two
 * vblanks; its out-fences signal stamped @signal (later than @vblank
 * under signal_delay_us), with @error if one was injected.
 */
TRACE_EVENT(flipkms_latch,
	TP_PROTO(unsigned int crtc, u64 seqno, ktime_t vblank, ktime_t signal,
		 int error, bool async),
	TP_ARGS(crtc, seqno, vblank, signal, error, async),

	TP_STRUCT__entry(
		__field(unsigned int, crtc)
		__field(u64, seqno)
		__field(s64, vblank_ns)
		__field(s64, signal_ns)
		__field(int, error)
		__field(bool, async)
	),

	TP_fast_assign(
		__entry->crtc = crtc;
		__entry->seqno = seqno;
		__entry->vblank_ns = ktime_to_ns(vblank);
		__entry->signal_ns = ktime_to_ns(signal);
		__entry->error = error;
		__entry->async = async;
	),

	TP_printk("crtc=%u seqno=%llu vblank=%lld signal=%lld error=%d async=%d",
		  __entry->crtc, __entry->seqno, __entry->vblank_ns,
		  __entry->signal_ns, __entry->error, __entry->async)
);

/* The out-fences of @timeline up to @seqno have signalled, stamped @stamp. */
TRACE_EVENT(flipkms_out_fence_signaled,
	TP_PROTO(const char *timeline, u64 seqno, ktime_t stamp),
	TP_ARGS(timeline, seqno, stamp),

	TP_STRUCT__entry(
		__string(timeline, timeline)
		__field(u64, seqno)
		__field(s64, stamp_ns)
	),

	TP_fast_assign(
		flipkms_assign_str(timeline, timeline);
		__entry->seqno = seqno;
		__entry->stamp_ns = ktime_to_ns(stamp);
	),

	TP_printk("timeline=%s seqno=%llu stamp=%lld", __get_str(timeline),
		  __entry->seqno, __entry->stamp_ns)
);

/* A plane's in-fence settled: @status 1 signalled, -ETIMEDOUT timed out. */
TRACE_EVENT(flipkms_in_fence,
	TP_PROTO(const char *driver, const char *timeline, u64 seqno, int status,
		 s64 waited_ns),
	TP_ARGS(driver, timeline, seqno, status, waited_ns),

	TP_STRUCT__entry(
		__string(driver, driver)
		__string(timeline, timeline)
		__field(u64, seqno)
		__field(int, status)
		__field(s64, waited_ns)
	),

	TP_fast_assign(
		flipkms_assign_str(driver, driver);
		flipkms_assign_str(timeline, timeline);
		__entry->seqno = seqno;
		__entry->status = status;
		__entry->waited_ns = waited_ns;
	),

	TP_printk("fence=%s:%s:%llu status=%d waited=%lld", __get_str(driver),
		  __get_str(timeline), __entry->seqno, __entry->status,
		  __entry->waited_ns)
);

/* A writeback job is written (@status 0) or failed. */
TRACE_EVENT(flipkms_writeback_done,
	TP_PROTO(unsigned int crtc, int status),
	TP_ARGS(crtc, status),

	TP_STRUCT__entry(
		__field(unsigned int, crtc)
		__field(int, status)
	),

	TP_fast_assign(
		__entry->crtc = crtc;
		__entry->status = status;
	),

	TP_printk("crtc=%u status=%d", __entry->crtc, __entry->status)
);

#endif /* _FLIPKMS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE flipkms_trace
#include <trace/define_trace.h>
