// SPDX-License-Identifier: GPL-2.0
/*
 * syncfw_testdev: a test-only window on syncfw's own kernel API for the
 * guest tests (tests/sync/syncfw-api.c). See syncfw_test_uapi.h for the
 * ABI. Never load it outside a test guest.
 */

#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <syncfw/sync.h>

#include "syncfw_test_uapi.h"

/**
 * struct testdev_timeline - a timeline advanced with given timestamps
 * @obj:	the sync timeline
 * @value:	how far it has come; written under @obj.lock
 * @held:	a point created but not published yet (swapped atomically)
 * @shown:	the point @held became once published
 */
struct testdev_timeline {
	struct syncfw_timeline obj;
	u32 value;
	struct syncfw_pt *held;
	struct syncfw_pt *shown;
};

static_assert(offsetof(struct testdev_timeline, obj) == 0);

static struct dentry *testdev_node;

static inline struct testdev_timeline *to_testdev(struct syncfw_timeline *obj)
{
	return container_of(obj, struct testdev_timeline, obj);
}

static int testdev_has_signaled(struct syncfw_pt *pt)
{
	return to_testdev(pt->parent)->value >= pt->base.seqno;
}

static void testdev_value_str(struct syncfw_timeline *obj, char *str, int size)
{
	snprintf(str, size, "%u", READ_ONCE(to_testdev(obj)->value));
}

static const struct sync_timeline_ops testdev_ops = {
	.owner = THIS_MODULE,
	.driver_name = "syncfw_testdev",
	.has_signaled = testdev_has_signaled,
	.timeline_value_str = testdev_value_str,
};

static int testdev_open(struct inode *inode, struct file *file)
{
	struct syncfw_timeline *obj;

	obj = sync_timeline_create(&testdev_ops, sizeof(struct testdev_timeline),
				   "syncfw_testdev");
	if (!obj)
		return -ENOMEM;
	file->private_data = obj;
	return 0;
}

static void testdev_drop(struct syncfw_pt *pt)
{
	if (pt)
		sync_pt_free(pt);
}

static int testdev_release(struct inode *inode, struct file *file)
{
	struct testdev_timeline *tl = to_testdev(file->private_data);

	testdev_drop(xchg(&tl->held, NULL));
	testdev_drop(xchg(&tl->shown, NULL));
	sync_timeline_destroy(&tl->obj);
	return 0;
}

/* Installs @fence in a new fd, written to @fd_out in @arg's copy @data. */
static int testdev_install(struct sync_fence *fence, void __user *arg,
			   void *data, size_t size, __s32 *fd_out)
{
	int fd = get_unused_fd_flags(O_CLOEXEC);

	if (fd < 0) {
		sync_fence_put(fence);
		return fd;
	}
	*fd_out = fd;
	if (copy_to_user(arg, data, size)) {
		put_unused_fd(fd);
		sync_fence_put(fence);
		return -EFAULT;
	}
	sync_fence_install(fence, fd);
	return 0;
}

static long testdev_ioctl_fence(struct syncfw_timeline *obj, void __user *arg)
{
	struct syncfw_test_fence data;
	struct sync_fence *fence;
	struct syncfw_pt *pt;

	if (copy_from_user(&data, arg, sizeof(data)))
		return -EFAULT;
	pt = sync_pt_create(obj, sizeof(*pt), data.value);
	if (!pt)
		return -ENOMEM;
	fence = sync_fence_create("syncfw_testdev", pt);
	if (!fence) {
		sync_pt_free(pt);
		return -ENOMEM;
	}
	return testdev_install(fence, arg, &data, sizeof(data), &data.fence);
}

static long testdev_ioctl_signal(struct syncfw_timeline *obj, void __user *arg)
{
	struct syncfw_test_signal data;
	unsigned long flags;

	if (copy_from_user(&data, arg, sizeof(data)))
		return -EFAULT;
	if (data.pad || data.timestamp_ns < 0 ||
	    data.timestamp_ns > ktime_to_ns(ktime_get()))
		return -EINVAL;

	spin_lock_irqsave(&obj->lock, flags);
	if (data.value < to_testdev(obj)->value) {
		spin_unlock_irqrestore(&obj->lock, flags);
		return -EINVAL;
	}
	WRITE_ONCE(to_testdev(obj)->value, data.value);
	sync_timeline_signal_timestamp_locked(obj, ns_to_ktime(data.timestamp_ns));
	spin_unlock_irqrestore(&obj->lock, flags);
	return 0;
}

static long testdev_ioctl_hold(struct syncfw_timeline *obj, u32 __user *arg)
{
	struct syncfw_pt *pt;
	u32 value;

	if (get_user(value, arg))
		return -EFAULT;
	pt = sync_pt_create(obj, sizeof(*pt), value);
	if (!pt)
		return -ENOMEM;
	testdev_drop(xchg(&to_testdev(obj)->held, pt));
	return 0;
}

static long testdev_ioctl_publish(struct syncfw_timeline *obj)
{
	struct syncfw_pt *pt = xchg(&to_testdev(obj)->held, NULL);

	if (!pt)
		return -ENOENT;
	sync_pt_publish(pt);
	testdev_drop(xchg(&to_testdev(obj)->shown, pt));
	return 0;
}

static long testdev_ioctl_merge(void __user *arg)
{
	struct sync_fence *a, *b, *merged;
	struct syncfw_test_merge data;

	if (copy_from_user(&data, arg, sizeof(data)))
		return -EFAULT;
	data.name[sizeof(data.name) - 1] = '\0';

	a = sync_fence_fdget(data.fd1);
	if (!a)
		return -EINVAL;
	b = sync_fence_fdget(data.fd2);
	if (!b) {
		sync_fence_put(a);
		return -EINVAL;
	}
	merged = sync_fence_merge(data.name, a, b);
	sync_fence_put(b);
	sync_fence_put(a);
	if (!merged)
		return -ENOMEM;
	return testdev_install(merged, arg, &data, sizeof(data), &data.fence);
}

static long testdev_ioctl_wait(void __user *arg)
{
	struct syncfw_test_wait data;
	struct sync_fence *fence;

	if (copy_from_user(&data, arg, sizeof(data)))
		return -EFAULT;
	fence = sync_fence_fdget(data.fd);
	if (!fence)
		return -EINVAL;
	data.status = sync_fence_wait(fence, data.timeout_ms);
	sync_fence_put(fence);
	if (data.status == -ERESTARTSYS)
		return -ERESTARTSYS;
	return copy_to_user(arg, &data, sizeof(data)) ? -EFAULT : 0;
}

static long testdev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct syncfw_timeline *obj = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case SYNCFW_TEST_IOC_FENCE:
		return testdev_ioctl_fence(obj, uarg);
	case SYNCFW_TEST_IOC_SIGNAL:
		return testdev_ioctl_signal(obj, uarg);
	case SYNCFW_TEST_IOC_MERGE:
		return testdev_ioctl_merge(uarg);
	case SYNCFW_TEST_IOC_WAIT:
		return testdev_ioctl_wait(uarg);
	case SYNCFW_TEST_IOC_HOLD:
		return testdev_ioctl_hold(obj, uarg);
	case SYNCFW_TEST_IOC_PUBLISH:
		return testdev_ioctl_publish(obj);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations testdev_fops = {
	.owner		= THIS_MODULE,
	.open		= testdev_open,
	.release	= testdev_release,
	.unlocked_ioctl	= testdev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static int __init testdev_init(void)
{
	testdev_node = debugfs_create_file("syncfw_test", 0600, NULL, NULL,
					   &testdev_fops);
	return 0;
}

static void __exit testdev_exit(void)
{
	debugfs_remove(testdev_node);
}

module_init(testdev_init);
module_exit(testdev_exit);

MODULE_DESCRIPTION("Test-only ioctls onto syncfw's kernel API");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SYNCFW);
