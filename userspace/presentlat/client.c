// SPDX-License-Identifier: MIT
/*
 * The Wayland side of presentlat: an xdg_toplevel with wl_shm buffers that
 * commits one frame per frame callback (or in busy/idle bursts), asks
 * wp_presentation for feedback on each commit, and records what the
 * compositor says happened to it.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "presentation-time-client-protocol.h"
#include "xdg-shell-client-protocol.h"
#include "presentlat.h"

#define NBUFFERS	3
/* Outputs --output chooses among; a desk has a few. */
#define MAX_OUTPUTS	8
/* Longest wait for the compositor before the run is called failed. */
#define STALL_MS	3000

struct buffer {
	struct wl_buffer *wl;
	uint32_t *pixels;
	bool busy;
};

/* A wl_output, bound (version 4, for its name) only for --output. */
struct output {
	struct wl_output *wl;
	char name[32];
};

struct client {
	struct pl_run *run;
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm;
	struct wp_presentation *presentation;
	struct output outputs[MAX_OUTPUTS];
	int noutputs;
	bool clock_known;
	uint32_t clock_id;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	bool configured, closed;
	int32_t configured_width, configured_height;	/* 0: the client chooses */
	struct buffer buffers[NBUFFERS];
	void *pool_data;
	size_t pool_size;
	bool frame_done;	/* the last commit's frame callback came */
	struct feedback *owed;	/* not yet presented or discarded */
	bool catching;		/* stop signals blocked but in ppoll(): */
	sigset_t waiting;	/* its mask */
};

/* Deadlines and the run's length. */
static int64_t now_ns(void)
{
	return pl_clock_ns(CLOCK_MONOTONIC);
}

/* --- what the compositor tells us --------------------------------------- */

/* A feedback the compositor still owes: which frame it speaks of. */
struct feedback {
	struct client *client;
	size_t frame;
	struct wp_presentation_feedback *wl;
	struct feedback *next;	/* client.owed: a frame or two long */
};

static struct pl_frame *feedback_frame(struct feedback *fb)
{
	return &fb->client->run->frames[fb->frame];
}

static void feedback_free(struct feedback *fb)
{
	wp_presentation_feedback_destroy(fb->wl);
	free(fb);
}

/* The compositor said what became of the frame: it owes nothing more. */
static void feedback_settled(struct feedback *fb)
{
	struct feedback **link = &fb->client->owed;

	while (*link != fb)
		link = &(*link)->next;
	*link = fb->next;
	feedback_free(fb);
}

static void feedback_sync_output(void *data, struct wp_presentation_feedback *fb,
				 struct wl_output *output)
{
}

static void feedback_presented(void *data, struct wp_presentation_feedback *wl,
			       uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec,
			       uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags)
{
	struct pl_frame *f = feedback_frame(data);

	f->fate = PL_PRESENTED;
	f->presented_ns = (int64_t)(((uint64_t)tv_sec_hi << 32 | tv_sec_lo) * 1000000000 + tv_nsec);
	f->refresh_ns = refresh;
	f->msc = (uint64_t)seq_hi << 32 | seq_lo;
	f->flags = flags;
	feedback_settled(data);
}

static void feedback_discarded(void *data, struct wp_presentation_feedback *wl)
{
	feedback_frame(data)->fate = PL_DISCARDED;
	feedback_settled(data);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

static void presentation_clock_id(void *data, struct wp_presentation *p, uint32_t clk_id)
{
	struct client *c = data;

	c->clock_id = clk_id;
	c->clock_known = true;
}

static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_clock_id,
};

static void buffer_release(void *data, struct wl_buffer *wl)
{
	((struct buffer *)data)->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_release,
};

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct client *c = data;

	c->frame_done = true;
	wl_callback_destroy(cb);
}

static const struct wl_callback_listener frame_listener = {
	.done = frame_done,
};

static void wm_ping(void *data, struct xdg_wm_base *wm, uint32_t serial)
{
	xdg_wm_base_pong(wm, serial);
}

static const struct xdg_wm_base_listener wm_listener = {
	.ping = wm_ping,
};

static void xdg_surface_configure(void *data, struct xdg_surface *s, uint32_t serial)
{
	xdg_surface_ack_configure(s, serial);
	((struct client *)data)->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h,
			       struct wl_array *states)
{
	struct client *c = data;

	c->configured_width = w;
	c->configured_height = h;
}

static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	((struct client *)data)->closed = true;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void output_geometry(void *data, struct wl_output *o, int32_t x, int32_t y,
			    int32_t w_mm, int32_t h_mm, int32_t subpixel, const char *make,
			    const char *model, int32_t transform)
{
}

static void output_mode(void *data, struct wl_output *o, uint32_t flags, int32_t w, int32_t h,
			int32_t refresh)
{
}

static void output_done(void *data, struct wl_output *o)
{
}

static void output_scale(void *data, struct wl_output *o, int32_t factor)
{
}

static void output_name(void *data, struct wl_output *o, const char *name)
{
	struct output *out = data;

	snprintf(out->name, sizeof(out->name), "%s", name);
}

static void output_description(void *data, struct wl_output *o, const char *description)
{
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
	.done = output_done,
	.scale = output_scale,
	.name = output_name,
	.description = output_description,
};

static void global(void *data, struct wl_registry *r, uint32_t name, const char *iface,
		   uint32_t version)
{
	struct client *c = data;

	if (!strcmp(iface, wl_compositor_interface.name)) {
		c->compositor = wl_registry_bind(r, name, &wl_compositor_interface, 4);
	} else if (!strcmp(iface, wl_shm_interface.name)) {
		c->shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
	} else if (!strcmp(iface, xdg_wm_base_interface.name)) {
		c->wm = wl_registry_bind(r, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(c->wm, &wm_listener, c);
	} else if (!strcmp(iface, wp_presentation_interface.name)) {
		c->presentation = wl_registry_bind(r, name, &wp_presentation_interface, 1);
		wp_presentation_add_listener(c->presentation, &presentation_listener, c);
	} else if (!strcmp(iface, wl_output_interface.name) && c->run->opt.output &&
		   version >= WL_OUTPUT_NAME_SINCE_VERSION && c->noutputs < MAX_OUTPUTS) {
		struct output *out = &c->outputs[c->noutputs++];

		out->wl = wl_registry_bind(r, name, &wl_output_interface,
					   WL_OUTPUT_NAME_SINCE_VERSION);
		wl_output_add_listener(out->wl, &output_listener, out);
	}
}

static void global_remove(void *data, struct wl_registry *r, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = global,
	.global_remove = global_remove,
};

/* --- waiting ------------------------------------------------------------ */

/*
 * Dispatches what arrives within @ms, or until a stop signal; -1 if the
 * connection failed.
 */
static int dispatch_for(struct client *c, int ms)
{
	struct pollfd p = { .fd = wl_display_get_fd(c->display), .events = POLLIN };
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (wl_display_prepare_read(c->display))
		if (wl_display_dispatch_pending(c->display) < 0)
			return -1;
	if (wl_display_flush(c->display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(c->display);
		return -1;
	}
	if (ppoll(&p, 1, &ts, c->catching ? &c->waiting : NULL) > 0) {
		if (wl_display_read_events(c->display) < 0)
			return -1;
	} else {
		wl_display_cancel_read(c->display);
	}
	return wl_display_dispatch_pending(c->display) < 0 ? -1 : 0;
}

/*
 * Dispatches until *@done or @ms pass; false on a timeout, a dead connection
 * or a stop signal.
 */
static bool wait_for(struct client *c, const bool *done, int ms)
{
	int64_t deadline = now_ns() + (int64_t)ms * 1000000;

	while (!*done) {
		int64_t left = (deadline - now_ns()) / 1000000;

		if (left <= 0 || c->closed || pl_stop_signals || dispatch_for(c, (int)left + 1))
			return false;
	}
	return true;
}

/*
 * A buffer the compositor has released, waiting up to STALL_MS for one;
 * NULL after that, or at a stop signal.
 */
static struct buffer *free_buffer(struct client *c)
{
	int64_t deadline = now_ns() + (int64_t)STALL_MS * 1000000;
	int i;

	for (;;) {
		for (i = 0; i < NBUFFERS; i++)
			if (!c->buffers[i].busy)
				return &c->buffers[i];
		if (now_ns() >= deadline || c->closed || pl_stop_signals ||
		    dispatch_for(c, (int)((deadline - now_ns()) / 1000000) + 1))
			return NULL;
	}
}

/* --- set-up and frames -------------------------------------------------- */

static void destroy_buffers(struct client *c)
{
	int i;

	for (i = 0; i < NBUFFERS; i++) {
		if (c->buffers[i].wl)
			wl_buffer_destroy(c->buffers[i].wl);
		c->buffers[i] = (struct buffer){ 0 };
	}
	if (c->pool_data)
		munmap(c->pool_data, c->pool_size);
	c->pool_data = NULL;
}

static int create_buffers(struct client *c)
{
	unsigned int w = c->run->opt.width, h = c->run->opt.height;
	size_t size = (size_t)w * h * 4;
	struct wl_shm_pool *pool;
	int fd, i;

	c->pool_size = size * NBUFFERS;
	fd = memfd_create("presentlat", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)c->pool_size)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	c->pool_data = mmap(NULL, c->pool_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c->pool_data == MAP_FAILED) {
		c->pool_data = NULL;
		close(fd);
		return -1;
	}
	pool = wl_shm_create_pool(c->shm, fd, (int32_t)c->pool_size);
	for (i = 0; i < NBUFFERS; i++) {
		struct buffer *b = &c->buffers[i];

		b->pixels = (uint32_t *)((char *)c->pool_data + size * i);
		b->wl = wl_shm_pool_create_buffer(pool, (int32_t)(size * i), (int32_t)w,
						  (int32_t)h, (int32_t)w * 4,
						  WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(b->wl, &buffer_listener, b);
	}
	wl_shm_pool_destroy(pool);
	close(fd);
	return 0;
}

/*
 * Fullscreen: the buffers take the size the compositor configured (sway
 * sends it only once the window is mapped); otherwise theirs stays.
 * False if buffers of the size could not be made.
 */
static bool fit_configured_size(struct client *c)
{
	struct pl_options *o = &c->run->opt;

	if (o->fullscreen && c->configured_width > 0 && c->configured_height > 0 &&
	    ((unsigned int)c->configured_width != o->width ||
	     (unsigned int)c->configured_height != o->height)) {
		destroy_buffers(c);
		o->width = (unsigned int)c->configured_width;
		o->height = (unsigned int)c->configured_height;
	}
	return c->pool_data || !create_buffers(c);
}

/*
 * The wl_output --output names (NULL without --output); sets @err, naming
 * the outputs there are, if there is none of that name.
 */
static struct wl_output *chosen_output(struct client *c, const char **err)
{
	/* run->failure outlives the client: not on its stack */
	static char why[160];
	const char *want = c->run->opt.output;
	size_t len;
	int i;

	*err = NULL;
	if (!want)
		return NULL;
	for (i = 0; i < c->noutputs; i++)
		if (!strcmp(c->outputs[i].name, want))
			return c->outputs[i].wl;
	len = (size_t)snprintf(why, sizeof(why), "the compositor has no output named %s (%s",
			       want, c->noutputs ? "it has" : "none with wl_output version 4");
	for (i = 0; i < c->noutputs && len < sizeof(why); i++)
		len += (size_t)snprintf(why + len, sizeof(why) - len, " %s",
					c->outputs[i].name);
	if (len < sizeof(why))
		snprintf(why + len, sizeof(why) - len, ")");
	*err = why;
	return NULL;
}

static const char *set_up(struct client *c)
{
	struct wl_output *output;
	const char *err;

	c->display = wl_display_connect(NULL);
	if (!c->display)
		return "cannot connect to the Wayland display (WAYLAND_DISPLAY, XDG_RUNTIME_DIR)";
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	if (wl_display_roundtrip(c->display) < 0 || wl_display_roundtrip(c->display) < 0)
		return "the compositor closed the connection during set-up";
	if (!c->compositor || !c->shm || !c->wm)
		return "the compositor lacks wl_compositor, wl_shm or xdg_wm_base";
	if (!c->presentation)
		return "the compositor has no wp_presentation (presentation-time)";
	if (!c->clock_known)
		return "the compositor did not say which clock it presents on";
	c->run->clock_known = true;
	c->run->clock_id = c->clock_id;
	if (pl_clock_ns(c->clock_id) <= 0)
		return "the compositor's presentation clock is not one this system reads";
	output = chosen_output(c, &err);
	if (err)
		return err;
	c->surface = wl_compositor_create_surface(c->compositor);
	c->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm, c->surface);
	xdg_surface_add_listener(c->xdg_surface, &xdg_surface_listener, c);
	c->toplevel = xdg_surface_get_toplevel(c->xdg_surface);
	xdg_toplevel_add_listener(c->toplevel, &toplevel_listener, c);
	xdg_toplevel_set_title(c->toplevel, "presentlat");
	if (c->run->opt.fullscreen)
		xdg_toplevel_set_fullscreen(c->toplevel, output);
	wl_surface_commit(c->surface);
	if (!wait_for(c, &c->configured, STALL_MS))
		return "the compositor did not configure the window";
	if (!fit_configured_size(c))
		return "cannot allocate the shm buffers";
	return NULL;
}

/* Spins for @us: a client whose rendering takes CPU time, not a sleep. */
static void render(unsigned int us)
{
	int64_t end = now_ns() + (int64_t)us * 1000;

	while (now_ns() < end)
		;
}

static const char *commit_frame(struct client *c, size_t i)
{
	struct pl_run *run = c->run;
	const struct pl_options *o = &run->opt;
	struct feedback *fb;
	struct wl_callback *cb;
	struct buffer *b;
	struct pl_frame *f;
	unsigned int x, y;

	if (run->nframes == run->cap) {
		size_t cap = run->cap ? run->cap * 2 : 1024;
		struct pl_frame *grown = realloc(run->frames, cap * sizeof(*grown));

		if (!grown)
			return "out of memory";
		run->frames = grown;
		run->cap = cap;
	}
	if (!fit_configured_size(c))
		return "cannot allocate shm buffers of the configured size";
	b = free_buffer(c);
	/* Stopped while waiting for a buffer: nothing committed, no failure. */
	if (!b)
		return pl_stop_signals ? NULL : "the compositor released no buffer within 3 s";
	fb = malloc(sizeof(*fb));
	if (!fb)
		return "out of memory";
	render(o->render_us);
	for (y = 0; y < o->height; y++)
		for (x = 0; x < o->width; x++)
			b->pixels[(size_t)y * o->width + x] = pl_pixel(x, y, (unsigned int)i);
	f = &run->frames[run->nframes];
	*f = (struct pl_frame){ .index = (unsigned int)i, .warmup = i < o->warmup };
	wl_surface_attach(c->surface, b->wl, 0, 0);
	wl_surface_damage_buffer(c->surface, 0, 0, (int32_t)o->width, (int32_t)o->height);
	cb = wl_surface_frame(c->surface);
	wl_callback_add_listener(cb, &frame_listener, c);
	*fb = (struct feedback){
		.client = c,
		.frame = run->nframes,
		.wl = wp_presentation_feedback(c->presentation, c->surface),
		.next = c->owed,
	};
	wp_presentation_feedback_add_listener(fb->wl, &feedback_listener, fb);
	c->owed = fb;
	b->busy = true;
	c->frame_done = false;
	run->nframes++;
	/* On the compositor's clock, so that presented - commit means something. */
	f->commit_ns = pl_clock_ns(c->clock_id);
	wl_surface_commit(c->surface);
	return wl_display_flush(c->display) < 0 && errno != EAGAIN ?
	       "lost the connection committing a frame" : NULL;
}

static bool run_over(const struct pl_run *run, size_t committed)
{
	if (run->opt.frames)
		return committed >= run->opt.warmup + run->opt.frames;
	return now_ns() - run->started_ns >= (int64_t)(run->opt.duration_s * 1e9);
}

static const char *frames(struct client *c)
{
	const struct pl_options *o = &c->run->opt;
	static const bool never;
	const char *err;
	size_t i;

	/* A stop signal ends the run as its last frame would. */
	for (i = 0; !run_over(c->run, i) && !pl_stop_signals; i++) {
		if (o->busy && i && !(i % o->busy))
			wait_for(c, &never, (int)o->idle_ms);
		if (pl_stop_signals)
			break;
		err = commit_frame(c, i);
		if (err)
			return err;
		if (!wait_for(c, &c->frame_done, STALL_MS) && !pl_stop_signals)
			return c->closed ? "the compositor closed the window" :
			       "no frame callback within 3 s (or the connection was lost)";
	}
	if (pl_stop_signals && !c->run->nframes)
		return pl_stop_signal == SIGTERM ? "stopped by SIGTERM before the first frame" :
		       "stopped by SIGINT before the first frame";
	return NULL;
}

static void tear_down(struct client *c)
{
	struct feedback *fb;

	while (c->owed) {
		fb = c->owed;
		c->owed = fb->next;
		feedback_free(fb);
	}
	destroy_buffers(c);
	if (c->toplevel)
		xdg_toplevel_destroy(c->toplevel);
	if (c->xdg_surface)
		xdg_surface_destroy(c->xdg_surface);
	if (c->surface)
		wl_surface_destroy(c->surface);
	if (c->presentation)
		wp_presentation_destroy(c->presentation);
	while (c->noutputs)
		wl_output_release(c->outputs[--c->noutputs].wl);
	if (c->wm)
		xdg_wm_base_destroy(c->wm);
	if (c->shm)
		wl_shm_destroy(c->shm);
	if (c->compositor)
		wl_compositor_destroy(c->compositor);
	if (c->registry)
		wl_registry_destroy(c->registry);
	if (c->display)
		wl_display_disconnect(c->display);
}

int pl_client_run(struct pl_run *run)
{
	struct client c = { .run = run };
	sig_atomic_t seen;
	int64_t deadline;

	run->failure = set_up(&c);
	run->started_ns = now_ns();
	if (run->failure) {
		run->finished_ns = run->started_ns;
		tear_down(&c);
		return PL_EXIT_NO_COMPOSITOR;
	}
	pl_catch_stop_signals(&c.waiting);
	c.catching = true;
	run->failure = frames(&c);
	/*
	 * The last frames' feedback arrives a vblank or two after their commit;
	 * a stop signal during this wait ends it.
	 */
	seen = pl_stop_signals;
	deadline = now_ns() + (int64_t)STALL_MS * 1000000;
	while (c.display && c.owed && now_ns() < deadline && pl_stop_signals == seen &&
	       !dispatch_for(&c, 50))
		;
	if (!run->failure && c.owed)
		run->failure = pl_stop_signals == seen ?
			       "some frames got no presentation feedback within 3 s" :
			       pl_stop_signal == SIGTERM ?
			       "stopped by SIGTERM before every frame's feedback came" :
			       "stopped by SIGINT before every frame's feedback came";
	run->finished_ns = now_ns();
	pl_release_stop_signals(&c.waiting);
	tear_down(&c);
	return run->failure ? PL_EXIT_FAILED : PL_EXIT_OK;
}
