/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's run: the socket server (cookie_serve.h) and the metrics (metrics_export.h)
 * on the tools' one run loop (runloop.h), with the daemon's tick every TICK_MS and after
 * each batch of requests. It sees the daemon only through the server's struct
 * cookie_gend_ops (the tick, the log, systemd), so it runs without cookie-gend.c too
 * (tests/unit/cookie-serve.c).
 */
#ifndef __BAREATOM_COOKIE_LOOP_H
#define __BAREATOM_COOKIE_LOOP_H

#include "src/cookie_serve.h"
#include "src/metrics_export.h"

/*
 * Serve @s (cookie_serve_open()ed) and @mx (metrics_export_open()ed, or NULL) until SIGTERM,
 * SIGINT or SIGHUP (0) or a failure to start the loop (a negative errno). Once clients are
 * served it logs so, tells systemd READY=1, and writes one byte to @ready_fd and closes it
 * (unless -1). At the end it tells systemd STOPPING=1 and closes @mx (the textfile's last
 * write); @s stays open.
 */
int cookie_loop_run(struct cookie_server *s, struct metrics_export *mx, int ready_fd);

#endif /* __BAREATOM_COOKIE_LOOP_H */
