// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-cpus: tpstat's counting step (bpf/tpstat_count.h, the code the BPF programs run)
 * on a model of the counters, for CPU numbers no test guest has: counts and CPU sets must be
 * exact for every CPU up to TPSTAT_MAX_CPUS, whatever the order of the first hits, and
 * CPUs beyond must be counted and flagged, never reported as another CPU. Twice: with the
 * atomics, and with the plain updates of a CPU's own slot (bpf/tpstat_update.h). TAP output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpf/atomics.h"
#include "bpf/tpstat_abi.h"
#include "bpf/tpstat_update.h"
#include "src/tpstat_fmt.h"
#include "tests/unit/test.h"

/* Which updates the counting step makes, as the program's plain_updates flag says. */
static bool host_plain;
#define TPSTAT_PLAIN host_plain

/* Every check's name says which. */
static bool test_report_mode(bool cond, const char *name)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s: %s", host_plain ? "plain" : "atomic", name);
	return test_report(cond, buf);
}
#define test_report(cond, name) test_report_mode(cond, name)

/* The counts map as the programs see it for 8 tracepoints: one line of 8 per slot. */
#define NTP TPSTAT_LINE
static struct tpstat_slot {
	__u64 count[NTP];
} slots[TPSTAT_NR_SLOTS];
static struct tpstat_tp tps[NTP];

static __u64 fake_ns = 1000;
#define TPSTAT_NOW() (fake_ns++)
#define TPSTAT_COUNTER(slot, idx) ((slot) < TPSTAT_NR_SLOTS && (idx) < NTP ? &slots[slot].count[idx] : NULL)
#define TPSTAT_TP(idx) ((idx) < NTP ? &tps[idx] : NULL)
#include "bpf/tpstat_count.h"

/* The row user space makes of tracepoint @idx, as tpstat's snapshot() does. */
static struct tpstat_row row_of(int idx)
{
	struct tpstat_row r = { .name = "tp", .module = "vmlinux", .kind = TP_KIND_BARE,
		.cpus = tps[idx].cpus, .cpu_words = TPSTAT_CPU_WORDS };

	for (int s = 0; s < TPSTAT_NR_SLOTS; s++)
		r.count += slots[s].count[idx];
	r.delta = r.count;
	r.first_cpu = tps[idx].first_cpu ? (int)(tps[idx].first_cpu - 1) : -1;
	r.cpus_truncated = tps[idx].cpus_beyond;
	return r;
}

/* The JSON of tracepoint @idx, from "cpus" on. */
static char *json_of(int idx)
{
	static char *text;
	struct tpstat_row row = row_of(idx);
	struct tpstat_report r = { .interval = 1, .n = 1, .rows = &row, .span = 1 };
	size_t len;
	FILE *f;

	free(text);
	f = open_memstream(&text, &len);
	fmt_json(f, &r);
	fclose(f);
	*strstr(text, ",\"missed\"") = '\0';	/* the CPU fields end where the misses start */
	return strstr(text, "\"cpus\"");
}

static char *table_of(int idx)
{
	static char *text;
	struct tpstat_row row = row_of(idx);
	struct tpstat_report r = { .interval = 1, .final = true, .n = 1, .rows = &row, .elapsed = 1 };
	size_t len;
	FILE *f;

	free(text);
	f = open_memstream(&text, &len);
	fmt_table(f, &r);
	fclose(f);
	return text;
}

static void hit(int idx, __u32 cpu, int times)
{
	while (times--)
		tpstat_count(idx, cpu);
}

static void run(void)
{
	__u64 want = 0;
	char *t, *p;

	/* A CPU above TPSTAT_SLOTS first: its slot must not hide the first event of CPU 44. */
	hit(0, 300, 2);
	hit(0, 44, 3);
	ASSERT_STREQ(json_of(0), "\"cpus\":[44,300],\"first_cpu\":300", "CPU 300 then CPU 44: both in the set");
	ASSERT_EQ_U64(row_of(0).count, 5, "CPU 300 then CPU 44: count exact");
	ASSERT_EQ_U64(tps[0].ncpus, 2, "CPU 300 then CPU 44: ncpus");

	hit(1, 44, 1);
	hit(1, 300, 1);
	hit(1, 556, 1);
	ASSERT_STREQ(json_of(1), "\"cpus\":[44,300,556],\"first_cpu\":44", "CPU 44, 300, 556 (one slot apart): all in the set");

	hit(2, 1024, 4);
	ASSERT_STREQ(json_of(2), "\"cpus\":[1024],\"first_cpu\":1024", "CPU 1024 is CPU 1024, not CPU 0");

	/* Every CPU the set can name, high ones first, a different number of hits each. */
	for (int cpu = TPSTAT_MAX_CPUS - 1; cpu >= 0; cpu--) {
		hit(3, cpu, 1 + cpu % 3);
		want += 1 + cpu % 3;
	}
	ASSERT_EQ_U64(row_of(3).count, want, "all 8192 CPUs, 1-3 hits each: count exact");
	ASSERT_EQ_U64(tps[3].ncpus, TPSTAT_MAX_CPUS, "all 8192 CPUs: ncpus");
	t = table_of(3);
	ASSERT_STREQ((p = strstr(t, "0-8191")) ? "0-8191" : t, "0-8191", "all 8192 CPUs: table lists 0-8191");

	/* Beyond the set: counted, flagged, and no other CPU's bit set. */
	hit(4, TPSTAT_MAX_CPUS, 2);
	hit(4, 100000, 1);
	hit(4, 7, 1);
	ASSERT_STREQ(json_of(4), "\"cpus\":[7],\"cpus_truncated\":true,\"first_cpu\":8192",
	       "CPUs 8192 and 100000: flagged as beyond the set, not named as others");
	ASSERT_EQ_U64(row_of(4).count, 4, "CPUs beyond the set are still counted");
	t = table_of(4);
	ASSERT_STREQ((p = strstr(t, "7 (and CPUs >= 8192) (8192)")) ? "found" : t, "found",
	       "table marks the set as incomplete");
	ASSERT_STREQ(strstr(json_of(0), "cpus_truncated") ? "present" : "absent", "absent",
	       "a complete set has no cpus_truncated field (output unchanged)");

	/* A sparse set of 4096 CPUs: the table lists it whole (no fixed-size cut). */
	for (int cpu = 0; cpu < TPSTAT_MAX_CPUS; cpu += 2)
		hit(5, cpu, 1);
	t = table_of(5);
	ASSERT_STREQ((p = strstr(t, ",8186,8188,8190 (0)")) ? "found" : "missing", "found",
	       "every second CPU of 8192: the table lists all 4096");

	/* -A: every CPU's hits shown, one by one while slots are their own, then together. */
	{
		__u64 s6[TPSTAT_NR_SLOTS], per[TPSTAT_NR_SLOTS], rest, want6 = 0;
		struct tpstat_row row;
		struct tpstat_report r = { .n = 1, .final = true, .per_cpu = true, .rows = &row };
		char *out;
		size_t len;
		FILE *f;
		int n;

		for (int cpu = 0; cpu < 320; cpu++)
			hit(6, cpu, 1);
		for (int k = 0; k < TPSTAT_NR_SLOTS; k++)
			s6[k] = slots[k].count[6];
		n = fmt_cpu_counts(s6, 320, per, &rest);
		ASSERT_TRUE(n == 320 && per[299] == 1 && per[319] == 1,
			    "-A on 320 CPUs: each has its own slot, 320 rows (they stopped at 255)");
		for (int cpu = 320; cpu < 1000; cpu++)
			hit(6, cpu, 1);
		for (int k = 0; k < TPSTAT_NR_SLOTS; k++)
			s6[k] = slots[k].count[6];
		n = fmt_cpu_counts(s6, 1000, per, &rest);
		for (int c = 0; c < n; c++)
			want6 += per[c];
		ASSERT_TRUE(n == 256 && rest == 1000 - 256 && want6 + rest == row_of(6).count,
			    "-A on 1000 CPUs: 256 rows and the other 744 CPUs' hits together, "
			    "adding up to the count");
		row = row_of(6);
		row.cpu_count = row.cpu_delta = per;
		row.ncpu = n;
		row.rest_last = 999;
		row.rest_count = row.rest_delta = rest;
		f = open_memstream(&out, &len);
		fmt_table(f, &r);
		fclose(f);
		ASSERT_STRSTR(out, "\n    CPU255 ", "table: CPU 255's row");
		ASSERT_STRSTR(out, "\n    CPU256-999                                               744         -",
			      "table: then one row for CPUs 256-999 (their slots are shared)");
		free(out);
		r.csv = ",";
		f = open_memstream(&out, &len);
		fmt_csv(f, &r);
		fclose(f);
		ASSERT_STRSTR(out, "\nCPU256-999,744,,", "CSV: the row for CPUs 256-999");
		free(out);
		f = open_memstream(&out, &len);
		fmt_json(f, &r);
		fclose(f);
		ASSERT_STRSTR(out, "\"per_cpu_rest\":{\"first_cpu\":256,\"last_cpu\":999,\"count\":744,"
			      "\"delta\":744}", "JSON: per_cpu_rest for CPUs 256-999");
		free(out);
	}
}

int main(void)
{
	for (int plain = 0; plain < 2; plain++) {
		host_plain = plain;
		memset(slots, 0, sizeof(slots));
		memset(tps, 0, sizeof(tps));
		run();
	}
	return test_done();
}
