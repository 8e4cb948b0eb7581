// SPDX-License-Identifier: GPL-2.0+
/*
 * The composer: composes a CRTC's frames a line at a time (flipkms_blend.c)
 * when something needs their pixels, and only then. It serves the DRM CRC
 * interface (source "auto": a CRC32 of the composed frame per vblank) and
 * the frame.ppm debugfs file.
 * It composes the frame a vblank latched (flipkms_frame.h), which maps its
 * own buffers, so no modeset lock is taken and no commit waits for it.
 */

#include <linux/crc32.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <drm/drm_atomic.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_vblank.h>

#include "flipkms_blend.h"
#include "flipkms_drv.h"
#include "flipkms_frame.h"

/**
 * flipkms_compose_into() - write a frame into a buffer
 * @frame:	the frame
 * @fb:		an XRGB8888 or ARGB8888 framebuffer of the frame's size
 * @vaddr:	its first colour plane, mapped
 *
 * Each channel is the composed one's upper 8 bits, alpha (or X) 0xff: the
 * composed frame is opaque.
 *
 * Context: process context; may sleep between lines.
 *
 * Returns 0, or -EINVAL for a buffer that does not fit, -ENOMEM.
 */
int flipkms_compose_into(const struct flipkms_frame *frame,
			 const struct drm_framebuffer *fb, void *vaddr)
{
	struct flipkms_pixel *line;
	u8 *row;
	int x, y;

	if (fb->width != frame->width || fb->height != frame->height || !vaddr ||
	    (fb->format->format != DRM_FORMAT_XRGB8888 &&
	     fb->format->format != DRM_FORMAT_ARGB8888))
		return -EINVAL;
	line = kvmalloc_array(frame->width, sizeof(*line), GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	for (y = 0; y < frame->height; y++) {
		flipkms_compose_line(frame, y, line);
		cond_resched();
		row = (u8 *)vaddr + y * fb->pitches[0];
		for (x = 0; x < frame->width; x++) {
			row[4 * x] = line[x].b >> 8;
			row[4 * x + 1] = line[x].g >> 8;
			row[4 * x + 2] = line[x].r >> 8;
			row[4 * x + 3] = 0xff;
		}
	}
	kvfree(line);
	return 0;
}

/* CRCs */

static const char *const flipkms_crc_sources[] = { "auto" };

const char *const *flipkms_get_crc_sources(struct drm_crtc *crtc,
					   size_t *count)
{
	*count = ARRAY_SIZE(flipkms_crc_sources);
	return flipkms_crc_sources;
}

int flipkms_verify_crc_source(struct drm_crtc *crtc, const char *source,
			      size_t *values_cnt)
{
	if (source && strcmp(source, "auto"))
		return -EINVAL;
	*values_cnt = 1;
	return 0;
}

/* The vblank timer must run while CRCs are wanted: hold a vblank reference. */
int flipkms_set_crc_source(struct drm_crtc *crtc, const char *source)
{
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	bool enable = source && !strcmp(source, "auto");
	int ret;

	if (source && !enable)
		return -EINVAL;
	if (enable == out->crc_enabled)
		return 0;

	if (enable) {
		ret = drm_crtc_vblank_get(crtc);
		if (ret)
			return ret;
	}
	WRITE_ONCE(out->crc_enabled, enable);
	if (!enable)
		drm_crtc_vblank_put(crtc);
	return 0;
}

/* The CRC of @frame, composed the first time it is asked for. */
static int flipkms_frame_crc(struct flipkms_output *out,
			     struct flipkms_frame *frame, u32 *crc)
{
	struct flipkms_pixel *line;
	u32 value = 0;
	int y;

	/* Pairs with the release below: a frame's CRC is written once. */
	if (smp_load_acquire(&frame->crc_done)) {
		*crc = frame->crc;
		return 0;
	}
	line = kvmalloc_array(frame->width, sizeof(*line), GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	for (y = 0; y < frame->height; y++) {
		flipkms_compose_line(frame, y, line);
		value = crc32_le(value, (const u8 *)line,
				 frame->width * sizeof(*line));
		/* A large frame takes long to compose under emulation. */
		cond_resched();
	}
	kvfree(line);
	atomic64_inc(&out->compositions);

	frame->crc = value;
	/* @crc before @crc_done, for readers that do not take crc_lock. */
	smp_store_release(&frame->crc_done, true);
	*crc = value;
	return 0;
}

/* Call with crc_lock held: the entry of @vblank, showing CRC @crc. */
static void flipkms_crc_entry(struct flipkms_output *out, u64 vblank, u32 crc)
{
	lockdep_assert_held(&out->crc_lock);
	if (!drm_crtc_add_crc_entry(&out->crtc, true, vblank, &crc))
		atomic64_inc(&out->crc_entries);
}

/*
 * Entries go out in vblank order: the oldest queued request leaves the
 * queue only once its entry is added, and the vblank timer adds an entry
 * itself only when the queue is empty.
 */
static void flipkms_crc_work(struct work_struct *work)
{
	struct flipkms_output *out = container_of(work, struct flipkms_output,
						  crc_work);
	struct flipkms_crc_request req;
	bool ok;
	u32 crc;

	for (;;) {
		spin_lock_irq(&out->crc_lock);
		if (!out->crc_len) {
			spin_unlock_irq(&out->crc_lock);
			return;
		}
		req = out->crc_queue[out->crc_head];
		spin_unlock_irq(&out->crc_lock);

		/* Only this work takes requests off the queue. */
		ok = !flipkms_frame_crc(out, req.frame, &crc);

		spin_lock_irq(&out->crc_lock);
		if (ok)
			flipkms_crc_entry(out, req.vblank, crc);
		else
			atomic64_inc(&out->crc_dropped);
		out->crc_head = (out->crc_head + 1) % FLIPKMS_CRC_QUEUE;
		out->crc_len--;
		spin_unlock_irq(&out->crc_lock);
		flipkms_frame_put(req.frame);
		/* A composer slower than the vblanks never finds the queue empty. */
		cond_resched();
	}
}

/**
 * flipkms_composer_vblank() - the CRC entry of a vblank
 * @out: the output, from its vblank timer
 *
 * Every vblank while CRCs are on gets an entry with the CRC of the frame it
 * showed. A frame is composed once, in a work item; until its CRC is known
 * the vblanks wait in order, and while FLIPKMS_CRC_QUEUE of them wait, new
 * ones get no entry (counted in crc_dropped).
 */
void flipkms_composer_vblank(struct flipkms_output *out)
{
	struct flipkms_frame *frame;
	unsigned long flags;
	unsigned int tail;
	u64 vblank;

	if (!READ_ONCE(out->crc_enabled))
		return;
	frame = flipkms_output_shown(out);
	if (!frame)
		return;
	vblank = drm_crtc_vblank_count(&out->crtc);

	spin_lock_irqsave(&out->crc_lock, flags);
	/* Pairs with flipkms_frame_crc()'s release: @crc is written. */
	if (!out->crc_len && smp_load_acquire(&frame->crc_done)) {
		flipkms_crc_entry(out, vblank, frame->crc);
	} else if (out->crc_len == FLIPKMS_CRC_QUEUE) {
		atomic64_inc(&out->crc_dropped);
	} else {
		tail = (out->crc_head + out->crc_len) % FLIPKMS_CRC_QUEUE;
		out->crc_queue[tail] = (struct flipkms_crc_request){
			.vblank = vblank,
			.frame = frame,
		};
		out->crc_len++;
		frame = NULL;	/* the queue's reference now */
		queue_work(system_unbound_wq, &out->crc_work);
	}
	spin_unlock_irqrestore(&out->crc_lock, flags);
	flipkms_frame_put(frame);
}

int flipkms_composer_init(struct flipkms_output *out)
{
	spin_lock_init(&out->crc_lock);
	INIT_WORK(&out->crc_work, flipkms_crc_work);
	return 0;
}

/* After the vblank timer stopped: no request can come in any more. */
void flipkms_composer_fini(struct flipkms_output *out)
{
	cancel_work_sync(&out->crc_work);
	while (out->crc_len) {
		flipkms_frame_put(out->crc_queue[out->crc_head].frame);
		out->crc_head = (out->crc_head + 1) % FLIPKMS_CRC_QUEUE;
		out->crc_len--;
	}
}

/* frame.ppm: the frame on screen, composed when the file is opened. */

struct flipkms_ppm {
	size_t size;
	char data[];
};

static int flipkms_frame_open(struct inode *inode, struct file *file)
{
	struct flipkms_output *out = inode->i_private;
	struct flipkms_pixel *line = NULL;
	struct flipkms_frame *frame;
	struct flipkms_ppm *ppm;
	int header, x, y;
	u8 *rgb;

	frame = flipkms_output_shown(out);
	if (!frame)
		return -ENODATA;
	ppm = vmalloc(sizeof(*ppm) + 32 + (size_t)frame->width * frame->height * 3);
	if (ppm)
		line = kvmalloc_array(frame->width, sizeof(*line), GFP_KERNEL);
	if (!line) {
		vfree(ppm);
		flipkms_frame_put(frame);
		return -ENOMEM;
	}

	header = snprintf(ppm->data, 32, "P6\n%d %d\n255\n", frame->width,
			  frame->height);
	rgb = (u8 *)ppm->data + header;
	for (y = 0; y < frame->height; y++) {
		flipkms_compose_line(frame, y, line);
		cond_resched();
		for (x = 0; x < frame->width; x++) {
			*rgb++ = line[x].r >> 8;
			*rgb++ = line[x].g >> 8;
			*rgb++ = line[x].b >> 8;
		}
	}
	ppm->size = rgb - (u8 *)ppm->data;
	file->private_data = ppm;

	kvfree(line);
	flipkms_frame_put(frame);
	return 0;
}

static ssize_t flipkms_frame_read(struct file *file, char __user *buf,
				  size_t len, loff_t *ppos)
{
	struct flipkms_ppm *ppm = file->private_data;

	return simple_read_from_buffer(buf, len, ppos, ppm->data, ppm->size);
}

static int flipkms_frame_release(struct inode *inode, struct file *file)
{
	vfree(file->private_data);
	return 0;
}

const struct file_operations flipkms_frame_fops = {
	.owner = THIS_MODULE,
	.open = flipkms_frame_open,
	.read = flipkms_frame_read,
	.release = flipkms_frame_release,
	.llseek = default_llseek,
};
