// SPDX-License-Identifier: MIT
/*
 * fliplat --trace: tracefs around a run. See trace.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

/* The selected clock of trace_clock ("[local] global ... mono ...") into @t. */
static int read_clock(struct fl_trace *t)
{
	char path[160], line[512], *open_b, *close_b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace_clock", t->dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	open_b = strchr(line, '[');
	close_b = open_b ? strchr(open_b, ']') : NULL;
	if (!close_b)
		return -EIO;
	*close_b = '\0';
	snprintf(t->clock, sizeof(t->clock), "%s", open_b + 1);
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
	size_t i;
	int err;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(t->dir, sizeof(t->dir), "%s", tracefs_dirs[i]);
		if (!read_clock(t))
			break;
		t->dir[0] = '\0';
	}
	if (!t->dir[0]) {
		fprintf(stderr, "fliplat: --trace: no tracefs (mount it at /sys/kernel/tracing)\n");
		return FL_EXIT_UNSUPPORTED;
	}
	err = put(t, "trace_clock", "mono");
	if (!err)
		err = put(t, "trace", "");
	if (err) {
		fprintf(stderr, "fliplat: --trace: %s/trace_clock: %s\n", t->dir, strerror(-err));
		return err == -EACCES || err == -EPERM ? FL_EXIT_PERMISSION : FL_EXIT_UNSUPPORTED;
	}
	enable_groups(t, "1");
	t->on = true;
	return put(t, "tracing_on", "1") ? FL_EXIT_FAILED : 0;
}

int fl_trace_stop(struct fl_trace *t, const char *path)
{
	char src[160], buf[65536];
	int in, out, ret = 0;
	ssize_t n = 0;

	if (!t->on)
		return 0;
	put(t, "tracing_on", "0");
	snprintf(src, sizeof(src), "%s/trace", t->dir);
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (in < 0 || out < 0) {
		fprintf(stderr, "fliplat: --trace: %s: %s\n", in < 0 ? src : path, strerror(errno));
		ret = -1;
	}
	while (!ret && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			ret = -1;
	if (!ret && n < 0)
		ret = -1;
	if (ret && in >= 0 && out >= 0)
		fprintf(stderr, "fliplat: --trace: copying %s to %s failed: %s\n", src, path,
			strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ret = -1;
	enable_groups(t, "0");
	put(t, "trace_clock", t->clock);
	t->on = false;
	return ret;
}
