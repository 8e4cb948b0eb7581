/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syncfw's trace events: every point it signals, with the timestamp that
 * SYNC_IOC_FILE_INFO reports for it (the dma_fence:dma_fence_signaled event
 * of the core says that a fence signalled; this one also says when the
 * timeline said it did, a vblank's time say, and with what error), and
 * every deadline a waiter sets on one.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM syncfw

#if !defined(_SYNCFW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SYNCFW_TRACE_H

#include <linux/dma-fence.h>
#include <linux/tracepoint.h>

#include <syncfw/sync.h>

#include "syncfw_compat.h"

TRACE_EVENT(syncfw_pt_signaled,
	TP_PROTO(const struct syncfw_pt *pt),
	TP_ARGS(pt),

	TP_STRUCT__entry(
		__string(timeline, pt->parent->name)
		__field(u64, context)
		__field(u64, seqno)
		__field(s64, timestamp_ns)
		__field(int, error)
	),

	TP_fast_assign(
		syncfw_assign_str(timeline, pt->parent->name);
		__entry->context = pt->base.context;
		__entry->seqno = pt->base.seqno;
		__entry->timestamp_ns = ktime_to_ns(pt->base.timestamp);
		__entry->error = pt->base.error;
	),

	TP_printk("timeline=%s context=%llu seqno=%llu timestamp=%lld error=%d",
		  __get_str(timeline), __entry->context, __entry->seqno,
		  __entry->timestamp_ns, __entry->error)
);

/*
 * A waiter set a deadline on a point (kernels from 6.4): when, and whether
 * it is now the point's earliest (the one the dump and SW_SYNC_GET_DEADLINE
 * report). With syncfw_pt_signaled it tells how early or late the point
 * signalled for whoever needed it.
 */
#if SYNCFW_HAVE_FENCE_DEADLINE
TRACE_EVENT(syncfw_pt_deadline,
	TP_PROTO(const struct syncfw_pt *pt, ktime_t deadline, bool earliest),
	TP_ARGS(pt, deadline, earliest),

	TP_STRUCT__entry(
		__string(timeline, pt->parent->name)
		__field(u64, context)
		__field(u64, seqno)
		__field(s64, deadline_ns)
		__field(bool, earliest)
	),

	TP_fast_assign(
		syncfw_assign_str(timeline, pt->parent->name);
		__entry->context = pt->base.context;
		__entry->seqno = pt->base.seqno;
		__entry->deadline_ns = ktime_to_ns(deadline);
		__entry->earliest = earliest;
	),

	TP_printk("timeline=%s context=%llu seqno=%llu deadline=%lld earliest=%d",
		  __get_str(timeline), __entry->context, __entry->seqno,
		  __entry->deadline_ns, __entry->earliest)
);
#endif

#endif /* _SYNCFW_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE syncfw_trace
#include <trace/define_trace.h>
