// SPDX-License-Identifier: MIT
/*
 * Helpers for the tests that build flipkms devices through configfs
 * (configfs.c and configfs-hotadd.c): paths under flipkms/, objects and
 * links made the cookbook's way, a device's card, hotplug uevents.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configfs-lib.h"

static char path[512];

/* ROOT/@rel, in a static buffer. */
const char *at(const char *fmt, ...)
{
	char rel[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), ROOT "/%s", rel);
	return path;
}

/* The first line of a file, or "" if it cannot be read. */
const char *read_line(const char *file)
{
	static char buf[512];
	FILE *f = fopen(file, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

int mk(const char *dev, const char *kind, const char *name)
{
	return mkdir(at("%s/%s/%s", dev, kind, name), 0755);
}

/*
 * A link from @dev's @kind/@name/@dir to @tkind/@target, made the way the
 * cookbook does (Documentation/flipkms.rst): from the device's directory,
 * with a relative target, which configfs resolves from there.
 */
int ln(const char *dev, const char *kind, const char *name, const char *dir,
	      const char *tkind, const char *target)
{
	char from[256], to[128];
	int ret;

	snprintf(from, sizeof(from), "%s/%s/%s/%s", kind, name, dir, target);
	snprintf(to, sizeof(to), "%s/%s", tkind, target);
	if (chdir(at("%s", dev)))
		return -1;
	ret = symlink(to, from);
	if (chdir("/"))
		return -1;
	return ret;
}

/* A link ROOT/@from to ROOT/@target. */
int link_at(const char *target, const char *from)
{
	char t[512];

	snprintf(t, sizeof(t), "%s", at("%s", target));
	return symlink(t, at("%s", from));
}

int set(const char *dev, const char *file, const char *value)
{
	return write_text(at("%s/%s", dev, file), value);
}

/*
 * Output @i of @dev: crtc-I with writeback, primary-I, overlay-I,
 * cursor-I, encoder-I, connector-I, all linked. 0 or -errno.
 */
int add_output(const char *dev, int i)
{
	char n[5][32];
	int ret = 0;

	snprintf(n[0], sizeof(n[0]), "crtc-%d", i);
	snprintf(n[1], sizeof(n[1]), "primary-%d", i);
	snprintf(n[2], sizeof(n[2]), "overlay-%d", i);
	snprintf(n[3], sizeof(n[3]), "cursor-%d", i);
	snprintf(n[4], sizeof(n[4]), "encoder-%d", i);
	char file[64];

	snprintf(file, sizeof(file), "crtcs/%s/writeback", n[0]);
	if (mk(dev, "crtcs", n[0]))
		return -errno;
	ret = set(dev, file, "1");
	if (ret)
		return ret;
	for (int p = 1; p <= 3; p++) {
		snprintf(file, sizeof(file), "planes/%s/type", n[p]);
		if (mk(dev, "planes", n[p]) ||
		    (p != 2 && (ret = set(dev, file, p == 1 ? "1" : "2"))) ||
		    ln(dev, "planes", n[p], "possible_crtcs", "crtcs", n[0]))
			return ret ?: -errno;
	}
	if (mk(dev, "encoders", n[4]) ||
	    ln(dev, "encoders", n[4], "possible_crtcs", "crtcs", n[0]))
		return -errno;
	snprintf(n[1], sizeof(n[1]), "connector-%d", i);
	if (mk(dev, "connectors", n[1]) ||
	    ln(dev, "connectors", n[1], "possible_encoders", "encoders", n[4]))
		return -errno;
	return 0;
}

/* Removes every link, object and then @dev itself. 0 or -errno of the rmdir. */
int remove_device(const char *dev)
{
	static const char *const kinds[] = { "planes", "connectors", "encoders", "crtcs" };
	char dir[512], obj[1024];
	struct dirent *d, *l;
	DIR *objs, *links;

	for (unsigned int k = 0; k < 4; k++) {
		snprintf(dir, sizeof(dir), "%s", at("%s/%s", dev, kinds[k]));
		objs = opendir(dir);
		if (!objs)
			continue;
		while ((d = readdir(objs))) {
			if (d->d_name[0] == '.')
				continue;
			for (int j = 0; j < 2; j++) {
				snprintf(obj, sizeof(obj), "%s/%s/%s", dir, d->d_name,
					 j ? "possible_encoders" : "possible_crtcs");
				links = opendir(obj);
				if (!links)
					continue;
				while ((l = readdir(links))) {
					char link[1536];

					snprintf(link, sizeof(link), "%s/%s", obj, l->d_name);
					if (l->d_name[0] != '.')
						unlink(link);
				}
				closedir(links);
			}
			snprintf(obj, sizeof(obj), "%s/%s", dir, d->d_name);
			rmdir(obj);
		}
		closedir(objs);
	}
	return rmdir(at("%s", dev)) ? -errno : 0;
}

/* /dev/dri/cardN of platform device flipkms-@dev into @card, or -1. */
int find_card(const char *dev, char *card, size_t len)
{
	char dir[256];
	struct dirent *d;
	DIR *drm;
	int ret = -1;

	snprintf(dir, sizeof(dir), "/sys/devices/platform/flipkms-%s/drm", dev);
	drm = opendir(dir);
	if (!drm)
		return -1;
	while ((d = readdir(drm)))
		if (!strncmp(d->d_name, "card", 4) && strlen(d->d_name) < len - 9) {
			snprintf(card, len, "/dev/dri/%.*s", (int)(len - 10), d->d_name);
			ret = 0;
		}
	closedir(drm);
	return ret;
}

int open_card(const char *dev, struct kms_dev *kd)
{
	memset(kd, 0, sizeof(*kd));
	kd->fd = -1;
	if (find_card(dev, kd->path, sizeof(kd->path)))
		return -1;
	/* devtmpfs makes the node as the card registers; give it a moment. */
	for (int i = 0; i < 20 && kd->fd < 0; i++) {
		kd->fd = open(kd->path, O_RDWR | O_CLOEXEC);
		if (kd->fd < 0)
			sleep_ms(50);
	}
	if (kd->fd < 0)
		return -1;
	snprintf(kd->driver, sizeof(kd->driver), "flipkms");
	if (drmSetClientCap(kd->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) ||
	    drmSetClientCap(kd->fd, DRM_CLIENT_CAP_ATOMIC, 1)) {
		close(kd->fd);
		kd->fd = -1;
		return -1;
	}
	return 0;
}

/* Whether a "change" uevent with HOTPLUG=1 for @card came within 5 s. */
bool uevent_hotplug(int fd, const char *card)
{
	const char *name = strrchr(card, '/') + 1;
	int64_t end = now_ns() + 5000000000LL;
	char buf[4096];

	while (now_ns() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		bool hotplug = false, ours = false;
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = 0;
		for (char *s = buf; s < buf + n; s += strlen(s) + 1) {
			hotplug |= !strcmp(s, "HOTPLUG=1");
			ours |= !strncmp(s, "DEVNAME=dri/", 12) && !strcmp(s + 12, name);
		}
		if (hotplug && ours)
			return true;
	}
	return false;
}
