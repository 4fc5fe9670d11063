// SPDX-License-Identifier: GPL-2.0
/* The tools' clocks and the interval clock of clock.h. */
#include <time.h>
#include "src/clock.h"

double clock_next_tick(double start, double interval, double now)
{
	double ticks = (now - start) / interval, next;
	long long k = 1;

	/* At most 1e7 s / 1 ms = 1e10 ticks: a long long holds them (no libm floor needed). */
	if (ticks > 0)
		k = (long long)ticks + 1;
	next = start + (double)k * interval;
	/* Rounding can leave start + k * interval at or below now: one more step. */
	if (next <= now)
		next = start + (double)(k + 1) * interval;
	return next;
}

double clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

unsigned long long clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

double clock_wallclock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
