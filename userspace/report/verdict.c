// SPDX-License-Identifier: MIT
/*
 * What a CI needs from a run beyond its numbers: where the JSON came from
 * (schema and tool version, command line, kernel, time) and the verdict of
 * the thresholds the command line set.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "report.h"

/* userspace/Makefile passes git describe; a build outside it says so. */
#ifndef FLIPFENCE_VERSION
#define FLIPFENCE_VERSION "unknown"
#endif

const char rp_tool_version[] = FLIPFENCE_VERSION;

void rp_provenance_init(struct rp_provenance *p, int argc, char **argv)
{
	struct utsname u;

	memset(p, 0, sizeof(*p));
	p->argc = argc;
	p->argv = argv;
	p->started = time(NULL);
	if (!uname(&u)) {
		snprintf(p->sysname, sizeof(p->sysname), "%s", u.sysname);
		snprintf(p->release, sizeof(p->release), "%s", u.release);
		snprintf(p->version, sizeof(p->version), "%s", u.version);
		snprintf(p->machine, sizeof(p->machine), "%s", u.machine);
	}
}

void rp_json_provenance(struct rp_json *j, const char *tool, int schema,
			const struct rp_provenance *p)
{
	char when[32] = "";
	struct tm tm;
	int i;

	rp_json_int(j, "schema_version", schema);
	rp_json_string(j, "tool", tool);
	rp_json_string(j, "tool_version", rp_tool_version);
	rp_json_array(j, "command_line");
	for (i = 0; i < p->argc; i++)
		rp_json_string(j, NULL, p->argv[i]);
	rp_json_close(j);
	if (p->started && gmtime_r(&p->started, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rp_json_string(j, "started_at", when[0] ? when : NULL);
	rp_json_object(j, "kernel");
	rp_json_string(j, "sysname", p->sysname);
	rp_json_string(j, "release", p->release);
	rp_json_string(j, "version", p->version);
	rp_json_string(j, "machine", p->machine);
	rp_json_close(j);
}

void rp_check(struct rp_checks *c, const char *option, const char *what, double limit,
	      double value, bool observed)
{
	struct rp_check *k;

	if (c->n >= RP_MAX_CHECKS)
		return;
	k = &c->c[c->n++];
	k->option = option;
	snprintf(k->what, sizeof(k->what), "%s", what);
	k->limit = limit;
	k->value = value;
	k->observed = observed;
	/* Nothing observed cannot prove a limit kept. */
	k->broken = !observed || value > limit;
}

size_t rp_checks_broken(const struct rp_checks *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		n += c->c[i].broken;
	return n;
}

void rp_checks_print(FILE *f, const char *tool, const struct rp_checks *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct rp_check *k = &c->c[i];

		if (!k->broken)
			continue;
		if (k->observed)
			fprintf(f, "%s: threshold broken: %s %g: %s %g\n", tool, k->option,
				k->limit, k->what, k->value);
		else
			fprintf(f, "%s: threshold broken: %s %g: %s not observed in this run\n",
				tool, k->option, k->limit, k->what);
	}
}

void rp_json_checks(struct rp_json *j, const struct rp_checks *c)
{
	size_t i;

	rp_json_array(j, "thresholds");
	for (i = 0; i < c->n; i++) {
		const struct rp_check *k = &c->c[i];

		rp_json_object(j, NULL);
		rp_json_string(j, "option", k->option);
		rp_json_string(j, "what", k->what);
		rp_json_number(j, "limit", k->limit, true);
		rp_json_number(j, "value", k->value, k->observed);
		rp_json_bool(j, "broken", k->broken);
		rp_json_close(j);
	}
	rp_json_close(j);
	rp_json_int(j, "thresholds_broken", (int64_t)rp_checks_broken(c));
}

int rp_parse_p99_limit(const char *tool, const char *arg, const struct rp_metric *metrics,
		       size_t nmetrics, struct rp_p99_limits *out)
{
	const char *eq = strchr(arg, '=');
	char *end;
	double us;
	size_t m;

	for (m = 0; eq && m < nmetrics; m++)
		if (strlen(metrics[m].name) == (size_t)(eq - arg) &&
		    !strncmp(metrics[m].name, arg, eq - arg) && rp_metric_is_time(&metrics[m]))
			break;
	if (!eq || m == nmetrics) {
		fprintf(stderr, "%s: --max-p99-us wants METRIC=US with METRIC one of", tool);
		for (m = 0; m < nmetrics; m++)
			if (rp_metric_is_time(&metrics[m]))
				fprintf(stderr, " %s", metrics[m].name);
		fprintf(stderr, ", not '%s'\n", arg);
		return -1;
	}
	us = strtod(eq + 1, &end);
	if (!eq[1] || *end || !(us >= 0 && us < 1e12)) {
		fprintf(stderr, "%s: --max-p99-us %.*s wants microseconds >= 0, not '%s'\n", tool,
			(int)(eq - arg), arg, eq + 1);
		return -1;
	}
	if (out->n >= RP_MAX_P99) {
		fprintf(stderr, "%s: at most %d --max-p99-us\n", tool, RP_MAX_P99);
		return -1;
	}
	out->l[out->n].metric = m;
	out->l[out->n].us = us;
	out->n++;
	return 0;
}

void rp_check_p99(struct rp_checks *c, const struct rp_samples *s,
		  const struct rp_p99_limits *l)
{
	struct rp_stats st;
	char what[64];
	size_t i;

	for (i = 0; i < l->n; i++) {
		rp_samples_stats(s, l->l[i].metric, -1, &st);
		snprintf(what, sizeof(what), "p99 of %s (us)", s->metrics[l->l[i].metric].name);
		rp_check(c, "--max-p99-us", what, l->l[i].us, st.p99, st.n > 0);
	}
}
