/* SPDX-License-Identifier: GPL-2.0 */
/* What the parts of syncfw share with each other and nobody else. */

#ifndef _SYNCFW_INTERNAL_H
#define _SYNCFW_INTERNAL_H

#include <linux/list.h>
#include <linux/spinlock.h>

struct dentry;
struct sync_pt;
struct sync_timeline;

/* sync_timeline.c: every timeline alive, under sync_timeline_list_lock. */
extern struct list_head sync_timeline_list;
extern spinlock_t sync_timeline_list_lock;

void sync_timeline_value_str(struct sync_timeline *obj, char *str, int size);
void sync_pt_value_str(struct sync_pt *pt, char *str, int size);

/* sync_fence.c: every sync_file syncfw made, under sync_fence_list_lock. */
extern struct list_head sync_fence_list;
extern spinlock_t sync_fence_list_lock;

/* sync_debug.c */
struct dentry *sync_debugfs_init(void);
void sync_debugfs_exit(void);

/* sw_sync.c */
int sw_sync_init(struct dentry *debugfs_dir);
void sw_sync_exit(void);

#endif /* _SYNCFW_INTERNAL_H */
