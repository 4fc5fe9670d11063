/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's socket (cookie_serve.c): clients, their bounds, requests. The server owns its
 * state and is driven by the caller's loop, as http_serve.h is: it stands as one descriptor
 * (an epoll set of the listening socket and every client), and cookie_serve_ready() does what
 * can be done without blocking when that is readable; cookie_serve_expire() on every tick.
 *
 *	struct cookie_server s = { .socket = path, .task_fd = fd, .ops = &ops };
 *	cookie_rate_init(&s.rate, rate, burst);
 *	cookie_serve_open(&s);		bound, listening, 0660 root:bareatom
 *	...poll(cookie_serve_fd(&s)): cookie_serve_ready(&s); every tick: cookie_serve_expire(&s)...
 *	cookie_serve_close(&s);		(the socket file stays: the caller removes it)
 *
 * It knows the rest of the daemon only through struct cookie_gend_ops: a draw, a snapshot of
 * the counter and the mark for STATS, and the daemon's log; the tick that keeps headroom and
 * the systemd notification are the loop's (cookie_loop.h). No global crosses a file.
 *
 * Bounds (cookie-gend(8)):
 *  - connections: MAX_CLIENTS in all; each uid but root at most MAX_PER_UID; the uids other
 *    than root share MAX_CLIENTS - ROOT_RESERVED slots, so root always has ROOT_RESERVED
 *    however many others hold. Root has no per-uid cap: its bound is MAX_CLIENTS.
 *  - draws: a token bucket per uid (cookie_rate.h), root exempt: root draws from the pinned
 *    counter directly anyway (libcookie's fast path), so limiting its socket guards nothing.
 *    A refused draw gets "ERR rate limited: ..." and the connection stays usable.
 *  - time: IDLE_TIMEOUT_SECS without a whole request, LINE_TIMEOUT_SECS for one line.
 */
#ifndef __BAREATOM_COOKIE_SERVE_H
#define __BAREATOM_COOKIE_SERVE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "src/cookie_proto.h"
#include "src/cookie_rate.h"

#define MAX_CLIENTS		256
#define ROOT_RESERVED		32	/* slots only root may take, so root is always served */
#define MAX_PER_UID		32	/* connections one uid other than root may hold at once */
#define IDLE_TIMEOUT_SECS	30	/* from the last complete request (or the accept) */
#define LINE_TIMEOUT_SECS	10	/* from the first byte of a line to its newline */
#define TICK_MS			20	/* the loop's tick: idle clients, the mark's headroom */
#define GET_BUCKETS		17	/* GET sizes: bucket k holds (2^(k-1), 2^k], up to 2^16 */

/* The counter and the durable mark at one moment, for STATS and the metrics. */
struct cookie_gend_snapshot {
	__u64 next, limit;		/* the counter and its limit: cookie values */
	__u64 highwater;		/* the durable mark: a sequence within the node */
	unsigned int node;
	__u64 fork_cookies, tpgen_cookies, denied, batches, events_lost, room_requests;
	__u64 extensions;		/* of the mark, one fsync each */
	__u64 state_errors;		/* failed saves of the mark */
	int state_err;			/* 0, or why the mark cannot be saved now */
	bool batched;			/* BPF draws in per-CPU batches */
	/* --etcd (cookie_fleet.h): the claim, what is reserved, what failed. */
	bool etcd, etcd_claimed;
	int64_t etcd_claim_rev;
	__u64 etcd_reserved_left;	/* cookies reserved in etcd above the counter */
	__u64 etcd_keepalive_failures, etcd_txn_failures;
	__u64 etcd_refused;		/* socket draws refused for want of a reserved range */
	__u64 etcd_moves;		/* moves to another node id, the daemon's own taken */
	double etcd_without_claim;	/* seconds since the claim was lost, 0 while held */
};

/*
 * The daemon, as the socket, its loop and the metrics see it: cookie-gend.c fills it in with
 * cookie_daemon.c's functions, tests/unit/cookie-serve.c with a fake. They call down into
 * the mark and the pins, never back into this server or its loop.
 */
struct cookie_gend_ops {
	void *arg;
	/* Draw @n (1 to COOKIE_GET_MAX) cookies: 0 with *first set, or a negative errno. */
	int (*draw)(void *arg, __u64 n, __u64 *first);
	void (*tick)(void *arg);	/* every TICK_MS and after each batch of requests */
	void (*snapshot)(void *arg, struct cookie_gend_snapshot *s);
	void (*log)(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	void (*notify)(const char *msg);	/* to systemd */
};

struct cookie_client {
	int fd;
	uid_t uid;		/* SO_PEERCRED: connections and draws are bounded per uid */
	double last;		/* CLOCK_MONOTONIC of the accept or the last complete request */
	double line_start;	/* of the first byte of an unfinished line, 0 when none */
	struct cookie_linebuf lb;
};

/* The socket's own counts: STATS and the metrics. */
struct cookie_serve_stats {
	__u64 requests, served, errors, clients_total, refused_clients;
	__u64 rate_limited;	/* requests refused by the per-uid rate limit */
	int nclients;
	double started;		/* CLOCK_MONOTONIC, when serving began */
	uint64_t get_counts[GET_BUCKETS], get_requests, get_sum;	/* the GET size histogram */
};

struct cookie_server {
	/* Set by the caller. */
	const char *socket;
	int task_fd;				/* the task storage map: PID's cookies */
	const struct cookie_gend_ops *ops;
	struct cookie_rate rate;		/* cookie_rate_init()ed */
	/* The server's. */
	int lfd, epfd;				/* the listening socket; the set the caller polls */
	struct cookie_serve_stats stats;
	struct cookie_client clients[MAX_CLIENTS];
};

/* 0 when @path is free or a socket (which may be replaced), -EEXIST when it is something else. */
int check_socket_path(const char *path);
/*
 * Bind and listen on s->socket (0660 root:bareatom) and make the set the caller polls; the
 * serving starts now (STATS' uptime). 0, or a negative errno (nothing left open).
 */
int cookie_serve_open(struct cookie_server *s);

/* The descriptor to poll for reading: the listening socket and every client. */
static inline int cookie_serve_fd(const struct cookie_server *s)
{
	return s->epfd;
}

/*
 * Accept, read and answer what is ready, without blocking and in bounded work per call (one
 * batch of events): the descriptor stays readable while there is more.
 */
void cookie_serve_ready(struct cookie_server *s);

/* Drop the clients past their idle or line deadline (call it every tick). */
void cookie_serve_expire(struct cookie_server *s);

/* Drop every client and close the sockets; the socket file is left to the caller. */
void cookie_serve_close(struct cookie_server *s);

#endif /* __BAREATOM_COOKIE_SERVE_H */
