/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * flipkms: a virtual KMS driver whose page flips carry sync framework
 * out-fences. One header for every file of the driver.
 */

#ifndef _FLIPKMS_DRV_H
#define _FLIPKMS_DRV_H

#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_plane.h>
#include <drm/drm_writeback.h>

#define FLIPKMS_MAX_OUTPUTS	4
#define FLIPKMS_MAX_OVERLAYS	4

/* Framebuffers may be as small as a cursor wants. */
#define FLIPKMS_MIN_FB_SIZE	1

/* The display sizes a mode may have, and the refresh rates. */
#define FLIPKMS_MIN_WIDTH	320
#define FLIPKMS_MIN_HEIGHT	200
#define FLIPKMS_MAX_WIDTH	8192
#define FLIPKMS_MAX_HEIGHT	8192
#define FLIPKMS_MIN_REFRESH	30
#define FLIPKMS_MAX_REFRESH	240
/*
 * The vblank periods of those rates as drm_mode_vrefresh() rounds them,
 * from 1/240.5 s to 1/29.5 s: the vblank timer runs at no other.
 */
#define FLIPKMS_MIN_PERIOD_NS	(2 * (s64)NSEC_PER_SEC / (2 * FLIPKMS_MAX_REFRESH + 1))
#define FLIPKMS_MAX_PERIOD_NS	(2 * (s64)NSEC_PER_SEC / (2 * FLIPKMS_MIN_REFRESH - 1))
/*
 * A monitor's refresh range: what the EDID's range limits descriptor holds
 * in a byte, from the slowest mode's rate (a longer frame would outlast
 * the DRM core's 100 ms wait for one vblank, drm_wait_one_vblank()).
 */
#define FLIPKMS_VRR_MIN_HZ	FLIPKMS_MIN_REFRESH
#define FLIPKMS_VRR_MAX_HZ	255
/*
 * The fault controls' bounds (debugfs, configfs defaults): no setting can
 * hang a CRTC (Documentation/flipkms.rst, Debugfs controls).
 */
#define FLIPKMS_MAX_SIGNAL_DELAY_US	(5 * USEC_PER_SEC)
#define FLIPKMS_MAX_DROP_VBLANKS	240
#define FLIPKMS_MAX_STALL_MS		5000
#define FLIPKMS_MAX_VRR_HOLD		240
/* Entries of the GAMMA_LUT, as many as most hardware offers. */
#define FLIPKMS_LUT_SIZE	256

struct flipkms_config;
struct flipkms_config_connector;
struct flipkms_config_crtc;
struct flipkms_frame;
struct flipkms_infences;
struct flipkms_pixel;
struct flipkms_timeline;

/* Vblanks whose CRC may wait for a composition; later ones are dropped. */
#define FLIPKMS_CRC_QUEUE	64

/**
 * struct flipkms_crtc_state - CRTC state with the commit's flip number
 * @base:	the DRM state
 * @seqno:	the commit's point on the CRTC's flip timeline, 0 until the
 *		commit is accepted (or its out-fence is created)
 * @frame:	what the commit shows (NULL: the CRTC is off), allocated by
 *		atomic_check and filled in and queued by the flush
 */
struct flipkms_crtc_state {
	struct drm_crtc_state base;
	u64 seqno;
	struct flipkms_frame *frame;
};

/**
 * struct flipkms_crc_request - a vblank whose CRC entry is still due
 * @vblank:	its count
 * @frame:	the frame it showed (a reference)
 */
struct flipkms_crc_request {
	u64 vblank;
	struct flipkms_frame *frame;
};

/**
 * struct flipkms_connector - an output's connector
 * @base:	the DRM connector, refcounted: a connector removed from an
 *		output lives on while an atomic state routes a CRTC to it
 * @out:	the output it belongs to, which outlives it
 * @removed:	taken off its output (flipkms_output_hot_remove()): it
 *		reports disconnected from then on
 */
struct flipkms_connector {
	struct drm_connector base;
	struct flipkms_output *out;
	bool removed;
};

/**
 * struct flipkms_output - one CRTC and everything that hangs off it
 * @crtc:		the CRTC
 * @encoder:		its virtual encoder
 * @connector:		its virtual connector, NULL while it has none (a
 *			dynamic connector not yet added, or removed); only
 *			configfs, under its device lock, changes it
 * @connectors:		its connectors not yet freed: @connector, and one
 *			removed that a CRTC's state still holds
 * @primary:		the primary plane
 * @cursor:		the cursor plane, or NULL
 * @vblank_timer:	simulates the vblank interrupt, one shot per frame
 * @vblank_lock:	protects @vblank_on, @in_vblank, @rearm, @rearm_at,
 *			@enables, @anchor, @period, @refresh_at, @refreshes,
 *			@vblank_count and the @vrr fields, and orders
 *			enable_vblank and disable_vblank against the timer
 *			callback; taken before @lock where both are
 * @vblank_on:		whether vblanks are enabled; the timer stops itself
 *			when they are not (disable_vblank runs under the
 *			vblank locks the timer takes, so it cannot wait for it)
 * @in_vblank:		the timer callback is handling a vblank, outside
 *			@vblank_lock
 * @rearm:		enable_vblank came while @in_vblank: the callback
 *			restarts the timer at @rearm_at as it returns
 * @rearm_at:		the first vblank after that enable
 * @enables:		enable_vblank calls so far, for the callback to tell
 *			whether one came while it ran
 * @anchor:		when the current mode's scanout started (its
 *			atomic_enable): its vblanks lie a whole number of
 *			periods after it
 * @period:		the frame duration of the current mode
 * @last_vblank:	ideal time of the latest vblank, as the core sees it
 * @vblank_count:	@refreshes at @last_vblank: the counter the core
 *			reads (get_vblank_counter), so that it counts
 *			refreshes of any length
 * @refresh_at:		ideal time of the latest refresh, seen by the core
 *			or not (dropped, or vblanks off)
 * @refreshes:		refreshes so far, seen by the core or not
 * @vrr_range:		the monitor's refresh range, flipkms_vrr_pack()ed
 * @vrr:		refreshes follow flips (flipkms_vrr.c)
 * @vrr_max:		the longest frame under @vrr: 1/min Hz, at least
 *			@period
 * @vrr_req:		@vrr as the latest flushed commit has it, in force
 *			from the refresh that latches it
 * @vrr_req_max:	@vrr_max likewise
 * @vrr_flip:		flush time of the latest commit no refresh has
 *			latched yet, 0 if none
 * @vrr_hold:		fault: flips still to be held under VRR until the
 *			longest frame ends
 * @timeline:		completed flips: the vblank that shows commit N
 *			advances it to N
 * @lock:		protects @next_seqno, @shown and the @pending_*
 *			fields, and orders a flush against the vblank that
 *			latches it
 * @next_seqno:		the number the next commit gets
 * @pending:		flushed commits wait for their vblank
 * @pending_seqno:	the latest of their numbers
 * @pending_flushed:	when the latest of them was flushed: a vblank whose
 *			ideal time is earlier cannot have latched it
 * @pending_events:	their events (linked through base.link), sent when
 *			they are latched
 * @pending_frame:	the frame of the latest of them
 * @shown:		the frame on screen since the latest latch (NULL
 *			while the CRTC is off)
 * @scan:		what the refresh in progress shows: @shown as the
 *			refresh began, or torn by async flips; NULL between
 *			refreshes and while off (flipkms_scan.c, under @lock,
 *			with @scan_start, @scan_vblank, @scan_crc and
 *			@scan_readers)
 * @scan_start:		the vblank time it began at
 * @scan_vblank:	that vblank's count
 * @scan_crc:		its CRC entry is due when it is over
 * @scan_readers:	compositions promised for it (a CRC, writeback jobs)
 * @vblanks:		vblanks handled
 * @missed_vblanks:	vblanks the timer fired too late to handle
 * @flips:		commits latched
 * @status:		what the connector's detection reports, set through
 *			configfs or debugfs (hot-plug)
 * @mode_width:		width of the preferred mode
 * @mode_height:	height of the preferred mode
 * @width_mm:		the monitor's physical width, 0: at 96 dpi
 * @height_mm:		its physical height, likewise
 * @monitor_lock:	protects @edid and @edid_len, which configfs may
 *			change while the connector probes
 * @edid:		a user EDID that replaces the generated one, or NULL
 * @edid_len:		its length in bytes
 * @refresh:		refresh rate of the preferred mode, in Hz
 * @signal_delay_us:	fault: signal out-fences this long after the vblank
 * @drop_vblanks:	fault: vblanks still to drop
 * @dropped_vblanks:	vblanks dropped so far
 * @stall_ms:		fault: the next commit stalls this long before flush
 * @fence_error:	fault: the next latched commit's fence fails with
 *			this (negated) errno
 * @delayed:		delayed signals not yet done, under @lock
 * @crc_enabled:	CRCs are computed for every vblank
 * @crc_lock:		protects @crc_queue, @crc_head and @crc_len, and
 *			keeps CRC entries in vblank order
 * @crc_queue:		vblanks whose entry waits for their frame's CRC,
 *			a ring of @crc_len from @crc_head
 * @crc_head:		the oldest of them
 * @crc_len:		how many
 * @crc_work:		composes the frames of @crc_queue
 * @crc_line:		@crc_work's line, as wide as the widest mode, allocated
 *			while CRCs are on: a held latch's fences wait for
 *			@crc_work, which must not allocate (dma-fence rules)
 * @compositions:	frames composed for CRCs
 * @crc_entries:	CRC entries added
 * @crc_dropped:	vblanks left without an entry: @crc_queue was full
 * @wb:			the writeback connector
 * @wb_ready:		@wb is initialised, for teardown
 * @wb_jobs:		writeback jobs queued, oldest first, under @lock
 * @wb_work:		writes latched frames into their jobs' buffers
 * @wb_prepared:	jobs prepared and not yet cleaned up
 * @held:		latches whose fences and events wait for compositions
 *			of the frame they replaced, in order, under @lock
 * @release_work:	completes them (flipkms_composer.c)
 * @held_latches:	latches held so far
 * @held_lost:		latches not held for want of memory
 */
struct flipkms_output {
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct flipkms_connector *connector;
	atomic_t connectors;
	struct drm_plane *primary;
	struct drm_plane *cursor;

	struct hrtimer vblank_timer;
	spinlock_t vblank_lock; /* see @vblank_lock above */
	bool vblank_on;
	bool in_vblank;
	bool rearm;
	ktime_t rearm_at;
	u32 enables;
	ktime_t anchor;
	ktime_t period;
	ktime_t last_vblank;
	u32 vblank_count;
	ktime_t refresh_at;
	u32 refreshes;
	u32 vrr_range;
	bool vrr;
	ktime_t vrr_max;
	bool vrr_req;
	ktime_t vrr_req_max;
	ktime_t vrr_flip;
	atomic_t vrr_hold;
	struct flipkms_timeline *timeline;

	spinlock_t lock; /* see @lock above */
	u64 next_seqno;
	bool pending;
	u64 pending_seqno;
	ktime_t pending_flushed;
	struct list_head pending_events;
	struct flipkms_frame *pending_frame;
	struct flipkms_frame *shown;
	struct flipkms_frame *scan;
	ktime_t scan_start;
	u64 scan_vblank;
	bool scan_crc;
	unsigned int scan_readers;

	atomic64_t vblanks;
	atomic64_t missed_vblanks;
	atomic64_t flips;

	enum drm_connector_status status;
	unsigned int mode_width, mode_height;
	unsigned int width_mm, height_mm;
	struct mutex monitor_lock; /* see @monitor_lock above */
	u8 *edid;
	size_t edid_len;
	u32 refresh;
	u32 signal_delay_us;
	atomic_t drop_vblanks;
	atomic64_t dropped_vblanks;
	atomic_t stall_ms;
	atomic_t fence_error;
	struct list_head delayed;

	bool crc_enabled;
	spinlock_t crc_lock; /* see @crc_lock above */
	struct flipkms_crc_request crc_queue[FLIPKMS_CRC_QUEUE];
	unsigned int crc_head;
	unsigned int crc_len;
	struct work_struct crc_work;
	struct flipkms_pixel *crc_line;
	atomic64_t compositions;
	atomic64_t crc_entries;
	atomic64_t crc_dropped;

	struct drm_writeback_connector wb;
	bool wb_ready;
	struct list_head wb_jobs;
	struct work_struct wb_work;
	atomic_t wb_prepared;

	struct list_head held;
	struct work_struct release_work;
	atomic64_t held_latches;
	atomic64_t held_lost;
};

/**
 * struct flipkms_device - the DRM device
 * @drm:		the DRM device
 * @pdev:		the platform device it hangs off
 * @config:		its description (flipkms_config.h), until it is
 *			destroyed
 * @instance:		0 for the default device, else a number no other
 *			device has now: its EDIDs' serial numbers and names
 * @infences:		stand-ins that bound the planes' in-fence waits
 * @num_outputs:	how many entries of @outputs are in use
 * @num_ready:		how many of them have their CRTC set up, for teardown
 * @vrr_capable:	the connectors' vrr_capable property: one for all,
 *			made before the device is registered, since a
 *			connector added later may not create properties
 * @outputs:		the outputs, one per CRTC
 */
struct flipkms_device {
	struct drm_device drm;
	struct platform_device *pdev;
	struct flipkms_config *config;
	int instance;
	struct flipkms_infences *infences;
	unsigned int num_outputs;
	unsigned int num_ready;
	struct drm_property *vrr_capable;
	struct flipkms_output outputs[FLIPKMS_MAX_OUTPUTS];
};

static inline struct flipkms_device *to_flipkms_device(struct drm_device *drm)
{
	return container_of(drm, struct flipkms_device, drm);
}

static inline struct flipkms_output *crtc_to_flipkms_output(struct drm_crtc *crtc)
{
	return container_of(crtc, struct flipkms_output, crtc);
}

static inline struct flipkms_crtc_state *
to_flipkms_crtc_state(struct drm_crtc_state *state)
{
	return container_of(state, struct flipkms_crtc_state, base);
}

/* flipkms_drv.c */
struct flipkms_device *flipkms_device_create(struct flipkms_config *config,
					     const char *name);
void flipkms_device_destroy(struct flipkms_device *fkms);

/* flipkms_configfs.c */
int flipkms_configfs_register(void);
void flipkms_configfs_unregister(void);

/* flipkms_crtc.c */
int flipkms_crtc_init(struct flipkms_output *out, unsigned int index,
		      struct drm_plane *primary, struct drm_plane *cursor);
void flipkms_crtc_fini(struct flipkms_output *out);
void flipkms_assign_seqnos(struct drm_atomic_state *state);
void flipkms_stall_commits(struct drm_atomic_state *state);
struct flipkms_frame *flipkms_output_shown(struct flipkms_output *out);
void flipkms_latch(struct flipkms_output *out, u64 seqno,
		   struct list_head *events, ktime_t when, bool async);
void flipkms_send_events(struct flipkms_output *out, struct list_head *events,
			 u64 vblank, ktime_t when);

/* flipkms_frame.c */
int flipkms_frame_alloc(struct flipkms_crtc_state *fstate);
void flipkms_frame_fill(struct flipkms_frame *frame,
			const struct drm_crtc_state *crtc_state);

/* flipkms_fb.c */
struct drm_framebuffer *flipkms_fb_create(struct drm_device *drm,
					  struct drm_file *file,
					  const struct drm_mode_fb_cmd2 *cmd);
int flipkms_fb_keep_mapped(struct drm_framebuffer *fb);

/* flipkms_plane.c */
const u32 *flipkms_plane_formats(unsigned int *count);
struct drm_plane *flipkms_plane_create(struct drm_device *drm,
				       enum drm_plane_type type,
				       unsigned int index, unsigned int zpos,
				       u64 mask);

/* flipkms_composer.c */
extern const struct file_operations flipkms_frame_fops;
const char *const *flipkms_get_crc_sources(struct drm_crtc *crtc,
					   size_t *count);
int flipkms_verify_crc_source(struct drm_crtc *crtc, const char *source,
			      size_t *values_cnt);
int flipkms_set_crc_source(struct drm_crtc *crtc, const char *source);
void flipkms_composer_vblank_end(struct flipkms_output *out, ktime_t when);
void flipkms_composer_vblank(struct flipkms_output *out, ktime_t when);
int flipkms_composer_init(struct flipkms_output *out);
void flipkms_composer_fini(struct flipkms_output *out);
int flipkms_compose_into(const struct flipkms_frame *frame,
			 const struct drm_framebuffer *fb, void *vaddr,
			 struct flipkms_pixel *line);

/* flipkms_writeback.c */
int flipkms_writeback_init(struct flipkms_output *out, bool connector);
void flipkms_writeback_fini(struct flipkms_output *out);
void flipkms_writeback_latched(struct flipkms_output *out,
			       struct flipkms_frame *frame);

/* flipkms_debugfs.c */
void flipkms_debugfs_init(struct drm_minor *minor);
void flipkms_debugfs_crtc_init(struct flipkms_output *out);

/* flipkms_output.c */
int flipkms_output_parse_params(void);
int flipkms_output_parse_mode(const char *text, unsigned int *width,
			      unsigned int *height);
void flipkms_output_default_size(unsigned int *width, unsigned int *height);
int flipkms_output_init(struct flipkms_output *out);
int flipkms_output_connector_add(struct flipkms_output *out,
				 const struct flipkms_config_connector *config);
int flipkms_output_hot_add(struct flipkms_output *out,
			   const struct flipkms_config_connector *config);
void flipkms_output_hot_remove(struct flipkms_output *out);
int flipkms_output_set_edid(struct flipkms_output *out, const u8 *edid,
			    size_t len);

/* flipkms_vrr.c */
static inline u32 flipkms_vrr_pack(unsigned int min_hz, unsigned int max_hz)
{
	return min_hz << 16 | max_hz;
}

static inline unsigned int flipkms_vrr_min_hz(u32 range)
{
	return range >> 16;
}

static inline unsigned int flipkms_vrr_max_hz(u32 range)
{
	return range & 0xffff;
}

int flipkms_vrr_parse(const char *text, u32 *range);
int flipkms_vrr_parse_params(void);
u32 flipkms_vrr_default(unsigned int index);
ktime_t flipkms_vrr_next(const struct flipkms_output *out);
u64 flipkms_vrr_skip(const struct flipkms_output *out, ktime_t *when);
void flipkms_vrr_flushed(struct flipkms_output *out, bool enabled,
			 ktime_t flushed);
void flipkms_vrr_latched(struct flipkms_output *out, ktime_t when);
bool flipkms_vrr_async_refreshes(const struct flipkms_output *out,
				 const struct flipkms_frame *frame, ktime_t now);

/* flipkms_edid.c */
bool flipkms_edid_fits(const struct drm_display_mode *mode);
void flipkms_edid_build(u8 *edid, u32 serial, const char *name,
			const struct drm_display_mode *preferred, u32 vrr_range,
			unsigned int width_mm, unsigned int height_mm);

/* flipkms_infence.c */
struct flipkms_infences *flipkms_infences_create(struct drm_device *drm);
void flipkms_infences_unplug(struct flipkms_infences *set);
void flipkms_infences_destroy(struct flipkms_infences *set);
struct dma_fence *flipkms_infence_bound(struct flipkms_infences *set,
					struct dma_fence *fence);
u64 flipkms_infences_timeouts(struct flipkms_infences *set);

/* flipkms_timeline.c */
struct flipkms_timeline *flipkms_timeline_create(const char *name);
void flipkms_timeline_destroy(struct flipkms_timeline *tl);
struct dma_fence *flipkms_timeline_point(struct flipkms_timeline *tl,
					 u64 seqno);
void flipkms_timeline_advance(struct flipkms_timeline *tl, u64 seqno,
			      ktime_t when);
void flipkms_timeline_fail(struct flipkms_timeline *tl, u64 seqno, int error);
u64 flipkms_timeline_value(struct flipkms_timeline *tl);

#endif /* _FLIPKMS_DRV_H */
