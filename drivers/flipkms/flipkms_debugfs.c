// SPDX-License-Identifier: GPL-2.0+
/*
 * Run-time controls, fault injection and counters, in the DRM device's
 * debugfs directory (/sys/kernel/debug/dri/N):
 *
 *   flipkms_status		counters and settings of every output
 *   crtc-<i>/connected		1/0: plug or unplug the connector (hot-plug
 *				uevent)
 *   crtc-<i>/refresh_hz	refresh rate of the preferred mode, 30-240
 *				(hot-plug uevent; takes effect on the next
 *				modeset)
 *   crtc-<i>/signal_delay_us	signal out-fences this long after the vblank
 *				that shows their frame (0: at the vblank)
 *   crtc-<i>/drop_vblanks	the next N vblanks (at most 240) do not happen
 *   crtc-<i>/stall_commit_ms	the next commit stalls this long (at most
 *				5000) before it is flushed
 *   crtc-<i>/fence_error	the next latched commit's out-fence fails
 *				with -N (e.g. 5 for -EIO)
 *   crtc-<i>/frame.ppm		the frame on screen now, composed, as a
 *				binary PPM (P6, 8 bits per channel)
 *   crtc-<i>/crc/		the DRM core's CRC interface (source "auto")
 *
 * Documentation/flipkms.rst describes each.
 */

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kstrtox.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <drm/drm_probe_helper.h>

#include "flipkms_drv.h"

static int flipkms_status_show(struct seq_file *m, void *data)
{
	struct drm_info_node *node = m->private;
	struct flipkms_device *fkms = to_flipkms_device(node->minor->dev);
	unsigned int i;

	for (i = 0; i < fkms->num_outputs; i++) {
		struct flipkms_output *out = &fkms->outputs[i];

		seq_printf(m, "crtc-%u: %s, period %lld ns, flip %llu on screen\n",
			   i, READ_ONCE(out->connected) ? "connected" : "disconnected",
			   ktime_to_ns(out->period),
			   flipkms_timeline_value(out->timeline));
		seq_printf(m, "  vblanks %lld, missed %lld, dropped %lld, flips %lld\n",
			   atomic64_read(&out->vblanks),
			   atomic64_read(&out->missed_vblanks),
			   atomic64_read(&out->dropped_vblanks),
			   atomic64_read(&out->flips));
		seq_printf(m, "  refresh_hz %u, signal_delay_us %u, drop_vblanks %d, stall_commit_ms %d, fence_error %d\n",
			   READ_ONCE(out->refresh), READ_ONCE(out->signal_delay_us),
			   atomic_read(&out->drop_vblanks),
			   atomic_read(&out->stall_ms),
			   atomic_read(&out->fence_error));
	}
	seq_printf(m, "in-fence timeouts %llu\n",
		   flipkms_infences_timeouts(fkms->infences));
	return 0;
}

static const struct drm_info_list flipkms_debugfs_list[] = {
	{ "flipkms_status", flipkms_status_show, 0 },
};

/* Read a bounded unsigned value from a user write. */
static int flipkms_parse_uint(const char __user *buf, size_t len,
			      unsigned int min, unsigned int max,
			      unsigned int *value)
{
	int ret = kstrtouint_from_user(buf, len, 0, value);

	if (ret)
		return ret;
	return *value < min || *value > max ? -EINVAL : 0;
}

static ssize_t flipkms_connected_write(struct file *file,
				       const char __user *buf, size_t len,
				       loff_t *ppos)
{
	struct flipkms_output *out = file->private_data;
	unsigned int value;
	int ret;

	ret = flipkms_parse_uint(buf, len, 0, 1, &value);
	if (ret)
		return ret;

	WRITE_ONCE(out->connected, value);
	drm_kms_helper_hotplug_event(out->crtc.dev);
	return len;
}

static ssize_t flipkms_connected_read(struct file *file, char __user *buf,
				      size_t len, loff_t *ppos)
{
	struct flipkms_output *out = file->private_data;
	char text[4];
	int n = scnprintf(text, sizeof(text), "%d\n", READ_ONCE(out->connected));

	return simple_read_from_buffer(buf, len, ppos, text, n);
}

static const struct file_operations flipkms_connected_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = flipkms_connected_read,
	.write = flipkms_connected_write,
	.llseek = default_llseek,
};

static ssize_t flipkms_refresh_write(struct file *file, const char __user *buf,
				     size_t len, loff_t *ppos)
{
	struct flipkms_output *out = file->private_data;
	unsigned int value;
	int ret;

	ret = flipkms_parse_uint(buf, len, FLIPKMS_MIN_REFRESH,
				 FLIPKMS_MAX_REFRESH, &value);
	if (ret)
		return ret;

	WRITE_ONCE(out->refresh, value);
	drm_kms_helper_hotplug_event(out->crtc.dev);
	return len;
}

static ssize_t flipkms_refresh_read(struct file *file, char __user *buf,
				    size_t len, loff_t *ppos)
{
	struct flipkms_output *out = file->private_data;
	char text[16];
	int n = scnprintf(text, sizeof(text), "%u\n", READ_ONCE(out->refresh));

	return simple_read_from_buffer(buf, len, ppos, text, n);
}

static const struct file_operations flipkms_refresh_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = flipkms_refresh_read,
	.write = flipkms_refresh_write,
	.llseek = default_llseek,
};

/*
 * The one-shot faults, each bounded so that no setting can hang a CRTC
 * for longer than the commit helpers' 10 s flip timeout. Their files point
 * at the output's atomic_t.
 */
static int flipkms_fault_get(void *data, u64 *val)
{
	*val = atomic_read(data);
	return 0;
}

static int flipkms_fault_set(atomic_t *fault, u64 val, u64 max)
{
	if (val > max)
		return -EINVAL;
	atomic_set(fault, val);
	return 0;
}

static int flipkms_drop_vblanks_set(void *data, u64 val)
{
	return flipkms_fault_set(data, val, 240);
}

static int flipkms_stall_commit_set(void *data, u64 val)
{
	return flipkms_fault_set(data, val, 5000);
}

static int flipkms_fence_error_set(void *data, u64 val)
{
	return flipkms_fault_set(data, val, MAX_ERRNO);
}

DEFINE_DEBUGFS_ATTRIBUTE(flipkms_drop_vblanks_fops, flipkms_fault_get,
			 flipkms_drop_vblanks_set, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(flipkms_stall_commit_fops, flipkms_fault_get,
			 flipkms_stall_commit_set, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(flipkms_fence_error_fops, flipkms_fault_get,
			 flipkms_fence_error_set, "%llu\n");

void flipkms_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(flipkms_debugfs_list,
				 ARRAY_SIZE(flipkms_debugfs_list),
				 minor->debugfs_root, minor);
}

/* The output's controls go into the DRM core's crtc-<i> directory. */
void flipkms_debugfs_crtc_init(struct flipkms_output *out)
{
	struct dentry *dir = out->crtc.debugfs_entry;

	debugfs_create_file("connected", 0600, dir, out,
			    &flipkms_connected_fops);
	debugfs_create_file("refresh_hz", 0600, dir, out,
			    &flipkms_refresh_fops);
	debugfs_create_u32("signal_delay_us", 0600, dir,
			   &out->signal_delay_us);
	debugfs_create_file_unsafe("drop_vblanks", 0600, dir,
				   &out->drop_vblanks,
				   &flipkms_drop_vblanks_fops);
	debugfs_create_file_unsafe("stall_commit_ms", 0600, dir,
				   &out->stall_ms, &flipkms_stall_commit_fops);
	debugfs_create_file_unsafe("fence_error", 0600, dir,
				   &out->fence_error,
				   &flipkms_fence_error_fops);
	debugfs_create_file("frame.ppm", 0400, dir, out,
			    &flipkms_frame_fops);
}
