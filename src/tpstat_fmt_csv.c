// SPDX-License-Identifier: GPL-2.0
/* tpstat -x SEP: CSV, a line per tracepoint and CPU (tpstat_fmt.h). */
#include <stdlib.h>
#include "src/tpstat_fmt.h"

/*
 * A CPU list without the separator in it: ranges joined by spaces, allocated to fit (as
 * fmt_row_cpus(), without its marker); NULL when out of memory.
 */
static char *csv_cpulist(const struct tpstat_row *row)
{
	int len;
	char *buf = fmt_row_cpus_alloc(row, 0, &len);

	for (char *p = buf; p && *p; p++)
		if (*p == ',')
			*p = ' ';
	return buf;
}

/* Two empty CSV columns: "SEP SEP" (a separator is one character, or a short string). */
static const char *csv_empty2(const char *sep)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s", sep, sep);
	return buf;
}

/*
 * [TIME,] [CPU,] COUNT, MISSED, TRACEPOINT, KIND, MODULE, RATE, CPUS [, NOISE%]
 * [, FILTERED, FILTER_ERRORS]: TIME in interval lines (whose values are deltas), CPU with -A
 * ("all", then "CPU<n>" rows whose MISSED is empty: the kernel counts misses per program, not
 * per CPU), NOISE with -r, FILTERED and FILTER_ERRORS with --filter (empty in the rows of a
 * tracepoint without one, and in CPU rows).
 */
void fmt_csv(FILE *f, const struct tpstat_report *r)
{
	const char *s = r->csv;
	char rest[32];

	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		__u64 count = r->final ? row->count : row->delta;
		__u64 missed = r->final ? row->missed : row->missed_delta;
		double span = r->final ? r->elapsed - r->paused_secs : r->span;
		char *cpus = csv_cpulist(row);

		if (!r->final)
			fprintf(f, "%.3f%s", r->elapsed, s);
		if (r->per_cpu)
			fprintf(f, "all%s", s);
		fprintf(f, "%llu%s%llu%s", (unsigned long long)count, s, (unsigned long long)missed, s);
		fprintf(f, "%s%s%s%s%s%s", row->name, s, tp_kind_name(row->kind), s, row->module, s);
		fprintf(f, "%.1f%s%s", fmt_rate(count, span), s, cpus ? cpus : "?");
		free(cpus);
		if (row->nruns) {
			double mean, sd, noise;

			fmt_run_stats(row->runs, row->nruns, &mean, &sd, &noise);
			fprintf(f, "%s%.2f%%", s, noise);
		}
		if (r->filters && row->nfilters)
			fprintf(f, "%s%llu%s%llu", s,
				(unsigned long long)(r->final ? row->filtered : row->filtered_delta), s,
				(unsigned long long)(r->final ? row->filter_errors :
							       row->filter_errors_delta));
		else if (r->filters)
			fputs(csv_empty2(s), f);
		fputc('\n', f);
		for (int c = 0; row->cpu_count && c < row->ncpu; c++) {
			__u64 v = r->final ? row->cpu_count[c] : row->cpu_delta[c];

			if (!r->final)
				fprintf(f, "%.3f%s", r->elapsed, s);
			fprintf(f, "CPU%d%s%llu%s%s", c, s, (unsigned long long)v, s, s);
			fprintf(f, "%s%s%s%s%s%s", row->name, s, tp_kind_name(row->kind), s, row->module, s);
			fprintf(f, "%.1f%s%d%s\n", fmt_rate(v, span), s, c, r->filters ? csv_empty2(s) : "");
		}
		if (row->cpu_count && row->rest_last) {
			__u64 v = r->final ? row->rest_count : row->rest_delta;

			if (!r->final)
				fprintf(f, "%.3f%s", r->elapsed, s);
			fprintf(f, "%s%s%llu%s%s", fmt_rest_name(row, rest, sizeof(rest)), s,
				(unsigned long long)v, s, s);
			fprintf(f, "%s%s%s%s%s%s", row->name, s, tp_kind_name(row->kind), s, row->module, s);
			fprintf(f, "%.1f%s%d-%d%s\n", fmt_rate(v, span), s, row->ncpu, row->rest_last,
				r->filters ? csv_empty2(s) : "");
		}
	}
	fflush(f);
}
