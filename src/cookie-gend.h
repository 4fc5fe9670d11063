/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's parts, shared between its files:
 *   cookie-gend.c   options, logging, the durable mark (extend, draws for clients), start-up
 *   cookie_pins.c   the BPF side: load, reuse the pinned maps, keep or replace pinned links
 *   cookie_serve.c  the socket: clients, their bounds, requests, the event loop (cookie_serve.h)
 *   cookie_rate.c   the socket's per-uid rate limit (cookie_rate.h)
 *   cookie_metrics.c  --listen and --textfile: the statistics for Prometheus (cookie_metrics.h)
 * The socket and the metrics see the daemon only through struct cookie_gend_ops.
 * The durable state files themselves are cookie_store.c; the protocol is cookie_proto.c.
 */
#ifndef __BAREATOM_COOKIE_GEND_H
#define __BAREATOM_COOKIE_GEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <syslog.h>
#include <linux/types.h>
#include "cookie.h"
#include "cookie_proto.h"
#include "cookie_store.h"

#define SAVE_BACKOFF_MIN	0.1	/* seconds before retrying a failed save of the mark */
#define SAVE_BACKOFF_MAX	5.0

extern struct env {
	bool foreground;
	bool verbose;
	bool tpgen;
	bool global;
	bool uninstall;
	const char *state_dir;
	const char *socket;
	long node_id;		/* --node-id, or -1: the state directory's */
	const char *listen;	/* --listen ADDR:PORT */
	const char *textfile;	/* --textfile PATH */
	double interval;	/* seconds between textfile writes */
	uint64_t rate, burst;	/* --rate-limit (0: unlimited), --rate-burst */
} env;

extern struct daemon {
	struct cookie_bpf *skel;
	struct cookie_state *st;
	size_t map_len;
	int state_fd;		/* the state map */
	int task_fd;		/* task storage */
	struct cookie_store store;	/* the state directory: every sequence handed out is below its mark */
	unsigned int node;	/* the node id, fixed by the state directory */
	__u64 node_base;	/* node << 48: the node's first cookie value (never one itself) */
	__u64 extensions;
	/* Saving the mark failed: retried with backoff, logged once per change of state. */
	int save_err;
	double save_retry_at, save_backoff;
	__u64 save_errors;
} d;

struct cookie_bpf;

void logmsg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void notify_systemd(const char *msg);

/* The durable mark (cookie-gend.c). */
int extend(__u64 need);
void check_headroom(void);
int draw_for_client(__u64 n, __u64 *first);

/* The BPF side (cookie_pins.c). */
extern const char *const pin_names[];
extern const size_t nr_pin_names;
const char *pin_path(char *buf, size_t len, const char *name);
int setup_bpf(void);
int attach_programs(void);
void clear_dead_follower(void);

#endif /* __BAREATOM_COOKIE_GEND_H */
