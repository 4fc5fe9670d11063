// SPDX-License-Identifier: GPL-2.0
/* cookie-gend on the run loop (cookie_loop.h). */
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include "src/cookie_loop.h"
#include "src/runloop.h"

static void on_socket(int fd, short revents, void *arg)
{
	struct cookie_server *s = arg;

	cookie_serve_ready(s);
	/* Right after the draws, not at the next tick: a refused draw asks for room at once. */
	s->ops->tick(s->ops->arg);
}

int cookie_loop_run(struct cookie_server *s, struct metrics_export *mx, int ready_fd)
{
	const struct cookie_gend_ops *ops = s->ops;
	enum runloop_event ev;
	struct runloop rl;
	int err;

	signal(SIGPIPE, SIG_IGN);
	/* A daemon has no terminal to hang up: SIGHUP is one more way to stop it cleanly. */
	runloop_init(&rl, "cookie-gend", TICK_MS / 1000.0, 0, false);
	err = runloop_stop_on(&rl, SIGHUP) ?:
	      runloop_watch_fd(&rl, cookie_serve_fd(s), POLLIN, on_socket, s) ?:
	      (mx ? metrics_export_watch(mx, &rl) : 0);
	if (err) {
		if (ready_fd >= 0)
			close(ready_fd);
		runloop_finish(&rl);
		return err;
	}
	ops->log(LOG_INFO, "serving on %s", s->socket);
	ops->notify("READY=1\nSTATUS=serving cookies");
	if (ready_fd >= 0) {
		if (write(ready_fd, "", 1) < 0)
			ops->log(LOG_DEBUG, "parent gone");
		close(ready_fd);
	}
	while ((ev = runloop_next(&rl)) != RUNLOOP_STOP) {
		if (ev == RUNLOOP_TICK) {
			ops->tick(ops->arg);
			cookie_serve_expire(s);
		}
	}
	ops->log(LOG_INFO, "signal %d: exiting; the pins stay for the next start", rl.stop_signal);
	ops->notify("STOPPING=1");
	if (mx)
		metrics_export_close(mx, &rl);
	runloop_finish(&rl);
	return 0;
}
