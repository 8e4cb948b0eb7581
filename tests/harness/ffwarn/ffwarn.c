// SPDX-License-Identifier: GPL-2.0
/*
 * ffwarn: a test-only module whose load triggers a WARN, so that the
 * harness can prove it notices kernel splats. Never load it outside tests.
 */

#include <linux/bug.h>
#include <linux/module.h>

static int __init ffwarn_init(void)
{
	WARN(1, "ffwarn: deliberate warning for the splat detector test\n");
	return 0;
}

static void __exit ffwarn_exit(void)
{
}

module_init(ffwarn_init);
module_exit(ffwarn_exit);

MODULE_DESCRIPTION("flipfence test module: deliberate WARN on load");
MODULE_LICENSE("GPL");
