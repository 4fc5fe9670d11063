// SPDX-License-Identifier: GPL-2.0
/*
 * eht-fmt: eht-hosts' output and snapshot diff on hand-made snapshots (no kernel): the
 * table (with and without VLANs, adopted and lost hosts), the JSON line, -w's change lines,
 * and what the diff reports for new, gone, changed and re-created hosts. Exact text.
 */
#include <stdlib.h>
#include <arpa/inet.h>
#include "src/eht_fmt.h"
#include "src/eht_snap.h"
#include "tests/unit/test.h"

static char *buf;
static size_t len;

static FILE *start(void)
{
	free(buf);
	buf = NULL;
	return open_memstream(&buf, &len);
}

static const char *text(FILE *f)
{
	fclose(f);
	return buf;
}

static void add(struct eht_snap *s, const char *port, const char *group, const char *host,
		__u16 vid, __u8 mode, __u32 sources, __u64 reports, __u64 cookie, __u8 flags)
{
	struct eht_row *r;

	eht_snap_reserve(s, 1);
	r = &s->rows[s->n++];
	memset(r, 0, sizeof(*r));
	r->k.netns = 4026531840U;
	r->k.ifindex = 7;
	r->k.vid = vid;
	if (strchr(group, ':')) {
		r->k.proto = EHT_PROTO_IPV6;
		inet_pton(AF_INET6, group, r->k.group);
		inet_pton(AF_INET6, host, r->k.host);
	} else {
		r->k.proto = EHT_PROTO_IPV4;
		inet_pton(AF_INET, group, r->k.group);
		inet_pton(AF_INET, host, r->k.host);
	}
	snprintf(r->v.port, sizeof(r->v.port), "%s", port);
	r->v.mode = mode;
	r->v.sources = sources;
	r->v.reports = reports;
	r->v.cookie = cookie;
	r->v.flags = flags;
	r->v.first_ns = 1000000000ULL;
	r->v.last_change_ns = 2000000000ULL;
	eht_snap_sort(s);
}

struct log {
	char text[1024];
	size_t n;
};

/* Every change from @old to @cur, in the order eht_diff_next() gives them, into @l. */
static void log_changes(struct log *l, const struct eht_snap *old, const struct eht_snap *cur)
{
	struct eht_change_at c;
	struct eht_diff d;
	char host[64];

	eht_diff_init(&d, old, cur);
	while (eht_diff_next(&d, &c)) {
		inet_ntop(c.r->k.proto == EHT_PROTO_IPV4 ? AF_INET : AF_INET6, c.r->k.host, host,
			  sizeof(host));
		l->n += snprintf(l->text + l->n, sizeof(l->text) - l->n, "%s %s %llu;",
				 eht_change_name(c.what), host, (unsigned long long)c.r->v.cookie);
	}
}

int main(void)
{
	struct eht_snap a = { .ts = 1764851234.25, .mono_ns = 5500000000ULL };
	struct eht_snap b = { .ts = 1764851235.25, .mono_ns = 5500000000ULL };
	struct log l = {};
	FILE *f;

	f = start();
	eht_fmt_table(f, &a);
	ASSERT_STREQ(text(f),
		     "no EHT hosts (hosts are tracked on bridge ports with fastleave on)\n\n"
		     "TRACEPOINT                         HITS\n"
		     "br_eht_host_create                    0\n"
		     "br_eht_host_destroy                   0\n"
		     "br_eht_host_filter_mode               0\n"
		     "br_eht_set_entry_create               0\n"
		     "br_eht_set_entry_delete               0\n"
		     "br_eht_fast_leave                     0\n", "empty table");

	add(&a, "veth1", "239.1.1.1", "10.0.0.2", 0, EHT_MODE_INCLUDE, 2, 3, 1, 0);
	add(&a, "veth1", "239.1.1.1", "10.0.0.3", 0, EHT_MODE_EXCLUDE, 0, 1, 12, EHT_HOST_ADOPTED);
	a.events[EHT_EV_HOST_CREATE] = 2;
	a.events[EHT_EV_SET_ENTRY_CREATE] = 4;
	a.lost = 1;
	f = start();
	eht_fmt_table(f, &a);
	ASSERT_STREQ(text(f),
		     "PORT  GROUP     HOST     MODE    SOURCES REPORTS COOKIE  CHANGED\n"
		     "veth1 239.1.1.1 10.0.0.2 INCLUDE       2       3      1  3.5s ago\n"
		     "veth1 239.1.1.1 10.0.0.3 EXCLUDE       0       1    12*  3.5s ago\n"
		     "* adopted: the host existed before tracing began; REPORTS counts from then\n\n"
		     "TRACEPOINT                         HITS\n"
		     "br_eht_host_create                    2\n"
		     "br_eht_host_destroy                   0\n"
		     "br_eht_host_filter_mode               0\n"
		     "br_eht_set_entry_create               4\n"
		     "br_eht_set_entry_delete               0\n"
		     "br_eht_fast_leave                     0\n"
		     "(hosts adopted)                       0\n"
		     "(hosts lost: table full)              1\n", "table: widths, adopted mark, lost");

	f = start();
	eht_fmt_json(f, &a, 3, false);
	ASSERT_STREQ(text(f),
		     "{\"ts\":1764851234.250000,\"mono_ns\":5500000000,\"interval\":3,\"final\":false,"
		     "\"hosts\":[{\"port\":\"veth1\",\"ifindex\":7,\"netns\":4026531840,"
		     "\"family\":\"ipv4\",\"group\":\"239.1.1.1\",\"vid\":0,\"host\":\"10.0.0.2\","
		     "\"mode\":\"INCLUDE\",\"sources\":2,\"reports\":3,\"cookie\":1,\"adopted\":false,"
		     "\"truncated\":false,\"first_ns\":1000000000,\"last_change_ns\":2000000000},"
		     "{\"port\":\"veth1\",\"ifindex\":7,\"netns\":4026531840,\"family\":\"ipv4\","
		     "\"group\":\"239.1.1.1\",\"vid\":0,\"host\":\"10.0.0.3\",\"mode\":\"EXCLUDE\","
		     "\"sources\":0,\"reports\":1,\"cookie\":12,\"adopted\":true,\"truncated\":false,"
		     "\"first_ns\":1000000000,\"last_change_ns\":2000000000}],"
		     "\"events\":{\"br_eht_host_create\":2,\"br_eht_host_destroy\":0,"
		     "\"br_eht_host_filter_mode\":0,\"br_eht_set_entry_create\":4,"
		     "\"br_eht_set_entry_delete\":0,\"br_eht_fast_leave\":0},\"adopted\":0,\"lost\":1}\n",
		     "JSON line with interval");

	f = start();
	eht_fmt_json(f, &b, 0, true);
	ASSERT_STREQ(text(f),
		     "{\"ts\":1764851235.250000,\"mono_ns\":5500000000,\"final\":true,\"hosts\":[],"
		     "\"events\":{\"br_eht_host_create\":0,\"br_eht_host_destroy\":0,"
		     "\"br_eht_host_filter_mode\":0,\"br_eht_set_entry_create\":0,"
		     "\"br_eht_set_entry_delete\":0,\"br_eht_fast_leave\":0},\"adopted\":0,\"lost\":0}\n",
		     "JSON line without interval, no hosts");

	/* b: .2 changed (sources), .3 re-created (new cookie), .4 new, and IPv6 with a VLAN. */
	add(&b, "veth1", "239.1.1.1", "10.0.0.2", 0, EHT_MODE_INCLUDE, 3, 4, 1, 0);
	add(&b, "veth1", "239.1.1.1", "10.0.0.3", 0, EHT_MODE_INCLUDE, 1, 1, 13, 0);
	add(&b, "veth1", "239.1.1.1", "10.0.0.4", 0, EHT_MODE_INCLUDE, 1, 1, 14, 0);
	add(&b, "veth2", "ff0e::1", "fe80::1", 10, EHT_MODE_INCLUDE, 1, 1, 15, 0);
	ASSERT_EQ(eht_snap_diff(&a, &b), 5, "diff: 4 row changes + counters moved");
	log_changes(&l, &a, &b);
	ASSERT_STREQ(l.text, "change 10.0.0.2 1;gone 10.0.0.3 12;new 10.0.0.3 13;new 10.0.0.4 14;"
		     "new fe80::1 15;", "diff: changed, gone then new for a new cookie, new");
	ASSERT_EQ(eht_snap_diff(&b, &b), 0, "diff of a snapshot with itself: nothing");
	l.n = 0;
	l.text[0] = 0;
	log_changes(&l, &b, &a);
	ASSERT_STREQ(l.text, "change 10.0.0.2 1;gone 10.0.0.3 13;new 10.0.0.3 12;gone 10.0.0.4 14;"
		     "gone fe80::1 15;", "diff backwards: the new rows are gone");

	f = start();
	eht_fmt_table(f, &b);
	text(f);
	ASSERT_TRUE(strstr(buf, "PORT    VID GROUP     HOST     MODE") &&
		    strstr(buf, "\nveth2    10 ff0e::1   fe80::1  INCLUDE       1       1     15  3.5s ago\n") &&
		    strstr(buf, "\nveth1     0 239.1.1.1 10.0.0.2 INCLUDE"),
		    "table: a VID column once any row has a VLAN");

	f = start();
	eht_fmt_change_header(f);
	eht_fmt_change(f, 1.25, EHT_NEW, &b, &b.rows[3]);
	ASSERT_STREQ(text(f),
		     "TIME       CHANGE PORT       GROUP                HOST                 MODE    "
		     "SOURCES REPORTS   COOKIE\n"
		     "1.250      new    veth2      ff0e::1              fe80::1              INCLUDE "
		     "      1       1       15\n", "-w change line");
	eht_snap_free(&a);
	eht_snap_free(&b);
	free(buf);
	return test_done();
}
