// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-load: draw cookies the way a busy client would, and print every one of them.
 *
 *   cookie-load socket N [SIZE]   N draws of GET SIZE (default 1) over one connection;
 *                                 on a broken connection (daemon killed) reconnect and go on
 *   cookie-load fast N            N draws of one cookie on the fast path (libcookie);
 *                                 at the durable limit, wait for the daemon to raise it
 *   cookie-load drain             draw ranges of 65536 on the fast path until the durable
 *                                 limit refuses one; print how many cookies were drawn
 *   cookie-load fast-get N        one fast-path draw of N; print "rc=ERRNO moved=M": what
 *                                 cookie_fast_get returned and how far the counter moved
 *   cookie-load at-limit K        drain to the limit (daemon stopped), then K more draws of
 *                                 65536; print "refused=R moved=M" for those K draws
 *   cookie-load open-fail         cookie_fast_open must fail (no mmapable state pinned); then
 *                                 a new fd takes the lowest number and cookie_fast_close must
 *                                 leave it open: print "fd intact" or "fd closed"
 *
 * Prints one cookie per line, so tests can check that all are distinct and none is 0. Gives
 * up (exit 1) when the daemon stays unreachable for PATIENCE_SECS.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "src/libcookie.h"

/*
 * A restart (BPF loaded again) takes seconds under TCG and many more on a loaded host: this
 * is for a daemon that never comes back, measured on the clock rather than counted in naps
 * (a nap takes longer than asked when the machine is busy).
 */
#define PATIENCE_SECS 300

static void nap(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Has the wait that began at *since (0: none yet, then it begins now) lasted too long? */
static int out_of_patience(struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!since->tv_sec && !since->tv_nsec) {
		*since = now;
		return 0;
	}
	return now.tv_sec - since->tv_sec > PATIENCE_SECS;
}

static int run_socket(long n, long size)
{
	struct timespec since = { 0 };
	int fd = -1;

	for (long i = 0; i < n;) {
		uint64_t first;
		int err;

		if (fd < 0)
			fd = cookie_connect(COOKIE_SOCKET_PATH);
		err = fd < 0 ? fd : cookie_get(fd, size, &first);
		if (err) {
			if (fd >= 0)
				close(fd);
			fd = -1;
			if (out_of_patience(&since)) {
				fprintf(stderr, "cookie-load: daemon unreachable for %d s: %s\n",
					PATIENCE_SECS, strerror(-err));
				return 1;
			}
			nap();
			continue;
		}
		since = (struct timespec){ 0 };
		for (long k = 0; k < size; k++)
			printf("%" PRIu64 "\n", first + k);
		i++;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

static int run_fast(long n)
{
	struct timespec since = { 0 };
	struct cookie_fast f;
	int err = cookie_fast_open(&f);

	if (err) {
		fprintf(stderr, "cookie-load: fast path: %s\n", strerror(-err));
		return 1;
	}
	for (long i = 0; i < n;) {
		uint64_t c;

		err = cookie_fast_get(&f, 1, &c);
		if (err == -EAGAIN) {
			if (out_of_patience(&since)) {
				fprintf(stderr, "cookie-load: the limit was not raised for %d s\n",
					PATIENCE_SECS);
				return 1;
			}
			nap();
			continue;
		}
		since = (struct timespec){ 0 };
		printf("%" PRIu64 "\n", c);
		i++;
	}
	cookie_fast_close(&f);
	return 0;
}

static int run_drain(void)
{
	struct cookie_fast f;
	uint64_t first, drawn = 0, last = 0;
	int err = cookie_fast_open(&f);

	if (err) {
		fprintf(stderr, "cookie-load: fast path: %s\n", strerror(-err));
		return 1;
	}
	while (!(err = cookie_fast_get(&f, 65536, &first))) {
		if (first <= last) {
			fprintf(stderr, "cookie-load: range %" PRIu64 " after %" PRIu64 "\n", first, last);
			return 1;
		}
		last = first + 65535;
		drawn += 65536;
	}
	printf("%" PRIu64 " %" PRIu64 "\n", drawn, last);
	cookie_fast_close(&f);
	return err == -EAGAIN ? 0 : 1;
}

static int run_fast_get(const char *arg)
{
	struct cookie_fast f;
	uint64_t first, before, n = strtoull(arg, NULL, 0);
	int err = cookie_fast_open(&f);

	if (err) {
		fprintf(stderr, "cookie-load: fast path: %s\n", strerror(-err));
		return 1;
	}
	before = __atomic_load_n(&f.st->next, __ATOMIC_SEQ_CST);
	err = cookie_fast_get(&f, n, &first);
	printf("rc=%d moved=%llu\n", err, (unsigned long long)(f.st->next - before));
	cookie_fast_close(&f);
	return 0;
}

static int run_at_limit(long k)
{
	struct cookie_fast f;
	uint64_t first, before;
	long refused = 0;
	int err = cookie_fast_open(&f);

	if (err) {
		fprintf(stderr, "cookie-load: fast path: %s\n", strerror(-err));
		return 1;
	}
	while (!cookie_fast_get(&f, 65536, &first))
		;
	before = __atomic_load_n(&f.st->next, __ATOMIC_SEQ_CST);
	for (long i = 0; i < k; i++)
		refused += cookie_fast_get(&f, 65536, &first) == -EAGAIN;
	printf("refused=%ld moved=%llu\n", refused, (unsigned long long)(f.st->next - before));
	cookie_fast_close(&f);
	return 0;
}

static int run_open_fail(void)
{
	struct cookie_fast f;
	int err = cookie_fast_open(&f), fd;

	if (!err) {
		fprintf(stderr, "cookie-load: cookie_fast_open unexpectedly worked\n");
		return 1;
	}
	fd = open("/dev/null", O_RDONLY);
	cookie_fast_close(&f);
	printf("open failed (%s), %s\n", strerror(-err), fcntl(fd, F_GETFD) < 0 ? "fd closed" : "fd intact");
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc >= 3 && !strcmp(argv[1], "socket") && n > 0)
		return run_socket(n, argc > 3 ? atol(argv[3]) : 1);
	if (argc == 3 && !strcmp(argv[1], "fast") && n > 0)
		return run_fast(n);
	if (argc == 2 && !strcmp(argv[1], "drain"))
		return run_drain();
	if (argc == 3 && !strcmp(argv[1], "fast-get"))
		return run_fast_get(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "at-limit") && n > 0)
		return run_at_limit(n);
	if (argc == 2 && !strcmp(argv[1], "open-fail"))
		return run_open_fail();
	fprintf(stderr, "usage: cookie-load socket N [SIZE] | fast N | drain | fast-get N | "
		"at-limit K | open-fail\n");
	return 2;
}
