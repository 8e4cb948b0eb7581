/* SPDX-License-Identifier: GPL-2.0 */
/* What the parts of syncfw share with each other and nobody else. */

#ifndef _SYNCFW_INTERNAL_H
#define _SYNCFW_INTERNAL_H

#include <linux/list.h>
#include <linux/spinlock.h>

#include <syncfw/sync.h>

struct dentry;
struct dma_fence;
struct syncfw_pt;
struct syncfw_timeline;

void sync_timeline_value_str(struct syncfw_timeline *obj, char *str, int size);

/* Whether @pt is on its timeline: only its creator publishes it. */
static inline bool sync_pt_published(struct syncfw_pt *pt)
{
	return !list_empty(&pt->pt_link);
}

void sync_pt_value_str(struct syncfw_pt *pt, char *str, int size);

/* The syncfw point @fence is, or NULL if it is not one. */
struct syncfw_pt *sync_pt_of(struct dma_fence *fence);

/* The earliest deadline set on @pt, or KTIME_MAX. */
static inline s64 sync_pt_deadline(struct syncfw_pt *pt)
{
	return atomic64_read(&pt->deadline_ns);
}

/*
 * sync_debug.c, only with CONFIG_DEBUG_FS: the dump's list of every
 * timeline alive. Adding and removing take only its irq-safe lock, so a
 * timeline's release may remove it in any context.
 */
#if IS_ENABLED(CONFIG_DEBUG_FS)
void sync_debug_add(struct syncfw_timeline *obj);
void sync_debug_remove(struct syncfw_timeline *obj);
struct dentry *sync_debugfs_init(void);
void sync_debugfs_exit(void);
#else
static inline void sync_debug_add(struct syncfw_timeline *obj) { }
static inline void sync_debug_remove(struct syncfw_timeline *obj) { }
static inline struct dentry *sync_debugfs_init(void) { return NULL; }
static inline void sync_debugfs_exit(void) { }
#endif

/* sw_sync.c */
int sw_sync_init(struct dentry *debugfs_dir);
void sw_sync_exit(void);

#endif /* _SYNCFW_INTERNAL_H */
