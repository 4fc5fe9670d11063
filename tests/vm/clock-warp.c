// SPDX-License-Identifier: GPL-2.0
/*
 * clock-warp THREADS SECONDS: does CLOCK_MONOTONIC ever go backwards between CPUs?
 *
 * One thread per CPU 0..THREADS-1, each pinned. Under one lock, a thread reads the clock and
 * compares it with the last value any thread read: a read below it is a warp. The kernel's own
 * TSC sync check (check_tsc_warp()) works the same way; run-vm boots TCG guests with
 * tsc=reliable, which skips that check, so this test makes it instead. Prints the reads, the
 * warps and the largest one; exits 1 on any warp, 2 on bad usage or a failed call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long long last, warps, max_warp, reads, end_ns;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *reader(void *arg)
{
	long cpu = (long)arg;
	cpu_set_t set;
	long long t;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err) {
		fprintf(stderr, "clock-warp: pinning to CPU %ld: %s\n", cpu, strerror(err));
		exit(2);
	}
	do {
		pthread_mutex_lock(&lock);
		t = now_ns();
		if (t < last) {
			warps++;
			if (last - t > max_warp)
				max_warp = last - t;
		}
		if (t > last)
			last = t;
		reads++;
		pthread_mutex_unlock(&lock);
	} while (t < end_ns);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[1]) : 0, secs = argc == 3 ? atol(argv[2]) : 0;
	pthread_t th[256];
	int err;

	if (n < 2 || n > 256 || secs < 1) {
		fprintf(stderr, "usage: clock-warp THREADS(2-256) SECONDS\n");
		return 2;
	}
	end_ns = now_ns() + secs * 1000000000LL;
	for (long i = 0; i < n; i++) {
		err = pthread_create(&th[i], NULL, reader, (void *)i);
		if (err) {
			fprintf(stderr, "clock-warp: pthread_create: %s\n", strerror(err));
			return 2;
		}
	}
	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("reads %lld warps %lld max_warp_ns %lld\n", reads, warps, max_warp);
	return warps ? 1 : 0;
}
