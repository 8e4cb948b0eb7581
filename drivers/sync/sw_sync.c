// SPDX-License-Identifier: GPL-2.0
/*
 * sw_sync: timelines driven from userspace, for testing fence users.
 */

#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <syncfw/sync.h>

#include "syncfw_compat.h"
#include "syncfw_internal.h"

/*
 * SW SYNC validation framework
 *
 * A sw_sync timeline is a 32-bit counter that userspace advances, and its
 * fences are sync_files that signal when the counter reaches their value.
 * It exists to test code that consumes fences; it is root-only.
 *
 * Open /dev/sw_sync or <debugfs>/syncfw/sw_sync (also reached as
 * <debugfs>/sync/sw_sync, the node mainline's selftests use, on a kernel
 * without mainline's sw_sync) to create a timeline at value 0, named after
 * the opening process. Closing the fd destroys the timeline: fences not
 * yet signalled signal with -ENOENT. Documentation/sync.rst lists where
 * this differs from mainline's sw_sync.
 *
 * SW_SYNC_IOC_CREATE_FENCE takes a struct sw_sync_create_fence_data:
 *   value	the value at which the fence signals; a value the timeline
 *		has already reached gives a signalled fence
 *   name	the fence's name (NUL-terminated within 32 bytes)
 *   fence	returns the new sync_file fd (O_CLOEXEC)
 *
 * SW_SYNC_IOC_INC takes a __u32 and advances the timeline by it,
 * signalling every fence reached. An increment that would take the
 * timeline past U32_MAX fails with -EOVERFLOW and changes nothing: a
 * timeline never wraps into its past.
 *
 * SW_SYNC_GET_DEADLINE (kernels with fence deadlines, 6.4 and later; the
 * ABI of mainline's, 6.8) takes a struct sw_sync_get_deadline:
 *   fence_fd	a sw_sync fence, of any sw_sync timeline (mainline's rule)
 *   deadline_ns returns the earliest deadline set on it, CLOCK_MONOTONIC
 *		ns; -ENOENT if none was, -EINVAL if fence_fd is not a sw_sync
 *		fence or deadline_ns or pad is not 0
 */
struct sw_sync_create_fence_data {
	__u32	value;
	char	name[32];
	__s32	fence;
};

#define SW_SYNC_IOC_MAGIC	'W'
#define SW_SYNC_IOC_CREATE_FENCE	_IOWR(SW_SYNC_IOC_MAGIC, 0, \
					      struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC			_IOW(SW_SYNC_IOC_MAGIC, 1, __u32)

struct sw_sync_get_deadline {
	__u64	deadline_ns;
	__u32	pad;
	__s32	fence_fd;
};

#define SW_SYNC_GET_DEADLINE		_IOWR(SW_SYNC_IOC_MAGIC, 2, \
					      struct sw_sync_get_deadline)

/**
 * struct sw_sync_timeline - a timeline advanced from userspace
 * @obj:	the sync timeline
 * @value:	how far it has come; written under @obj.lock, read locklessly
 *		by the dump
 */
struct sw_sync_timeline {
	struct syncfw_timeline obj;
	u32 value;
};

/* sync_timeline_create() allocates the whole struct at the timeline. */
static_assert(offsetof(struct sw_sync_timeline, obj) == 0);

/* A point's value is its seqno. */
static inline u32 sw_sync_pt_value(struct syncfw_pt *pt)
{
	return pt->base.seqno;
}

static inline struct sw_sync_timeline *to_sw_sync_timeline(struct syncfw_timeline *obj)
{
	return container_of(obj, struct sw_sync_timeline, obj);
}

static int sw_sync_pt_has_signaled(struct syncfw_pt *sync_pt)
{
	struct sw_sync_timeline *tl = to_sw_sync_timeline(sync_pt->parent);

	return tl->value >= sw_sync_pt_value(sync_pt);
}

static void sw_sync_timeline_value_str(struct syncfw_timeline *obj, char *str,
				       int size)
{
	snprintf(str, size, "%u", READ_ONCE(to_sw_sync_timeline(obj)->value));
}

static void sw_sync_pt_value_str(struct syncfw_pt *pt, char *str, int size)
{
	snprintf(str, size, "%u", sw_sync_pt_value(pt));
}

/* No owner: the timeline's own pin keeps syncfw, this module, loaded. */
static const struct sync_timeline_ops sw_sync_timeline_ops = {
	.driver_name = "sw_sync",
	.has_signaled = sw_sync_pt_has_signaled,
	.timeline_value_str = sw_sync_timeline_value_str,
	.pt_value_str = sw_sync_pt_value_str,
};

static int sw_sync_open(struct inode *inode, struct file *file)
{
	char name[TASK_COMM_LEN];
	struct syncfw_timeline *obj;

	get_task_comm(name, current);
	obj = sync_timeline_create(&sw_sync_timeline_ops,
				   sizeof(struct sw_sync_timeline), name);
	if (!obj)
		return -ENOMEM;

	file->private_data = to_sw_sync_timeline(obj);
	return 0;
}

static int sw_sync_release(struct inode *inode, struct file *file)
{
	struct sw_sync_timeline *tl = file->private_data;

	sync_timeline_destroy(&tl->obj);
	return 0;
}

static long sw_sync_ioctl_create_fence(struct sw_sync_timeline *tl,
				       void __user *arg)
{
	struct sw_sync_create_fence_data data;
	struct sync_fence *fence;
	struct syncfw_pt *pt;
	int fd, err;

	if (copy_from_user(&data, arg, sizeof(data)))
		return -EFAULT;
	data.name[sizeof(data.name) - 1] = '\0';

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;

	pt = sync_pt_create(&tl->obj, sizeof(*pt), data.value);
	if (!pt) {
		err = -ENOMEM;
		goto err_put_fd;
	}

	fence = sync_fence_create(data.name, pt);
	if (!fence) {
		err = -ENOMEM;
		goto err_free_pt;
	}

	data.fence = fd;
	if (copy_to_user(arg, &data, sizeof(data))) {
		err = -EFAULT;
		goto err_put_fence;
	}

	sync_fence_install(fence, fd);
	return 0;

err_put_fence:
	sync_fence_put(fence);
	goto err_put_fd;
err_free_pt:
	sync_pt_free(pt);
err_put_fd:
	put_unused_fd(fd);
	return err;
}

static long sw_sync_ioctl_inc(struct sw_sync_timeline *tl, u32 __user *arg)
{
	u32 inc;

	if (get_user(inc, arg))
		return -EFAULT;

	spin_lock_irq(&tl->obj.lock);
	if (inc > U32_MAX - tl->value) {
		spin_unlock_irq(&tl->obj.lock);
		return -EOVERFLOW;
	}
	WRITE_ONCE(tl->value, tl->value + inc);
	sync_timeline_signal_locked(&tl->obj);
	spin_unlock_irq(&tl->obj.lock);

	return 0;
}

#if SYNCFW_HAVE_FENCE_DEADLINE
static long sw_sync_ioctl_get_deadline(void __user *arg)
{
	struct sw_sync_get_deadline data;
	struct dma_fence *fence;
	struct syncfw_pt *pt;
	s64 deadline;
	bool ours;

	if (copy_from_user(&data, arg, sizeof(data)))
		return -EFAULT;
	if (data.deadline_ns || data.pad)
		return -EINVAL;

	fence = sync_file_get_fence(data.fence_fd);
	if (!fence)
		return -EINVAL;
	pt = sync_pt_of(fence);
	ours = pt && pt->parent->ops == &sw_sync_timeline_ops;
	/* Any s64: SYNC_IOC_SET_DEADLINE's __u64 may read as negative. */
	deadline = ours ? sync_pt_deadline(pt) : KTIME_MAX;
	dma_fence_put(fence);
	if (!ours)
		return -EINVAL;
	if (deadline == KTIME_MAX)
		return -ENOENT;

	data.deadline_ns = deadline;
	if (copy_to_user(arg, &data, sizeof(data)))
		return -EFAULT;
	return 0;
}
#endif

static long sw_sync_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct sw_sync_timeline *tl = file->private_data;

	switch (cmd) {
	case SW_SYNC_IOC_CREATE_FENCE:
		return sw_sync_ioctl_create_fence(tl, (void __user *)arg);
	case SW_SYNC_IOC_INC:
		return sw_sync_ioctl_inc(tl, (u32 __user *)arg);
#if SYNCFW_HAVE_FENCE_DEADLINE
	case SW_SYNC_GET_DEADLINE:
		return sw_sync_ioctl_get_deadline((void __user *)arg);
#endif
	default:
		return -ENOTTY;
	}
}

static const struct file_operations sw_sync_fops = {
	.owner		= THIS_MODULE,
	.open		= sw_sync_open,
	.release	= sw_sync_release,
	.unlocked_ioctl	= sw_sync_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice sw_sync_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "sw_sync",
	.fops	= &sw_sync_fops,
	.mode	= 0600,
};

/**
 * sw_sync_init() - register the sw_sync nodes
 * @debugfs_dir: where the debugfs node goes, <debugfs>/syncfw (beside a
 *		 mainline sw_sync, the two are compared through the same
 *		 debugfs proxy)
 *
 * Return: 0 or the misc device's registration error.
 */
int sw_sync_init(struct dentry *debugfs_dir)
{
	debugfs_create_file("sw_sync", 0600, debugfs_dir, NULL, &sw_sync_fops);

	return misc_register(&sw_sync_misc);
}

void sw_sync_exit(void)
{
	misc_deregister(&sw_sync_misc);
}
