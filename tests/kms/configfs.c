// SPDX-License-Identifier: MIT
/*
 * configfs: devices built at run time through flipkms/ in configfs
 * (Documentation/ABI/testing/configfs-flipkms), as a client sees them:
 *
 *   layout		a new device and each new object have vkms's files
 *			with their defaults
 *   <attr>-good/-bad	each attribute takes its values and refuses others
 *			with EINVAL; a link to the wrong kind of object or
 *			to another device's is refused, a second link to
 *			the same object too (EEXIST)
 *   edid-<what>	a connector's edid takes a valid EDID (read back as
 *			written, "\n" clears it) and refuses a short one, a
 *			bad checksum, a wrong extension count, a broken
 *			header and too many blocks with EINVAL
 *   refused-<why>	a topology flipkms cannot build is refused at
 *			enabled with EINVAL, a kernel message says why, and
 *			no device appears
 *   enabled-card	a built device is platform device flipkms-DEVICE
 *			with a card of its own, whose connector, writeback
 *			connector and planes are the description's
 *   plane-<what>	a plane offers the formats and has the zpos its
 *			directory gives
 *   monitor-<what>	the connector's type, preferred mode, physical size
 *			and refresh range are in its properties and in the
 *			generated EDID
 *   busy-<what>	while enabled, mkdir, attribute writes and links fail
 *			with EBUSY; rmdir of a linked object and of a
 *			device that has objects fail (configfs's own rules)
 *   hotplug-<status>	connector status changes while enabled: a hotplug
 *			uevent for the card, and the connector's new status
 *   hotplug-edid-<..>	a user EDID written while enabled: a hotplug uevent,
 *			the EDID property is it and the modes are its own;
 *			cleared, the generated EDID is back
 *   crtc-defaults	a CRTC's refresh rate and fault defaults: its debugfs
 *			controls start at them, its preferred mode runs at
 *			its rate
 *   two-devices	a second device (two outputs) next to the first:
 *			each card its own, a flip on each CRTC whose
 *			out-fence comes from that device's own timeline,
 *			and every monitor of the three devices has an EDID
 *			serial number and name of its own
 *   unplug-with-client	disabled while a client holds the card: the
 *			client's calls fail with ENODEV, the card goes when
 *			it closes, and the device can be enabled again
 *   hotadd-<what>	connectors added to and removed from an enabled
 *			device (configfs-hotadd.c says what)
 *   remove		disabled and removed, nothing left in flipkms/
 *   create-destroy	-n times: create, enable, open, disable, remove
 *			(the debug runner's kmemleak scan sees any leak)
 *
 * usage: configfs [-n ROUNDS] flipkms   (as root, in the guest; run it
 * through tests/kms/with-module.sh flipkms, which unloads flipkms after
 * it: the module must let go once the devices are gone)
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "configfs-lib.h"

/* Whether the kernel log holds @text. */
static bool dmesg_has(const char *text)
{
	static char buf[1 << 18];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = 0;
	return strstr(buf, text);
}

/* --- EDIDs --------------------------------------------------------------- */

#define EDID_LEN	128

/* @len bytes to ROOT/@rel in one write(): 0 or -errno. */
static int write_bytes(const char *rel, const void *data, size_t len)
{
	int fd = open(at("%s", rel), O_WRONLY), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* The bytes of @file, at most @len; how many, or -1. */
static ssize_t read_bytes(const char *file, void *buf, size_t len)
{
	int fd = open(file, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len);
	close(fd);
	return n;
}

static void edid_fix_checksum(unsigned char *block)
{
	unsigned char sum = 0;

	for (int i = 0; i < EDID_LEN - 1; i++)
		sum += block[i];
	block[EDID_LEN - 1] = (unsigned char)(0x100 - sum);
}

/* The first non-writeback connector of @fd, or 0. */
static uint32_t display_connector(int fd)
{
	drmModeRes *res = drmModeGetResources(fd);
	uint32_t id = 0;

	for (int i = 0; res && i < res->count_connectors && !id; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);

		if (c && c->connector_type != DRM_MODE_CONNECTOR_WRITEBACK)
			id = c->connector_id;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return id;
}

/* The text of display descriptor @tag (0xfc name, 0xff serial), trimmed; "" if none. */
static const char *edid_text(const unsigned char *edid, unsigned char tag)
{
	static char out[14];
	int i;

	out[0] = 0;
	for (int d = 54; d < 126; d += 18) {
		if (edid[d] || edid[d + 1] || edid[d + 3] != tag)
			continue;
		for (i = 0; i < 13 && edid[d + 5 + i] != '\n'; i++)
			out[i] = (char)edid[d + 5 + i];
		out[i] = 0;
		break;
	}
	return out;
}

/*
 * "A monitor with a given EDID": the default device's generated EDID
 * (1920x1080 preferred, 48-144 Hz) renamed "given monitor", serial 4242.
 */
static bool given_edid(unsigned char edid[EDID_LEN])
{
	static const char name[13] = "given monitor";
	char file[600];
	struct dirent *d;
	DIR *drm = opendir("/sys/devices/platform/flipkms/drm");
	bool found = false;

	while (drm && (d = readdir(drm)) && !found) {
		if (strncmp(d->d_name, "card", 4))
			continue;
		snprintf(file, sizeof(file), "/sys/devices/platform/flipkms/drm/%s/%s-Virtual-1/edid",
			 d->d_name, d->d_name);
		found = read_bytes(file, edid, EDID_LEN) == EDID_LEN;
	}
	if (drm)
		closedir(drm);
	if (!found)
		return false;
	for (int d = 54; d < 126; d += 18)
		if (!edid[d] && !edid[d + 1] && edid[d + 3] == 0xfc)
			memcpy(edid + d + 5, name, sizeof(name));
	edid[12] = 4242 & 0xff;
	edid[13] = 4242 >> 8;
	edid_fix_checksum(edid);
	return true;
}

/* --- the checks ---------------------------------------------------------- */

static void check_layout(void)
{
	begin("layout");
	require(mkdir(at("t1"), 0755) == 0, "mkdir flipkms/t1");
	require(mk("t1", "planes", "p") == 0 && mk("t1", "crtcs", "c") == 0 &&
		mk("t1", "encoders", "e") == 0 && mk("t1", "connectors", "n") == 0,
		"mkdir one object of each kind");
	check("layout", !strcmp(read_line(at("t1/enabled")), "0") &&
	      !strcmp(read_line(at("t1/planes/p/type")), "0") &&
	      !strcmp(read_line(at("t1/planes/p/zpos")), "-1") &&
	      !strncmp(read_line(at("t1/planes/p/supported_formats")), "XR24 AR24 ", 10) &&
	      !strcmp(read_line(at("t1/crtcs/c/writeback")), "0") &&
	      !strcmp(read_line(at("t1/connectors/n/status")), "1") &&
	      !strcmp(read_line(at("t1/connectors/n/type")), "15") &&
	      !strcmp(read_line(at("t1/connectors/n/preferred_mode")), "1920x1080") &&
	      !strcmp(read_line(at("t1/connectors/n/width_mm")), "0") &&
	      !strcmp(read_line(at("t1/connectors/n/height_mm")), "0") &&
	      !strcmp(read_line(at("t1/connectors/n/vrr_range")), "48-144") &&
	      !strcmp(read_line(at("t1/connectors/n/edid")), "") &&
	      access(at("t1/planes/p/possible_crtcs"), F_OK) == 0 &&
	      access(at("t1/encoders/e/possible_crtcs"), F_OK) == 0 &&
	      access(at("t1/connectors/n/possible_encoders"), F_OK) == 0,
	      "expected enabled 0, type 0, zpos -1, all formats, writeback 0, status 1, connector type 15, 1920x1080, 0x0 mm, 48-144 Hz, no edid and the link directories");
	/* Longer, and flipkms-NAME-crtc-N would not fit a sync_file's timeline name. */
	errno = 0;
	check("name-too-long", mkdir(at("seventeen-chars-x"), 0755) == -1 &&
	      errno == ENAMETOOLONG, "mkdir of a 17-character device: %s (expected ENAMETOOLONG)",
	      errno_name(errno));
}

/* @file of t1 takes each of @good (read back as written) and refuses @bad. */
static void check_attr(const char *name, const char *file, const char *const *good,
		       const char *const *bad)
{
	bool all = *good != NULL;
	char test[64];

	snprintf(test, sizeof(test), "%s-good", name);
	for (; *good; good++) {
		if (set("t1", file, *good) || strcmp(read_line(at("t1/%s", file)), *good) != 0) {
			not_ok(test, "writing %s: got %s, read back \"%s\"", *good,
			       errno_name(errno), read_line(at("t1/%s", file)));
			all = false;
			break;
		}
	}
	if (all)
		ok(test);
	snprintf(test, sizeof(test), "%s-bad", name);
	for (all = true; *bad; bad++) {
		int ret = set("t1", file, *bad);

		if (ret != -EINVAL) {
			not_ok(test, "writing \"%s\": expected EINVAL, got %s", *bad,
			       errno_name(-ret));
			all = false;
			break;
		}
	}
	if (all)
		ok(test);
}

/*
 * The monitor on t1's connector n, as the cookbook's laptop panel: eDP,
 * 1366x768, 344x194 mm, 40-75 Hz (the last good value of each stays).
 */
static void check_monitor_attrs(void)
{
	static const char *const type_good[] = { "11", "15", "14", NULL };
	static const char *const type_bad[] = { "18", "0", "13", "x", NULL };
	static const char *const mode_good[] = { "3840x2160", "1366x768", NULL };
	static const char *const mode_bad[] = { "639x480", "3841x2160", "1366", "x", NULL };
	static const char *const width_good[] = { "2550", "0", "344", NULL };
	static const char *const height_good[] = { "0", "194", NULL };
	static const char *const mm_bad[] = { "2551", "-1", "x", NULL };
	static const char *const vrr_good[] = { "48-144", "40-75", NULL };
	static const char *const vrr_bad[] = { "75-40", "40", "x", NULL };

	check_attr("connector-type", "connectors/n/type", type_good, type_bad);
	check_attr("preferred-mode", "connectors/n/preferred_mode", mode_good, mode_bad);
	check_attr("width-mm", "connectors/n/width_mm", width_good, mm_bad);
	check_attr("height-mm", "connectors/n/height_mm", height_good, mm_bad);
	check_attr("vrr-range", "connectors/n/vrr_range", vrr_good, vrr_bad);
	check_int("vrr-range-erange", -ERANGE, set("t1", "connectors/n/vrr_range", "20-75"));
}

/* t1's connector n takes a valid EDID and refuses broken ones; none stays. */
static void check_edid_attr(void)
{
	unsigned char good[EDID_LEN], bad[9 * EDID_LEN], back[EDID_LEN + 1];
	ssize_t n;

	begin("edid");
	require(given_edid(good), "the default device's EDID from sysfs");
	n = write_bytes("t1/connectors/n/edid", good, EDID_LEN) ? -1 :
	    read_bytes(at("t1/connectors/n/edid"), back, sizeof(back));
	check("edid-good", n == EDID_LEN && !memcmp(back, good, EDID_LEN),
	      "wrote a valid EDID, read back %zd bytes%s", n,
	      n == EDID_LEN ? " that differ" : "");
	n = write_bytes("t1/connectors/n/edid", "\n", 1) ? -1 :
	    read_bytes(at("t1/connectors/n/edid"), back, sizeof(back));
	check_int("edid-clear", 0, n);

	check_int("edid-short", -EINVAL, write_bytes("t1/connectors/n/edid", good, 100));
	memcpy(bad, good, EDID_LEN);
	bad[20] ^= 1;
	check_int("edid-checksum", -EINVAL, write_bytes("t1/connectors/n/edid", bad, EDID_LEN));
	memcpy(bad, good, EDID_LEN);
	bad[126] = 1;
	edid_fix_checksum(bad);
	check_int("edid-extension-count", -EINVAL,
		  write_bytes("t1/connectors/n/edid", bad, EDID_LEN));
	memcpy(bad, good, EDID_LEN);
	bad[1] = 0;
	edid_fix_checksum(bad);
	check_int("edid-header", -EINVAL, write_bytes("t1/connectors/n/edid", bad, EDID_LEN));
	memset(bad, 0, sizeof(bad));
	for (int i = 0; i < 9; i++) {
		memcpy(bad + i * EDID_LEN, i ? bad + EDID_LEN : good, EDID_LEN);
		if (i == 1) {
			/* A CTA extension with no data blocks. */
			memset(bad + EDID_LEN, 0, EDID_LEN);
			bad[EDID_LEN] = 0x02;
			bad[EDID_LEN + 1] = 0x03;
			bad[EDID_LEN + 2] = 4;
			edid_fix_checksum(bad + EDID_LEN);
		}
	}
	bad[126] = 8;
	edid_fix_checksum(bad);
	check_int("edid-too-long", -EINVAL,
		  write_bytes("t1/connectors/n/edid", bad, sizeof(bad)));
	check("edid-none-after", read_bytes(at("t1/connectors/n/edid"), back, sizeof(back)) == 0,
	      "a refused EDID was kept");
}

/* t1's CRTC c: its refresh rate and fault defaults, left at their defaults. */
static void check_crtc_attrs(void)
{
	static const char *const refresh_good[] = { "240", "30", "60", NULL };
	static const char *const refresh_bad[] = { "29", "241", "x", NULL };
	static const char *const delay_good[] = { "5000000", "0", NULL };
	static const char *const delay_bad[] = { "5000001", "-1", NULL };
	static const char *const count_good[] = { "240", "0", NULL };
	static const char *const count_bad[] = { "241", "x", NULL };
	static const char *const stall_good[] = { "5000", "0", NULL };
	static const char *const stall_bad[] = { "5001", NULL };
	static const char *const errno_good[] = { "4095", "0", NULL };
	static const char *const errno_bad[] = { "4096", NULL };

	check_attr("refresh-hz", "crtcs/c/refresh_hz", refresh_good, refresh_bad);
	check_attr("signal-delay-us", "crtcs/c/signal_delay_us", delay_good, delay_bad);
	check_attr("drop-vblanks", "crtcs/c/drop_vblanks", count_good, count_bad);
	check_attr("stall-commit-ms", "crtcs/c/stall_commit_ms", stall_good, stall_bad);
	check_attr("fence-error", "crtcs/c/fence_error", errno_good, errno_bad);
	check_attr("vrr-hold", "crtcs/c/vrr_hold", count_good, count_bad);
}

/* t1's plane p: zpos, and the formats as "+FOURCC", "-FOURCC", "+*", "-*". */
static void check_plane_attrs(void)
{
	static const char *const zpos_good[] = { "255", "0", "-1", NULL };
	static const char *const zpos_bad[] = { "256", "-2", "x", NULL };
	static const char *const formats_bad[] = { "AR24", "+ZZZZ", "+AR2", "*", "+AR24x", NULL };
	static const char *const none[] = { NULL };
	char all[512];
	int ret;

	check_attr("zpos", "planes/p/zpos", zpos_good, zpos_bad);
	check_attr("supported-formats", "planes/p/supported_formats", none, formats_bad);
	snprintf(all, sizeof(all), "%s", read_line(at("t1/planes/p/supported_formats")));
	ret = set("t1", "planes/p/supported_formats", "-*");
	if (!ret)
		ret = set("t1", "planes/p/supported_formats", "+NV12");
	if (!ret)
		ret = set("t1", "planes/p/supported_formats", "+AR24");
	check("supported-formats-subset", !ret &&
	      !strcmp(read_line(at("t1/planes/p/supported_formats")), "AR24 NV12"),
	      "-*, +NV12, +AR24: %s, read back \"%s\", expected \"AR24 NV12\"",
	      errno_name(-ret), read_line(at("t1/planes/p/supported_formats")));
	ret = set("t1", "planes/p/supported_formats", "+*");
	check("supported-formats-all", !ret &&
	      !strcmp(read_line(at("t1/planes/p/supported_formats")), all),
	      "+*: %s, read back \"%s\"", errno_name(-ret),
	      read_line(at("t1/planes/p/supported_formats")));
}

static void check_attrs(void)
{
	static const char *const type_good[] = { "1", "2", "0", NULL };
	static const char *const type_bad[] = { "3", "-1", "x", NULL };
	static const char *const wb_good[] = { "1", "0", NULL };
	static const char *const wb_bad[] = { "2", "maybe", NULL };
	static const char *const status_good[] = { "2", "3", "1", NULL };
	static const char *const status_bad[] = { "0", "4", "x", NULL };
	static const char *const enabled_bad[] = { "x", "2", NULL };
	/* enabled's good values are the checks below. */
	static const char *const none[] = { NULL };

	check_attr("type", "planes/p/type", type_good, type_bad);
	check_attr("writeback", "crtcs/c/writeback", wb_good, wb_bad);
	check_attr("status", "connectors/n/status", status_good, status_bad);
	check_attr("enabled", "enabled", none, enabled_bad);
	check_monitor_attrs();
	check_edid_attr();
	check_crtc_attrs();
	check_plane_attrs();

	require(mkdir(at("other"), 0755) == 0 && mk("other", "crtcs", "c") == 0,
		"a second device with a CRTC");
	CHECK_FAILS("link-wrong-kind", ln("t1", "planes", "p", "possible_crtcs", "encoders", "e"),
		    EINVAL);
	CHECK_FAILS("link-other-device",
		    link_at("other/crtcs/c", "t1/planes/p/possible_crtcs/c"), EINVAL);
	require(remove_device("other") == 0, "remove the second device");
	require(ln("t1", "planes", "p", "possible_crtcs", "crtcs", "c") == 0, "link p to c");
	require(link_at("t1/crtcs/c", "t1/planes/p/possible_crtcs/again") == 0 ||
		errno == EEXIST, "link again");
	check("link-twice", errno == EEXIST &&
	      access(at("t1/planes/p/possible_crtcs/again"), F_OK) != 0,
	      "expected EEXIST for a second link to the same CRTC, got %s", errno_name(errno));
}

/* t1 as it stands is refused at enabled for @why, and no device appears. */
static void check_refused(const char *why, const char *message)
{
	char test[64];
	int ret;

	snprintf(test, sizeof(test), "refused-%s", why);
	ret = set("t1", "enabled", "1");
	if (ret != -EINVAL)
		not_ok(test, "expected EINVAL, got %s", errno_name(-ret));
	else if (strcmp(read_line(at("t1/enabled")), "0") != 0)
		not_ok(test, "enabled reads %s", read_line(at("t1/enabled")));
	else if (access("/sys/devices/platform/flipkms-t1", F_OK) == 0)
		not_ok(test, "platform device flipkms-t1 exists");
	else
		check(test, dmesg_has(message), "no kernel message \"%s\"", message);
}

static void check_refusals(void)
{
	/* p (a primary now) on c; e and n unlinked. */
	require(set("t1", "planes/p/type", "1") == 0, "p primary");
	check_refused("encoder-no-crtc", "flipkms: t1: encoder e has 0 possible CRTCs");
	require(ln("t1", "encoders", "e", "possible_crtcs", "crtcs", "c") == 0, "link e to c");
	check_refused("connector-no-encoder", "flipkms: t1: connector n has 0 possible encoders");
	require(mk("t1", "planes", "q") == 0 && set("t1", "planes/q/type", "1") == 0 &&
		ln("t1", "planes", "q", "possible_crtcs", "crtcs", "c") == 0, "second primary q");
	require(ln("t1", "connectors", "n", "possible_encoders", "encoders", "e") == 0,
		"link n to e");
	check_refused("two-primaries", "flipkms: t1: CRTC c has two primary planes, p and q");
	require(unlink(at("t1/planes/q/possible_crtcs/c")) == 0 && rmdir(at("t1/planes/q")) == 0,
		"remove q");
	require(mk("t1", "crtcs", "d") == 0, "CRTC d");
	check_refused("crtc-no-primary", "flipkms: t1: CRTC d has no primary plane");
	require(rmdir(at("t1/crtcs/d")) == 0, "remove d");
	require(set("t1", "planes/p/supported_formats", "-*") == 0, "p without formats");
	check_refused("no-formats", "flipkms: t1: plane p offers no format flipkms has for its type");
	require(set("t1", "planes/p/supported_formats", "+*") == 0, "p with every format");
}

/* t1's overlay o offers AR24 and NV12 alone, at zpos 5. */
static void check_overlay(struct kms_dev *kd, const drmModePlane *p)
{
	uint64_t zpos = 0;

	check("plane-formats", p->count_formats == 2 && p->formats[0] == DRM_FORMAT_ARGB8888 &&
	      p->formats[1] == DRM_FORMAT_NV12, "overlay offers %u formats (%.4s...), expected AR24 NV12",
	      p->count_formats, p->count_formats ? (const char *)&p->formats[0] : "");
	check("plane-zpos", !kms_prop_get(kd->fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "zpos",
					  &zpos) && zpos == 5,
	      "overlay zpos %llu, expected 5", (unsigned long long)zpos);
}

/* t1 (p primary on c, e, n) plus an overlay and a cursor: enabled and checked. */
static void check_enabled(struct kms_dev *kd)
{
	int types[3] = { 0 }, others = 0, writeback = 0, connected = 0;
	drmModePlaneRes *planes;
	drmModeRes *res;
	uint64_t type;

	begin("enabled-card");
	require(mk("t1", "planes", "o") == 0 &&
		ln("t1", "planes", "o", "possible_crtcs", "crtcs", "c") == 0 &&
		mk("t1", "planes", "k") == 0 && set("t1", "planes/k/type", "2") == 0 &&
		ln("t1", "planes", "k", "possible_crtcs", "crtcs", "c") == 0 &&
		set("t1", "crtcs/c/writeback", "1") == 0 &&
		!set("t1", "planes/o/supported_formats", "-*") &&
		!set("t1", "planes/o/supported_formats", "+AR24") &&
		!set("t1", "planes/o/supported_formats", "+NV12") &&
		!set("t1", "planes/o/zpos", "5"),
		"overlay o (AR24 and NV12 at zpos 5) and cursor k, writeback");
	if (!CHECK_SUCCEEDS("enable", set("t1", "enabled", "1")))
		exit(finish());
	require(open_card("t1", kd) == 0, "open the card of flipkms-t1");
	require(drmSetClientCap(kd->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1) == 0,
		"writeback connectors cap");
	res = drmModeGetResources(kd->fd);
	planes = drmModeGetPlaneResources(kd->fd);
	require(res && planes, "resources");
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(kd->fd, res->connectors[i]);

		require(c != NULL, "drmModeGetConnector");
		if (c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK)
			writeback++;
		else
			connected += c->connection == DRM_MODE_CONNECTED;
		drmModeFreeConnector(c);
	}
	for (uint32_t i = 0; i < planes->count_planes; i++) {
		drmModePlane *p = drmModeGetPlane(kd->fd, planes->planes[i]);

		require(p && kms_prop_get(kd->fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "type",
					  &type) == 0 && type < 3, "plane type");
		if (p->possible_crtcs == 1)
			types[type]++;
		else
			others++;
		if (type == DRM_PLANE_TYPE_OVERLAY)
			check_overlay(kd, p);
		drmModeFreePlane(p);
	}
	check("enabled-card", !strcmp(read_line(at("t1/enabled")), "1") &&
	      res->count_crtcs == 1 && res->count_connectors == 2 && connected == 1 &&
	      writeback == 1 && types[DRM_PLANE_TYPE_PRIMARY] == 1 &&
	      types[DRM_PLANE_TYPE_OVERLAY] == 1 && types[DRM_PLANE_TYPE_CURSOR] == 1 && !others,
	      "expected 1 CRTC, 1 connected connector + 1 writeback, primary + overlay + cursor; got %d CRTCs, %d connectors (%d connected, %d writeback), planes %d/%d/%d + %d elsewhere",
	      res->count_crtcs, res->count_connectors, connected, writeback,
	      types[DRM_PLANE_TYPE_PRIMARY], types[DRM_PLANE_TYPE_OVERLAY],
	      types[DRM_PLANE_TYPE_CURSOR], others);
	drmModeFreeResources(res);
	drmModeFreePlaneResources(planes);
	/* The pipes of later checks are the display's only. */
	require(drmSetClientCap(kd->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 0) == 0,
		"writeback connectors cap off");
}

/*
 * t1's monitor (check_monitor_attrs()) in the connector's properties and in
 * its generated EDID: type eDP, preferred 1366x768, 344x194 mm (34x19 cm
 * in the base block, exact in the detailed timing), range 40-75 Hz, and a
 * name of this device's ("flipkms N.0", N > 0: not the default device's).
 */
static void check_monitor(struct kms_dev *kd)
{
	uint32_t id = display_connector(kd->fd);
	drmModeConnector *c = id ? drmModeGetConnector(kd->fd, id) : NULL;
	const drmModeModeInfo *preferred = NULL;
	unsigned char edid[EDID_LEN];
	const unsigned char *dtd = edid + 54, *range = NULL;
	int len;

	begin("monitor");
	require(c != NULL, "t1's connector");
	if (!c)
		return;
	for (int i = 0; i < c->count_modes && !preferred; i++)
		if (c->modes[i].type & DRM_MODE_TYPE_PREFERRED)
			preferred = &c->modes[i];
	check("monitor-type", c->connector_type == DRM_MODE_CONNECTOR_eDP,
	      "connector type %u, expected eDP (%u)", c->connector_type, DRM_MODE_CONNECTOR_eDP);
	check("monitor-preferred", preferred && preferred->hdisplay == 1366 &&
	      preferred->vdisplay == 768, "preferred mode %s, expected 1366x768",
	      preferred ? preferred->name : "none");
	check("monitor-size", c->mmWidth == 344 && c->mmHeight == 194,
	      "%ux%u mm, expected 344x194", c->mmWidth, c->mmHeight);
	drmModeFreeConnector(c);

	len = kms_connector_edid(kd->fd, id, edid, sizeof(edid));
	require(len == EDID_LEN, "a 128-byte EDID property");
	for (int d = 72; d < 126; d += 18)
		if (!edid[d] && !edid[d + 1] && edid[d + 3] == 0xfd)
			range = edid + d;
	check("monitor-edid-size", edid[21] == 34 && edid[22] == 19 &&
	      (dtd[12] | (dtd[14] >> 4) << 8) == 344 && (dtd[13] | (dtd[14] & 0xf) << 8) == 194,
	      "base block %ux%u cm, detailed timing %ux%u mm; expected 34x19 and 344x194",
	      edid[21], edid[22], dtd[12] | (dtd[14] >> 4) << 8, dtd[13] | (dtd[14] & 0xf) << 8);
	check("monitor-edid-mode", (dtd[2] | (dtd[4] >> 4) << 8) == 1366 &&
	      (dtd[5] | (dtd[7] >> 4) << 8) == 768, "first detailed timing %ux%u, expected 1366x768",
	      dtd[2] | (dtd[4] >> 4) << 8, dtd[5] | (dtd[7] >> 4) << 8);
	check("monitor-edid-range", range && range[5] == 40 && range[6] == 75,
	      "range limits %d-%d Hz, expected 40-75", range ? range[5] : -1, range ? range[6] : -1);
	check("monitor-edid-name", !strncmp(edid_text(edid, 0xfc), "flipkms ", 8) &&
	      strchr(edid_text(edid, 0xfc), '.'), "monitor name \"%s\", expected \"flipkms N.0\"",
	      edid_text(edid, 0xfc));
}

static void check_busy(void)
{
	CHECK_FAILS("busy-mkdir", mk("t1", "planes", "late"), EBUSY);
	check_int("busy-type", -EBUSY, set("t1", "planes/o/type", "0"));
	check_int("busy-connector-type", -EBUSY, set("t1", "connectors/n/type", "15"));
	check_int("busy-preferred-mode", -EBUSY,
		  set("t1", "connectors/n/preferred_mode", "1920x1080"));
	check_int("busy-width-mm", -EBUSY, set("t1", "connectors/n/width_mm", "0"));
	check_int("busy-refresh-hz", -EBUSY, set("t1", "crtcs/c/refresh_hz", "60"));
	check_int("busy-zpos", -EBUSY, set("t1", "planes/o/zpos", "-1"));
	check_int("busy-supported-formats", -EBUSY, set("t1", "planes/o/supported_formats", "+*"));
	check_int("busy-drop-vblanks", -EBUSY, set("t1", "crtcs/c/drop_vblanks", "0"));
	check_int("busy-writeback", -EBUSY, set("t1", "crtcs/c/writeback", "0"));
	CHECK_FAILS("busy-link", link_at("t1/crtcs/c", "t1/encoders/e/possible_crtcs/x"),
		    EBUSY);
	CHECK_FAILS("busy-rmdir-linked", rmdir(at("t1/crtcs/c")), EBUSY);
	CHECK_FAILS("busy-rmdir-device", rmdir(at("t1")), ENOTEMPTY);
}

/*
 * A user EDID while enabled, as another monitor plugged in: a hotplug
 * uevent, the EDID property is the EDID written, and the modes are its
 * own (1920x1080 preferred, nothing above it: no 3840x2160 as the
 * generated EDID's connector offers). Cleared, the generated EDID is back.
 */
static void check_hotplug_edid(struct kms_dev *kd, int ufd)
{
	unsigned char given[EDID_LEN], edid[EDID_LEN];
	uint32_t id = display_connector(kd->fd);
	drmModeConnector *c;
	bool uevent, big = false, preferred = false;
	int ret, len;

	begin("hotplug-edid");
	require(given_edid(given) && id, "the given EDID and t1's connector");
	ret = write_bytes("t1/connectors/n/edid", given, EDID_LEN);
	uevent = !ret && uevent_hotplug(ufd, kd->path);
	c = drmModeGetConnector(kd->fd, id);
	len = kms_connector_edid(kd->fd, id, edid, sizeof(edid));
	for (int i = 0; c && i < c->count_modes; i++) {
		big |= c->modes[i].hdisplay > 1920;
		preferred |= (c->modes[i].type & DRM_MODE_TYPE_PREFERRED) &&
			     c->modes[i].hdisplay == 1920 && c->modes[i].vdisplay == 1080;
	}
	check("hotplug-edid-set", !ret && uevent && len == EDID_LEN &&
	      !memcmp(edid, given, EDID_LEN) && !big && preferred,
	      "write %s, uevent %s, EDID property %d bytes %s, modes above 1920 wide %s, 1920x1080 preferred %s",
	      errno_name(-ret), uevent ? "seen" : "not seen", len,
	      len == EDID_LEN && !memcmp(edid, given, EDID_LEN) ? "as written" : "not as written",
	      big ? "offered" : "none", preferred ? "yes" : "no");
	drmModeFreeConnector(c);

	ret = write_bytes("t1/connectors/n/edid", "\n", 1);
	uevent = !ret && uevent_hotplug(ufd, kd->path);
	c = drmModeGetConnector(kd->fd, id);
	len = kms_connector_edid(kd->fd, id, edid, sizeof(edid));
	check("hotplug-edid-cleared", !ret && uevent && c && len == EDID_LEN &&
	      strchr(edid_text(edid, 0xfc), '.'),
	      "clear %s, uevent %s, EDID property %d bytes named \"%s\"", errno_name(-ret),
	      uevent ? "seen" : "not seen", len, len > 0 ? edid_text(edid, 0xfc) : "");
	drmModeFreeConnector(c);
}

/* debugfs's connected is a hot-plug too: status reads what the connector reports. */
static void check_status_follows_debugfs(struct kms_dev *kd)
{
	struct kms_pipe pipe;
	char dir[128], got[2][16];
	int ret;

	begin("status-follows-debugfs");
	require(kms_pipes(kd, &pipe, 1) == 1 &&
		kms_crtc_debugfs_dir(kd, &pipe, dir, sizeof(dir)) == 0, "t1's debugfs directory");
	ret = kms_crtc_control(dir, "connected", "0");
	snprintf(got[0], sizeof(got[0]), "%s", read_line(at("t1/connectors/n/status")));
	ret = ret ?: kms_crtc_control(dir, "connected", "1");
	snprintf(got[1], sizeof(got[1]), "%s", read_line(at("t1/connectors/n/status")));
	check("status-follows-debugfs", !ret && !strcmp(got[0], "2") && !strcmp(got[1], "1"),
	      "debugfs connected 0 then 1: %s; status read %s then %s (expected 2 then 1)",
	      errno_name(-ret), got[0], got[1]);
}

static void check_hotplug(struct kms_dev *kd)
{
	static const struct {
		const char *value, *name;
		drmModeConnection connection;
	} steps[] = {
		{ "2", "hotplug-disconnected", DRM_MODE_DISCONNECTED },
		{ "3", "hotplug-unknown", DRM_MODE_UNKNOWNCONNECTION },
		{ "1", "hotplug-connected", DRM_MODE_CONNECTED },
	};
	int fd = kms_uevent_open();
	drmModeRes *res = drmModeGetResources(kd->fd);
	uint32_t conn_id = 0;

	begin("hotplug");
	require(fd >= 0 && res, "uevent socket and resources");
	for (int i = 0; i < res->count_connectors && !conn_id; i++) {
		drmModeConnector *c = drmModeGetConnector(kd->fd, res->connectors[i]);

		if (c && c->connector_type != DRM_MODE_CONNECTOR_WRITEBACK)
			conn_id = c->connector_id;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	for (unsigned int i = 0; i < 3; i++) {
		drmModeConnector *c;
		int ret = set("t1", "connectors/n/status", steps[i].value);
		bool uevent = !ret && uevent_hotplug(fd, kd->path);

		c = drmModeGetConnector(kd->fd, conn_id);
		check(steps[i].name, !ret && uevent && c && c->connection == steps[i].connection,
		      "status %s: write %s, uevent %s, connection %d (expected %d)",
		      steps[i].value, errno_name(-ret), uevent ? "seen" : "not seen",
		      c ? (int)c->connection : -1, steps[i].connection);
		drmModeFreeConnector(c);
	}
	check_hotplug_edid(kd, fd);
	check_status_follows_debugfs(kd);
	close(fd);
}

/* A flip with an out-fence on every CRTC of @kd: its timeline's name. */
static void check_flips(struct kms_dev *kd, const char *dev, int ncrtcs)
{
	struct kms_pipe pipes[4];
	struct kms_fb fb[4];
	char test[64], want[32];
	int n = kms_pipes(kd, pipes, 4);

	for (int i = 0; i < n; i++) {
		struct kms_fence_info info = { 0 };
		int32_t fence = -1;
		int ret;

		snprintf(test, sizeof(test), "two-devices-%s-crtc-%d-flip", dev, pipes[i].crtc_index);
		snprintf(want, sizeof(want), "flipkms-%s-crtc-%d", dev, pipes[i].crtc_index);
		begin(test);
		require(kms_fb_create(kd->fd, pipes[i].mode.hdisplay, pipes[i].mode.vdisplay,
				      DRM_FORMAT_XRGB8888, i, &fb[i]) == 0, "framebuffer");
		ret = kms_modeset(kd, &pipes[i], NULL, &fb[i]);
		if (!ret)
			ret = kms_flip(kd, &pipes[i], &fb[i], &fence, -1, i);
		if (!ret && fence >= 0) {
			struct pollfd pfd = { .fd = fence, .events = POLLIN };

			poll(&pfd, 1, 2000);
			kms_fence_info(fence, &info);
		}
		check(test, !ret && info.status == 1 && !strcmp(info.obj_name, want),
		      "flip %s, fence status %d on timeline \"%s\" (expected 1 on \"%s\")",
		      errno_name(-ret), info.status, info.obj_name, want);
		if (fence >= 0)
			close(fence);
		kms_drain_events(kd, 50);
	}
	snprintf(test, sizeof(test), "two-devices-%s-pipes", dev);
	check_int(test, ncrtcs, n);
	for (int i = 0; i < n; i++) {
		kms_disable(kd, &pipes[i]);
		kms_fb_destroy(kd->fd, &fb[i]);
	}
}

/* Every monitor of the default device, t1 and t2 has a serial and name of its own. */
static void check_distinct_edids(struct kms_dev *kd1, struct kms_dev *kd2)
{
	char names[8][14];
	uint32_t serials[8];
	struct kms_dev kd0;
	int n = 0, fds[3], same = -1, other = -1;

	begin("edid-distinct");
	require(kms_open(&kd0, "flipkms", 0) == 0, "open the default device");
	fds[0] = kd0.fd;
	fds[1] = kd1->fd;
	fds[2] = kd2->fd;
	for (int f = 0; f < 3; f++) {
		drmModeRes *res = drmModeGetResources(fds[f]);

		for (int i = 0; res && i < res->count_connectors && n < 8; i++) {
			/* Probing it sets the EDID property; GetResources does not. */
			drmModeConnector *c = drmModeGetConnector(fds[f], res->connectors[i]);
			unsigned char edid[EDID_LEN];

			drmModeFreeConnector(c);
			if (kms_connector_edid(fds[f], res->connectors[i], edid, sizeof(edid)) !=
			    EDID_LEN)
				continue;
			serials[n] = edid[12] | edid[13] << 8 | edid[14] << 16 | (uint32_t)edid[15] << 24;
			snprintf(names[n], sizeof(names[n]), "%s", edid_text(edid, 0xfc));
			for (int j = 0; j < n && same < 0; j++)
				if (serials[j] == serials[n] || !strcmp(names[j], names[n]))
					same = j, other = n;
			n++;
		}
		drmModeFreeResources(res);
	}
	kms_close(&kd0);
	if (same >= 0)
		not_ok("edid-distinct", "monitors %d and %d: serials %u and %u, names \"%s\" and \"%s\"",
		       same, other, serials[same], serials[other], names[same], names[other]);
	else
		check_int("edid-distinct", 4, n);
}

/*
 * t2's crtc-1 as configured before it was enabled (check_two_devices()):
 * its debugfs controls start at the configured values, and its preferred
 * mode runs at its refresh rate.
 */
static void check_crtc_defaults(struct kms_dev *kd)
{
	static const char *const want[][2] = {
		{ "refresh_hz", "75" }, { "signal_delay_us", "1000" },
		{ "drop_vblanks", "1" }, { "stall_commit_ms", "20" },
		{ "fence_error", "0" }, { "vrr_hold", "3" },
	};
	const drmModeModeInfo *preferred = NULL;
	drmModeConnector *c = NULL;
	drmModeRes *res;
	char file[128];
	int minor = -1;

	sscanf(kd->path, "/dev/dri/card%d", &minor);
	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(file, sizeof(file), "/sys/kernel/debug/dri/%d/crtc-1/%s", minor, want[i][0]);
		if (strcmp(read_line(file), want[i][1])) {
			not_ok("crtc-defaults", "%s reads \"%s\", expected %s", file, read_line(file),
			       want[i][1]);
			goto modes;
		}
	}
	ok("crtc-defaults");
modes:
	/* t2's connectors in order: n0's output first, then n1's (crtc-1). */
	res = drmModeGetResources(kd->fd);
	for (int i = 0, seen = 0; res && i < res->count_connectors && !c; i++) {
		c = drmModeGetConnector(kd->fd, res->connectors[i]);
		if (c && (c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK || seen++ != 1)) {
			drmModeFreeConnector(c);
			c = NULL;
		}
	}
	drmModeFreeResources(res);
	for (int i = 0; c && i < c->count_modes && !preferred; i++)
		if (c->modes[i].type & DRM_MODE_TYPE_PREFERRED)
			preferred = &c->modes[i];
	check("crtc-refresh", preferred && preferred->vrefresh == 75,
	      "crtc-1's preferred mode %s at %u Hz, expected 75 Hz",
	      preferred ? preferred->name : "none", preferred ? preferred->vrefresh : 0);
	drmModeFreeConnector(c);
}

/*
 * The second device's name is as long as a name may be: its timelines,
 * flipkms-T2-crtc-N, fill SYNC_IOC_FILE_INFO's 31 characters.
 */
#define T2	"t2-sixteen-chars"

static void check_two_devices(struct kms_dev *kd1)
{
	struct kms_dev kd2;

	begin("two-devices");
	require(mkdir(at(T2), 0755) == 0 && add_output(T2, 0) == 0 && add_output(T2, 1) == 0,
		T2 " with two outputs");
	require(!set(T2, "crtcs/crtc-1/refresh_hz", "75") &&
		!set(T2, "crtcs/crtc-1/signal_delay_us", "1000") &&
		!set(T2, "crtcs/crtc-1/drop_vblanks", "1") &&
		!set(T2, "crtcs/crtc-1/stall_commit_ms", "20") &&
		!set(T2, "crtcs/crtc-1/vrr_hold", "3"), T2 "'s crtc-1 at 75 Hz, with faults");
	require(set(T2, "enabled", "1") == 0, "enable " T2);
	require(open_card(T2, &kd2) == 0, "open the card of flipkms-" T2);
	check_crtc_defaults(&kd2);
	check("two-devices-cards", strcmp(kd1->path, kd2.path),
	      "both devices are %s", kd1->path);
	check_distinct_edids(kd1, &kd2);
	check_flips(kd1, "t1", 1);
	check_flips(&kd2, T2, 2);
	close(kd2.fd);
	require(set(T2, "enabled", "0") == 0 && remove_device(T2) == 0, "remove " T2);
}

static void check_unplug(struct kms_dev *kd)
{
	struct kms_pipe pipe;
	struct kms_fb fb;
	char card[32];
	drmModeRes *res;
	int ret;

	begin("unplug-with-client");
	snprintf(card, sizeof(card), "%s", kd->path);
	/* The display is on, a framebuffer the client's, as it goes. */
	require(kms_pipes(kd, &pipe, 1) == 1 &&
		kms_fb_create(kd->fd, pipe.mode.hdisplay, pipe.mode.vdisplay,
			      DRM_FORMAT_XRGB8888, 7, &fb) == 0 &&
		kms_modeset(kd, &pipe, NULL, &fb) == 0, "light t1");
	ret = set("t1", "enabled", "0");
	errno = 0;
	res = drmModeGetResources(kd->fd);
	check("unplug-with-client", !ret && !res && errno == ENODEV &&
	      !strcmp(read_line(at("t1/enabled")), "0"),
	      "disable %s; the client's GetResources %s (%s), expected ENODEV",
	      errno_name(-ret), res ? "worked" : "failed", errno_name(errno));
	drmModeFreeResources(res);
	close(kd->fd);
	kd->fd = -1;
	check("unplug-card-gone", access(card, F_OK) != 0 &&
	      access("/sys/devices/platform/flipkms-t1", F_OK) != 0,
	      "%s or flipkms-t1 is still there", card);
	ret = set("t1", "enabled", "1");
	if (check("enable-again", !ret && open_card("t1", kd) == 0,
		  "enable %s, open %s", errno_name(-ret), kd->path)) {
		res = drmModeGetResources(kd->fd);
		check("enable-again-works", res && res->count_crtcs == 1, "GetResources %s",
		      res ? "gave the wrong CRTCs" : errno_name(errno));
		drmModeFreeResources(res);
		close(kd->fd);
	}
}

static void check_remove(void)
{
	int ret = set("t1", "enabled", "0");

	if (!ret)
		ret = remove_device("t1");
	check("remove", !ret && access(at("t1"), F_OK) != 0, "disable and remove: %s",
	      errno_name(-ret));
}

static void check_create_destroy(int rounds)
{
	struct kms_dev kd;
	int i, ret = 0;

	begin("create-destroy");
	for (i = 0; i < rounds && !ret; i++) {
		ret = mkdir(at("r"), 0755) ? -errno : add_output("r", 0);
		if (!ret)
			ret = set("r", "enabled", "1");
		if (!ret)
			ret = open_card("r", &kd) ? -ENODEV : 0;
		if (!ret) {
			drmModeRes *res = drmModeGetResources(kd.fd);

			ret = res ? 0 : -errno;
			drmModeFreeResources(res);
			close(kd.fd);
		}
		if (!ret)
			ret = set("r", "enabled", "0");
		if (!ret)
			ret = remove_device("r");
	}
	check("create-destroy", !ret, "round %d of %d: %s", i, rounds, errno_name(-ret));
}

/*
 * Whatever way the test ends, its devices go: configfs holds the module
 * while they exist, and the next tests need to unload it.
 */
static void remove_all(void)
{
	static const char *const devs[] = { "t1", T2, "other", "r", "h" };

	if (chdir("/"))
		return;
	for (unsigned int i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		if (access(at("%s", devs[i]), F_OK))
			continue;
		set(devs[i], "enabled", "0");
		if (remove_device(devs[i]))
			comment("cannot remove flipkms/%s: %s", devs[i], errno_name(errno));
	}
}

int main(int argc, char **argv)
{
	struct kms_dev kd = { .fd = -1 };
	int rounds = 10, opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		rounds = atoi(optarg);
	}
	if (!kms_driver_arg(argc, argv) || strcmp(kms_driver_arg(argc, argv), "flipkms"))
		goto usage;
	watchdog(120);
	if (access(ROOT, F_OK))
		mount("none", CONFIG_ROOT, "configfs", 0, NULL);
	require(access(ROOT, F_OK) == 0, CONFIG_ROOT " has no flipkms/");
	atexit(remove_all);

	check_layout();
	check_attrs();
	check_refusals();
	check_enabled(&kd);
	check_monitor(&kd);
	check_busy();
	check_hotplug(&kd);
	check_two_devices(&kd);
	check_unplug(&kd);
	check_hot_add();
	check_remove();
	check_create_destroy(rounds);
	return finish();
usage:
	fprintf(stderr, "usage: configfs [-n ROUNDS] flipkms\n");
	return 2;
}
