// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs dump: <debugfs>/syncfw/info lists every timeline with its
 * points, then every fence syncfw made with its points. Format, one line
 * each, indented lines belonging to the line above:
 *
 *   timelines:
 *   <name> <driver>: <value>[ destroyed]
 *     pt <value>: <status>[ @<ns>]
 *   fences:
 *   <name>: <status>
 *     <timeline> <driver> pt <value>: <status>[ @<ns>]
 *
 * <status> is active, signaled or error <errno>; @<ns> is the
 * CLOCK_MONOTONIC time of the status change. Values come from the
 * timeline's value_str ops (seed 009). The fences are those syncfw made
 * of one point, listed by timeline.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include <syncfw/sync.h>

#include "syncfw_internal.h"

static struct dentry *sync_debugfs_dir, *sync_debugfs_link;

/* Every timeline alive (irq-safe: a timeline's release runs anywhere). */
static LIST_HEAD(sync_timeline_list);
static DEFINE_SPINLOCK(sync_timeline_list_lock);

void sync_debug_add(struct syncfw_timeline *obj)
{
	unsigned long flags;

	spin_lock_irqsave(&sync_timeline_list_lock, flags);
	list_add_tail(&obj->timeline_list, &sync_timeline_list);
	spin_unlock_irqrestore(&sync_timeline_list_lock, flags);
}

void sync_debug_remove(struct syncfw_timeline *obj)
{
	unsigned long flags;

	spin_lock_irqsave(&sync_timeline_list_lock, flags);
	list_del(&obj->timeline_list);
	spin_unlock_irqrestore(&sync_timeline_list_lock, flags);
}

/*
 * Only reads what the fence has recorded, without its lock: the dump
 * never signals anything and never takes a timeline's lock. The error is
 * written before the signalled bit, the timestamp before its own bit; the
 * deadline is one atomic64_t.
 */
static void sync_print_status(struct seq_file *s, struct syncfw_pt *pt)
{
	struct dma_fence *fence = &pt->base;
	s64 deadline = sync_pt_deadline(pt);
	int status = 0;

	if (test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &fence->flags)) {
		smp_rmb(); /* the error, written before the bit */
		status = READ_ONCE(fence->error) ?: 1;
	}

	if (!status)
		seq_puts(s, "active");
	else if (status > 0)
		seq_puts(s, "signaled");
	else
		seq_printf(s, "error %d", status);

	if (status && test_bit(DMA_FENCE_FLAG_TIMESTAMP_BIT, &fence->flags)) {
		smp_rmb(); /* the timestamp, written before its bit */
		seq_printf(s, " @%lld", ktime_to_ns(fence->timestamp));
	}
	if (deadline != KTIME_MAX)
		seq_printf(s, " deadline @%lld", deadline);
	seq_putc(s, '\n');
}

static void sync_print_pt(struct seq_file *s, const char *prefix,
			  struct syncfw_pt *pt)
{
	char value[64];

	sync_pt_value_str(pt, value, sizeof(value));
	seq_printf(s, "%spt %s: ", prefix, value);
	sync_print_status(s, pt);
}

/* Call with sync_timeline_list_lock held, which keeps @obj alive. */
static void sync_print_timeline(struct seq_file *s, struct syncfw_timeline *obj)
{
	char value[64];
	struct syncfw_pt *pt;

	sync_timeline_value_str(obj, value, sizeof(value));
	seq_printf(s, "%s %s: %s%s\n", obj->name, obj->ops->driver_name, value,
		   READ_ONCE(obj->destroyed) ? " destroyed" : "");

	spin_lock(&obj->list_lock);
	list_for_each_entry(pt, &obj->pt_list, pt_link)
		sync_print_pt(s, "  ", pt);
	spin_unlock(&obj->list_lock);
}

/*
 * The fences syncfw made of one point (sync_fence_create()) are those
 * points, named: they leave the dump in their own release. Merged fences
 * are dma_fence_arrays, whose release is the core's; their points show
 * under their timelines.
 */
static void sync_print_fences(struct seq_file *s, struct syncfw_timeline *obj)
{
	char prefix[96];
	struct syncfw_pt *pt;

	snprintf(prefix, sizeof(prefix), "  %s %s ", obj->name,
		 obj->ops->driver_name);
	spin_lock(&obj->list_lock);
	list_for_each_entry(pt, &obj->pt_list, pt_link) {
		if (!pt->name[0])
			continue;
		seq_printf(s, "%s: ", pt->name);
		sync_print_status(s, pt);
		sync_print_pt(s, prefix, pt);
	}
	spin_unlock(&obj->list_lock);
}

static int sync_info_show(struct seq_file *s, void *unused)
{
	struct syncfw_timeline *obj;

	spin_lock_irq(&sync_timeline_list_lock);
	seq_puts(s, "timelines:\n");
	list_for_each_entry(obj, &sync_timeline_list, timeline_list)
		sync_print_timeline(s, obj);
	seq_puts(s, "fences:\n");
	list_for_each_entry(obj, &sync_timeline_list, timeline_list)
		sync_print_fences(s, obj);
	spin_unlock_irq(&sync_timeline_list_lock);

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sync_info);

/*
 * syncfw's debugfs files live in <debugfs>/syncfw: info (the dump) and
 * sw_sync, whatever else the kernel has. <debugfs>/sync is mainline's
 * (CONFIG_SW_SYNC: its own info and sw_sync, with mainline's semantics);
 * without it, syncfw makes <debugfs>/sync a symlink to syncfw, so that what
 * knows only mainline's path (tools/testing/selftests/sync, Android
 * libsync's fallback) finds a sw_sync there. CONFIG_SW_SYNC is a bool:
 * mainline's directory exists from boot, before syncfw can load, so the
 * link never takes it from a mainline sw_sync loaded later.
 * Returns syncfw's directory, for the debugfs sw_sync node.
 */
struct dentry *sync_debugfs_init(void)
{
	struct dentry *mainline = debugfs_lookup("sync", NULL);

	sync_debugfs_dir = debugfs_create_dir("syncfw", NULL);
	debugfs_create_file("info", 0400, sync_debugfs_dir, NULL,
			    &sync_info_fops);
	if (mainline)
		dput(mainline);
	else
		sync_debugfs_link = debugfs_create_symlink("sync", NULL, "syncfw");

	return sync_debugfs_dir;
}

void sync_debugfs_exit(void)
{
	debugfs_remove(sync_debugfs_link);
	debugfs_remove_recursive(sync_debugfs_dir);
}
