// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend's metrics (--listen, --textfile): the counters STATS reports, read the same
 * way (a snapshot of the counter and the mark, and the socket's own counts), as OpenMetrics
 * families.
 */
#include <stdio.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_metrics.h"
#include "src/cookie_serve.h"

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

void cookie_metrics_render(void *server, struct metrics *m)
{
	const struct cookie_server *s = server;
	const struct cookie_serve_stats *sv = &s->stats;
	struct cookie_gend_snapshot g;
	double le[GET_BUCKETS];
	char node[8];
	const struct metrics_label src[][1] = {
		{ { "source", "socket" } }, { { "source", "fork" } }, { { "source", "tpgen" } },
	};
	const struct metrics_label on_node[1] = { { "node", node } };

	s->ops->snapshot(s->ops->arg, &g);
	snprintf(node, sizeof(node), "%u", g.node);
	metrics_family(m, "bareatom_cookie_served", METRICS_COUNTER, NULL,
		       "Cookies handed out: over the socket (GET, since this daemon started), to "
		       "new tasks at fork and on tpgen_b events (by BPF, since the maps were created).");
	metrics_u64(m, src[0], 1, sv->served);
	metrics_u64(m, src[1], 1, g.fork_cookies);
	metrics_u64(m, src[2], 1, g.tpgen_cookies);
	counter(m, "bareatom_cookie_denied", "Draws refused because the counter had reached the "
		"durable limit.", g.denied);
	counter(m, "bareatom_cookie_rate_limited", "Socket requests refused by the per-uid rate "
		"limit (cookie-gend --rate-limit).", sv->rate_limited);
	/*
	 * Within the node (the low 48 bits), with the node as a label: a whole cookie value of
	 * node 32 or above is past 2^53, which a float64 sample cannot hold exactly.
	 */
	metrics_family(m, "bareatom_cookie_highwater", METRICS_GAUGE, NULL, "The durable high-water "
		       "mark within the node: every cookie node N ever handed out is below "
		       "N * 2^48 + this.");
	metrics_u64(m, on_node, 1, g.highwater);
	metrics_family(m, "bareatom_cookie_next", METRICS_GAUGE, NULL, "The counter's next cookie "
		       "within the node (the cookie is N * 2^48 + this).");
	metrics_u64(m, on_node, 1, g.next - COOKIE_NODE_BASE(g.node));
	counter(m, "bareatom_cookie_state_errors", "Failed saves of the high-water mark.",
		g.state_errors);
	gauge(m, "bareatom_cookie_state_error", "1 while the mark cannot be saved (draws past it "
	      "are refused).", g.state_err != 0);
	gauge(m, "bareatom_cookie_clients", "Socket clients connected now.", sv->nclients);
	counter(m, "bareatom_cookie_connections", "Socket clients accepted.", sv->clients_total);
	counter(m, "bareatom_cookie_refused_clients", "Socket clients refused (too many).",
		sv->refused_clients);
	counter(m, "bareatom_cookie_requests", "Socket requests.", sv->requests);
	counter(m, "bareatom_cookie_request_errors", "Socket requests answered with ERR.", sv->errors);
	counter(m, "bareatom_cookie_extensions", "Extensions of the durable mark (one fsync each).",
		g.extensions);
	counter(m, "bareatom_cookie_batches", "Per-CPU batches BPF reserved.", g.batches);
	counter(m, "bareatom_cookie_events_lost", "Drawn cookies not reported (ring buffer full).",
		g.events_lost);
	if (g.etcd) {
		/* --etcd (cookie_fleet.h): only then, so a daemon without it shows no empty claim. */
		gauge(m, "bareatom_cookie_etcd_claimed", "1 while this daemon holds its node id's "
		      "claim in etcd.", g.etcd_claimed);
		gauge(m, "bareatom_cookie_etcd_claim_revision", "The claim key's create_revision in "
		      "etcd (changes when the id is claimed again).", (__u64)g.etcd_claim_rev);
		gauge(m, "bareatom_cookie_etcd_reserved_left", "Cookies reserved in etcd above the "
		      "counter: what can still be served without etcd.", g.etcd_reserved_left);
		counter(m, "bareatom_cookie_etcd_keepalive_failures", "Lease keepalives etcd did not "
			"answer.", g.etcd_keepalive_failures);
		counter(m, "bareatom_cookie_etcd_txn_failures", "Reserve txns that failed (etcd "
			"unreachable, the claim lost, the mark changed by hand).", g.etcd_txn_failures);
		metrics_family(m, "bareatom_cookie_etcd_without_claim_seconds", METRICS_GAUGE, NULL,
			       "Seconds since the claim was lost, 0 while it is held.");
		metrics_double(m, NULL, 0, g.etcd_without_claim);
		counter(m, "bareatom_cookie_etcd_refused", "Socket draws refused for want of a range "
			"reserved in etcd.", g.etcd_refused);
		counter(m, "bareatom_cookie_etcd_moves", "Moves to another node id (this daemon's "
			"own taken by another holder), or to a fresh counter of its own id claimed "
			"back after another holder's.", g.etcd_moves);
	}
	for (int k = 0; k < GET_BUCKETS; k++)
		le[k] = (double)(1u << k);
	metrics_family(m, "bareatom_cookie_get_size", METRICS_HISTOGRAM, NULL,
		       "Cookies asked for by each GET served (its sum is served{source=\"socket\"}).");
	metrics_histogram(m, NULL, 0, le, sv->get_counts, GET_BUCKETS, sv->get_requests, true,
			  sv->get_sum);
}
