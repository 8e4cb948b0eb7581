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
 *   crtc-<i>/vrr_range		the monitor's refresh range, MIN-MAX in Hz
 *				(30-255; hot-plug uevent; refreshes follow it
 *				from the next commit)
 *   crtc-<i>/vrr_hold		the next N flips under VRR (at most 240) are
 *				shown at the end of the longest frame
 *   crtc-<i>/signal_delay_us	signal out-fences this long (at most 5 s)
 *				after the vblank that shows their frame (0:
 *				at the vblank)
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
#include <linux/seq_file.h>
#include <linux/uaccess.h>

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
			   i, drm_get_connector_status_name(READ_ONCE(out->status)),
			   ktime_to_ns(out->period),
			   flipkms_timeline_value(out->timeline));
		seq_printf(m, "  vblanks %lld, missed %lld, dropped %lld, flips %lld\n",
			   atomic64_read(&out->vblanks),
			   atomic64_read(&out->missed_vblanks),
			   atomic64_read(&out->dropped_vblanks),
			   atomic64_read(&out->flips));
		seq_printf(m, "  compositions %lld, crc entries %lld, crc dropped %lld\n",
			   atomic64_read(&out->compositions),
			   atomic64_read(&out->crc_entries),
			   atomic64_read(&out->crc_dropped));
		seq_printf(m, "  latches held for compositions %lld, not held (no memory) %lld\n",
			   atomic64_read(&out->held_latches),
			   atomic64_read(&out->held_lost));
		seq_printf(m, "  vrr_range %u-%u, vrr %s, refreshes %u, vrr_hold %d\n",
			   flipkms_vrr_min_hz(READ_ONCE(out->vrr_range)),
			   flipkms_vrr_max_hz(READ_ONCE(out->vrr_range)),
			   READ_ONCE(out->vrr) ? "on" : "off",
			   READ_ONCE(out->refreshes), atomic_read(&out->vrr_hold));
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

/*
 * The connector's state and the preferred refresh rate: changing either
 * tells clients to probe again, as a real monitor would.
 */
static int flipkms_connected_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct flipkms_output *)data)->status) ==
	       connector_status_connected;
	return 0;
}

static int flipkms_connected_set(void *data, u64 val)
{
	struct flipkms_output *out = data;

	if (val > 1)
		return -EINVAL;
	WRITE_ONCE(out->status, val ? connector_status_connected :
				      connector_status_disconnected);
	drm_kms_helper_hotplug_event(out->crtc.dev);
	return 0;
}

static int flipkms_refresh_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct flipkms_output *)data)->refresh);
	return 0;
}

static int flipkms_refresh_set(void *data, u64 val)
{
	struct flipkms_output *out = data;

	if (val < FLIPKMS_MIN_REFRESH || val > FLIPKMS_MAX_REFRESH)
		return -EINVAL;
	WRITE_ONCE(out->refresh, val);
	drm_kms_helper_hotplug_event(out->crtc.dev);
	return 0;
}

/*
 * The refresh range, as a monitor switching to another range would: a new
 * EDID on the next probe. EINVAL for text that is not MIN-MAX or a MIN
 * above MAX, ERANGE for a rate out of 30-255.
 */
static int flipkms_vrr_range_show(struct seq_file *m, void *data)
{
	u32 range = READ_ONCE(((struct flipkms_output *)m->private)->vrr_range);

	seq_printf(m, "%u-%u\n", flipkms_vrr_min_hz(range),
		   flipkms_vrr_max_hz(range));
	return 0;
}

static int flipkms_vrr_range_open(struct inode *inode, struct file *file)
{
	return single_open(file, flipkms_vrr_range_show, inode->i_private);
}

static ssize_t flipkms_vrr_range_write(struct file *file, const char __user *ubuf,
				       size_t len, loff_t *pos)
{
	struct flipkms_output *out = ((struct seq_file *)file->private_data)->private;
	char buf[16];
	u32 range;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	ret = flipkms_vrr_parse(buf, &range);
	if (ret)
		return ret;
	WRITE_ONCE(out->vrr_range, range);
	drm_kms_helper_hotplug_event(out->crtc.dev);
	return len;
}

static const struct file_operations flipkms_vrr_range_fops = {
	.owner = THIS_MODULE,
	.open = flipkms_vrr_range_open,
	.read = seq_read,
	.write = flipkms_vrr_range_write,
	.llseek = seq_lseek,
	.release = single_release,
};

DEFINE_DEBUGFS_ATTRIBUTE(flipkms_connected_fops, flipkms_connected_get,
			 flipkms_connected_set, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(flipkms_refresh_fops, flipkms_refresh_get,
			 flipkms_refresh_set, "%llu\n");

/*
 * The one-shot faults, each bounded so that no setting can hang a CRTC.
 * The bounds do not keep a flip within the commit helpers' 10 s flip
 * timeout: 240 dropped vblanks at 30 Hz are 8 s, and faults add up (see
 * Documentation/flipkms.rst, Debugfs controls). Their files point at the
 * output's atomic_t.
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

/* Not a one-shot fault, but bounded the same way: at most 5 s. */
static int flipkms_signal_delay_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(u32 *)data);
	return 0;
}

static int flipkms_signal_delay_set(void *data, u64 val)
{
	if (val > FLIPKMS_MAX_SIGNAL_DELAY_US)
		return -EINVAL;
	WRITE_ONCE(*(u32 *)data, val);
	return 0;
}

static int flipkms_drop_vblanks_set(void *data, u64 val)
{
	return flipkms_fault_set(data, val, FLIPKMS_MAX_DROP_VBLANKS);
}

static int flipkms_stall_commit_set(void *data, u64 val)
{
	return flipkms_fault_set(data, val, FLIPKMS_MAX_STALL_MS);
}

static int flipkms_vrr_hold_set(void *data, u64 val)
{
	return flipkms_fault_set(data, val, FLIPKMS_MAX_VRR_HOLD);
}

static int flipkms_fence_error_set(void *data, u64 val)
{
	return flipkms_fault_set(data, val, MAX_ERRNO);
}

DEFINE_DEBUGFS_ATTRIBUTE(flipkms_signal_delay_fops, flipkms_signal_delay_get,
			 flipkms_signal_delay_set, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(flipkms_drop_vblanks_fops, flipkms_fault_get,
			 flipkms_drop_vblanks_set, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(flipkms_stall_commit_fops, flipkms_fault_get,
			 flipkms_stall_commit_set, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(flipkms_vrr_hold_fops, flipkms_fault_get,
			 flipkms_vrr_hold_set, "%llu\n");
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

	debugfs_create_file_unsafe("connected", 0600, dir, out,
				   &flipkms_connected_fops);
	debugfs_create_file_unsafe("refresh_hz", 0600, dir, out,
				   &flipkms_refresh_fops);
	debugfs_create_file("vrr_range", 0600, dir, out,
			    &flipkms_vrr_range_fops);
	debugfs_create_file_unsafe("vrr_hold", 0600, dir, &out->vrr_hold,
				   &flipkms_vrr_hold_fops);
	debugfs_create_file_unsafe("signal_delay_us", 0600, dir,
				   &out->signal_delay_us,
				   &flipkms_signal_delay_fops);
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
