// SPDX-License-Identifier: GPL-2.0
/* The run loop's side of --listen and --textfile (metrics_export.h). */
#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include "src/metrics_export.h"
#include "src/metrics_textfile.h"
#include "src/clock.h"

/* To x->log when the tool has a log of its own, else "prog: message" on stderr. */
static void say(struct metrics_export *x, int prio, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (x->log)
		x->log(prio, "%s", buf);
	else
		fprintf(stderr, "%s: %s\n", x->prog, buf);
}

int metrics_export_open(struct metrics_export *x, const char *prog, const char *listen,
			const char *textfile, double period, http_render_fn render, void *arg)
{
	memset(x, 0, sizeof(*x));
	x->prog = prog;
	x->textfile = textfile;
	x->period = period;
	x->render = render;
	x->arg = arg;
	x->timer_fd = -1;
	if (!listen)
		return 0;
	if (http_serve_open(&x->http, listen, render, arg)) {
		say(x, LOG_ERR, "%s", x->http.error);
		return 1;
	}
	x->http_open = true;
	say(x, LOG_INFO, "metrics on http://%s/metrics", x->http.bound);
	return 0;
}

static void write_textfile(struct metrics_export *x)
{
	struct metrics m;
	int err;

	metrics_init(&m, HTTP_BODY_MAX);
	metrics_begin(&m, METRICS_PROMETHEUS);
	x->render(x->arg, &m);
	metrics_end(&m);
	err = m.err ? m.err : metrics_write_textfile(x->textfile, m.buf, m.len);
	metrics_free(&m);
	/* Once per change: a full disk would repeat every interval. */
	if (err && err != x->last_err)
		say(x, LOG_ERR, "cannot write %s: %s", x->textfile, strerror(-err));
	else if (!err && x->last_err)
		say(x, LOG_INFO, "%s is written again", x->textfile);
	x->last_err = err;
}

/* The timer: at the next textfile write or the HTTP client's deadline, whichever is first. */
static void rearm(struct metrics_export *x)
{
	double when = x->textfile ? x->textfile_next : 0, dl;
	struct itimerspec its = {};

	dl = x->http_open ? http_serve_deadline(&x->http) : 0;
	if (dl && (!when || dl < when))
		when = dl;
	if (when) {
		its.it_value.tv_sec = (time_t)when;
		its.it_value.tv_nsec = (long)((when - (time_t)when) * 1e9);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(x->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void on_ready(int fd, short revents, void *arg)
{
	struct metrics_export *x = arg;
	double now = clock_now();
	uint64_t expirations;

	if (fd == x->timer_fd && read(fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return;
	if (x->http_open)
		http_serve_ready(&x->http);
	if (x->textfile && now >= x->textfile_next) {
		write_textfile(x);
		x->textfile_next = clock_next_tick(x->textfile_next, x->period, now);
	}
	rearm(x);
}

int metrics_export_watch(struct metrics_export *x, struct runloop *rl)
{
	int err;

	if (!x->http_open && !x->textfile)
		return 0;
	x->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (x->timer_fd < 0)
		return -errno;
	err = runloop_watch_fd(rl, x->timer_fd, POLLIN, on_ready, x);
	if (!err && x->http_open)
		err = runloop_watch_fd(rl, http_serve_fd(&x->http), POLLIN, on_ready, x);
	if (err) {
		say(x, LOG_ERR, "cannot serve metrics from the run loop: %s", strerror(-err));
		return err;
	}
	x->textfile_next = rl->start;	/* the first write right away */
	rearm(x);
	return 0;
}

int metrics_export_close(struct metrics_export *x, struct runloop *rl)
{
	if (x->textfile)
		write_textfile(x);
	if (x->timer_fd >= 0) {
		runloop_watch_fd(rl, x->timer_fd, 0, NULL, NULL);
		close(x->timer_fd);
		x->timer_fd = -1;
	}
	if (x->http_open) {
		runloop_watch_fd(rl, http_serve_fd(&x->http), 0, NULL, NULL);
		http_serve_close(&x->http);
		x->http_open = false;
	}
	return x->last_err ? 1 : 0;
}
