// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "tpstat_fmt.h"
#include "util.h"

static bool cpu_set(const __u64 *words, int cpu)
{
	return words[cpu / 64] & (1ULL << (cpu % 64));
}

int fmt_cpulist(char *buf, size_t len, const __u64 *words, int nwords)
{
	int max = nwords * 64, out = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (int cpu = 0; cpu < max; cpu++) {
		int end = cpu;

		if (!cpu_set(words, cpu))
			continue;
		while (end + 1 < max && cpu_set(words, end + 1))
			end++;
		if (end == cpu)
			out += snprintf(buf + out, len > (size_t)out ? len - out : 0,
					"%s%d", out ? "," : "", cpu);
		else
			out += snprintf(buf + out, len > (size_t)out ? len - out : 0,
					"%s%d-%d", out ? "," : "", cpu, end);
		cpu = end;
	}
	if (!out)
		out = snprintf(buf, len, "-");
	return out;
}

const char *fmt_thousands(char *buf, size_t len, __u64 v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v), o = 0;

	for (int i = 0; i < n && (size_t)o + 1 < len; i++) {
		if (i && (n - i) % 3 == 0 && (size_t)o + 2 < len)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/*
 * The CPU list of @row, allocated to fit (a sparse set of thousands of CPUs is longer than
 * any fixed buffer), with a marker when the set is incomplete; NULL when out of memory.
 */
static char *cpulist(const struct tpstat_row *row)
{
	char one[1], *buf;
	int len = fmt_cpulist(one, sizeof(one), row->cpus, row->cpu_words);

	buf = malloc(len + 32);
	if (!buf)
		return NULL;
	fmt_cpulist(buf, len + 1, row->cpus, row->cpu_words);
	if (row->cpus_truncated)
		snprintf(buf + len, 32, " (and CPUs >= %d)", row->cpu_words * 64);
	return buf;
}

static double rate(__u64 delta, double span)
{
	return span > 0 ? (double)delta / span : 0.0;
}

void fmt_json(FILE *f, const struct tpstat_report *r)
{
	fprintf(f, "{\"ts\":%.6f,\"interval\":%d,\"final\":%s,\"elapsed\":%.6f,\"paused\":%s,"
		"\"paused_secs\":%.6f,\"command\":", r->ts, r->interval, r->final ? "true" : "false",
		r->elapsed, r->paused ? "true" : "false", r->paused_secs);
	if (r->command)
		util_json_string(f, r->command);
	else
		fputs("null", f);
	fputs(",\"tracepoints\":[", f);
	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		int first = 1;

		fprintf(f, "%s{\"name\":", i ? "," : "");
		util_json_string(f, row->name);
		fputs(",\"module\":", f);
		util_json_string(f, row->module);
		fprintf(f, ",\"bare\":%s,\"count\":%llu,\"delta\":%llu,\"rate\":%.3f,\"cpus\":[",
			row->kind == TP_KIND_BARE ? "true" : row->kind == TP_KIND_EVENT ? "false" : "null",
			(unsigned long long)row->count, (unsigned long long)row->delta,
			rate(row->delta, r->span));
		for (int cpu = 0; cpu < row->cpu_words * 64; cpu++) {
			if (!cpu_set(row->cpus, cpu))
				continue;
			fprintf(f, "%s%d", first ? "" : ",", cpu);
			first = 0;
		}
		fputs("]", f);
		if (row->cpus_truncated)
			fputs(",\"cpus_truncated\":true", f);
		fputs(",\"first_cpu\":", f);
		if (row->first_cpu >= 0)
			fprintf(f, "%d}", row->first_cpu);
		else
			fputs("null}", f);
	}
	fputs("]}\n", f);
	fflush(f);
}

void fmt_interval_header(FILE *f)
{
	fprintf(f, "#%12s  %-28s %-5s %15s %14s  %s\n", "time", "tracepoint", "kind", "delta",
		"rate/s", "cpus");
	fflush(f);
}

void fmt_interval(FILE *f, const struct tpstat_report *r)
{
	char num[32];

	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		char *cpus = cpulist(row);

		fprintf(f, "%13.3f  %-28s %-5s %15s %14.1f  %s%s\n", r->elapsed, row->name,
			tp_kind_name(row->kind), fmt_thousands(num, sizeof(num), row->delta),
			rate(row->delta, r->span), cpus ? cpus : "?", r->paused ? "  [paused]" : "");
		free(cpus);
	}
	fflush(f);
}

void fmt_table(FILE *f, const struct tpstat_report *r)
{
	char num[32];

	fputc('\n', f);
	if (r->command)
		fprintf(f, " tpstat counts for '%s', system wide:\n\n", r->command);
	else
		fprintf(f, " tpstat counts, system wide:\n\n");
	fprintf(f, "  %-28s %-5s %-9s %15s %14s  %s\n", "tracepoint", "kind", "module", "count",
		"rate/s", "cpus (first)");
	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		char first[16] = "", *cpus = cpulist(row);

		if (row->first_cpu >= 0)
			snprintf(first, sizeof(first), " (%d)", row->first_cpu);
		fprintf(f, "  %-28s %-5s %-9s %15s %14.1f  %s%s\n", row->name, tp_kind_name(row->kind),
			row->module, fmt_thousands(num, sizeof(num), row->count),
			rate(row->count, r->elapsed - r->paused_secs), cpus ? cpus : "?", first);
		free(cpus);
	}
	fprintf(f, "\n %13.6f seconds elapsed", r->elapsed);
	if (r->paused_secs > 0)
		fprintf(f, " (counting paused for %.3f s)", r->paused_secs);
	fputs("\n\n", f);
	fflush(f);
}
