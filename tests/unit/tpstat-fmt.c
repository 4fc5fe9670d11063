// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-fmt: checks of tpstat's output formatting (no kernel needed).
 *
 *   tpstat-fmt            TAP checks of CPU lists, thousands separators and table text
 *   tpstat-fmt json       print sample JSON lines (for tpstat-fmt.t to validate with jq)
 */
#include <stdlib.h>
#include <string.h>
#include "tpstat_fmt.h"

static int n, failed;

static void is_str(const char *got, const char *want, const char *what)
{
	n++;
	if (!strcmp(got, want)) {
		printf("ok %d - %s: '%s'\n", n, what, got);
	} else {
		failed++;
		printf("not ok %d - %s\n#   got:  '%s'\n#   want: '%s'\n", n, what, got, want);
	}
}

static void has(const char *text, const char *needle, const char *what)
{
	n++;
	if (strstr(text, needle)) {
		printf("ok %d - %s\n", n, what);
	} else {
		failed++;
		printf("not ok %d - %s\n#   '%s' not in:\n# %s\n", n, what, needle, text);
	}
}

static const char *cpulist(__u64 w0, __u64 w1)
{
	static char buf[256];
	__u64 words[2] = { w0, w1 };

	fmt_cpulist(buf, sizeof(buf), words, 2);
	return buf;
}

static void sample(struct tpstat_report *r, struct tpstat_row *rows, __u64 *cpus)
{
	cpus[0] = 0xf;
	cpus[1] = 1ULL << 2;	/* CPU 66 */
	rows[0] = (struct tpstat_row){ .name = "tpgen_a", .module = "tpgen", .kind = TP_KIND_BARE,
		.count = 1234567, .delta = 1000, .cpus = cpus, .cpu_words = 2, .first_cpu = 66 };
	rows[1] = (struct tpstat_row){ .name = "sched_switch", .module = "vmlinux",
		.kind = TP_KIND_EVENT, .count = 0, .delta = 0, .cpus = cpus + 2, .cpu_words = 2,
		.first_cpu = -1 };
	*r = (struct tpstat_report){ .ts = 1764748800.5, .elapsed = 2.0, .span = 0.5, .interval = 3,
		.command = "sh -c \"echo \\\\ hi\"\n\ttab\x01", .n = 2, .rows = rows };
}

int main(int argc, char **argv)
{
	struct tpstat_row rows[2];
	struct tpstat_report r;
	__u64 cpus[4] = { 0 };
	char buf[64], *text;
	size_t len;
	FILE *f;

	sample(&r, rows, cpus);
	if (argc > 1 && !strcmp(argv[1], "json")) {
		fmt_json(stdout, &r);
		r.final = true;
		r.paused = true;
		r.command = NULL;
		fmt_json(stdout, &r);
		return 0;
	}

	is_str(cpulist(0, 0), "-", "empty CPU set");
	is_str(cpulist(1, 0), "0", "one CPU");
	is_str(cpulist(0xf, 0), "0-3", "a range");
	is_str(cpulist(0x2d, 0), "0,2-3,5", "ranges and singles");
	is_str(cpulist(1ULL << 63, 1), "63-64", "a range across words");
	is_str(cpulist(~0ULL, ~0ULL), "0-127", "all CPUs");
	is_str(fmt_thousands(buf, sizeof(buf), 0), "0", "thousands: 0");
	is_str(fmt_thousands(buf, sizeof(buf), 999), "999", "thousands: 999");
	is_str(fmt_thousands(buf, sizeof(buf), 1000), "1,000", "thousands: 1000");
	is_str(fmt_thousands(buf, sizeof(buf), 1234567), "1,234,567", "thousands: 1234567");
	is_str(fmt_thousands(buf, sizeof(buf), 18446744073709551615ULL),
	       "18,446,744,073,709,551,615", "thousands: u64 max");

	f = open_memstream(&text, &len);
	fmt_interval(f, &r);
	fclose(f);
	has(text, "tpgen_a", "interval line names the tracepoint");
	has(text, "bare", "interval line gives the kind");
	has(text, "1,000", "interval line prints the delta");
	has(text, "2000.0", "interval rate is delta / span (1000 / 0.5 s)");
	has(text, "0-3,66", "interval line lists the CPUs");
	free(text);

	f = open_memstream(&text, &len);
	r.final = true;
	r.paused_secs = 1.0;
	fmt_table(f, &r);
	fclose(f);
	has(text, "1,234,567", "table prints the total count");
	has(text, "1234567.0", "table rate is count / unpaused time (1234567 / 1 s)");
	has(text, "0-3,66 (66)", "table gives the CPUs and the first CPU");
	has(text, "counting paused for 1.000 s", "table says how long counting was paused");
	has(text, "sched_switch                 event", "table marks an event tracepoint");
	free(text);

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
