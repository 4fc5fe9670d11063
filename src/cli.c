// SPDX-License-Identifier: GPL-2.0
/* Option parsing and usage errors shared by the tools (cli.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

int util_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

double util_parse_interval(const char *prog, const char *arg)
{
	bool tiny;
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* strtod flags an underflow (1e-400, 0x1p-1074) with ERANGE: a positive, tiny interval. */
	tiny = errno == ERANGE && end != arg && !*end && !signbit(v) && v < 1;
	if (!tiny && (errno || end == arg || *end || !isfinite(v) || v <= 0 || v > 1e7))
		util_usage_error(prog, "invalid interval '%s': a number of seconds > 0", arg);
	if (tiny || v < UTIL_MIN_INTERVAL)
		util_usage_error(prog, "interval %s s is below the minimum of %g s", arg,
				 UTIL_MIN_INTERVAL);
	return v;
}

void util_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}
