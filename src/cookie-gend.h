/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's parts, shared between its files:
 *   cookie-gend.c   options, logging, the durable mark (extend, draws for clients), start-up
 *   cookie_pins.c   the BPF side: load, reuse the pinned maps, keep or replace pinned links
 *   cookie_serve.c  the socket: clients, their bounds, requests, the event loop
 *   cookie_metrics.c  --listen and --textfile: the statistics for Prometheus
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

#define MAX_CLIENTS		256
#define ROOT_RESERVED		16	/* slots only root may take, so root is always served */
#define MAX_PER_UID		32	/* connections one uid may hold at once */
#define IDLE_TIMEOUT_SECS	30	/* from the last complete request (or the accept) */
#define LINE_TIMEOUT_SECS	10	/* from the first byte of a line to its newline */
#define TICK_MS			20
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
} env;

struct client {
	int fd;
	uid_t uid;		/* SO_PEERCRED: connections are bounded per uid */
	double last;		/* CLOCK_MONOTONIC of the accept or the last complete request */
	double line_start;	/* of the first byte of an unfinished line, 0 when none */
	struct cookie_linebuf lb;
};

extern struct daemon {
	struct cookie_bpf *skel;
	struct cookie_state *st;
	size_t map_len;
	int state_fd;		/* the state map */
	int task_fd;		/* task storage */
	struct cookie_store store;	/* the state directory: every sequence handed out is below its mark */
	unsigned int node;	/* the node id, fixed by the state directory */
	__u64 node_base;	/* node << 48: the node's first cookie value (never one itself) */
	__u64 extensions, requests, served, errors, clients_total, refused_clients;
	int nclients;
	struct client clients[MAX_CLIENTS];
	double started;		/* CLOCK_MONOTONIC */
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

/* The socket (cookie_serve.c). */
int check_socket_path(const char *path);
int listen_socket(void);
int serve(int lfd, int ready_fd);

/*
 * Metrics (cookie_metrics.c): open the --listen socket (0 when none asked), its fd for the
 * loop (-1 when none), the loop's hook (@ready: the fd was readable; @final: the last
 * call, writes the textfile whatever the interval), the GET size histogram's hook and the
 * end.
 */
int cookie_metrics_open(void);
void cookie_metrics_get(__u64 n);	/* a GET of @n cookies was served */
int cookie_metrics_fd(void);
void cookie_metrics_tick(bool ready, bool final);
void cookie_metrics_close(void);

#endif /* __BAREATOM_COOKIE_GEND_H */
