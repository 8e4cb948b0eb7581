// SPDX-License-Identifier: MIT
/*
 * fliplat --trace: tracefs around a run. See trace.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "trace.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
/* The groups a run's frames go through; a missing one (no flipkms) is skipped. */
static const char *const groups[] = { "flipkms", "syncfw", "drm" };

/* Writes @value to @t's @file; 0 or -errno. */
static int put(const struct fl_trace *t, const char *file, const char *value)
{
	char path[160];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	return 0;
}

static void enable_groups(const struct fl_trace *t, const char *value)
{
	char file[64];
	size_t i;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		snprintf(file, sizeof(file), "events/%s/enable", groups[i]);
		put(t, file, value);
	}
}

int fl_trace_start(struct fl_trace *t)
{
	char top[64];
	size_t i;
	int err;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(top, sizeof(top), "%s/instances", tracefs_dirs[i]);
		if (!access(top, F_OK))
			break;
		top[0] = '\0';
	}
	if (!top[0]) {
		fprintf(stderr, "fliplat: --trace: no tracefs (mount it at /sys/kernel/tracing)\n");
		return FL_EXIT_UNSUPPORTED;
	}
	/*
	 * An instance of our own: its buffer, clock and enabled events are
	 * nobody else's, and removing it puts everything back.
	 */
	snprintf(t->dir, sizeof(t->dir), "%s/fliplat-%d", top, (int)getpid());
	if (mkdir(t->dir, 0755)) {
		err = errno;
		fprintf(stderr, "fliplat: --trace: %s: %s\n", t->dir, strerror(err));
		return err == EACCES || err == EPERM ? FL_EXIT_PERMISSION : FL_EXIT_UNSUPPORTED;
	}
	t->created = true;
	err = put(t, "trace_clock", "mono");
	if (err) {
		fprintf(stderr, "fliplat: --trace: %s/trace_clock: %s\n", t->dir, strerror(-err));
		fl_trace_stop(t, NULL);
		return err == -EACCES || err == -EPERM ? FL_EXIT_PERMISSION : FL_EXIT_UNSUPPORTED;
	}
	enable_groups(t, "1");
	t->on = true;
	return put(t, "tracing_on", "1") ? FL_EXIT_FAILED : 0;
}

int fl_trace_stop(struct fl_trace *t, const char *path)
{
	char src[160], buf[65536];
	int in = -1, out = -1, ret = 0;
	ssize_t n = 0;

	if (!t->created)
		return 0;
	put(t, "tracing_on", "0");
	snprintf(src, sizeof(src), "%s/trace", t->dir);
	if (t->on && path) {
		in = open(src, O_RDONLY | O_CLOEXEC);
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (in < 0 || out < 0) {
			fprintf(stderr, "fliplat: --trace: %s: %s\n", in < 0 ? src : path,
				strerror(errno));
			ret = -1;
		}
		while (!ret && (n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				ret = -1;
		if (!ret && n < 0)
			ret = -1;
		if (ret && in >= 0 && out >= 0)
			fprintf(stderr, "fliplat: --trace: copying %s to %s failed: %s\n", src,
				path, strerror(errno));
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ret = -1;
	/* The kernel refuses to remove an instance whose events are enabled. */
	enable_groups(t, "0");
	if (rmdir(t->dir))
		fprintf(stderr, "fliplat: --trace: removing %s: %s\n", t->dir, strerror(errno));
	t->on = false;
	t->created = false;
	return ret;
}
