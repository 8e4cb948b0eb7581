// SPDX-License-Identifier: MIT
/*
 * rp-strips: columns of several CSV reports side by side, as an SVG of
 * strips (rp_svg_strips(), userspace/report/strips.c): a panel per
 * column, a strip per file. make demo's out-fence part draws fliplat's
 * signal_minus_event_ns and wake_minus_event_read_ns on flipkms and vkms
 * with it.
 *
 *   rp-strips -t TITLE [-s SUBTITLE] -c COLUMN=PANEL-TITLE... LABEL=FILE.csv...
 *
 * A column whose name ends in _ns is drawn in µs. Rows whose "warmup"
 * column is 1 and empty cells are left out.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MAX_COLUMNS	4
#define MAX_FILES	8
#define MAX_FIELDS	64

static const char usage[] =
"usage: rp-strips -t TITLE [-s SUBTITLE] -c COLUMN=PANEL-TITLE... LABEL=FILE.csv...\n"
"\n"
"Writes an SVG to stdout: a panel per CSV column -c names, a strip per file,\n"
"each value of the column a dot (columns named *_ns in us), rows with\n"
"warmup=1 and empty cells left out.\n"
"\n"
"  -t, --title TEXT       the picture's title\n"
"  -s, --subtitle TEXT    a line under it (the command that made the data)\n"
"  -c, --column NAME=T    a column to draw, and its panel's title\n"
"  -h, --help             this text\n";

/* Splits @line at commas into @f (at most MAX_FIELDS); returns how many. */
static size_t split(char *line, char **f)
{
	size_t n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < MAX_FIELDS) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

/* Column @name of CSV @path into @s (warm-up rows and empty cells left out). */
static int read_column(const char *path, const char *name, struct rp_series *s)
{
	char line[4096], *f[MAX_FIELDS], *end;
	size_t nf, i, cap = 0;
	long col = -1, warm = -1;
	bool ns;
	FILE *in = fopen(path, "r");

	if (!in || !fgets(line, sizeof(line), in)) {
		fprintf(stderr, "rp-strips: %s: %s\n", path, in ? "empty" : strerror(errno));
		if (in)
			fclose(in);
		return -1;
	}
	nf = split(line, f);
	for (i = 0; i < nf; i++) {
		col = strcmp(f[i], name) ? col : (long)i;
		warm = strcmp(f[i], "warmup") ? warm : (long)i;
	}
	if (col < 0) {
		fprintf(stderr, "rp-strips: %s: no column %s\n", path, name);
		fclose(in);
		return -1;
	}
	ns = strlen(name) > 3 && !strcmp(name + strlen(name) - 3, "_ns");
	while (fgets(line, sizeof(line), in)) {
		double v;

		nf = split(line, f);
		if ((size_t)col >= nf || !*f[col] || (warm >= 0 && (size_t)warm < nf &&
						     !strcmp(f[warm], "1")))
			continue;
		v = strtod(f[col], &end);
		if (*end)
			continue;
		if (s->n == cap) {
			double *nv = realloc(s->v, (cap = cap ? 2 * cap : 256) * sizeof(*nv));

			if (!nv) {
				fclose(in);
				return -1;
			}
			s->v = nv;
		}
		s->v[s->n++] = ns ? v / 1e3 : v;
	}
	fclose(in);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "title", required_argument, NULL, 't' },
		{ "subtitle", required_argument, NULL, 's' },
		{ "column", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rp_series series[MAX_COLUMNS][MAX_FILES];
	struct rp_strip_panel panels[MAX_COLUMNS];
	char *columns[MAX_COLUMNS], *files[MAX_FILES];
	const char *title = NULL, *subtitle = NULL;
	size_t ncols = 0, nfiles = 0, c, i;
	int opt, ret;

	memset(series, 0, sizeof(series));
	while ((opt = getopt_long(argc, argv, "t:s:c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			title = optarg;
			break;
		case 's':
			subtitle = optarg;
			break;
		case 'c':
			if (ncols == MAX_COLUMNS || !strchr(optarg, '=')) {
				fputs(usage, stderr);
				return 2;
			}
			columns[ncols++] = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	for (; optind < argc && nfiles < MAX_FILES; optind++) {
		if (!strchr(argv[optind], '='))
			break;
		files[nfiles++] = argv[optind];
	}
	if (!title || !ncols || !nfiles || optind < argc) {
		fputs(usage, stderr);
		return 2;
	}
	for (c = 0; c < ncols; c++) {
		char *eq = strchr(columns[c], '=');

		*eq = '\0';
		panels[c] = (struct rp_strip_panel){
			.title = eq + 1,
			.unit = strlen(columns[c]) > 3 &&
				!strcmp(columns[c] + strlen(columns[c]) - 3, "_ns") ? "us" : "",
			.series = series[c], .nseries = nfiles,
		};
	}
	/* At the last '=': a label may hold one ("signal_delay_us=0"), a path not. */
	for (i = 0; i < nfiles; i++)
		*strrchr(files[i], '=') = '\0';
	for (c = 0; c < ncols; c++) {
		for (i = 0; i < nfiles; i++) {
			series[c][i].label = files[i];
			if (read_column(files[i] + strlen(files[i]) + 1, columns[c], &series[c][i]))
				return 1;
		}
	}
	ret = rp_svg_strips(stdout, title, subtitle, panels, ncols);
	for (c = 0; c < ncols; c++)
		for (i = 0; i < nfiles; i++)
			free(series[c][i].v);
	return ret ? 1 : 0;
}
