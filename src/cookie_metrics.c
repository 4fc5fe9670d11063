// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend's metrics (--listen, --textfile): the counters STATS reports, read the same
 * way (the mmapped state map and the daemon's own counts), as OpenMetrics families.
 */
#include <errno.h>
#include <string.h>
#include "cookie-gend.h"
#include "http_serve.h"
#include "util.h"

static struct http_serve http;
static bool http_open;
static double textfile_next;

/* GET sizes: bucket k holds the requests for (2^(k-1), 2^k] cookies, up to 2^16. */
#define GET_BUCKETS 17
static uint64_t get_counts[GET_BUCKETS], get_requests, get_sum;

void cookie_metrics_get(__u64 n)
{
	int k = n <= 1 ? 0 : 64 - __builtin_clzll(n - 1);

	get_counts[k < GET_BUCKETS ? k : GET_BUCKETS - 1]++;
	get_requests++;
	get_sum += n;
}

static __u64 load(__u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void counter(struct metrics *m, const char *name, const char *help, __u64 v)
{
	metrics_family(m, name, METRICS_COUNTER, NULL, help);
	metrics_u64(m, NULL, 0, v);
}

static void gauge(struct metrics *m, const char *name, const char *help, __u64 v)
{
	metrics_family(m, name, METRICS_GAUGE, NULL, help);
	metrics_u64(m, NULL, 0, v);
}

static void render(void *arg, struct metrics *m)
{
	struct cookie_state *st = d.st;
	double le[GET_BUCKETS];
	const struct metrics_label src[][1] = {
		{ { "source", "socket" } }, { { "source", "fork" } }, { { "source", "tpgen" } },
	};

	metrics_family(m, "bareatom_cookie_served", METRICS_COUNTER, NULL,
		       "Cookies handed out: over the socket (GET, since this daemon started), to "
		       "new tasks at fork and on tpgen_b events (by BPF, since the maps were created).");
	metrics_u64(m, src[0], 1, d.served);
	metrics_u64(m, src[1], 1, load(&st->fork_cookies));
	metrics_u64(m, src[2], 1, load(&st->tpgen_cookies));
	counter(m, "bareatom_cookie_denied", "Draws refused because the counter had reached the "
		"durable limit.", load(&st->denied));
	gauge(m, "bareatom_cookie_highwater", "The durable high-water mark: every cookie ever "
	      "handed out is below it.", d.mark.store.highwater);
	gauge(m, "bareatom_cookie_next", "The counter's next cookie.", load(&st->next));
	counter(m, "bareatom_cookie_state_errors", "Failed saves of the high-water mark.",
		d.mark.save_errors);
	gauge(m, "bareatom_cookie_state_error", "1 while the mark cannot be saved (draws past it "
	      "are refused).", d.mark.save_err != 0);
	gauge(m, "bareatom_cookie_clients", "Socket clients connected now.", d.nclients);
	counter(m, "bareatom_cookie_connections", "Socket clients accepted.", d.clients_total);
	counter(m, "bareatom_cookie_refused_clients", "Socket clients refused (too many).",
		d.refused_clients);
	counter(m, "bareatom_cookie_requests", "Socket requests.", d.requests);
	counter(m, "bareatom_cookie_request_errors", "Socket requests answered with ERR.", d.errors);
	counter(m, "bareatom_cookie_extensions", "Extensions of the durable mark (one fsync each).",
		d.mark.extensions);
	counter(m, "bareatom_cookie_batches", "Per-CPU batches BPF reserved.", load(&st->batches));
	counter(m, "bareatom_cookie_events_lost", "Drawn cookies not reported (ring buffer full).",
		load(&st->events_lost));
	for (int k = 0; k < GET_BUCKETS; k++)
		le[k] = (double)(1u << k);
	metrics_family(m, "bareatom_cookie_get_size", METRICS_HISTOGRAM, NULL,
		       "Cookies asked for by each GET served (its sum is served{source=\"socket\"}).");
	metrics_histogram(m, NULL, 0, le, get_counts, GET_BUCKETS, get_requests, true, get_sum);
}

int cookie_metrics_open(void)
{
	int err;

	if (!env.listen)
		return 0;
	err = http_serve_open(&http, env.listen, render, NULL);
	if (err) {
		logmsg(LOG_ERR, "%s", http.error);
		return err;
	}
	http_open = true;
	logmsg(LOG_INFO, "metrics on http://%s/metrics", http.bound);
	return 0;
}

int cookie_metrics_fd(void)
{
	return http_open ? http_serve_fd(&http) : -1;
}

static void write_textfile(void)
{
	static int last_err;
	struct metrics m;
	int err;

	metrics_init(&m, HTTP_BODY_MAX);
	metrics_begin(&m, METRICS_PROMETHEUS);
	render(NULL, &m);
	metrics_end(&m);
	err = m.err ? m.err : metrics_write_textfile(env.textfile, m.buf, m.len);
	metrics_free(&m);
	/* Logged on a change only: a full disk would otherwise log every interval. */
	if (err && err != last_err)
		logmsg(LOG_ERR, "cannot write %s: %s", env.textfile, strerror(-err));
	else if (!err && last_err)
		logmsg(LOG_INFO, "%s is written again", env.textfile);
	last_err = err;
}

void cookie_metrics_tick(bool ready, bool final)
{
	double now = util_now();

	if (http_open && (ready || (http_serve_deadline(&http) && now >= http_serve_deadline(&http))))
		http_serve_ready(&http);
	if (env.textfile && (final || now >= textfile_next)) {
		write_textfile();
		textfile_next = util_next_tick(d.started, env.interval, now);
	}
}

void cookie_metrics_close(void)
{
	if (env.textfile)
		cookie_metrics_tick(false, true);
	if (http_open)
		http_serve_close(&http);
	http_open = false;
}
