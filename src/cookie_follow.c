// SPDX-License-Identifier: GPL-2.0
/*
 * cookie --follow (cookie_cmd.h): the cookies the BPF programs draw, from the pinned ring
 * buffer, as its one follower, until a signal or -c COUNT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_cmd.h"
#include "src/json.h"
#include "src/libcookie.h"
#include "src/runloop.h"

struct follow {
	const struct cookie_opts *o;
	struct ring_buffer *rb;
	struct runloop *rl;
	int err;
	long followed;		/* printed so far (-c COUNT) */
	bool draining;		/* events from before this follower started: read and dropped */
};

static int on_event(void *ctx, void *data, size_t len)
{
	struct follow *fw = ctx;
	const struct cookie_event *ev = data;
	const char *kind = ev->kind == COOKIE_EVENT_FORK ? "fork" : "tpgen";
	struct json j;

	if (len < sizeof(*ev) || fw->draining)
		return 0;
	if (fw->o->json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_string_field(&j, "kind", kind);
		json_u64_field(&j, "pid", ev->pid);
		json_u64_field(&j, "cookie", ev->cookie);
		json_object_end(&j);
	} else {
		printf("%s %u %llu\n", kind, ev->pid, (unsigned long long)ev->cookie);
	}
	/* -c COUNT: not one record more (libbpf goes on after a positive return, not a negative). */
	if (fw->o->count && ++fw->followed >= fw->o->count)
		return -ECANCELED;
	return 0;
}

/* The ring buffer's epoll fd is ready: print what is there, stop at -c or an error. */
static void on_ready(int fd, short revents, void *arg)
{
	struct follow *fw = arg;
	int n = ring_buffer__consume(fw->rb);

	fflush(stdout);
	if (n < 0 && n != -EINTR && n != -ECANCELED)
		fw->err = n;
	if (fw->err || (fw->o->count && fw->followed >= fw->o->count))
		runloop_stop(fw->rl);
}

/*
 * One follower at a time, so that it sees every event: the lock below (held while it
 * runs, gone with it) and its pid in the pinned follower map, which the programs read
 * before each event they report (bpf/cookie.bpf.c). cookie-gend clears a pid whose lock
 * is free (a SIGKILLed follower), so nothing is written for nobody. The lock is taken
 * with a few retries: cookie-gend holds it for that check, a few microseconds.
 */
static int follow_lock(int map_fd)
{
	__u32 zero = 0, pid = 0;
	int fd;

	mkdir("/run/bareatom", 0755);	/* a daemon on another --socket may not have made it */
	fd = open(COOKIE_FOLLOW_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "cookie: cannot open %s: %s\n", COOKIE_FOLLOW_LOCK, strerror(errno));
		return -1;
	}
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB); i++) {
		if (errno != EWOULDBLOCK || i == 50) {
			if (errno == EWOULDBLOCK) {
				bpf_map_lookup_elem(map_fd, &zero, &pid);
				fprintf(stderr, "cookie: another cookie --follow (pid %u) is following the "
					"events: one follower at a time\n", pid);
			} else {
				fprintf(stderr, "cookie: cannot lock %s: %s\n", COOKIE_FOLLOW_LOCK,
					strerror(errno));
			}
			close(fd);
			return -1;
		}
		usleep(2000);
	}
	return fd;
}

static int set_follower(int map_fd, __u32 pid)
{
	__u32 zero = 0;

	return bpf_map_update_elem(map_fd, &zero, &pid, BPF_ANY) ? -errno : 0;
}

int cookie_cmd_follow(const struct cookie_opts *o)
{
	int fd = bpf_obj_get(COOKIE_PIN_DIR "/events"), map_fd, lock_fd, err;
	struct follow fw = { .o = o };
	struct runloop rl;

	if (fd < 0) {
		fprintf(stderr, "cookie: cannot open " COOKIE_PIN_DIR "/events: %s\n",
			errno == ENOENT ? "cookie-gend is not running" :
			errno == EACCES || errno == EPERM ? "needs root" : strerror(errno));
		return 1;
	}
	map_fd = bpf_obj_get(COOKIE_PIN_DIR "/follower");
	if (map_fd < 0) {
		fprintf(stderr, "cookie: cannot open " COOKIE_PIN_DIR "/follower: %s\n",
			errno == ENOENT ? "this cookie-gend predates single followers: restart it" :
			strerror(errno));
		close(fd);
		return 1;
	}
	lock_fd = follow_lock(map_fd);
	if (lock_fd < 0) {
		close(map_fd);
		close(fd);
		return 1;
	}
	fw.rb = ring_buffer__new(fd, on_event, &fw, NULL);
	if (!fw.rb) {
		fprintf(stderr, "cookie: cannot read the ring buffer: %s\n", strerror(errno));
		err = 1;
		goto out;
	}
	/*
	 * From when we start: nothing is written while the follower is 0, so what the ring
	 * holds now is older than us (a follower that died, or stopped at -c): drop it.
	 */
	err = set_follower(map_fd, 0);
	fw.draining = true;
	if (!err && ring_buffer__consume(fw.rb) >= 0)
		err = set_follower(map_fd, getpid());
	fw.draining = false;
	if (err) {
		fprintf(stderr, "cookie: cannot register as the follower: %s\n", strerror(-err));
		err = 1;
		goto out;
	}
	runloop_init(&rl, "cookie", 0, 0, false);
	fw.rl = &rl;
	err = runloop_watch_fd(&rl, ring_buffer__epoll_fd(fw.rb), POLLIN, on_ready, &fw);
	if (err) {
		fprintf(stderr, "cookie: cannot wait for the ring buffer: %s\n", strerror(-err));
		fw.err = err;
	} else {
		while (runloop_next(&rl) != RUNLOOP_STOP)
			;
	}
	set_follower(map_fd, 0);
	/* Drain what is already there, so a stop loses nothing that was drawn before it. */
	if (!fw.err && !(o->count && fw.followed >= o->count))
		ring_buffer__consume(fw.rb);
	fflush(stdout);
	runloop_finish(&rl);
	if (fw.err)
		fprintf(stderr, "cookie: reading the ring buffer failed: %s\n", strerror(-fw.err));
	err = fw.err ? 1 : 0;
out:
	ring_buffer__free(fw.rb);
	close(lock_fd);
	close(map_fd);
	close(fd);
	return err;
}
