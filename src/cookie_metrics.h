/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's metrics (cookie_metrics.c): --listen and --textfile, the counts STATS reports
 * as OpenMetrics families. It reads the daemon through the same struct cookie_gend_ops as
 * the socket, and the socket's own counts through a pointer: no global crosses a file.
 *
 *	struct cookie_metrics m = { .listen = ..., .textfile = ..., .interval = 10,
 *				    .ops = &ops, .serve = &server.stats };
 *	cookie_metrics_open(&m);	before anything is loaded: a taken address changes nothing
 *	cookie_metrics_fd(&m);		for the loop's epoll (-1 when there is no --listen)
 *	cookie_metrics_tick(&m, ready, final);	@ready: the fd was readable; @final: write the
 *					textfile whatever the interval
 *	cookie_metrics_close(&m);	writes the textfile one last time
 */
#ifndef __BAREATOM_COOKIE_METRICS_H
#define __BAREATOM_COOKIE_METRICS_H

#include <stdbool.h>
#include "cookie_serve.h"
#include "http_serve.h"

struct cookie_metrics {
	/* Set by the caller. */
	const char *listen;		/* ADDR:PORT, or NULL */
	const char *textfile;		/* or NULL */
	double interval;		/* seconds between textfile writes */
	const struct cookie_gend_ops *ops;
	const struct cookie_serve_stats *serve;
	/* Its own. */
	struct http_serve http;
	bool http_open;
	double textfile_next;
	int textfile_err;		/* the last write's, logged on a change only */
};

int cookie_metrics_open(struct cookie_metrics *m);	/* 0 when none asked or opened */
int cookie_metrics_fd(struct cookie_metrics *m);
void cookie_metrics_tick(struct cookie_metrics *m, bool ready, bool final);
void cookie_metrics_close(struct cookie_metrics *m);

#endif /* __BAREATOM_COOKIE_METRICS_H */
