// SPDX-License-Identifier: GPL-2.0
/*
 * syncfw: the Android sync framework on top of dma_fence.
 *
 * The module stays loaded while any timeline exists: every timeline, and
 * so every point and sync_file syncfw made, pins it (rmmod says it is in
 * use) because their dma_fence ops are code in this module. The pin is a
 * file the VFS drops, so that no code of this module runs after its last
 * reference is gone.
 */

#include <linux/module.h>

#include "syncfw_internal.h"

#define CREATE_TRACE_POINTS
#include "syncfw_trace.h"

/* For probes of other modules: KUnit counts the points syncfw signals. */
EXPORT_TRACEPOINT_SYMBOL_GPL(syncfw_pt_signaled);

static int __init syncfw_init(void)
{
	struct dentry *dir;
	int ret;

	dir = sync_debugfs_init();
	ret = sw_sync_init(dir);
	if (ret)
		sync_debugfs_exit();

	return ret;
}

static void __exit syncfw_exit(void)
{
	/*
	 * Nothing of syncfw is left to wait for: every timeline and point
	 * pins the module, an RCU reader of a freed point takes a reference
	 * (core code) before it touches the point's ops, and timeline memory
	 * goes through kfree_rcu(), which runs no syncfw code.
	 */
	sw_sync_exit();
	sync_debugfs_exit();
}

module_init(syncfw_init);
module_exit(syncfw_exit);

MODULE_DESCRIPTION("Sync framework: timelines, points and fences on dma_fence");
MODULE_LICENSE("GPL");
