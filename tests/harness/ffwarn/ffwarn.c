// SPDX-License-Identifier: GPL-2.0
/*
 * ffwarn: a test-only module whose load breaks the kernel on purpose, so
 * that the harness can prove that each of its detectors fails a run. Never
 * load it outside tests.
 *
 * mode=warn (default)  a WARN
 * mode=panic           a panic
 * mode=hang            the loading task sleeps uninterruptibly for 10 min
 *                      (the hung-task detector's job)
 * mode=kasan           an out-of-bounds read of a heap object (debug kernel)
 * mode=lockdep         two mutexes taken in both orders (debug kernel)
 * mode=leak            an allocation whose pointer is dropped (debug kernel)
 */

#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

static char *mode = "warn";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "warn, panic, hang, kasan, lockdep or leak");

static DEFINE_MUTEX(ffwarn_a);
static DEFINE_MUTEX(ffwarn_b);

/* Written with WRITE_ONCE() so that the compiler keeps the bad access. */
static char ffwarn_sink;
static void *ffwarn_lost;

static int ffwarn_kasan(void)
{
	char *p = kmalloc(16, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	WRITE_ONCE(ffwarn_sink, READ_ONCE(p[16 + (READ_ONCE(ffwarn_sink) & 1)]));
	kfree(p);
	return 0;
}

static void ffwarn_lockdep(void)
{
	mutex_lock(&ffwarn_a);
	mutex_lock(&ffwarn_b);
	mutex_unlock(&ffwarn_b);
	mutex_unlock(&ffwarn_a);

	mutex_lock(&ffwarn_b);
	mutex_lock(&ffwarn_a);
	mutex_unlock(&ffwarn_a);
	mutex_unlock(&ffwarn_b);
}

static int __init ffwarn_init(void)
{
	if (!strcmp(mode, "warn")) {
		WARN(1, "ffwarn: deliberate warning for the splat detector test\n");
	} else if (!strcmp(mode, "panic")) {
		panic("ffwarn: deliberate panic for the harness test\n");
	} else if (!strcmp(mode, "hang")) {
		pr_info("ffwarn: sleeping uninterruptibly for the hung-task test\n");
		msleep(600 * MSEC_PER_SEC);
	} else if (!strcmp(mode, "kasan")) {
		return ffwarn_kasan();
	} else if (!strcmp(mode, "lockdep")) {
		ffwarn_lockdep();
	} else if (!strcmp(mode, "leak")) {
		int i;

		for (i = 0; i < 32; i++)
			WRITE_ONCE(ffwarn_lost, kmalloc(64, GFP_KERNEL));
		WRITE_ONCE(ffwarn_lost, NULL);
	} else {
		pr_err("ffwarn: unknown mode '%s'\n", mode);
		return -EINVAL;
	}
	return 0;
}

static void __exit ffwarn_exit(void)
{
}

module_init(ffwarn_init);
module_exit(ffwarn_exit);

MODULE_DESCRIPTION("flipfence test module: deliberate kernel faults on load");
MODULE_LICENSE("GPL");
