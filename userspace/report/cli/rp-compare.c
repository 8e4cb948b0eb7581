// SPDX-License-Identifier: MIT
/*
 * rp-compare: the verdicts of make bench's report (scripts/bench), one
 * row a line, by rp_compare() (userspace/report/compare.c).
 *
 * Input, one row a line, tab-separated:
 *
 *   KIND MARGIN A-VALUES B-VALUES
 *
 * KIND is time, rate or offset; MARGIN the equivalence margin (a fraction
 * for time and rate, in the values' unit for offset); the values are one
 * per round, comma-separated, "-" or "null" for a round that failed on that
 * side. Output, a JSON object a line, in the input's order:
 *
 *   { "pairs", "failed", "excluded", "estimate", "interval": [lo, hi],
 *     "verdict", "alpha", "rows" }
 *
 * "alpha" is each row's error rate: the family-wise --alpha divided by
 * "rows", the number of rows with at least 3 usable pairs (Bonferroni).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MAX_ROUNDS	1000

struct row {
	enum rp_cmp_kind kind;
	double margin;
	size_t n;
	double a[MAX_ROUNDS], b[MAX_ROUNDS];
};

static const char usage[] =
"usage: rp-compare [--alpha A] < ROWS\n"
"\n"
"Compares a benchmark's two sides, A (flipfence) and B (mainline), over\n"
"paired rounds, one row a line: KIND<TAB>MARGIN<TAB>A1,A2,...<TAB>B1,B2,...\n"
"(KIND time|rate|offset; a value \"-\" or \"null\" is a failed round).\n"
"Prints a JSON object a row: the geometric mean of the paired ratios (time,\n"
"rate) or the mean difference (offset), its Student t interval at the\n"
"family-wise error A (default 0.05) divided among the rows decided\n"
"(Bonferroni), and the verdict: better/worse (offsets: higher/lower) only\n"
"if the whole interval lies beyond the margin, else no difference.\n"
"\n"
"  -a, --alpha A   family-wise error rate of the report (default 0.05)\n"
"  -h, --help      this text\n";

/* Comma-separated values into @v; -1 if one is not a number. */
static int values(char *s, double *v, size_t *n)
{
	char *tok, *save = NULL, *end;

	*n = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_ROUNDS)
			return -1;
		if (!strcmp(tok, "-") || !strcmp(tok, "null")) {
			v[(*n)++] = NAN;
			continue;
		}
		errno = 0;
		v[*n] = strtod(tok, &end);
		if (errno || end == tok || *end)
			return -1;
		(*n)++;
	}
	return 0;
}

static int parse(char *line, struct row *r)
{
	char *f[4], *save = NULL, *end;
	size_t na, nb;
	int i;

	line[strcspn(line, "\n")] = '\0';
	for (i = 0; i < 4; i++) {
		f[i] = strtok_r(i ? NULL : line, "\t", &save);
		if (!f[i])
			return -1;
	}
	if (!strcmp(f[0], "time"))
		r->kind = RP_CMP_TIME;
	else if (!strcmp(f[0], "rate"))
		r->kind = RP_CMP_RATE;
	else if (!strcmp(f[0], "offset"))
		r->kind = RP_CMP_OFFSET;
	else
		return -1;
	r->margin = strtod(f[1], &end);
	if (end == f[1] || *end || r->margin < 0)
		return -1;
	if (values(f[2], r->a, &na) || values(f[3], r->b, &nb))
		return -1;
	/* A side with fewer rounds: the rest failed on that side. */
	r->n = na > nb ? na : nb;
	while (na < r->n)
		r->a[na++] = NAN;
	while (nb < r->n)
		r->b[nb++] = NAN;
	return 0;
}

static void value(double v)
{
	if (isfinite(v))
		printf("%.6g", v);
	else
		fputs("null", stdout);
}

static void number(const char *key, double v)
{
	printf("\"%s\": ", key);
	value(v);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "alpha", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rp_comparison c;
	struct row *rows = NULL;
	size_t nrows = 0, decided = 0, i, cap = 0;
	double alpha = 0.05;
	char line[65536], *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "a:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			alpha = strtod(optarg, &end);
			if (end == optarg || *end || !(alpha > 0 && alpha < 1)) {
				fprintf(stderr, "rp-compare: --alpha wants a number in (0, 1): %s\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (nrows == cap) {
			struct row *more = realloc(rows, (cap = cap ? 2 * cap : 16) * sizeof(*rows));

			if (!more) {
				perror("rp-compare");
				free(rows);
				return 1;
			}
			rows = more;
		}
		if (parse(line, &rows[nrows])) {
			fprintf(stderr, "rp-compare: line %zu: not KIND<TAB>MARGIN<TAB>A,...<TAB>B,...\n",
				nrows + 1);
			free(rows);
			return 2;
		}
		/* The rows that get an interval share the family's error. */
		rp_compare(rows[nrows].a, rows[nrows].b, rows[nrows].n, rows[nrows].kind,
			   rows[nrows].margin, 0.5, &c);
		decided += c.pairs >= 3;
		nrows++;
	}
	for (i = 0; i < nrows; i++) {
		double row_alpha = alpha / (double)(decided ? decided : 1);

		if (rp_compare(rows[i].a, rows[i].b, rows[i].n, rows[i].kind, rows[i].margin,
			       row_alpha, &c)) {
			perror("rp-compare");
			free(rows);
			return 1;
		}
		printf("{ \"pairs\": %zu, \"failed\": %zu, \"excluded\": %zu, ", c.pairs, c.failed,
		       c.excluded);
		number("estimate", c.estimate);
		fputs(", \"interval\": [", stdout);
		value(c.lo);
		fputs(", ", stdout);
		value(c.hi);
		printf("], \"verdict\": \"%s\", ", rp_verdict_name(c.verdict));
		number("alpha", row_alpha);
		printf(", \"rows\": %zu }\n", decided);
	}
	free(rows);
	return fflush(stdout) ? 1 : 0;
}
