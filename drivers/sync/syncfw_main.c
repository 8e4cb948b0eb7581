// SPDX-License-Identifier: GPL-2.0
/*
 * syncfw: the Android sync framework on top of dma_fence.
 */

#include <linux/debugfs.h>
#include <linux/module.h>

static struct dentry *syncfw_debugfs_root;

static int __init syncfw_init(void)
{
	syncfw_debugfs_root = debugfs_create_dir("sync", NULL);
	return 0;
}

static void __exit syncfw_exit(void)
{
	debugfs_remove_recursive(syncfw_debugfs_root);
}

module_init(syncfw_init);
module_exit(syncfw_exit);

MODULE_DESCRIPTION("Sync framework: timelines, points and fences on dma_fence");
MODULE_LICENSE("GPL");
