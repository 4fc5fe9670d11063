// SPDX-License-Identifier: GPL-2.0
/*
 * eht-hosts' exposition. The host table is read in batch lookups (eht_snap_take), the
 * counters from the mmapped .bss; hosts are summed per (port name, group), the labels
 * DESIGN.md fixes, so ports of other namespaces or VLANs with the same name and group add up
 * into one series rather than repeating one (which would make the exposition invalid).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/eht_metrics.h"
#include "src/metrics_export.h"

struct eht_group_count {
	char port[EHT_IFNAMSIZ + 1];
	char group[INET6_ADDRSTRLEN];
	__u64 hosts;
};

static struct {
	struct metrics_export x;
	const struct eht_source *src;
	struct eht_snap snap;
	struct eht_group_count *groups;
	size_t cap;
} mx;

static int cmp_group(const void *a, const void *b)
{
	const struct eht_group_count *x = a, *y = b;
	int c = strcmp(x->port, y->port);

	return c ? c : strcmp(x->group, y->group);
}

static void group_name(const struct eht_key *k, char *buf, size_t len)
{
	if (k->proto == EHT_PROTO_IPV4)
		inet_ntop(AF_INET, k->group, buf, len);
	else if (k->proto == EHT_PROTO_IPV6)
		inet_ntop(AF_INET6, k->group, buf, len);
	else
		snprintf(buf, len, "proto-0x%04x", k->proto);
}

static void render(void *arg, struct metrics *m)
{
	struct eht_snap *s = &mx.snap;
	size_t n = 0;

	if (!mx.src || eht_snap_take(mx.src, s)) {
		metrics_family(m, "bareatom_eht_up", METRICS_GAUGE, NULL,
			       "1 when the host table could be read.");
		metrics_u64(m, NULL, 0, 0);
		return;
	}
	if (s->n > mx.cap) {
		struct eht_group_count *g = realloc(mx.groups, s->n * sizeof(*g));

		if (!g) {
			m->err = m->err ?: -ENOMEM;
			return;
		}
		mx.groups = g;
		mx.cap = s->n;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct eht_group_count *g = &mx.groups[n++];

		memset(g, 0, sizeof(*g));
		memcpy(g->port, s->rows[i].v.port, EHT_IFNAMSIZ);
		group_name(&s->rows[i].k, g->group, sizeof(g->group));
		g->hosts = 1;
	}
	qsort(mx.groups, n, sizeof(*mx.groups), cmp_group);
	metrics_family(m, "bareatom_eht_up", METRICS_GAUGE, NULL, "1 when the host table could be read.");
	metrics_u64(m, NULL, 0, 1);
	metrics_family(m, "bareatom_eht_hosts", METRICS_GAUGE, NULL,
		       "Hosts the bridge tracks (EHT) per port and multicast group.");
	for (size_t i = 0; i < n; i++) {
		struct metrics_label l[2] = { { "port", mx.groups[i].port }, { "group", mx.groups[i].group } };
		__u64 hosts = mx.groups[i].hosts;

		while (i + 1 < n && !cmp_group(&mx.groups[i], &mx.groups[i + 1]))
			hosts += mx.groups[++i].hosts;
		metrics_u64(m, l, 2, hosts);
	}
	metrics_family(m, "bareatom_eht_events", METRICS_COUNTER, NULL,
		       "Hits of each br_eht_* tracepoint (event: its name without br_eht_).");
	for (int e = 0; e < EHT_EV_NR; e++) {
		struct metrics_label l = { "event", eht_tp_names[e] + strlen("br_eht_") };

		metrics_u64(m, &l, 1, s->events[e]);
	}
	metrics_family(m, "bareatom_eht_hosts_adopted", METRICS_COUNTER, NULL,
		       "Hosts first seen after their creation (they existed before tracing began).");
	metrics_u64(m, NULL, 0, s->adopted);
	metrics_family(m, "bareatom_eht_hosts_lost", METRICS_COUNTER, NULL,
		       "Hosts that could not be stored: the table was full.");
	metrics_u64(m, NULL, 0, s->lost);
}

int eht_metrics_open(const char *listen, const char *textfile, double period)
{
	return metrics_export_open(&mx.x, "eht-hosts", listen, textfile, period, render, NULL);
}

int eht_metrics_watch(struct runloop *rl, const struct eht_source *src)
{
	mx.src = src;
	return metrics_export_watch(&mx.x, rl);
}

int eht_metrics_close(struct runloop *rl)
{
	int status = metrics_export_close(&mx.x, rl);

	mx.src = NULL;
	eht_snap_free(&mx.snap);
	free(mx.groups);
	mx.groups = NULL;
	mx.cap = 0;
	return status;
}
