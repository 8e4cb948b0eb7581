// SPDX-License-Identifier: MIT
/*
 * Connectors added to and removed from an enabled device, as a DP MST
 * port appears and goes (configfs's dynamic connectors); part of the
 * configfs test, which calls check_hot_add():
 *
 *   hotadd-absent	device "h": output 0 has a connector, output 1 only
 *			a dynamic one not enabled: one display connector
 *   hotadd-busy-<what>	while enabled, a static connector's enabled and
 *			any connector's dynamic fail with EBUSY
 *   hotadd-monitor-unbuilt  a dynamic connector's monitor may change
 *			until it is added
 *   hotadd-add		enabled 1: a hotplug uevent, and a second display
 *			connector, connected, with that monitor's preferred
 *			mode, vrr_capable 1 and an EDID
 *   hotadd-busy-built	once added, its monitor is fixed (EBUSY)
 *   hotadd-flip	CRTC 1 lights the added connector; a flip's
 *			out-fence signals on flipkms-h-crtc-1
 *   hotadd-remove-lit-<..>  enabled 0 while CRTC 1 drives it: a hotplug
 *			uevent; it stays, disconnected, while the CRTC holds
 *			it; a commit that routes the CRTC to it again is
 *			refused with EINVAL, and so is adding a connector to
 *			the output (EBUSY: the old one holds its encoder);
 *			once the CRTC is off it is gone
 *   hotadd-readd	enabled 1 again: connected again, and CRTC 1 lights
 *			it; removed once dark, it goes at once
 *   hotadd-late-<what>	a connector made (mkdir) while enabled is dynamic
 *			and not enabled; enabled 1 without a link: EINVAL,
 *			linked to an output that has a connector: EBUSY,
 *			linked to the free one: added; its rmdir removes it
 *   hotadd-cycles	40 adds and removes (more than the core's 32
 *			connector indices), each seen in the card's list (the
 *			debug runner's kmemleak scan sees a leak)
 *   hotadd-unplug-lit	the device disabled while a removed connector
 *			still drives CRTC 1 and a client holds the card: the
 *			client gets ENODEV and the card's node goes; the
 *			shutdown frees the connector, the close the device
 *			(a reference slip there splats: the runner fails
 *			the test on it)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "configfs-lib.h"

#define H		"h"
#define DYN		"connectors/connector-1/"

/*
 * The display (not writeback) connectors of @fd into @ids: how many. One
 * listed that cannot be read (not registered, or freed) counts too.
 */
static int display_connectors(int fd, uint32_t *ids, int max)
{
	drmModeRes *res = drmModeGetResources(fd);
	int n = 0;

	for (int i = 0; res && i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);

		if ((!c || c->connector_type != DRM_MODE_CONNECTOR_WRITEBACK) && n < max)
			ids[n++] = res->connectors[i];
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return n;
}

/* The display connector of @fd that is not @other, or 0. */
static uint32_t other_connector(int fd, uint32_t other)
{
	uint32_t ids[4];
	int n = display_connectors(fd, ids, 4);

	for (int i = 0; i < n; i++)
		if (ids[i] != other)
			return ids[i];
	return 0;
}

/* @id's connection, or -errno if the card has no such connector. */
static int connection(int fd, uint32_t id)
{
	drmModeConnector *c = drmModeGetConnector(fd, id);
	int ret = c ? (int)c->connection : -errno;

	drmModeFreeConnector(c);
	return ret;
}

/* Whether @id is gone within 2 s: the last state that held it is freed after its commit. */
static bool connector_gone(int fd, uint32_t id)
{
	for (int i = 0; i < 40; i++) {
		if (connection(fd, id) == -ENOENT)
			return true;
		sleep_ms(50);
	}
	return false;
}

/* The pipe of @kd whose connector is @id, into @pipe: 0 or -1. */
static int pipe_of(struct kms_dev *kd, uint32_t id, struct kms_pipe *pipe)
{
	struct kms_pipe pipes[4];
	int n = kms_pipes(kd, pipes, 4);

	for (int i = 0; i < n; i++) {
		if (pipes[i].connector_id == id) {
			*pipe = pipes[i];
			return 0;
		}
	}
	return -1;
}

static void check_added(struct kms_dev *kd, int ufd, uint32_t static_id, uint32_t *added)
{
	drmModeConnector *c;
	bool preferred = false, uevent;
	unsigned char edid[256];
	uint64_t vrr = 0;
	int ret, edid_len;

	ret = set(H, DYN "enabled", "1");
	uevent = !ret && uevent_hotplug(ufd, kd->path);
	*added = other_connector(kd->fd, static_id);
	c = *added ? drmModeGetConnector(kd->fd, *added) : NULL;
	for (int i = 0; c && i < c->count_modes; i++)
		preferred |= (c->modes[i].type & DRM_MODE_TYPE_PREFERRED) &&
			     c->modes[i].hdisplay == 1366 && c->modes[i].vdisplay == 768;
	kms_prop_get(kd->fd, *added, DRM_MODE_OBJECT_CONNECTOR, "vrr_capable", &vrr);
	edid_len = *added ? kms_connector_edid(kd->fd, *added, edid, sizeof(edid)) : 0;
	check("hotadd-add", !ret && uevent && c && c->connection == DRM_MODE_CONNECTED &&
	      preferred && vrr == 1 && edid_len == 128 &&
	      !strcmp(read_line(at(H "/" DYN "enabled")), "1"),
	      "enabled 1: %s, uevent %s, connector %u %s, 1366x768 preferred %s, vrr_capable %llu, EDID %d bytes, enabled reads %s",
	      errno_name(-ret), uevent ? "seen" : "not seen", *added,
	      !c ? "missing" : c->connection == DRM_MODE_CONNECTED ? "connected" : "not connected",
	      preferred ? "yes" : "no", (unsigned long long)vrr, edid_len,
	      read_line(at(H "/" DYN "enabled")));
	drmModeFreeConnector(c);
}

static void check_flip(struct kms_dev *kd, struct kms_pipe *pipe, struct kms_fb *fb)
{
	struct kms_fence_info info = { 0 };
	int32_t fence = -1;
	int ret;

	ret = kms_fb_create(kd->fd, pipe->mode.hdisplay, pipe->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, 1, fb);
	ret = ret ?: kms_modeset(kd, pipe, NULL, fb);
	ret = ret ?: kms_flip(kd, pipe, fb, &fence, -1, 1);
	if (!ret && fence >= 0) {
		struct pollfd pfd = { .fd = fence, .events = POLLIN };

		poll(&pfd, 1, 2000);
		kms_fence_info(fence, &info);
		close(fence);
	}
	kms_drain_events(kd, 50);
	check("hotadd-flip", !ret && pipe->crtc_index == 1 && info.status == 1 &&
	      !strcmp(info.obj_name, "flipkms-h-crtc-1"),
	      "CRTC %d: %s, fence status %d on \"%s\" (expected 1 on flipkms-h-crtc-1)",
	      pipe->crtc_index, errno_name(-ret), info.status, info.obj_name);
}

/* Removed while CRTC 1 drives it: the state holds it until the CRTC goes off. */
static void check_remove_lit(struct kms_dev *kd, int ufd, struct kms_pipe *pipe,
			     struct kms_fb *fb)
{
	int ret, held, again, off;
	bool uevent;

	ret = set(H, DYN "enabled", "0");
	uevent = !ret && uevent_hotplug(ufd, kd->path);
	held = connection(kd->fd, pipe->connector_id);
	check("hotadd-remove-lit-held", !ret && uevent && held == DRM_MODE_DISCONNECTED,
	      "enabled 0: %s, uevent %s, connector %s",
	      errno_name(-ret), uevent ? "seen" : "not seen",
	      held < 0 ? errno_name(-held) : held == DRM_MODE_DISCONNECTED ? "disconnected" :
	      "not disconnected");
	again = kms_modeset(kd, pipe, NULL, fb);
	check_int("hotadd-remove-lit-no-new-route", -EINVAL, again);
	check_int("hotadd-remove-lit-no-readd", -EBUSY, set(H, DYN "enabled", "1"));
	off = kms_disable(kd, pipe);
	check("hotadd-remove-lit-freed", !off && connector_gone(kd->fd, pipe->connector_id),
	      "CRTC off: %s, connector %u %s", errno_name(-off), pipe->connector_id,
	      connection(kd->fd, pipe->connector_id) == -ENOENT ? "gone" : "still there");
}

static void check_readd(struct kms_dev *kd, uint32_t static_id)
{
	struct kms_pipe pipe;
	struct kms_fb fb = { 0 };
	uint32_t id;
	int ret, state, lit = -ENOENT, gone;

	ret = set(H, DYN "enabled", "1");
	id = other_connector(kd->fd, static_id);
	state = id ? connection(kd->fd, id) : -ENOENT;
	if (!ret && id && pipe_of(kd, id, &pipe) == 0) {
		lit = kms_fb_create(kd->fd, pipe.mode.hdisplay, pipe.mode.vdisplay,
				    DRM_FORMAT_XRGB8888, 3, &fb);
		lit = lit ?: kms_modeset(kd, &pipe, NULL, &fb);
		lit = lit ?: kms_disable(kd, &pipe);
		kms_fb_destroy(kd->fd, &fb);
	}
	ret = ret ?: set(H, DYN "enabled", "0");
	gone = id && connector_gone(kd->fd, id) ? -ENOENT : 0;
	check("hotadd-readd", !ret && state == DRM_MODE_CONNECTED && !lit && gone == -ENOENT,
	      "enabled 1 then 0: %s; connector %u %s, lit and turned off: %s, then %s",
	      errno_name(-ret), id, state == DRM_MODE_CONNECTED ? "connected" : "not connected",
	      errno_name(-lit), gone == -ENOENT ? "gone" : "still there");
}

/* A connector made while the device is enabled. */
static void check_late(struct kms_dev *kd)
{
	const char *link = H "/connectors/late/possible_encoders/encoder-";
	char file[128];
	uint32_t ids[4];
	int ret, n;

	begin("hotadd-late");
	ret = mk(H, "connectors", "late") ? -errno : 0;
	check("hotadd-late-mkdir", !ret && !strcmp(read_line(at(H "/connectors/late/dynamic")), "1") &&
	      !strcmp(read_line(at(H "/connectors/late/enabled")), "0"),
	      "mkdir while enabled: %s, dynamic %s, enabled %s", errno_name(-ret),
	      read_line(at(H "/connectors/late/dynamic")),
	      read_line(at(H "/connectors/late/enabled")));
	check_int("hotadd-late-no-link", -EINVAL, set(H, "connectors/late/enabled", "1"));
	ret = ln(H, "connectors", "late", "possible_encoders", "encoders", "encoder-0") ? -errno : 0;
	check_int("hotadd-late-link", 0, ret);
	check_int("hotadd-late-taken-output", -EBUSY, set(H, "connectors/late/enabled", "1"));
	snprintf(file, sizeof(file), "%s0", link);
	ret = unlink(at("%s", file)) ? -errno : 0;
	ret = ret ?: ln(H, "connectors", "late", "possible_encoders", "encoders", "encoder-1") ?
	      -errno : 0;
	ret = ret ?: set(H, "connectors/late/enabled", "1");
	n = display_connectors(kd->fd, ids, 4);
	check("hotadd-late-added", !ret && n == 2, "relinked to encoder-1 and enabled: %s, %d display connectors (expected 2)",
	      errno_name(-ret), n);
	/* configfs cannot refuse an unlink: the description changes, the card does not. */
	snprintf(file, sizeof(file), "%s1", link);
	ret = unlink(at("%s", file)) ? -errno : 0;
	n = display_connectors(kd->fd, ids, 4);
	ret = ret ?: rmdir(at(H "/connectors/late")) ? -errno : 0;
	check("hotadd-late-rmdir", !ret && n == 2 && display_connectors(kd->fd, ids, 4) == 1,
	      "unlink then rmdir: %s, %d display connectors after the unlink (expected 2), %d after the rmdir (expected 1)",
	      errno_name(-ret), n, display_connectors(kd->fd, ids, 4));
}

static void check_cycles(struct kms_dev *kd)
{
	uint32_t ids[4];
	int i, ret = 0, added = 0, removed = 0;

	begin("hotadd-cycles");
	for (i = 0; i < 40 && !ret; i++) {
		ret = set(H, DYN "enabled", "1");
		added = display_connectors(kd->fd, ids, 4);
		ret = ret ?: set(H, DYN "enabled", "0");
		removed = display_connectors(kd->fd, ids, 4);
		if (!ret && (added != 2 || removed != 1))
			ret = -EPROTO;
	}
	check("hotadd-cycles", !ret, "round %d of 40: %s (%d display connectors added, %d removed)",
	      i, errno_name(-ret), added, removed);
}

static void check_unplug_lit(struct kms_dev *kd, uint32_t static_id)
{
	struct kms_pipe pipe;
	struct kms_fb fb;
	int ret, after = 0;

	begin("hotadd-unplug-lit");
	ret = set(H, DYN "enabled", "1");
	ret = ret ?: pipe_of(kd, other_connector(kd->fd, static_id), &pipe) ? -ENOENT : 0;
	ret = ret ?: kms_fb_create(kd->fd, pipe.mode.hdisplay, pipe.mode.vdisplay,
				   DRM_FORMAT_XRGB8888, 2, &fb);
	ret = ret ?: kms_modeset(kd, &pipe, NULL, &fb);
	/* Removed while lit: only its state holds it as the device goes. */
	ret = ret ?: set(H, DYN "enabled", "0");
	ret = ret ?: set(H, "enabled", "0");
	if (!ret) {
		drmModeRes *res = drmModeGetResources(kd->fd);

		after = res ? 0 : -errno;
		drmModeFreeResources(res);
	}
	close(kd->fd);
	kd->fd = -1;
	check("hotadd-unplug-lit", !ret && after == -ENODEV && access(kd->path, F_OK),
	      "lit, removed, then device disabled: %s, the client's next call %s (expected ENODEV), %s %s",
	      errno_name(-ret), errno_name(-after), kd->path,
	      access(kd->path, F_OK) ? "gone" : "still there");
}

/* Device h's connectors, added and removed while it is enabled. */
void check_hot_add(void)
{
	struct kms_dev kd = { .fd = -1 };
	struct kms_pipe pipe;
	struct kms_fb fb;
	uint32_t ids[4], added = 0;
	int ufd = kms_uevent_open(), n;

	begin("hotadd-setup");
	require(ufd >= 0 && mkdir(at(H), 0755) == 0 && add_output(H, 0) == 0 &&
		add_output(H, 1) == 0 && set(H, DYN "dynamic", "1") == 0 &&
		set(H, DYN "enabled", "0") == 0 && set(H, "enabled", "1") == 0 &&
		open_card(H, &kd) == 0,
		"device h, with a dynamic connector not enabled on output 1");
	n = display_connectors(kd.fd, ids, 4);
	check_int("hotadd-absent", 1, n);
	check_int("hotadd-busy-static", -EBUSY, set(H, "connectors/connector-0/enabled", "0"));
	check_int("hotadd-busy-dynamic", -EBUSY, set(H, DYN "dynamic", "0"));
	check_int("hotadd-monitor-unbuilt", 0, set(H, DYN "preferred_mode", "1366x768"));

	begin("hotadd-add");
	check_added(&kd, ufd, ids[0], &added);
	check_int("hotadd-busy-built", -EBUSY, set(H, DYN "preferred_mode", "1920x1080"));

	begin("hotadd-flip");
	require(added && pipe_of(&kd, added, &pipe) == 0, "a pipe on the added connector");
	check_flip(&kd, &pipe, &fb);
	begin("hotadd-remove-lit");
	check_remove_lit(&kd, ufd, &pipe, &fb);
	kms_fb_destroy(kd.fd, &fb);

	begin("hotadd-readd");
	check_readd(&kd, ids[0]);
	check_late(&kd);
	check_cycles(&kd);
	check_unplug_lit(&kd, ids[0]);
	close(ufd);
	check_int("hotadd-remove-device", 0, remove_device(H));
}
