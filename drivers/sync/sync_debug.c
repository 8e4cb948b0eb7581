// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs dump: <debugfs>/sync/info lists every timeline with its
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
 * timeline's value_str ops (seed 009).
 */

#include <linux/debugfs.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/seq_file.h>
#include <linux/sync_file.h>

#include <syncfw/sync.h>

#include "syncfw_internal.h"

static struct dentry *sync_debugfs_dir;

/*
 * Call with @fence's lock held. Only reads what the fence has recorded:
 * the dump must not signal anything, least of all a point whose last
 * reference is gone and whose release waits for this lock.
 */
static void sync_print_status(struct seq_file *s, struct dma_fence *fence)
{
	int status = 0;

	if (test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &fence->flags))
		status = fence->error ?: 1;

	if (!status)
		seq_puts(s, "active");
	else if (status > 0)
		seq_puts(s, "signaled");
	else
		seq_printf(s, "error %d", status);

	if (status && test_bit(DMA_FENCE_FLAG_TIMESTAMP_BIT, &fence->flags))
		seq_printf(s, " @%lld", ktime_to_ns(fence->timestamp));
	seq_putc(s, '\n');
}

static void sync_print_timeline(struct seq_file *s, struct sync_timeline *obj)
{
	char value[64];
	struct sync_pt *pt;

	spin_lock(&obj->lock);
	sync_timeline_value_str(obj, value, sizeof(value));
	seq_printf(s, "%s %s: %s%s\n", obj->name, obj->ops->driver_name, value,
		   obj->destroyed ? " destroyed" : "");
	list_for_each_entry(pt, &obj->pt_list, pt_link) {
		sync_pt_value_str(pt, value, sizeof(value));
		seq_printf(s, "  pt %s: ", value);
		sync_print_status(s, &pt->base);
	}
	spin_unlock(&obj->lock);
}

static void sync_print_fence_pt(struct seq_file *s, struct dma_fence *fence)
{
	char value[64] = "";

	spin_lock(fence->lock);
	if (fence->ops->fence_value_str)
		fence->ops->fence_value_str(fence, value, sizeof(value));
	else
		snprintf(value, sizeof(value), "%llu", fence->seqno);
	seq_printf(s, "  %s %s pt %s: ", fence->ops->get_timeline_name(fence),
		   fence->ops->get_driver_name(fence), value);
	sync_print_status(s, fence);
	spin_unlock(fence->lock);
}

static void sync_print_fence(struct seq_file *s, struct sync_file *sync_file)
{
	struct dma_fence *fence = sync_file->fence;
	struct dma_fence_unwrap iter;
	struct dma_fence *f;
	int status;

	status = dma_fence_get_status(fence);
	seq_printf(s, "%s: %s", sync_file->user_name,
		   !status ? "active" : status > 0 ? "signaled" : "error");
	if (status < 0)
		seq_printf(s, " %d", status);
	seq_putc(s, '\n');

	dma_fence_unwrap_for_each(f, &iter, fence)
		sync_print_fence_pt(s, f);
}

static int sync_info_show(struct seq_file *s, void *unused)
{
	struct sync_timeline *obj;
	struct sync_file *sync_file;

	seq_puts(s, "timelines:\n");
	spin_lock_irq(&sync_timeline_list_lock);
	list_for_each_entry(obj, &sync_timeline_list, timeline_list)
		sync_print_timeline(s, obj);
	spin_unlock_irq(&sync_timeline_list_lock);

	seq_puts(s, "fences:\n");
	spin_lock_irq(&sync_fence_list_lock);
	list_for_each_entry(sync_file, &sync_fence_list, sync_file_list)
		sync_print_fence(s, sync_file);
	spin_unlock_irq(&sync_fence_list_lock);

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sync_info);

/*
 * The dump lives in <debugfs>/sync like mainline's, unless a kernel with
 * CONFIG_SW_SYNC already owns that directory: then it is <debugfs>/syncfw.
 */
struct dentry *sync_debugfs_init(void)
{
	struct dentry *mainline = debugfs_lookup("sync", NULL);

	if (mainline) {
		dput(mainline);
		sync_debugfs_dir = debugfs_create_dir("syncfw", NULL);
	} else {
		sync_debugfs_dir = debugfs_create_dir("sync", NULL);
	}
	debugfs_create_file("info", 0400, sync_debugfs_dir, NULL,
			    &sync_info_fops);

	return mainline ? NULL : sync_debugfs_dir;
}

void sync_debugfs_exit(void)
{
	debugfs_remove_recursive(sync_debugfs_dir);
}
