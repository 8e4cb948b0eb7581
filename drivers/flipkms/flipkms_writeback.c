// SPDX-License-Identifier: GPL-2.0+
/*
 * A writeback connector per CRTC (drm_writeback), the standard KMS way for
 * a client to read back what the CRTC composed. A commit with a
 * WRITEBACK_FB_ID queues a job; the vblank that latches the commit gives
 * the job that commit's frame and begins the refresh the job writes
 * (flipkms_scan.c); once the next vblank ends that refresh, a work item
 * composes it, torn if an async flip tore it, into the job's buffer
 * (one of flipkms_wb_formats[], the CRTC's mode size) and then signals
 * WRITEBACK_OUT_FENCE_PTR's fence. The job holds a vblank reference until
 * then, so that the next vblank comes.
 */

#include <linux/dma-fence.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_vblank.h>
#include <drm/drm_writeback.h>

#include "flipkms_blend.h"
#include "flipkms_compat.h"
#include "flipkms_drv.h"
#include "flipkms_frame.h"
#include "flipkms_trace.h"

/**
 * struct flipkms_wb_job - flipkms's part of a writeback job
 * @link:	in &flipkms_output.wb_jobs, in the order the core queues jobs
 * @fb:		the job's framebuffer (the core's job holds the reference)
 * @map:	its mapping
 * @data:	the mapping at the framebuffer's offsets
 * @seqno:	the number of the job's commit on the CRTC's flip timeline
 * @line:	one composed line, allocated with the job: the work that
 *		writes the frame and signals the fence allocates nothing
 * @frame:	the frame of its latch (a reference, and a promise to
 *		compose it counted in its readers), replaced by the refresh
 *		it writes once that is over (with a promise for each frame
 *		the refresh shows)
 * @subscribed:	it waits for the refresh in progress to end
 * @ready:	@frame is what it writes
 * @vblank_ref:	it holds a vblank reference, until it is @ready
 */
struct flipkms_wb_job {
	struct list_head link;
	struct drm_framebuffer *fb;
	struct iosys_map map[DRM_FORMAT_MAX_PLANES];
	struct iosys_map data[DRM_FORMAT_MAX_PLANES];
	u64 seqno;
	struct flipkms_pixel *line;
	struct flipkms_frame *frame;
	bool subscribed;
	bool ready;
	bool vblank_ref;
};

/* Mainline vkms's writeback formats and the 10-bit ones. */
static const u32 flipkms_wb_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_ABGR8888,
	DRM_FORMAT_XRGB16161616,
	DRM_FORMAT_ARGB16161616,
	DRM_FORMAT_RGB565,
	DRM_FORMAT_XRGB2101010,
	DRM_FORMAT_ARGB2101010,
	DRM_FORMAT_XBGR2101010,
	DRM_FORMAT_ABGR2101010,
};

static inline struct flipkms_output *wb_to_output(struct drm_writeback_connector *wb)
{
	return container_of(wb, struct flipkms_output, wb);
}

static int flipkms_wb_get_modes(struct drm_connector *connector)
{
	return drm_add_modes_noedid(connector, FLIPKMS_MAX_WIDTH, FLIPKMS_MAX_HEIGHT);
}

/* The buffer has the CRTC's size and a format the connector lists. */
static int flipkms_wb_encoder_atomic_check(struct drm_encoder *encoder,
					   struct drm_crtc_state *crtc_state,
					   struct drm_connector_state *conn_state)
{
	struct drm_writeback_job *job = conn_state->writeback_job;
	struct drm_framebuffer *fb = job ? job->fb : NULL;

	if (!fb)
		return 0;
	if (fb->width != crtc_state->mode.hdisplay ||
	    fb->height != crtc_state->mode.vdisplay) {
		drm_dbg_kms(encoder->dev, "writeback buffer %ux%u, mode %ux%u\n",
			    fb->width, fb->height, crtc_state->mode.hdisplay,
			    crtc_state->mode.vdisplay);
		return -EINVAL;
	}
#if FLIPKMS_HAS_WB_CONNECTOR_CHECK
	return drm_atomic_helper_check_wb_connector_state(conn_state->connector,
							  conn_state->state);
#else
	return drm_atomic_helper_check_wb_encoder_state(encoder, conn_state);
#endif
}

static const struct drm_encoder_helper_funcs flipkms_wb_encoder_helper_funcs = {
	.atomic_check = flipkms_wb_encoder_atomic_check,
};

static int flipkms_wb_prepare_job(struct drm_writeback_connector *wb,
				  struct drm_writeback_job *job)
{
	struct flipkms_output *out = wb_to_output(wb);
	struct flipkms_wb_job *wjob;
	int ret;

	if (!job->fb)
		return 0;
	wjob = kzalloc(sizeof(*wjob), GFP_KERNEL);
	if (!wjob)
		return -ENOMEM;
	/* The encoder's check made the buffer as wide as the frame. */
	wjob->line = kvmalloc_array(job->fb->width, sizeof(*wjob->line),
				    GFP_KERNEL);
	if (!wjob->line) {
		kfree(wjob);
		return -ENOMEM;
	}
	ret = drm_gem_fb_vmap(job->fb, wjob->map, wjob->data);
	if (ret) {
		kvfree(wjob->line);
		kfree(wjob);
		return ret;
	}
	INIT_LIST_HEAD(&wjob->link);
	wjob->fb = job->fb;
	job->priv = wjob;
	atomic_inc(&out->wb_prepared);
	return 0;
}

static void flipkms_wb_cleanup_job(struct drm_writeback_connector *wb,
				   struct drm_writeback_job *job)
{
	struct flipkms_output *out = wb_to_output(wb);
	struct flipkms_wb_job *wjob = job->priv;

	if (!wjob)
		return;
	drm_gem_fb_vunmap(wjob->fb, wjob->map);
	if (wjob->vblank_ref)
		drm_crtc_vblank_put(&out->crtc);
	flipkms_frame_put(wjob->frame);
	kvfree(wjob->line);
	kfree(wjob);
	if (atomic_dec_and_test(&out->wb_prepared))
		wake_up_var(&out->wb_prepared);
}

/*
 * From the commit tail, before the planes are flushed: a vblank may still
 * latch an earlier commit (a legacy cursor update does not wait for its
 * flip) before this one is flushed, so the job keeps its commit's number
 * and takes no frame of a commit before it.
 */
static void flipkms_wb_atomic_commit(struct drm_connector *connector,
				     struct drm_atomic_state *state)
{
	struct drm_connector_state *conn_state =
		drm_atomic_get_new_connector_state(state, connector);
	struct drm_writeback_connector *wb = drm_connector_to_writeback(connector);
	struct flipkms_output *out = wb_to_output(wb);
	struct flipkms_wb_job *wjob = conn_state->writeback_job->priv;
	struct drm_crtc_state *crtc_state =
		drm_atomic_get_new_crtc_state(state, &out->crtc);

	/* The connector has a job only with its CRTC in the commit. */
	if (!WARN_ON(!crtc_state))
		wjob->seqno = to_flipkms_crtc_state(crtc_state)->seqno;
	/* The vblank that ends its refresh must come (flipkms_scan.c). */
	wjob->vblank_ref = !drm_crtc_vblank_get(&out->crtc);
	spin_lock_irq(&out->lock);
	list_add_tail(&wjob->link, &out->wb_jobs);
	drm_writeback_queue_job(wb, conn_state);
	spin_unlock_irq(&out->lock);
}

static const struct drm_connector_helper_funcs flipkms_wb_connector_helper_funcs = {
	.get_modes = flipkms_wb_get_modes,
	.prepare_writeback_job = flipkms_wb_prepare_job,
	.cleanup_writeback_job = flipkms_wb_cleanup_job,
	.atomic_commit = flipkms_wb_atomic_commit,
};

static const struct drm_connector_funcs flipkms_wb_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = drm_connector_cleanup,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/**
 * flipkms_writeback_latched() - give waiting writeback jobs their frame
 * @out:	the output
 * @frame:	the frame a vblank just latched
 *
 * Call with &flipkms_output.lock held, in the section that put @frame on
 * screen. A job gets the first frame shown of its own commit or a later
 * one: jobs of commits not yet flushed wait for a later latch. It writes
 * the refresh that begins with it (flipkms_writeback_subscribe()).
 */
void flipkms_writeback_latched(struct flipkms_output *out,
			       struct flipkms_frame *frame)
{
	struct flipkms_wb_job *wjob;

	lockdep_assert_held(&out->lock);
	list_for_each_entry(wjob, &out->wb_jobs, link) {
		if (wjob->frame || wjob->seqno > frame->seqno)
			continue;
		wjob->frame = flipkms_frame_get(frame);
		atomic_inc(&frame->readers);
	}
}

/* A job is done waiting: its vblank reference goes once unlocked. */
static void flipkms_wb_ready(struct flipkms_wb_job *wjob,
			     struct flipkms_scan_done *done)
{
	wjob->ready = true;
	if (wjob->vblank_ref) {
		wjob->vblank_ref = false;
		done->vblank_puts++;
	}
}

/**
 * flipkms_writeback_subscribe() - latched jobs wait for the refresh
 * @out:	the output, its lock held
 * @scan:	the refresh in progress, or NULL while the CRTC is off
 * @readers:	its count of promised compositions
 * @done:	collects what is left to do once the lock is let go
 *
 * Jobs given a frame since the refresh began will write it: each promises
 * to read every frame it shows. With no refresh (the CRTC is off) a job
 * writes its latched frame at once.
 */
void flipkms_writeback_subscribe(struct flipkms_output *out,
				 struct flipkms_frame *scan,
				 unsigned int *readers,
				 struct flipkms_scan_done *done)
{
	struct flipkms_wb_job *wjob;
	bool queued = false;

	lockdep_assert_held(&out->lock);
	list_for_each_entry(wjob, &out->wb_jobs, link) {
		if (!wjob->frame || wjob->subscribed || wjob->ready)
			continue;
		if (!scan) {
			flipkms_wb_ready(wjob, done);
			queued = true;
			continue;
		}
		wjob->subscribed = true;
		flipkms_frame_promise(scan, 1);
		(*readers)++;
	}
	if (queued)
		queue_work(system_unbound_wq, &out->wb_work);
}

/**
 * flipkms_writeback_refresh_done() - the refresh jobs wait for is over
 * @out:	the output, its lock held
 * @scan:	what it showed
 * @done:	collects what is left to do once the lock is let go
 *
 * Each job waiting for it writes @scan: the promise of its latch goes, its
 * subscription's covers what it reads.
 */
void flipkms_writeback_refresh_done(struct flipkms_output *out,
				    struct flipkms_frame *scan,
				    struct flipkms_scan_done *done)
{
	struct flipkms_wb_job *wjob;
	bool queued = false;

	lockdep_assert_held(&out->lock);
	list_for_each_entry(wjob, &out->wb_jobs, link) {
		if (!wjob->subscribed || wjob->ready)
			continue;
		flipkms_frame_read_done(out, wjob->frame);
		flipkms_frame_put(wjob->frame);
		wjob->frame = flipkms_frame_get(scan);
		flipkms_wb_ready(wjob, done);
		queued = true;
	}
	if (queued)
		queue_work(system_unbound_wq, &out->wb_work);
}

/*
 * Writes the latched frames into their jobs' buffers, in order, and
 * signals their fences: a fence signalling path (no allocation, nothing
 * that could wait for a fence), annotated as one.
 */
static void flipkms_wb_work(struct work_struct *work)
{
	struct flipkms_output *out = container_of(work, struct flipkms_output,
						  wb_work);
	struct flipkms_wb_job *wjob;
	bool cookie;
	int ret;

	for (;;) {
		spin_lock_irq(&out->lock);
		wjob = list_first_entry_or_null(&out->wb_jobs,
						struct flipkms_wb_job, link);
		if (wjob && wjob->ready)
			list_del_init(&wjob->link);
		else
			wjob = NULL;
		spin_unlock_irq(&out->lock);
		if (!wjob)
			return;

		cookie = dma_fence_begin_signalling();
		ret = flipkms_compose_into(wjob->frame, wjob->fb,
					   wjob->data[0].vaddr, wjob->line);
		flipkms_frame_read_done(out, wjob->frame);
		trace_flipkms_writeback_done(drm_crtc_index(&out->crtc), ret);
		/* The job, and with it @wjob, is the core's to clean up now. */
		drm_writeback_signal_completion(&out->wb, ret);
		dma_fence_end_signalling(cookie);
	}
}

/**
 * flipkms_writeback_init() - the writeback connector of an output
 * @out: the output, whose CRTC is initialised
 * @connector: whether it has one (its job list is set up either way)
 *
 * Return: 0 or a negative errno.
 */
int flipkms_writeback_init(struct flipkms_output *out, bool connector)
{
	int ret;

	INIT_LIST_HEAD(&out->wb_jobs);
	INIT_WORK(&out->wb_work, flipkms_wb_work);
	if (!connector)
		return 0;
	ret = drm_writeback_connector_init(out->crtc.dev, &out->wb,
					   &flipkms_wb_connector_funcs,
					   &flipkms_wb_encoder_helper_funcs,
					   flipkms_wb_formats,
					   ARRAY_SIZE(flipkms_wb_formats),
					   drm_crtc_mask(&out->crtc));
	if (ret)
		return ret;
	drm_connector_helper_add(&out->wb.base, &flipkms_wb_connector_helper_funcs);
	/* The CRTC drives its connector and writes back at once: clones. */
	out->encoder.possible_clones = drm_encoder_mask(&out->encoder) |
				       drm_encoder_mask(&out->wb.encoder);
	out->wb.encoder.possible_clones = out->encoder.possible_clones;
	out->wb_ready = true;
	return 0;
}

/*
 * Teardown, after the last commit and the vblank timer: latched jobs are
 * written, any other one fails, and the core's cleanup of each is waited
 * for, since it calls back into this module.
 */
void flipkms_writeback_fini(struct flipkms_output *out)
{
	struct flipkms_wb_job *wjob;

	if (!out->wb_ready)
		return;
	flush_work(&out->wb_work);
	for (;;) {
		spin_lock_irq(&out->lock);
		wjob = list_first_entry_or_null(&out->wb_jobs,
						struct flipkms_wb_job, link);
		if (wjob)
			list_del_init(&wjob->link);
		spin_unlock_irq(&out->lock);
		if (!wjob)
			break;
		/* The CRTC is off: nothing waits for these promises any more. */
		if (wjob->frame)
			flipkms_frame_read_done(out, wjob->frame);
		drm_writeback_signal_completion(&out->wb, -ECANCELED);
	}
	wait_var_event(&out->wb_prepared, !atomic_read(&out->wb_prepared));
	/* The last compositions are done: nothing queues it any more. */
	cancel_work_sync(&out->release_work);
}
