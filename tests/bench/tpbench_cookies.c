// SPDX-License-Identifier: GPL-2.0
/*
 * tpbench ckern and cuser: kernel-side cookie draws on tpgen_b (per-CPU batches against one
 * global fetch-add each) and the user-space cookie sources (lock xadd, libcookie's fast
 * path, the socket, uuid_generate, getrandom), one JSON object per measurement.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <uuid/uuid.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/cookie_abi.h"
#include "cookie.skel.h"
#include "src/libcookie.h"
#include "tests/bench/tpbench.h"

/* ---- kernel-side cookies ---- */

static struct cookie_bpf *load_cookie(bool batched)
{
	struct cookie_bpf *s = cookie_bpf__open();
	struct cookie_state st = { .next = 1, .limit = 1ULL << 62 };
	__u32 zero = 0;

	if (!s)
		die("open cookie.bpf.o");
	s->rodata->batched = batched;
	s->rodata->report_events = false;
	bpf_program__set_autoload(s->progs.cookie_fork, false);
	if (cookie_bpf__load(s))
		die("load cookie.bpf.o");
	bpf_map_update_elem(bpf_map__fd(s->maps.state), &zero, &st, BPF_ANY);
	return s;
}

static __u64 cookie_stat(struct cookie_bpf *s, int field)
{
	struct cookie_state st;
	__u32 zero = 0;

	bpf_map_lookup_elem(bpf_map__fd(s->maps.state), &zero, &st);
	return field == 0 ? st.tpgen_cookies : st.denied;
}

int bench_ckern(void)
{
	struct cookie_bpf *s[2] = { load_cookie(true), load_cookie(false) };
	const char *names[2] = { "percpu_batch", "global_fetch_add" };

	for (int i = 0; i < 2; i++)
		prog_info("ckern", names[i], s[i]->progs.cookie_tpgen);
	for (int c = 0; c < ncpu_list; c++) {
		int cpus = cpu_list[c];

		set_online(cpus);
		for (long r = 0; r <= rounds; r++) {
			for (int i = 0; i < 2; i++) {
				struct bpf_link *link = bpf_program__attach_raw_tracepoint(s[i]->progs.cookie_tpgen, "tpgen_b");
				__u64 c0 = cookie_stat(s[i], 0), f0 = tpgen_fired("tpgen_b"), f1, c1;
				double ns;

				if (!link)
					die("attach to tpgen_b");
				ns = fire("tpgen_b", events);
				f1 = tpgen_fired("tpgen_b");
				bpf_link__destroy(link);
				c1 = cookie_stat(s[i], 0);
				printf("{\"bench\":\"ckern\",\"kind\":\"time\",\"cpus\":%d,\"round\":%ld,\"warmup\":%s,"
				       "\"method\":\"%s\",\"fired\":%llu,\"counted\":%llu,\"exact\":%s,\"denied\":%llu,"
				       "\"ns\":%.0f,\"events_per_sec\":%.1f}\n", cpus, r, r == 0 ? "true" : "false",
				       names[i], (unsigned long long)(f1 - f0), (unsigned long long)(c1 - c0),
				       c1 - c0 == f1 - f0 ? "true" : "false", (unsigned long long)cookie_stat(s[i], 1),
				       ns, (f1 - f0) / (ns / 1e9));
				fflush(stdout);
			}
		}
	}
	set_online(possible_cpus);
	cookie_bpf__destroy(s[0]);
	cookie_bpf__destroy(s[1]);
	return 0;
}

/* ---- user-space cookie sources ---- */

static __u64 xadd_target;
static volatile __u64 xadd_sink;

/* The floor: a bare lock xadd whose result is used, as a cookie draw uses it. */
static long op_xadd(long n)
{
	__u64 sum = 0;

	for (long i = 0; i < n; i++)
		sum += __atomic_fetch_add(&xadd_target, 1, __ATOMIC_RELAXED);
	xadd_sink = sum;
	return n;
}

static struct cookie_fast fast;
static int sock = -1;

static long op_fast(long n)
{
	uint64_t c, sum = 0;

	for (long i = 0; i < n; i++) {
		if (cookie_fast_get(&fast, 1, &c))
			return i;
		sum += c;
	}
	xadd_sink = sum;
	return n;
}

static long op_socket(long n, uint32_t size)
{
	uint64_t c;

	for (long i = 0; i < n; i++)
		if (cookie_get(sock, size, &c))
			return i * size;
	return n * size;
}

static long op_socket1(long n) { return op_socket(n, 1); }
static long op_socket4096(long n) { return op_socket(n / 64 ? n / 64 : 1, 4096); }

static long op_uuid(long n)
{
	uuid_t u;

	for (long i = 0; i < n; i++)
		uuid_generate(u);
	return n;
}

static long op_getrandom(long n)
{
	__u64 v;

	for (long i = 0; i < n; i++)
		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			return i;
	return n;
}

/* -m: the cuser methods to run (all when NULL), as a comma-separated list */
const char *methods;

static bool method_picked(const char *name)
{
	size_t n = strlen(name);

	if (!methods)
		return true;
	for (const char *p = methods; (p = strstr(p, name)); p += n)
		if ((p == methods || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

int bench_cuser(void)
{
	struct { const char *name; long (*op)(long); long scale; } m[] = {
		{ "lock_xadd", op_xadd, 10 },
		{ "libcookie_fast", op_fast, 10 },
		{ "socket_get1", op_socket1, 0 },
		{ "socket_get4096", op_socket4096, 1 },
		{ "uuid_generate", op_uuid, 1 },
		{ "getrandom8", op_getrandom, 1 },
	};
	int err = cookie_fast_open(&fast);

	if (err) {
		fprintf(stderr, "tpbench: libcookie fast path: %s (is cookie-gend running?)\n", strerror(-err));
		return 1;
	}
	sock = cookie_connect(COOKIE_SOCKET_PATH);
	if (sock < 0) {
		fprintf(stderr, "tpbench: cannot connect to cookie-gend: %s\n", strerror(-sock));
		return 1;
	}
	for (long r = 0; r <= rounds; r++) {
		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			long want = m[i].scale ? ops * m[i].scale / 10 : ops / 100, got;
			double t0, ns;

			if (!method_picked(m[i].name))
				continue;
			t0 = now();
			got = m[i].op(want);
			ns = now() - t0;
			printf("{\"bench\":\"cuser\",\"kind\":\"time\",\"round\":%ld,\"warmup\":%s,\"method\":\"%s\","
			       "\"cookies\":%ld,\"ns\":%.0f,\"cookies_per_sec\":%.1f,\"ns_per_cookie\":%.2f}\n",
			       r, r == 0 ? "true" : "false", m[i].name, got, ns, got / (ns / 1e9),
			       got ? ns / got : 0.0);
			fflush(stdout);
		}
	}
	close(sock);
	cookie_fast_close(&fast);
	return 0;
}
