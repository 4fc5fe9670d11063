// SPDX-License-Identifier: GPL-2.0
/*
 * cookie's commands that draw and ask (cookie_cmd.h): cookies from the fast path or the
 * daemon's socket, a process's cookie, the daemon's statistics, and --decode, which needs
 * no daemon. The errors name what to do where the user is (systemd or not).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_cmd.h"
#include "src/cookie_proto.h"
#include "src/json.h"
#include "src/libcookie.h"

/*
 * Advice that works where we are: systemctl only when systemd runs this system (sd_booted(3)
 * checks the same directory), the daemon itself otherwise, with the socket asked for.
 */
static bool under_systemd(void)
{
	return !access("/run/systemd/system", F_OK);
}

static const char *socket_opt(const struct cookie_opts *o, char *buf, size_t len)
{
	if (strcmp(o->socket, COOKIE_SOCKET_PATH))
		snprintf(buf, len, " --socket %s", o->socket);
	else
		buf[0] = '\0';
	return buf;
}

/* A daemon that does not answer in time: stopped (SIGSTOP), hung or overloaded. */
static void timed_out(const struct cookie_opts *o)
{
	fprintf(stderr, "cookie: cookie-gend did not answer on %s within %g s (stopped or hung? %s)\n",
		o->socket, o->timeout_ms / 1000.0, under_systemd() ? "systemctl status cookie-gend" :
		"ps -C cookie-gend -o pid,stat: T is stopped, kill -CONT PID");
}

static int connect_daemon(const struct cookie_opts *o)
{
	int fd = cookie_connect_timeout(o->socket, o->timeout_ms);
	/* The image's unit serves the default socket; another one is a daemon of the user's. */
	bool unit = under_systemd() && !strcmp(o->socket, COOKIE_SOCKET_PATH);
	char sock[4200];

	if (fd == -ETIMEDOUT)
		timed_out(o);
	else if (fd == -ENOENT || fd == -ECONNREFUSED)
		fprintf(stderr, "cookie: cookie-gend is not running (no listener on %s; start it: %s%s)\n",
			o->socket, unit ? "systemctl start cookie-gend" : "cookie-gend",
			unit ? "" : socket_opt(o, sock, sizeof(sock)));
	else if (fd == -EACCES)
		fprintf(stderr, "cookie: permission denied on %s (join group bareatom)\n", o->socket);
	else if (fd < 0)
		fprintf(stderr, "cookie: cannot connect to %s: %s\n", o->socket, strerror(-fd));
	return fd;
}

static void print_range(const struct cookie_opts *o, uint64_t first, long n, const char *source)
{
	struct json j;

	if (o->json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_u64_field(&j, "first", first);
		json_i64_field(&j, "count", n);
		json_u64_field(&j, "last", first + n - 1);
		json_string_field(&j, "source", source);
		json_object_end(&j);
		return;
	}
	for (long i = 0; i < n; i++)
		printf("%" PRIu64 "\n", first + i);
}

int cookie_cmd_get(const struct cookie_opts *o)
{
	struct cookie_fast f;
	uint64_t first;
	int fd, err;

	if (o->path != PATH_SOCKET) {
		err = cookie_fast_open(&f);
		if (!err) {
			err = cookie_fast_get(&f, o->n, &first);
			cookie_fast_close(&f);
			if (!err) {
				print_range(o, first, o->n, "fast");
				return 0;
			}
		}
		if (o->path == PATH_FAST) {
			fprintf(stderr, "cookie: the fast path is unavailable: %s\n",
				err == -EAGAIN ? "the counter is at the durable limit (the daemon raises it)" :
				err == -EPERM || err == -EACCES ? "needs root" :
				err == -ENOENT ? "cookie-gend has not pinned its counter" : strerror(-err));
			return 1;
		}
	}
	fd = connect_daemon(o);
	if (fd < 0)
		return 1;
	err = cookie_get(fd, o->n, &first);
	close(fd);
	if (err == -ETIMEDOUT) {
		timed_out(o);
		return 1;
	}
	if (err == -EAGAIN) {
		fprintf(stderr, "cookie: the daemon refused GET %ld: this user's rate limit is used up "
			"(cookie-gend --rate-limit); retry later\n", o->n);
		return 1;
	}
	if (err) {
		fprintf(stderr, "cookie: the daemon did not serve GET %ld: %s\n", o->n,
			err == -EPROTO ? "it answered ERR" : strerror(-err));
		return 1;
	}
	print_range(o, first, o->n, "socket");
	return 0;
}

int cookie_cmd_pid(const struct cookie_opts *o)
{
	uint64_t c;
	int fd = connect_daemon(o), err;
	struct json j;

	if (fd < 0)
		return 1;
	err = cookie_pid(fd, o->pid, &c);
	close(fd);
	if (err == -ETIMEDOUT) {
		timed_out(o);
		return 1;
	}
	if (err == -ESRCH) {
		fprintf(stderr, "cookie: no such process: %ld\n", o->pid);
		return 1;
	}
	if (err) {
		fprintf(stderr, "cookie: cannot get the cookie of %ld: %s\n", o->pid, strerror(-err));
		return 1;
	}
	if (o->json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_i64_field(&j, "pid", o->pid);
		json_u64_field(&j, "cookie", c);
		json_object_end(&j);
	} else
		printf("%" PRIu64 "\n", c);
	return 0;
}

/* One of STATS' pairs, as text or into the JSON object @j (-j). */
static void print_stat(const struct cookie_opts *o, struct json *j, const struct cookie_stat *kv)
{
	char name[64], word[64];

	if (!o->json) {
		printf("%-14.*s %.*s\n", (int)kv->klen, kv->key, (int)kv->vlen, kv->val);
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)kv->klen, kv->key);
	snprintf(word, sizeof(word), "%.*s", (int)kv->vlen, kv->val);
	/* Numbers stay numbers; words (state_error=ENOSPC) become strings. */
	if (kv->vlen && strspn(word, "0123456789") >= kv->vlen && kv->vlen <= 20)
		json_u64_field(j, name, strtoull(word, NULL, 10));
	else
		json_string_field(j, name, word);
}

int cookie_cmd_stats(const struct cookie_opts *o)
{
	char reply[1024];
	int fd = connect_daemon(o), err;
	struct cookie_stat kv;
	const char *p;
	struct json j;

	if (fd < 0)
		return 1;
	err = cookie_request(fd, "STATS", reply, sizeof(reply));
	close(fd);
	if (err == -ETIMEDOUT) {
		timed_out(o);
		return 1;
	}
	if (err) {
		fprintf(stderr, "cookie: STATS failed: %s\n", err == -EPROTO ? reply : strerror(-err));
		return 1;
	}
	/* The whole reply checked before a word of it is printed. */
	for (p = reply; (err = cookie_stats_next(reply, &p, &kv)) > 0;)
		;
	if (err) {
		fprintf(stderr, "cookie: the daemon's STATS reply is malformed: %.80s\n", reply);
		return 1;
	}
	json_init(&j, stdout);
	if (o->json)
		json_object_begin(&j);
	for (p = reply; cookie_stats_next(reply, &p, &kv) > 0;)
		print_stat(o, &j, &kv);
	if (o->json)
		json_object_end(&j);
	return 0;
}

/* Node and sequence: the layout every drawer produces (bpf/cookie_abi.h). No daemon needed. */
int cookie_cmd_decode(const struct cookie_opts *o)
{
	uint64_t c = o->decode;

	if (o->json) {
		printf("{\"cookie\":%" PRIu64 ",\"node\":%llu,\"sequence\":%llu}\n", c,
		       (unsigned long long)COOKIE_NODE_OF(c), (unsigned long long)COOKIE_SEQ_OF(c));
		return 0;
	}
	printf("cookie         %" PRIu64 "\nnode           %llu\nsequence       %llu\n", c,
	       (unsigned long long)COOKIE_NODE_OF(c), (unsigned long long)COOKIE_SEQ_OF(c));
	return 0;
}
