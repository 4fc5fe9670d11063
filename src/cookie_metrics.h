/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's metrics (cookie_metrics.c): the counts STATS reports, as OpenMetrics
 * families, for --listen and --textfile through metrics_export.h:
 *
 *	metrics_export_open(&mx, "cookie-gend", listen, textfile, interval,
 *			    cookie_metrics_render, &server);
 *
 * It reads the daemon through the server's struct cookie_gend_ops (a snapshot of the
 * counter and the mark) and the socket's own counts from the server: no global crosses a file.
 */
#ifndef __BAREATOM_COOKIE_METRICS_H
#define __BAREATOM_COOKIE_METRICS_H

#include "src/metrics.h"

/* An http_render_fn: @server is the struct cookie_server whose counts are written. */
void cookie_metrics_render(void *server, struct metrics *m);

#endif /* __BAREATOM_COOKIE_METRICS_H */
