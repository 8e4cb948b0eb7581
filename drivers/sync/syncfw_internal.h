/* SPDX-License-Identifier: GPL-2.0 */
/* What the parts of syncfw share with each other and nobody else. */

#ifndef _SYNCFW_INTERNAL_H
#define _SYNCFW_INTERNAL_H

#include <linux/list.h>
#include <linux/spinlock.h>

#include <syncfw/sync.h>

struct dentry;
struct syncfw_pt;
struct syncfw_timeline;

/*
 * sync_timeline.c: every timeline alive, under sync_timeline_list_lock
 * (irq-safe: a timeline's release can run in any context).
 */
extern struct list_head sync_timeline_list;
extern spinlock_t sync_timeline_list_lock;

void sync_timeline_value_str(struct syncfw_timeline *obj, char *str, int size);

/* Whether @pt is on its timeline: only its creator publishes it. */
static inline bool sync_pt_published(struct syncfw_pt *pt)
{
	return !list_empty(&pt->pt_link);
}

void sync_pt_value_str(struct syncfw_pt *pt, char *str, int size);

/* sync_debug.c, only with CONFIG_DEBUG_FS */
#if IS_ENABLED(CONFIG_DEBUG_FS)
struct dentry *sync_debugfs_init(void);
void sync_debugfs_exit(void);
#else
static inline struct dentry *sync_debugfs_init(void) { return NULL; }
static inline void sync_debugfs_exit(void) { }
#endif

/* sw_sync.c */
int sw_sync_init(struct dentry *debugfs_dir);
void sw_sync_exit(void);

#endif /* _SYNCFW_INTERNAL_H */
