// SPDX-License-Identifier: MIT
/*
 * Option values fliplat and presentlat parse alike, with the same words
 * when they are wrong: "TOOL: --OPTION wants ..., not 'ARG'".
 */
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

int rp_parse_uint_until(const char *arg, char stop, unsigned long min, unsigned long max,
			unsigned int *out, const char **rest)
{
	unsigned long v;
	char *end;

	/* strtoul would take " 5", "+5" and "-5" (as a huge number). */
	if (*arg < '0' || *arg > '9')
		return -1;
	v = strtoul(arg, &end, 10);
	if (*end != stop || v < min || v > max)
		return -1;
	*out = (unsigned int)v;
	if (rest)
		*rest = end + 1;
	return 0;
}

int rp_parse_uint(const char *tool, const char *opt, const char *arg, unsigned long min,
		  unsigned long max, unsigned int *out)
{
	if (!rp_parse_uint_until(arg, '\0', min, max, out, NULL))
		return 0;
	fprintf(stderr, "%s: %s wants a number from %lu to %lu, not '%s'\n", tool, opt, min, max,
		arg);
	return -1;
}

int rp_parse_seconds(const char *tool, const char *opt, const char *arg, double *out)
{
	char *end;
	double s = strtod(arg, &end);

	if (end != arg && !*end && s > 0 && s < 1e6) {
		*out = s;
		return 0;
	}
	fprintf(stderr, "%s: %s wants seconds > 0, not '%s'\n", tool, opt, arg);
	return -1;
}
