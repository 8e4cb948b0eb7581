// SPDX-License-Identifier: GPL-2.0+
/*
 * The composer: blends the visible planes of a CRTC, in zpos order over an
 * opaque black background, one line at a time in 16 bits per channel with
 * premultiplied alpha (the DRM default blend mode), then through the CRTC's
 * gamma LUT if it has one. It serves the DRM CRC interface (source "auto":
 * a CRC32 of the composed frame per vblank) and the frame.ppm debugfs file.
 * Composition reads the current state under the modeset locks, so the
 * shadow-plane mappings it uses stay valid.
 */

#include <linux/crc32.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <asm/unaligned.h>

#include <drm/drm_atomic.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_modeset_lock.h>
#include <drm/drm_vblank.h>

#include "flipkms_drv.h"

/* One composed pixel; its layout is ARGB16161616's, which the CRC covers. */
struct flipkms_pixel {
	u16 b, g, r, a;
};

/* What a frame is made of, collected under the modeset locks. */
struct flipkms_frame {
	int width, height;
	unsigned int num_planes;
	const struct drm_plane_state *planes[2 + FLIPKMS_MAX_OVERLAYS];
	const struct drm_color_lut *lut;	/* FLIPKMS_LUT_SIZE entries, or NULL */
};

static u16 expand(u32 value, unsigned int bits)
{
	return value * 0xffff / ((1 << bits) - 1);
}

static void flipkms_read_pixel(u32 format, const u8 *src,
			       struct flipkms_pixel *px)
{
	u16 v;

	switch (format) {
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_XRGB8888:
		px->b = src[0] * 257;
		px->g = src[1] * 257;
		px->r = src[2] * 257;
		px->a = format == DRM_FORMAT_ARGB8888 ? src[3] * 257 : 0xffff;
		break;
	case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_XRGB16161616:
		px->b = get_unaligned_le16(src);
		px->g = get_unaligned_le16(src + 2);
		px->r = get_unaligned_le16(src + 4);
		px->a = format == DRM_FORMAT_ARGB16161616 ?
			get_unaligned_le16(src + 6) : 0xffff;
		break;
	case DRM_FORMAT_RGB565:
		v = get_unaligned_le16(src);
		px->r = expand(v >> 11, 5);
		px->g = expand((v >> 5) & 0x3f, 6);
		px->b = expand(v & 0x1f, 5);
		px->a = 0xffff;
		break;
	default:
		memset(px, 0, sizeof(*px));
	}
}

/* Premultiplied "over": the destination shows through 1 - source alpha. */
static void flipkms_blend(struct flipkms_pixel *dst,
			  const struct flipkms_pixel *src)
{
	u32 keep = 0xffff - src->a;

	dst->r = min_t(u32, src->r + dst->r * keep / 0xffff, 0xffff);
	dst->g = min_t(u32, src->g + dst->g * keep / 0xffff, 0xffff);
	dst->b = min_t(u32, src->b + dst->b * keep / 0xffff, 0xffff);
	dst->a = min_t(u32, src->a + dst->a * keep / 0xffff, 0xffff);
}

/*
 * Collect the visible planes of @out's current state, lowest zpos first.
 * Call with the modeset locks held. Returns false if the CRTC is off.
 */
static bool flipkms_collect(struct flipkms_output *out,
			    struct flipkms_frame *frame)
{
	const struct drm_crtc_state *crtc_state = out->crtc.state;
	const struct drm_plane_state *ps;
	struct drm_plane *plane;
	unsigned int i;

	if (!crtc_state->active)
		return false;

	frame->width = crtc_state->mode.hdisplay;
	frame->height = crtc_state->mode.vdisplay;
	frame->lut = crtc_state->gamma_lut ? crtc_state->gamma_lut->data : NULL;
	frame->num_planes = 0;
	drm_for_each_plane_mask(plane, out->crtc.dev, crtc_state->plane_mask) {
		ps = plane->state;
		if (!ps->fb || !ps->visible ||
		    frame->num_planes == ARRAY_SIZE(frame->planes))
			continue;
		/* Insertion sort: a handful of planes. */
		for (i = frame->num_planes; i > 0 &&
		     frame->planes[i - 1]->normalized_zpos > ps->normalized_zpos; i--)
			frame->planes[i] = frame->planes[i - 1];
		frame->planes[i] = ps;
		frame->num_planes++;
	}
	return true;
}

/*
 * Entry i of the LUT is the output for input i / (size - 1) of full scale;
 * inputs between two entries are interpolated linearly, as hardware does.
 */
static void flipkms_lut_index(u16 value, u32 *lo, u32 *hi, u32 *frac)
{
	u32 pos = (u32)value * (FLIPKMS_LUT_SIZE - 1);

	*lo = pos / 0xffff;
	*hi = min_t(u32, *lo + 1, FLIPKMS_LUT_SIZE - 1);
	*frac = pos % 0xffff;
}

static u16 flipkms_lerp(u16 lo, u16 hi, u32 frac)
{
	return lo + div_s64(((s64)hi - lo) * frac, 0xffff);
}

static void flipkms_apply_gamma(const struct flipkms_frame *frame,
				struct flipkms_pixel *line)
{
	const struct drm_color_lut *lut = frame->lut;
	u32 lo, hi, frac;
	int x;

	if (!lut)
		return;
	for (x = 0; x < frame->width; x++) {
		flipkms_lut_index(line[x].r, &lo, &hi, &frac);
		line[x].r = flipkms_lerp(lut[lo].red, lut[hi].red, frac);
		flipkms_lut_index(line[x].g, &lo, &hi, &frac);
		line[x].g = flipkms_lerp(lut[lo].green, lut[hi].green, frac);
		flipkms_lut_index(line[x].b, &lo, &hi, &frac);
		line[x].b = flipkms_lerp(lut[lo].blue, lut[hi].blue, frac);
	}
}

static void flipkms_compose_line(const struct flipkms_frame *frame, int y,
				 struct flipkms_pixel *line)
{
	const struct drm_shadow_plane_state *shadow;
	const struct drm_plane_state *ps;
	const struct drm_framebuffer *fb;
	struct flipkms_pixel px;
	unsigned int i;
	const u8 *row;
	int x, sx, sy;

	for (x = 0; x < frame->width; x++)
		line[x] = (struct flipkms_pixel){ .a = 0xffff };

	for (i = 0; i < frame->num_planes; i++) {
		ps = frame->planes[i];
		if (y < ps->dst.y1 || y >= ps->dst.y2)
			continue;
		fb = ps->fb;
		shadow = container_of(ps, struct drm_shadow_plane_state, base);
		if (!shadow->data[0].vaddr)
			continue;
		sy = (ps->src.y1 >> 16) + y - ps->dst.y1;
		sx = ps->src.x1 >> 16;
		row = (const u8 *)shadow->data[0].vaddr + sy * fb->pitches[0] +
		      sx * fb->format->cpp[0];
		for (x = max(ps->dst.x1, 0); x < min(ps->dst.x2, frame->width); x++) {
			flipkms_read_pixel(fb->format->format,
					   row + (x - ps->dst.x1) * fb->format->cpp[0],
					   &px);
			flipkms_blend(&line[x], &px);
		}
	}
	flipkms_apply_gamma(frame, line);
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
	/*
	 * The CRC core calls this with the CRTC lock held, which the work
	 * takes: it checks for itself that CRCs are still wanted instead of
	 * being waited for here.
	 */
	WRITE_ONCE(out->crc_enabled, enable);
	if (!enable)
		drm_crtc_vblank_put(crtc);
	return 0;
}

static void flipkms_crc_work(struct work_struct *work)
{
	struct flipkms_output *out = container_of(work, struct flipkms_output,
						  crc_work);
	struct drm_device *drm = out->crtc.dev;
	struct flipkms_pixel *line = NULL;
	struct flipkms_frame frame;
	u64 vblank = READ_ONCE(out->crc_frame);
	bool active;
	u32 crc = 0;
	int y;

	drm_modeset_lock_all(drm);
	active = READ_ONCE(out->crc_enabled) && flipkms_collect(out, &frame);
	if (active)
		line = kvmalloc_array(frame.width, sizeof(*line), GFP_KERNEL);
	if (line) {
		for (y = 0; y < frame.height; y++) {
			flipkms_compose_line(&frame, y, line);
			crc = crc32_le(crc, (const u8 *)line,
				       frame.width * sizeof(*line));
		}
	}
	drm_modeset_unlock_all(drm);

	if (line)
		drm_crtc_add_crc_entry(&out->crtc, true, vblank, &crc);
	kvfree(line);
}

/* From the vblank timer: a CRC of this frame, unless one is still due. */
void flipkms_composer_vblank(struct flipkms_output *out)
{
	if (!READ_ONCE(out->crc_enabled) || work_pending(&out->crc_work))
		return;
	WRITE_ONCE(out->crc_frame, drm_crtc_vblank_count(&out->crtc));
	queue_work(system_unbound_wq, &out->crc_work);
}

int flipkms_composer_init(struct flipkms_output *out)
{
	INIT_WORK(&out->crc_work, flipkms_crc_work);
	return 0;
}

void flipkms_composer_fini(struct flipkms_output *out)
{
	cancel_work_sync(&out->crc_work);
}

/* frame.ppm: the frame on screen, composed when the file is opened. */

struct flipkms_ppm {
	size_t size;
	char data[];
};

static int flipkms_frame_open(struct inode *inode, struct file *file)
{
	struct flipkms_output *out = inode->i_private;
	struct drm_device *drm = out->crtc.dev;
	struct flipkms_pixel *line;
	struct flipkms_frame frame;
	struct flipkms_ppm *ppm;
	int header, x, y, ret = 0;
	u8 *rgb;

	line = kvmalloc_array(FLIPKMS_MAX_WIDTH, sizeof(*line), GFP_KERNEL);
	if (!line)
		return -ENOMEM;

	drm_modeset_lock_all(drm);
	if (!flipkms_collect(out, &frame)) {
		ret = -ENODATA;
		goto out_unlock;
	}
	ppm = vmalloc(sizeof(*ppm) + 32 + (size_t)frame.width * frame.height * 3);
	if (!ppm) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	header = snprintf(ppm->data, 32, "P6\n%d %d\n255\n", frame.width,
			  frame.height);
	rgb = (u8 *)ppm->data + header;
	for (y = 0; y < frame.height; y++) {
		flipkms_compose_line(&frame, y, line);
		for (x = 0; x < frame.width; x++) {
			*rgb++ = line[x].r >> 8;
			*rgb++ = line[x].g >> 8;
			*rgb++ = line[x].b >> 8;
		}
	}
	ppm->size = rgb - (u8 *)ppm->data;
	file->private_data = ppm;

out_unlock:
	drm_modeset_unlock_all(drm);
	kvfree(line);
	return ret;
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
