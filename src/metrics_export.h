/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen and --textfile for a tool on the run loop (tpstat, eht-hosts, cookie-gend): the
 * HTTP server and a timerfd (the client's deadline, the textfile's next write) watched by
 * the loop. The textfile is written by metrics_textfile.c, rendered by the tool's render.
 *
 *	metrics_export_open(&x, "tool", listen, textfile, period, render, arg);	(before loading)
 *	runloop_init(&rl, ...); metrics_export_watch(&x, &rl);
 *	...the loop...; the final report;
 *	status = metrics_export_close(&x, &rl);		(the textfile's last write)
 */
#ifndef __BAREATOM_METRICS_EXPORT_H
#define __BAREATOM_METRICS_EXPORT_H

#include <syslog.h>
#include "src/http_serve.h"
#include "src/runloop.h"

struct metrics_export {
	const char *prog, *textfile;
	struct http_serve http;
	bool http_open;
	double period, textfile_next;
	int timer_fd, last_err;
	http_render_fn render;
	void *arg;
	/* Set after open for a tool with a log of its own (a daemon's syslog); NULL: stderr. */
	void (*log)(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

/*
 * Open --listen (@listen or NULL: the bound address is said on stderr) and remember
 * --textfile (@textfile or NULL, rewritten every @period seconds). Returns 0, or 1 after
 * one line on stderr.
 */
int metrics_export_open(struct metrics_export *x, const char *prog, const char *listen,
			const char *textfile, double period, http_render_fn render, void *arg);

/* Serve from @rl from now on (nothing to do without --listen and --textfile). */
int metrics_export_watch(struct metrics_export *x, struct runloop *rl);

/* Write the textfile one last time and close; 1 when that write failed (said on stderr). */
int metrics_export_close(struct metrics_export *x, struct runloop *rl);

#endif /* __BAREATOM_METRICS_EXPORT_H */
