// SPDX-License-Identifier: MIT
/*
 * The measuring loop. Each output ("lane") has at most one flip in flight.
 * One poll() waits for all of them: the DRM fd for flip events (the moment
 * it returns with the fd readable is the event's read time), each lane's
 * fence waiter (a thread alone in its poll() on the out-fence, whose
 * return is the flip's wake time, see fence_waiter.c), and in in-fence
 * mode each lane's renderer timer, which signals the frame's sw_sync
 * in-fence when its render time is up. A flip is done when its event has
 * arrived and its out-fence has signalled; then the lane submits the next.
 *
 * Which vblank could first show a flip is bounded by two reads of the
 * CRTC's vblank count: one before the commit ioctl (the flip cannot be
 * shown before the vblank after it) and one after the ioctl returned (a
 * vblank in between may or may not have been in time, so only one after
 * that is a miss). In in-fence mode the same bounds are taken around the
 * renderer's signal. Documentation/fliplat.rst, "Method", has the rules.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "fence_waiter.h"
#include "flip.h"
#include "sync.h"

/* A flip whose event or fence takes longer than this has failed. */
#define FLIP_TIMEOUT_MS	5000

struct lane {
	struct fl_output *out;
	unsigned int index, submitted;
	bool pending, got_event, got_signal;
	size_t rec;
	int32_t out_fence;	/* written by the kernel through OUT_FENCE_PTR */
	int fence;		/* the out-fence we wait for, -1 if none */
	int timeline, timer;	/* in-fence mode: the renderer */
	int in_fence;		/* ... and its frame's fence, until it signals */
	bool rendering;
	struct fl_fence_waiter waiter;	/* atomic modes: polls the out-fence */
	/*
	 * The vblank counts read before (@seq_before) and after (@seq_after)
	 * the flip became possible: the first vblank that can show it is
	 * after @seq_before, the last that may still be first is @seq_after + 1.
	 */
	uint64_t seq_before, seq_after;
	uint64_t submit_seq_after;	/* @seq_after at submit, for late frames */
	bool seq_known;
	int64_t last_event_ns;
	uint32_t last_event_seq;
};

struct loop {
	struct fl_device *dev;
	const struct fl_options *o;
	struct fl_run *run;
	size_t cap;
	struct lane lanes[FL_MAX_CRTCS];
	unsigned int nlanes;	/* set up so far, for teardown */
	unsigned int seed;
	int64_t started, until;
	int64_t event_read_ns;	/* the DRM fd polled readable */
	const char *failed;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The CRTC's current vblank count: the vblank after it is the first a flip can use. */
static bool current_vblank(struct loop *l, struct lane *lane, uint64_t *seq)
{
	drmVBlank vbl = { .request.type = DRM_VBLANK_RELATIVE };
	uint64_t ns;

	if (!drmCrtcGetSequence(l->dev->fd, lane->out->crtc_id, seq, &ns))
		return true;
	if (lane->out->crtc_index > 1)
		vbl.request.type |= (lane->out->crtc_index << DRM_VBLANK_HIGH_CRTC_SHIFT) &
				    DRM_VBLANK_HIGH_CRTC_MASK;
	else if (lane->out->crtc_index == 1)
		vbl.request.type |= DRM_VBLANK_SECONDARY;
	if (drmWaitVBlank(l->dev->fd, &vbl))
		return false;
	*seq = vbl.reply.sequence;
	return true;
}

static struct fl_flip *new_flip(struct loop *l, struct lane *lane)
{
	struct fl_flip *f;

	if (l->run->nflips == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		struct fl_flip *flips = realloc(l->run->flips, cap * sizeof(*flips));

		if (!flips)
			return NULL;
		l->run->flips = flips;
		l->cap = cap;
	}
	lane->rec = l->run->nflips;
	f = &l->run->flips[l->run->nflips];
	*f = (struct fl_flip){
		.index = (unsigned int)l->run->nflips, .crtc = lane->index,
		.warmup = lane->submitted < l->o->warmup,
	};
	l->run->nflips++;
	return f;
}

volatile sig_atomic_t fl_stop_signal;

static bool more_to_submit(const struct loop *l, const struct lane *lane)
{
	if (l->failed || fl_stop_signal)
		return false;
	if (l->o->flips)
		return lane->submitted < l->o->warmup + l->o->flips;
	return now_ns() < l->until;
}

/* Arms the renderer: the in-fence signals @render ns after @from. */
static int arm_renderer(struct loop *l, struct lane *lane, int64_t from)
{
	int64_t render = (int64_t)l->o->render_us * 1000;
	struct itimerspec its = { 0 };
	int64_t at;

	if (l->o->render_jitter_us)
		render += (int64_t)(rand_r(&l->seed) % (l->o->render_jitter_us + 1)) * 1000;
	at = from + (render > 0 ? render : 1);
	its.it_value.tv_sec = at / 1000000000;
	its.it_value.tv_nsec = at % 1000000000;
	lane->rendering = true;
	return timerfd_settime(lane->timer, TFD_TIMER_ABSTIME, &its, NULL);
}

static int commit(struct loop *l, struct lane *lane, int in_fence)
{
	struct fl_output *out = lane->out;
	uint32_t fb = out->fb[(lane->submitted + 1) % 2].fb_id;
	void *cookie = (void *)(uintptr_t)lane->rec;
	drmModeAtomicReq *req;
	uint32_t flags;
	int ret;

	if (l->o->mode == FL_MODE_LEGACY || l->o->mode == FL_MODE_ASYNC)
		return drmModePageFlip(l->dev->fd, out->crtc_id, fb, DRM_MODE_PAGE_FLIP_EVENT |
				       (l->o->mode == FL_MODE_ASYNC ? DRM_MODE_PAGE_FLIP_ASYNC : 0),
				       cookie) ? -errno : 0;

	req = drmModeAtomicAlloc();
	if (!req)
		return -ENOMEM;
	lane->out_fence = -1;
	/* drmModeAtomicAddProperty() returns the count of properties, or -errno. */
	ret = drmModeAtomicAddProperty(req, out->plane_id, out->plane_fb_id, fb);
	if (ret >= 0 && in_fence >= 0)
		ret = drmModeAtomicAddProperty(req, out->plane_id, out->plane_in_fence_fd,
					       in_fence);
	if (ret >= 0)
		ret = drmModeAtomicAddProperty(req, out->crtc_id, out->crtc_out_fence_ptr,
					       (uint64_t)(uintptr_t)&lane->out_fence);
	if (ret >= 0) {
		flags = DRM_MODE_PAGE_FLIP_EVENT |
			(l->o->blocking ? 0 : DRM_MODE_ATOMIC_NONBLOCK);
		ret = drmModeAtomicCommit(l->dev->fd, req, flags, cookie) ? -errno : 0;
	}
	drmModeAtomicFree(req);
	return ret < 0 ? ret : 0;
}

/*
 * --vrr: sleeps until the pause of the sweep after the refresh that showed
 * the lane's last flip (none before the first flip).
 */
static void vrr_pace(struct loop *l, struct lane *lane)
{
	const struct fl_crtc *c = &l->run->crtcs[lane->index];
	int64_t at;
	struct timespec ts;

	if (!l->o->vrr || !lane->last_event_ns)
		return;
	at = lane->last_event_ns + fl_vrr_gap_ns(lane->submitted, c->period_ns,
						  fl_vrr_max_frame_ns(c->vrr_min_hz));
	ts.tv_sec = at / 1000000000;
	ts.tv_nsec = at % 1000000000;
	/* Interrupted (Ctrl-C): submit now, the loop stops after this flip. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int submit(struct loop *l, struct lane *lane)
{
	struct fl_flip *f = new_flip(l, lane);
	int in_fence = -1, ret;
	bool known;

	if (!f)
		return -ENOMEM;
	vrr_pace(l, lane);
	if (l->o->mode == FL_MODE_INFENCE) {
		in_fence = sw_sync_fence_create(lane->timeline, "fliplat-frame",
						lane->submitted + 1);
		if (in_fence < 0)
			return -errno;
	}
	/*
	 * A flip can be refused while the last one is cleaned up: retry
	 * briefly, counting the retries, since each moves the submit time.
	 */
	for (f->retries = 0;; f->retries++) {
		known = current_vblank(l, lane, &lane->seq_before);
		f->submit_ns = now_ns();
		ret = commit(l, lane, in_fence);
		if (ret != -EBUSY || f->retries == 100)
			break;
		usleep(1000);
	}
	lane->seq_known = known && !ret && current_vblank(l, lane, &lane->seq_after);
	lane->submit_seq_after = lane->seq_after;
	if (ret) {
		if (in_fence >= 0)
			close(in_fence);
		return ret;
	}
	/* Kept until the renderer signals it, to read its deadline then. */
	lane->in_fence = in_fence;
	if (l->o->mode == FL_MODE_INFENCE && arm_renderer(l, lane, f->submit_ns))
		return -errno;
	lane->fence = fl_mode_has_fence(l->o->mode) ? lane->out_fence : -1;
	if (lane->fence >= 0)
		fl_fence_waiter_arm(&lane->waiter, lane->fence);
	lane->pending = true;
	lane->got_event = false;
	lane->got_signal = lane->fence < 0;
	lane->submitted++;
	return 0;
}

/*
 * The deadline the commit set on the frame's in-fence, read as late as
 * possible before it signals: the commit worker sets it when it starts
 * waiting, which may be long after the commit ioctl returned.
 */
static void read_deadline(struct loop *l, struct lane *lane, struct fl_flip *f)
{
	uint64_t deadline;

	if (lane->in_fence < 0 || l->run->deadlines_unsupported)
		return;
	if (!sw_sync_fence_deadline(lane->timeline, lane->in_fence, &deadline)) {
		f->deadline_ns = deadline ? (int64_t)deadline : 0;
	} else if (errno == ENOTTY) {
		/* A kernel without fence deadlines (before 6.4): not a failure. */
		l->run->deadlines_unsupported = true;
		fputs("fliplat: deadlines: not supported by this kernel\n", stderr);
	} else if (errno != ENOENT) {
		fprintf(stderr, "fliplat: reading an in-fence's deadline: %s\n", strerror(errno));
		l->failed = "SW_SYNC_GET_DEADLINE failed on an unsignalled in-fence";
	}
}

/* The renderer is done with the frame's in-fence once it has signalled. */
static void drop_in_fence(struct lane *lane)
{
	if (lane->in_fence >= 0)
		close(lane->in_fence);
	lane->in_fence = -1;
}

/* The renderer finished a frame: its in-fence signals now. */
static void rendered(struct loop *l, struct lane *lane)
{
	struct fl_flip *f = &l->run->flips[lane->rec];
	uint64_t expirations;
	bool known;

	if (read(lane->timer, &expirations, sizeof(expirations)) < 0)
		return;
	lane->rendering = false;
	/*
	 * The flip was shown before the frame was ready (the driver gave up
	 * waiting for the in-fence): signal its point all the same, so that
	 * the timeline stays in step with the frames, and judge nothing.
	 */
	if (f->unready) {
		read_deadline(l, lane, f);
		f->ready_ns = now_ns();
		if (sw_sync_timeline_inc(lane->timeline, 1))
			l->failed = "the renderer could not signal its sw_sync fence";
		drop_in_fence(lane);
		return;
	}
	known = lane->seq_known && current_vblank(l, lane, &lane->seq_before);
	read_deadline(l, lane, f);
	f->ready_ns = now_ns();
	if (sw_sync_timeline_inc(lane->timeline, 1)) {
		l->failed = "the renderer could not signal its sw_sync fence";
		drop_in_fence(lane);
		return;
	}
	drop_in_fence(lane);
	lane->seq_known = known && current_vblank(l, lane, &lane->seq_after);
	/* The vblank after submit had passed before the frame was ready. */
	f->late = lane->seq_known && lane->seq_before > lane->submit_seq_after;
}

/* The lane's fence waiter reported: the out-fence signalled at @t. */
static void signalled(struct loop *l, struct lane *lane)
{
	struct fl_flip *f = &l->run->flips[lane->rec];
	struct sync_file_info *info;
	struct sync_fence_info *points;
	short revents;
	uint32_t i;
	int64_t t;

	if (!fl_fence_waiter_result(&lane->waiter, &t, &revents))
		return;
	if (!(revents & POLLIN)) {
		l->failed = revents & POLLNVAL ? "an out-fence fd was not valid (POLLNVAL)" :
						 "polling an out-fence failed (POLLERR)";
		return;
	}
	f->wake_ns = t;
	info = sync_file_info(lane->fence);
	if (info) {
		points = sync_get_fence_info(info);
		for (i = 0; i < info->num_fences; i++)
			if ((int64_t)points[i].timestamp_ns > f->signal_ns)
				f->signal_ns = (int64_t)points[i].timestamp_ns;
		if (info->status < 0)
			f->fence_error = info->status;
		sync_file_info_free(info);
	}
	if (!info)
		l->failed = "SYNC_IOC_FILE_INFO failed on a signalled out-fence";
	else if (!f->signal_ns)
		l->failed = "an out-fence polled signalled but has no timestamp";
	close(lane->fence);
	lane->fence = -1;
	lane->got_signal = true;
}

static struct loop *event_loop;

static void flip_event(int fd, unsigned int seq, unsigned int sec, unsigned int usec,
		       unsigned int crtc_id, void *data)
{
	struct loop *l = event_loop;
	size_t rec = (uintptr_t)data;
	const char *wrong;
	struct lane *lane;
	struct fl_flip *f;

	(void)fd;
	/* An event fliplat cannot place is the driver's bug: stop the run. */
	wrong = fl_check_event(l->run, rec, crtc_id);
	if (wrong) {
		fprintf(stderr, "fliplat: flip event (cookie %zu, CRTC %u, sequence %u): %s\n",
			rec, crtc_id, seq, wrong);
		l->failed = wrong;
		return;
	}
	f = &l->run->flips[rec];
	lane = &l->lanes[f->crtc];
	f->event_ns = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
	f->event_read_ns = l->event_read_ns;
	f->event_seq = seq;
	if (lane->last_event_ns) {
		f->interval_ns = f->event_ns - lane->last_event_ns;
		f->has_interval = true;
	}
	/*
	 * A tearing flip is shown between vblanks and does not move the
	 * count: no vblank was the first that could show it, none missed.
	 */
	if (l->o->mode != FL_MODE_ASYNC)
		fl_judge_flip(f, &(struct fl_bounds){
			.known = lane->seq_known, .blocking = l->o->blocking,
			.before = lane->seq_before, .after = lane->seq_after,
			/* In-fence mode: the renderer has not signalled the frame yet. */
			.ready = !lane->rendering,
			.period_ns = l->run->crtcs[f->crtc].period_ns,
		});
	if (l->o->vrr && lane->last_event_ns)
		fl_vrr_judge(f, lane->last_event_ns, lane->last_event_seq,
			     l->run->crtcs[f->crtc].period_ns,
			     fl_vrr_max_frame_ns(l->run->crtcs[f->crtc].vrr_min_hz));
	lane->last_event_ns = f->event_ns;
	lane->last_event_seq = seq;
	lane->got_event = true;
}

static void progress(struct loop *l, bool final)
{
	static int64_t last;
	int64_t t = now_ns();

	if (!final && t - last < 250000000)
		return;
	last = t;
	if (l->o->flips)
		fprintf(stderr, "\rfliplat: %zu/%u flips", l->run->nflips,
			(l->o->warmup + l->o->flips) * l->dev->noutputs);
	else
		fprintf(stderr, "\rfliplat: %zu flips, %.1f/%.1f s", l->run->nflips,
			(t - l->started) / 1e9, l->o->duration_s);
	if (final)
		fputc('\n', stderr);
}

static int wait_and_handle(struct loop *l)
{
	drmEventContext evctx = {
		.version = 3, .page_flip_handler2 = flip_event,
	};
	struct pollfd fds[1 + 2 * FL_MAX_CRTCS];
	struct lane *owner[1 + 2 * FL_MAX_CRTCS] = { NULL };
	unsigned int i, n = 1;
	int ret;

	fds[0] = (struct pollfd){ .fd = l->dev->fd, .events = POLLIN };
	for (i = 0; i < l->dev->noutputs; i++) {
		struct lane *lane = &l->lanes[i];

		if (lane->pending && lane->fence >= 0) {
			owner[n] = lane;
			fds[n++] = (struct pollfd){ .fd = lane->waiter.done_fd, .events = POLLIN };
		}
		if (lane->rendering) {
			owner[n] = lane;
			fds[n++] = (struct pollfd){ .fd = lane->timer, .events = POLLIN };
		}
	}
	ret = poll(fds, n, FLIP_TIMEOUT_MS);
	l->event_read_ns = now_ns();
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (ret == 0) {
		l->failed = "a flip took longer than 5 s (no event or no fence signal)";
		return -ETIMEDOUT;
	}
	for (i = 0; i < n; i++) {
		if (fds[i].revents & (POLLERR | POLLNVAL | POLLHUP)) {
			l->failed = i ? "polling a renderer timer or fence waiter failed" :
					"polling the DRM fd failed (POLLERR/POLLNVAL/POLLHUP)";
			return -EIO;
		}
	}
	for (i = 1; i < n; i++) {
		if (!(fds[i].revents & POLLIN))
			continue;
		if (fds[i].fd == owner[i]->timer)
			rendered(l, owner[i]);
		else
			signalled(l, owner[i]);
	}
	if (fds[0].revents & POLLIN) {
		/* drmHandleEvent() has no context argument for its handlers. */
		event_loop = l;
		ret = drmHandleEvent(l->dev->fd, &evctx);
		event_loop = NULL;
		if (ret) {
			l->failed = "reading DRM events failed";
			return -EIO;
		}
	}
	return 0;
}

static int setup_lanes(struct loop *l)
{
	unsigned int i;
	int ret;

	for (i = 0; i < l->dev->noutputs; i++) {
		struct lane *lane = &l->lanes[i];

		*lane = (struct lane){
			.out = &l->dev->outputs[i], .index = i, .fence = -1,
			.timeline = -1, .timer = -1, .in_fence = -1,
		};
		l->nlanes = i + 1;
		if (!fl_mode_has_fence(l->o->mode))
			continue;
		ret = fl_fence_waiter_start(&lane->waiter);
		if (ret) {
			fprintf(stderr, "fliplat: fence waiter thread: %s\n", strerror(-ret));
			return FL_EXIT_FAILED;
		}
		if (l->o->mode != FL_MODE_INFENCE)
			continue;
		lane->timeline = sw_sync_timeline_create();
		if (lane->timeline < 0) {
			fprintf(stderr, "fliplat: --infence needs sw_sync (/dev/sw_sync from "
				"syncfw, or /sys/kernel/debug/sync/sw_sync from CONFIG_SW_SYNC): "
				"%s\n", strerror(errno));
			return FL_EXIT_UNSUPPORTED;
		}
		lane->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (lane->timer < 0) {
			fprintf(stderr, "fliplat: timerfd: %s\n", strerror(errno));
			return FL_EXIT_FAILED;
		}
	}
	return FL_EXIT_OK;
}

static void teardown_lanes(struct loop *l)
{
	unsigned int i;

	for (i = 0; i < l->nlanes; i++) {
		struct lane *lane = &l->lanes[i];

		/* First the thread, which may still be polling the fence. */
		fl_fence_waiter_stop(&lane->waiter);
		if (lane->fence >= 0)
			close(lane->fence);
		if (lane->timer >= 0)
			close(lane->timer);
		drop_in_fence(lane);
		/* Closing the timeline signals (with an error) what it still holds. */
		if (lane->timeline >= 0)
			close(lane->timeline);
	}
}

int fl_measure(struct fl_device *dev, const struct fl_options *o, struct fl_run *run)
{
	struct loop l = { .dev = dev, .o = o, .run = run, .seed = o->seed };

	run->seed = o->seed;
	bool show = o->progress > 0 || (o->progress < 0 && isatty(STDERR_FILENO));
	unsigned int i, busy;
	int ret;

	ret = setup_lanes(&l);
	if (ret) {
		teardown_lanes(&l);
		return ret;
	}
	l.started = now_ns();
	l.until = l.started + (int64_t)(o->duration_s * 1e9);
	run->started_ns = l.started;
	for (;;) {
		for (i = 0, busy = 0; i < dev->noutputs; i++) {
			struct lane *lane = &l.lanes[i];

			/*
			 * In-fence mode: the next frame's point is the next on
			 * the timeline, so the renderer finishes this one first,
			 * even when the driver showed the flip without it.
			 */
			if (lane->pending && lane->got_event && lane->got_signal &&
			    !lane->rendering)
				lane->pending = false;
			if (!lane->pending && more_to_submit(&l, lane)) {
				ret = submit(&l, lane);
				if (ret == -ENODEV) {
					/* drm_dev_unplug(): every call fails from now on */
					fprintf(stderr, "fliplat: %s was unplugged (flip %u on CRTC %u "
						"refused: %s); stopping with the flips so far\n",
						dev->path, lane->submitted, lane->out->crtc_id,
						strerror(-ret));
					dev->unplugged = true;
					l.failed = "the device was unplugged";
				} else if (ret) {
					fprintf(stderr, "fliplat: flip %u on CRTC %u refused: %s\n",
						lane->submitted, lane->out->crtc_id, strerror(-ret));
					l.failed = "a flip was refused";
				}
			}
			busy += lane->pending;
		}
		if (!busy)
			break;
		ret = wait_and_handle(&l);
		if (ret == -ETIMEDOUT)
			break;
		if (ret && !l.failed)
			l.failed = "poll failed";
		if (show)
			progress(&l, false);
	}
	run->finished_ns = now_ns();
	if (fl_stop_signal && !l.failed)
		l.failed = fl_stop_signal == SIGTERM ? "stopped by SIGTERM" : "stopped by SIGINT";
	run->failure = l.failed;
	if (show)
		progress(&l, true);
	teardown_lanes(&l);
	if (l.failed) {
		fprintf(stderr, "fliplat: run stopped: %s\n", l.failed);
		return FL_EXIT_FAILED;
	}
	return FL_EXIT_OK;
}
