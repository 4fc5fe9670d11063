/* SPDX-License-Identifier: GPL-2.0 */
/* The tools' clocks, in seconds and nanoseconds, and the interval clock of -i. */
#ifndef __BAREATOM_CLOCK_H
#define __BAREATOM_CLOCK_H

/* CLOCK_MONOTONIC and CLOCK_REALTIME in seconds; CLOCK_MONOTONIC in nanoseconds. */
double clock_now(void);
unsigned long long clock_now_ns(void);
double clock_wallclock(void);

/*
 * The first tick after @now of a clock ticking every @interval seconds from @start
 * (start + k * interval, k >= 1), in a bounded number of steps however late @now is.
 */
double clock_next_tick(double start, double interval, double now);

#endif /* __BAREATOM_CLOCK_H */
