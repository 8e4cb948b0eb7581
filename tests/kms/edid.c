// SPDX-License-Identifier: MIT
/*
 * edid: every flipkms connector is a distinct monitor with a valid EDID.
 *
 *   - the EDID property is a 128-byte EDID 1.4 block with a good header
 *     and checksum, that edid-decode --check accepts
 *   - manufacturer FFK, serial number index + 1, monitor name
 *     "flipkms <index>": distinct on every connector
 *   - its first detailed timing is the connector's preferred mode, whose
 *     size is -p WxH (the preferred_mode parameter, default 1920x1080)
 *   - the small modes compositors expect are offered: 640x480, 800x600,
 *     1280x720, 1366x768
 *   - an EDID written to the DRM core's edid_override becomes the
 *     property and the only source of modes; "reset" brings ours back
 *
 * With -n N (the outputs parameter flipkms was loaded with), exactly N
 * connectors must be connected: under outputs=2 a single connector would
 * leave "distinct on every connector" with nothing to compare.
 *
 * usage: edid [-p WxH] [-n CONNECTORS] flipkms
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kms.h"

#define EDID_LEN	128
#define MAX_PIPES	4

static bool checksum_ok(const unsigned char *edid)
{
	unsigned char sum = 0;
	int i;

	for (i = 0; i < EDID_LEN; i++)
		sum += edid[i];
	return sum == 0;
}

static void set_checksum(unsigned char *edid)
{
	unsigned char sum = 0;
	int i;

	for (i = 0; i < EDID_LEN - 1; i++)
		sum += edid[i];
	edid[EDID_LEN - 1] = (unsigned char)(0x100 - sum);
}

/* The text of display descriptor @tag, trimmed, into @out; false if none. */
static bool descriptor_text(const unsigned char *edid, unsigned char tag, char out[14])
{
	int d, i;

	for (d = 54; d < 126; d += 18) {
		if (edid[d] || edid[d + 1] || edid[d + 3] != tag)
			continue;
		for (i = 0; i < 13 && edid[d + 5 + i] != '\n'; i++)
			out[i] = (char)edid[d + 5 + i];
		out[i] = '\0';
		return true;
	}
	return false;
}

/* edid-decode's verdict on @edid: its exit status, or -1. */
static int edid_decode_check(const unsigned char *edid)
{
	char path[] = "/tmp/flipkms-edid-XXXXXX", cmd[96];
	int fd = mkstemp(path), status;

	if (fd < 0 || write(fd, edid, EDID_LEN) != EDID_LEN) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "edid-decode --check %s >/dev/null 2>&1", path);
	status = system(cmd);
	unlink(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* /sys/kernel/debug/dri/<minor>/<connector name>/edid_override. */
static int override_path(const struct kms_dev *dev, uint32_t connector, char *buf, size_t len)
{
	drmModeConnector *c = drmModeGetConnector(dev->fd, connector);
	int minor;

	if (!c || sscanf(dev->path, "/dev/dri/card%d", &minor) != 1) {
		drmModeFreeConnector(c);
		return -1;
	}
	snprintf(buf, len, "/sys/kernel/debug/dri/%d/%s-%u/edid_override", minor,
		 drmModeGetConnectorTypeName(c->connector_type), c->connector_type_id);
	drmModeFreeConnector(c);
	return 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Only mode of the override: 800x600@60 (DMT, 40 MHz). */
static void make_override(unsigned char *edid)
{
	static const unsigned char dtd[18] = {
		0xa0, 0x0f, 0x20, 0x00, 0x31, 0x58, 0x1c, 0x20, 0x28, 0x80, 0x14, 0x00,
		0xd3, 0x9e, 0x00, 0x00, 0x00, 0x1e,
	};
	static const char name[13] = "override\n    ";

	edid[24] &= ~0x01;			/* fixed frequency: its range */
						/* infers no modes */
	memset(edid + 35, 0, 3);		/* no established timings */
	memset(edid + 38, 0x01, 16);		/* nor standard ones */
	memcpy(edid + 54, dtd, sizeof(dtd));
	memcpy(edid + 72 + 5, name, sizeof(name));
	set_checksum(edid);
}

static void test_override(struct kms_dev *dev, const struct kms_pipe *pipe,
			  const unsigned char *ours)
{
	unsigned char edid[EDID_LEN], now[EDID_LEN];
	drmModeConnector *c;
	char path[160];
	int i, others = 0;

	begin("override-becomes-the-edid");
	require(override_path(dev, pipe->connector_id, path, sizeof(path)) == 0, "connector name");
	memcpy(edid, ours, EDID_LEN);
	make_override(edid);
	require(write_file(path, edid, EDID_LEN) == 0, "write edid_override");
	c = drmModeGetConnector(dev->fd, pipe->connector_id);	/* probes again */
	require(c != NULL, "probe the connector");
	for (i = 0; i < c->count_modes; i++)
		others += c->modes[i].hdisplay != 800 || c->modes[i].vdisplay != 600;
	check("override-becomes-the-edid",
	      kms_connector_edid(dev->fd, pipe->connector_id, now, EDID_LEN) == EDID_LEN &&
	      !memcmp(now, edid, EDID_LEN),
	      "the EDID property is not the override");
	check("override-is-the-only-mode-source", c->count_modes >= 1 && !others,
	      "expected only 800x600, got %d modes, %d others", c->count_modes, others);
	drmModeFreeConnector(c);

	begin("override-reset-restores-ours");
	require(write_file(path, "reset", 5) == 0, "reset edid_override");
	check("override-reset-restores-ours",
	      kms_connector_has_mode(dev->fd, pipe->connector_id, 1920, 1080) &&
	      kms_connector_edid(dev->fd, pipe->connector_id, now, EDID_LEN) == EDID_LEN &&
	      !memcmp(now, ours, EDID_LEN),
	      "expected the generated EDID and its modes back");
}

int main(int argc, char **argv)
{
	static const unsigned int small[][2] = { { 640, 480 }, { 800, 600 }, { 1280, 720 },
						 { 1366, 768 } };
	unsigned char edid[MAX_PIPES][EDID_LEN];
	unsigned int want_w = 1920, want_h = 1080, w, h;
	struct kms_pipe pipes[MAX_PIPES];
	char name[64], text[14], want[16];
	struct kms_dev dev;
	int opt, n, i, j, len, want_n = 0;
	bool usage = false;

	while ((opt = getopt(argc, argv, "p:n:")) != -1) {
		if (opt == 'p')
			usage |= sscanf(optarg, "%ux%u", &want_w, &want_h) != 2;
		else if (opt == 'n')
			usage |= sscanf(optarg, "%d", &want_n) != 1 || want_n < 1 ||
				 want_n > MAX_PIPES;
		else
			usage = true;
	}
	if (usage) {
		fprintf(stderr, "usage: %s [-p WxH] [-n CONNECTORS] flipkms\n", argv[0]);
		return 2;
	}
	watchdog(60);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open flipkms");
	n = kms_pipes(&dev, pipes, MAX_PIPES);
	require(n >= 1, "a connected connector");
	comment("%d connectors", n);
	if (want_n)
		check_int("connected-connectors", want_n, n);

	for (i = 0; i < n; i++) {
		const unsigned char *e = edid[i];

		snprintf(name, sizeof(name), "connector-%d-has-an-edid", i);
		begin(name);
		len = kms_connector_edid(dev.fd, pipes[i].connector_id, edid[i], EDID_LEN);
		if (!check(name, len == EDID_LEN, "expected a %d-byte EDID property, got %d", EDID_LEN,
			   len))
			continue;
		snprintf(name, sizeof(name), "connector-%d-edid-header-checksum-1.4", i);
		check(name, !memcmp(e, "\0\xff\xff\xff\xff\xff\xff\0", 8) && checksum_ok(e) &&
		      e[18] == 1 && e[19] == 4, "bad header, checksum or version %u.%u", e[18], e[19]);
		snprintf(name, sizeof(name), "connector-%d-edid-decode-accepts", i);
		check_int(name, 0, edid_decode_check(e));
		snprintf(name, sizeof(name), "connector-%d-manufacturer-ffk", i);
		check(name, e[8] == 0x18 && e[9] == 0xcb, "got %02x%02x", e[8], e[9]);
		snprintf(name, sizeof(name), "connector-%d-serial-is-index-plus-1", i);
		check_int(name, pipes[i].crtc_index + 1,
			  e[12] | e[13] << 8 | e[14] << 16 | (long long)e[15] << 24);
		snprintf(name, sizeof(name), "connector-%d-monitor-name", i);
		snprintf(want, sizeof(want), "flipkms %d", pipes[i].crtc_index);
		check(name, descriptor_text(e, 0xfc, text) && !strcmp(text, want),
		      "expected \"%s\", got \"%s\"", want, descriptor_text(e, 0xfc, text) ? text : "");

		/* The first detailed timing: active sizes and the clock. */
		w = e[56] | (e[58] >> 4) << 8;
		h = e[59] | (e[61] >> 4) << 8;
		snprintf(name, sizeof(name), "connector-%d-preferred-is-first-dtd", i);
		check(name, pipes[i].has_preferred && pipes[i].mode.hdisplay == w &&
		      pipes[i].mode.vdisplay == h && pipes[i].mode.clock == (e[54] | e[55] << 8) * 10u,
		      "preferred %s clock %u, DTD %ux%u clock %u", pipes[i].mode.name,
		      pipes[i].mode.clock, w, h, (e[54] | e[55] << 8) * 10u);
		snprintf(name, sizeof(name), "connector-%d-preferred-is-%ux%u", i, want_w, want_h);
		check(name, pipes[i].mode.hdisplay == want_w && pipes[i].mode.vdisplay == want_h,
		      "got %ux%u", pipes[i].mode.hdisplay, pipes[i].mode.vdisplay);
		for (j = 0; j < 4; j++) {
			snprintf(name, sizeof(name), "connector-%d-offers-%ux%u", i, small[j][0],
				 small[j][1]);
			check(name, kms_connector_has_mode(dev.fd, pipes[i].connector_id,
							   small[j][0], small[j][1]), "not offered");
		}
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			snprintf(name, sizeof(name), "connectors-%d-%d-distinct-monitors", i, j);
			check(name, memcmp(edid[i] + 12, edid[j] + 12, 4) != 0,
			      "same serial number");
		}
	if (n >= 1)
		test_override(&dev, &pipes[0], edid[0]);

	kms_close(&dev);
	return finish();
}
