// SPDX-License-Identifier: GPL-2.0
/* eht-hosts' output (eht_fmt.h). */
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include "src/eht_fmt.h"
#include "src/json.h"

struct cells {
	char port[EHT_IFNAMSIZ + 16];
	char group[INET6_ADDRSTRLEN];
	char host[INET6_ADDRSTRLEN];
	char cookie[24];
	char changed[24];
	const char *mode;
	const char *family;
};

static void fmt_addr(const struct eht_key *k, const __u8 *addr, char *buf, size_t len)
{
	if (k->proto == EHT_PROTO_IPV4)
		inet_ntop(AF_INET, addr, buf, len);
	else if (k->proto == EHT_PROTO_IPV6)
		inet_ntop(AF_INET6, addr, buf, len);
	else
		snprintf(buf, len, "proto-0x%04x", k->proto);
}

static void fmt_age(__u64 now, __u64 then, char *buf, size_t len)
{
	double s = now > then ? (double)(now - then) / 1e9 : 0;

	if (s < 60)
		snprintf(buf, len, "%.1fs ago", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds ago", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%.1fh ago", s / 3600);
}

static void fill_cells(const struct eht_snap *s, const struct eht_row *r, struct cells *c)
{
	char name[IF_NAMESIZE];

	if (r->v.port[0])
		snprintf(c->port, sizeof(c->port), "%.*s", EHT_IFNAMSIZ, r->v.port);
	else if (if_indextoname(r->k.ifindex, name))
		snprintf(c->port, sizeof(c->port), "%s", name);
	else
		snprintf(c->port, sizeof(c->port), "if%u", r->k.ifindex);
	fmt_addr(&r->k, r->k.group, c->group, sizeof(c->group));
	fmt_addr(&r->k, r->k.host, c->host, sizeof(c->host));
	c->mode = r->v.mode == EHT_MODE_INCLUDE ? "INCLUDE" : r->v.mode == EHT_MODE_EXCLUDE ?
		  "EXCLUDE" : "?";
	c->family = r->k.proto == EHT_PROTO_IPV4 ? "ipv4" : r->k.proto == EHT_PROTO_IPV6 ?
		    "ipv6" : "other";
	snprintf(c->cookie, sizeof(c->cookie), "%llu%s", (unsigned long long)r->v.cookie,
		 r->v.flags & EHT_HOST_ADOPTED ? "*" : "");
	fmt_age(s->mono_ns, r->v.last_change_ns, c->changed, sizeof(c->changed));
}

static bool any_vid(const struct eht_snap *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i].k.vid)
			return true;
	return false;
}

static int widen(int w, const char *s)
{
	return (int)strlen(s) > w ? (int)strlen(s) : w;
}

void eht_fmt_table(FILE *f, const struct eht_snap *s)
{
	int wp = 4, wg = 5, wh = 4, wc = 6;
	bool vid = any_vid(s), adopted = false;
	struct cells c;

	for (size_t i = 0; i < s->n; i++) {
		fill_cells(s, &s->rows[i], &c);
		wp = widen(wp, c.port);
		wg = widen(wg, c.group);
		wh = widen(wh, c.host);
		wc = widen(wc, c.cookie);
		adopted |= s->rows[i].v.flags & EHT_HOST_ADOPTED;
	}
	if (!s->n) {
		fprintf(f, "no EHT hosts (hosts are tracked on bridge ports with fastleave on)\n");
	} else {
		fprintf(f, "%-*s %s%-*s %-*s %-7s %7s %7s %*s  %s\n", wp, "PORT", vid ? "  VID " : "",
			wg, "GROUP", wh, "HOST", "MODE", "SOURCES", "REPORTS", wc, "COOKIE", "CHANGED");
		for (size_t i = 0; i < s->n; i++) {
			const struct eht_row *r = &s->rows[i];

			fill_cells(s, r, &c);
			fprintf(f, "%-*s ", wp, c.port);
			if (vid)
				fprintf(f, "%5u ", r->k.vid);
			fprintf(f, "%-*s %-*s %-7s %7u %7llu %*s  %s\n", wg, c.group, wh, c.host, c.mode,
				r->v.sources, (unsigned long long)r->v.reports, wc, c.cookie, c.changed);
		}
		if (adopted)
			fprintf(f, "* adopted: the host existed before tracing began; REPORTS counts from then\n");
	}
	fprintf(f, "\n%-26s %12s\n", "TRACEPOINT", "HITS");
	for (int i = 0; i < EHT_EV_NR; i++)
		fprintf(f, "%-26s %12llu\n", eht_tp_names[i], (unsigned long long)s->events[i]);
	if (s->adopted || s->lost)
		fprintf(f, "%-26s %12llu\n%-26s %12llu\n", "(hosts adopted)",
			(unsigned long long)s->adopted, "(hosts lost: table full)",
			(unsigned long long)s->lost);
	fflush(f);
}

void eht_fmt_json(FILE *f, const struct eht_snap *s, int interval, bool final)
{
	struct json j;
	struct cells c;

	json_init(&j, f);
	json_object_begin(&j);
	json_float_field(&j, "ts", 6, s->ts);
	json_u64_field(&j, "mono_ns", s->mono_ns);
	if (interval)
		json_i64_field(&j, "interval", interval);
	json_bool_field(&j, "final", final);
	json_array_field_begin(&j, "hosts");
	for (size_t i = 0; i < s->n; i++) {
		const struct eht_row *r = &s->rows[i];

		fill_cells(s, r, &c);
		json_object_begin(&j);
		json_string_field(&j, "port", c.port);
		json_u64_field(&j, "ifindex", r->k.ifindex);
		json_u64_field(&j, "netns", r->k.netns);
		json_string_field(&j, "family", c.family);
		json_string_field(&j, "group", c.group);
		json_u64_field(&j, "vid", r->k.vid);
		json_string_field(&j, "host", c.host);
		json_string_field(&j, "mode", c.mode);
		json_u64_field(&j, "sources", r->v.sources);
		json_u64_field(&j, "reports", r->v.reports);
		json_u64_field(&j, "cookie", r->v.cookie);
		json_bool_field(&j, "adopted", r->v.flags & EHT_HOST_ADOPTED);
		json_bool_field(&j, "truncated", r->v.flags & EHT_HOST_TRUNCATED);
		json_u64_field(&j, "first_ns", r->v.first_ns);
		json_u64_field(&j, "last_change_ns", r->v.last_change_ns);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_field_begin(&j, "events");
	for (int i = 0; i < EHT_EV_NR; i++)
		json_u64_field(&j, eht_tp_names[i], s->events[i]);
	json_object_end(&j);
	json_u64_field(&j, "adopted", s->adopted);
	json_u64_field(&j, "lost", s->lost);
	json_object_end(&j);
}

void eht_fmt_change_header(FILE *f)
{
	fprintf(f, "%-10s %-6s %-10s %-20s %-20s %-7s %7s %7s %8s\n", "TIME", "CHANGE", "PORT",
		"GROUP", "HOST", "MODE", "SOURCES", "REPORTS", "COOKIE");
}

void eht_fmt_change(FILE *f, double t, enum eht_change what, const struct eht_snap *s,
		    const struct eht_row *r)
{
	struct cells c;

	fill_cells(s, r, &c);
	fprintf(f, "%-10.3f %-6s %-10s %-20s %-20s %-7s %7u %7llu %8s\n", t, eht_change_name(what),
		c.port, c.group, c.host, c.mode, r->v.sources, (unsigned long long)r->v.reports,
		c.cookie);
}
