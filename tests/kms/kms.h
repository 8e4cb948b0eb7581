/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for the KMS tests in tests/kms: finding the card of a given
 * driver, picking connector + CRTC + planes + mode ("a pipe"), dumb-buffer
 * framebuffers, atomic commits by property name, a DRM event reader with a
 * timeout and out-fence inspection. The result lines every test prints
 * (ok/not_ok/check/require/...) are tests/lib's, included from here.
 *
 * Each tests/kms/<subject>.c is one small program over these; each takes the
 * DRM driver name as its operand (e.g. "flipkms" or "vkms") and exits 1 if
 * any check failed.
 */
#ifndef FLIPFENCE_TESTS_KMS_H
#define FLIPFENCE_TESTS_KMS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "sync.h"

#include "../lib/check.h"

/* --- device ------------------------------------------------------------- */

#define KMS_EVENT_BUF	4096

struct kms_dev {
	int fd;
	char path[32];
	char driver[64];
	/* Events read from fd but not handed out yet. */
	unsigned char evbuf[KMS_EVENT_BUF];
	size_t evlen, evpos;
};

#define KMS_CAP_ATOMIC	(1u << 0)	/* DRM_CLIENT_CAP_ATOMIC; universal planes are always on */

/*
 * Opens /dev/dri/cardN of @driver (drmGetVersion name), or with @driver NULL
 * or "" the first card that has a connected connector, and sets the client
 * caps in @caps. Returns 0, or -1 with the reason printed as a comment.
 */
int kms_open(struct kms_dev *dev, const char *driver, unsigned int caps);
void kms_close(struct kms_dev *dev);

/* The test's driver operand (after getopt), NULL if there is none. */
const char *kms_driver_arg(int argc, char **argv);

/* --- pipes: connector + CRTC + planes + mode ---------------------------- */

struct kms_plane_props {
	uint32_t fb_id, crtc_id, in_fence_fd;
	uint32_t src_x, src_y, src_w, src_h;
	uint32_t crtc_x, crtc_y, crtc_w, crtc_h;
};

struct kms_pipe {
	uint32_t connector_id, crtc_id;
	int crtc_index;
	uint32_t primary_id, overlay_id, cursor_id;	/* 0 if there is none */
	drmModeModeInfo mode;		/* the connector's preferred mode */
	bool has_preferred;
	uint32_t mode_blob;		/* of the last kms_modeset() */
	struct {
		uint32_t crtc_id;
	} conn_props;
	struct {
		uint32_t mode_id, active, out_fence_ptr;
	} crtc_props;
	struct kms_plane_props primary_props, overlay_props, cursor_props;
};

/*
 * Fills @pipes with up to @max pipes: one per connected connector, each with
 * its own CRTC (the first free one its encoders allow), the connector's
 * preferred mode (else its first), that CRTC's primary plane and, if there
 * are any not used by another pipe, an overlay and a cursor plane, and the
 * ids of the properties the helpers below use (0 for those a client without
 * KMS_CAP_ATOMIC cannot see). Returns the number of pipes.
 */
int kms_pipes(struct kms_dev *dev, struct kms_pipe *pipes, int max);

/* A property's id on an object, or 0 if the object has no such property. */
uint32_t kms_prop_id(int fd, uint32_t obj, uint32_t type, const char *name);
/* A property's current value; -1 with errno ENOENT if there is none. */
int kms_prop_get(int fd, uint32_t obj, uint32_t type, const char *name, uint64_t *value);

/* Whether @connector offers a mode of @w x @h (probing it). */
bool kms_connector_has_mode(int fd, uint32_t connector, unsigned int w, unsigned int h);
/* One frame's duration from a mode's timings: 1e9 * htotal * vtotal / (clock * 1000) ns. */
double kms_mode_period_ns(const drmModeModeInfo *mode);
/* @base with its clock changed so that it refreshes at @hz, as a user mode. */
drmModeModeInfo kms_mode_at_refresh(const drmModeModeInfo *base, unsigned int hz);

/* --- framebuffers ------------------------------------------------------- */

struct kms_fb {
	uint32_t fb_id, handle, width, height, format, pitch;
	uint64_t size;
};

/* A dumb buffer filled with a pattern that depends on @seed; 0 or -errno. */
int kms_fb_create(int fd, uint32_t width, uint32_t height, uint32_t format,
		  unsigned int seed, struct kms_fb *fb);
void kms_fb_destroy(int fd, struct kms_fb *fb);
/* The dumb buffer of @fb mapped for reading and writing, @fb->size bytes (munmap it), or NULL
 * with errno set. */
unsigned char *kms_fb_map(int fd, const struct kms_fb *fb);
/* Fills a 32 bpp dumb framebuffer with the one colour @xrgb; 0 or -errno. */
int kms_fb_fill(int fd, const struct kms_fb *fb, uint32_t xrgb);

/* --- atomic commits ----------------------------------------------------- */

/*
 * Adds a whole plane state to @req: @fb shown unscaled at (0, 0) of @crtc_id
 * (src and crtc rectangles of the framebuffer's size), or the plane disabled
 * when @fb is NULL. @in_fence >= 0 also sets IN_FENCE_FD. 0 or -errno.
 */
int kms_req_plane(drmModeAtomicReq *req, uint32_t plane_id, const struct kms_plane_props *p,
		  uint32_t crtc_id, const struct kms_fb *fb, int in_fence);

/*
 * Blocking modeset of @pipe to @mode (NULL: the pipe's preferred mode) with
 * @fb on the primary plane. Replaces the pipe's mode blob. 0 or -errno.
 */
int kms_modeset(struct kms_dev *dev, struct kms_pipe *pipe, const drmModeModeInfo *mode,
		const struct kms_fb *fb);
/* Blocking disable of @pipe: CRTC inactive without mode, plane and connector off. */
int kms_disable(struct kms_dev *dev, struct kms_pipe *pipe);

/*
 * Nonblocking page flip of @pipe's primary plane to @fb with
 * DRM_MODE_PAGE_FLIP_EVENT (user data @cookie). @out_fence non-NULL sets
 * OUT_FENCE_PTR to it (nothing is written there here: the kernel stores -1,
 * then the fence's fd, or -1 again if the commit fails); @in_fence >= 0 sets
 * IN_FENCE_FD. Returns 0 or -errno of the commit.
 */
int kms_flip(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_fb *fb,
	     int32_t *out_fence, int in_fence, uint64_t cookie);
/* The same on any plane of @pipe, e.g. its overlay. */
int kms_flip_plane(struct kms_dev *dev, const struct kms_pipe *pipe, uint32_t plane_id,
		   const struct kms_plane_props *props, const struct kms_fb *fb,
		   int32_t *out_fence, int in_fence, uint64_t cookie);
/* Whether @plane_id lists @format. */
bool kms_plane_has_format(int fd, uint32_t plane_id, uint32_t format);

/* --- events ------------------------------------------------------------- */

struct kms_event {
	uint32_t type;		/* DRM_EVENT_FLIP_COMPLETE, _VBLANK or _CRTC_SEQUENCE */
	uint32_t crtc_id;	/* flip and vblank events (0 from old kernels) */
	uint64_t sequence;
	int64_t time_us;	/* flip and vblank events: tv_sec/tv_usec in µs */
	int64_t time_ns;	/* sequence events: time_ns; else time_us * 1000 */
	uint64_t user_data;
};

/* Waits up to @timeout_ms for the next DRM event: 1 got one, 0 timed out, -1 error. */
int kms_next_event(struct kms_dev *dev, int timeout_ms, struct kms_event *ev);
/* Discards events until none arrives for @quiet_ms; returns how many. */
int kms_drain_events(struct kms_dev *dev, int quiet_ms);

/* DRM_IOCTL_WAIT_VBLANK type bits selecting CRTC @index. */
unsigned int kms_vblank_crtc_bits(int index);

/* --- writeback ---------------------------------------------------------- */

/* A writeback connector and the ids of its properties. */
struct kms_writeback {
	uint32_t id, crtc_id, fb_id, out_fence_ptr;
};

/*
 * The first writeback connector that can take @pipe's CRTC (the client must
 * have set DRM_CLIENT_CAP_WRITEBACK_CONNECTORS), with its CRTC_ID,
 * WRITEBACK_FB_ID and WRITEBACK_OUT_FENCE_PTR; false if there is none.
 */
bool kms_writeback_find(struct kms_dev *dev, const struct kms_pipe *pipe,
			struct kms_writeback *wb);
/*
 * Commits @req, with a writeback job of @crtc_id's frame into @out when @out is
 * not NULL, as a blocking commit that may modeset (attaching the connector is
 * one) with @flags added, and waits up to 10 s for the job's fence (none
 * with DRM_MODE_ATOMIC_TEST_ONLY). 0, -errno, or -ETIME if it did not signal.
 */
/* Connector @id's EDID property into @edid (at most @max bytes): its length, or -1. */
int kms_connector_edid(int fd, uint32_t id, unsigned char *edid, size_t max);
int kms_commit_writeback(struct kms_dev *dev, drmModeAtomicReq *req,
			 const struct kms_writeback *wb, uint32_t crtc_id,
			 const struct kms_fb *out, uint32_t flags);

/* --- fences ------------------------------------------------------------- */

struct kms_fence_info {
	int num_points;
	int status;		/* of the sync_file: 1 signalled, 0 active, <0 error */
	int64_t timestamp_ns;	/* of its first point */
	char obj_name[32], driver_name[32];
};

/* SYNC_IOC_FILE_INFO of @fd into @info; 0, or -1 with errno set. */
int kms_fence_info(int fd, struct kms_fence_info *info);
/* 1 if @fd polls readable (signalled) right now, 0 if not, -1 on error. */
int kms_fence_polled(int fd);

/*
 * A thread blocked in poll() on a fence, which reads CLOCK_MONOTONIC as it
 * wakes: the guest's own clock for when the fence really signalled, to
 * hold a driver's timestamp against.
 */
struct kms_fence_watch {
	pthread_t thread;
	int fd;
	int timeout_ms;
	int ret;		/* 1 woke signalled, 0 timed out, -1 poll error */
	int64_t woke_ns;
};

/* Starts watching @fd (which stays the caller's) for up to @timeout_ms; 0 or -1. */
int kms_fence_watch_start(struct kms_fence_watch *w, int fd, int timeout_ms);
/* Joins the watcher; its ret. */
int kms_fence_watch_end(struct kms_fence_watch *w);

/* --- flipkms's debugfs ------------------------------------------------- */

/* /sys/kernel/debug/dri/<minor>/crtc-<index> of @pipe into @buf; 0 or -1. */
int kms_crtc_debugfs_dir(const struct kms_dev *dev, const struct kms_pipe *pipe,
			 char *buf, size_t len);
/*
 * The set-up of a flipkms-only test: @driver must be flipkms (else @usage
 * fails the setup), its first pipe, that pipe's debugfs directory into
 * @crtc_dir, and two XRGB8888 framebuffers of its preferred mode's size.
 */
void kms_flipkms_setup(const char *driver, const char *usage, struct kms_dev *dev,
		       struct kms_pipe *pipe, char *crtc_dir, size_t len, struct kms_fb fb[2]);
/* Writes @value to @crtc_dir/@file; 0 or -errno (-EINVAL for a refused value). */
int kms_crtc_control(const char *crtc_dir, const char *file, const char *value);
/*
 * The end of a test with two framebuffers on @pipe: its last events
 * drained, the pipe off, the framebuffers gone and the card closed.
 */
void kms_teardown(struct kms_dev *dev, struct kms_pipe *pipe, struct kms_fb fb[2]);
/* Sets @mode to a mode of @w x @h @pipe's connector offers; false if none. */
bool kms_mode_of_size(const struct kms_dev *dev, const struct kms_pipe *pipe, int w, int h,
		      drmModeModeInfo *mode);

/*
 * The kernel's crc32_le() (reflected, no inversion either side), which
 * flipkms's CRC runs over each composed ARGB16161616 line.
 */
uint32_t kms_crc32_le(uint32_t crc, const unsigned char *p, size_t n);

/* One line of crc/data: the vblank count it is of, and its CRC. */
struct kms_crc_entry {
	unsigned long frame, crc;
};

/* Sets @crtc_dir's CRC source to auto and opens its crc/data with @flags (requires both). */
int kms_crc_open(const char *crtc_dir, int flags);
/* The next entry (each read() returns one line); false, with a comment, if none came. */
bool kms_crc_next(int data, bool nonblock, struct kms_crc_entry *e);
/* One CRTC's counts in flipkms's debugfs flipkms_status; -1 where absent. */
struct kms_crtc_status {
	long long vblanks, missed, dropped, flips, compositions, crc_entries, crc_dropped;
};

/* The counts of CRTC @crtc from @crtc_dir/../flipkms_status; 0, or -1 if unreadable. */
int kms_crtc_status(const char *crtc_dir, int crtc, struct kms_crtc_status *st);
/*
 * flipkms_status's counts of the vblanks of CRTC @crtc that got no CRC
 * entry, or did not happen: missed (the timer late), dropped (injected),
 * crc dropped (the composer too far behind). Their sum, with the three in
 * @what, or -1 if they cannot be read.
 */
long long kms_vblanks_without_entry(const char *crtc_dir, int crtc, char *what, size_t len);
/* Pixel (@x, @y) of @crtc_dir/frame.ppm as 0xRRGGBB, or -1. */
long kms_frame_pixel(const char *crtc_dir, int x, int y);
/* @crtc_dir/frame.ppm's @w x @h pixels, R G B, into @rgb; false if not such a PPM. */
bool kms_frame_ppm(const char *crtc_dir, int w, int h, unsigned char *rgb);

/* A netlink socket for the kernel's own uevents (group 1), e.g. a card's HOTPLUG=1; or -1. */
int kms_uevent_open(void);

#endif /* FLIPFENCE_TESTS_KMS_H */
