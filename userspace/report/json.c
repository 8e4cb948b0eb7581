// SPDX-License-Identifier: MIT
/*
 * A streaming JSON writer: one member or element per line, indented by
 * depth. Valid calls give valid JSON: strings are escaped, and a number
 * that is not finite (or not valid) is null.
 */
#include <inttypes.h>

#include "report.h"

static void escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The separator, indentation and key of the next item. */
static void item(struct rp_json *j, const char *key)
{
	int i;

	if (j->has_items[j->depth])
		fputc(',', j->f);
	j->has_items[j->depth] = true;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
	if (key) {
		escaped(j->f, key);
		fputs(": ", j->f);
	}
}

static void open(struct rp_json *j, const char *key, char bracket)
{
	item(j, key);
	fputc(bracket, j->f);
	if (j->depth + 1 < RP_JSON_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
	j->is_array[j->depth] = bracket == '[';
}

void rp_json_begin(struct rp_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->has_items[0] = false;
	fputc('{', f);
	j->depth = 1;
	j->has_items[1] = false;
	j->is_array[1] = false;
}

void rp_json_object(struct rp_json *j, const char *key)
{
	open(j, key, '{');
}

void rp_json_array(struct rp_json *j, const char *key)
{
	open(j, key, '[');
}

void rp_json_close(struct rp_json *j)
{
	int i;

	if (j->has_items[j->depth]) {
		fputc('\n', j->f);
		for (i = 0; i < j->depth - 1; i++)
			fputs("  ", j->f);
	}
	fputc(j->is_array[j->depth] ? ']' : '}', j->f);
	if (j->depth > 0)
		j->depth--;
}

int rp_json_end(struct rp_json *j)
{
	while (j->depth > 0)
		rp_json_close(j);
	fputc('\n', j->f);
	return rp_finish(j->f);
}

void rp_json_string(struct rp_json *j, const char *key, const char *s)
{
	item(j, key);
	if (s)
		escaped(j->f, s);
	else
		fputs("null", j->f);
}

void rp_json_int(struct rp_json *j, const char *key, int64_t v)
{
	item(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void rp_json_number(struct rp_json *j, const char *key, double v, bool valid)
{
	item(j, key);
	if (valid && isfinite(v))
		fprintf(j->f, "%.3f", v);
	else
		fputs("null", j->f);
}

void rp_json_bool(struct rp_json *j, const char *key, bool v)
{
	item(j, key);
	fputs(v ? "true" : "false", j->f);
}

void rp_json_summary(struct rp_json *j, const char *key, const struct rp_samples *s,
		     int group)
{
	struct rp_stats st;
	size_t m;

	rp_json_object(j, key);
	for (m = 0; m < s->nmetrics; m++) {
		rp_samples_stats(s, m, group, &st);
		rp_json_object(j, s->metrics[m].name);
		rp_json_string(j, "unit", s->metrics[m].unit);
		rp_json_int(j, "n", (int64_t)st.n);
		rp_json_number(j, "min", st.min, st.n);
		rp_json_number(j, "p50", st.p50, st.n);
		rp_json_number(j, "p90", st.p90, st.n);
		rp_json_number(j, "p99", st.p99, st.n);
		rp_json_number(j, "max", st.max, st.n);
		rp_json_number(j, "mean", st.mean, st.n);
		rp_json_number(j, "stddev", st.stddev, st.n);
		rp_json_close(j);
	}
	rp_json_close(j);
}
