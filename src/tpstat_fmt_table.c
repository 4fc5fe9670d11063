// SPDX-License-Identifier: GPL-2.0
/* tpstat's text: the interval lines and the final table, perf stat's (tpstat_fmt.h). */
#include <math.h>
#include <stdlib.h>
#include "src/tpstat_fmt.h"

/* One line for a --by table in an interval: its keys, dropped and errors since the start. */
static void fmt_by_note(FILE *f, const char *tp, const struct tpstat_by_row *b)
{
	char n[3][32];

	if (fmt_by_stack(b)) {
		fprintf(f, " %s by %s: the stacks are named at the end (--summary prints them)\n",
			tp, b->key_expr);
		return;
	}
	fprintf(f, " %s by %s: %s key%s, dropped %s (no slot in the table), errors %s (reads that "
		"failed) since the start; --summary prints the table at the end\n", tp, b->key_expr,
		fmt_thousands(n[0], sizeof(n[0]), b->nkeys), b->nkeys == 1 ? "" : "s",
		fmt_thousands(n[1], sizeof(n[1]), b->dropped),
		fmt_thousands(n[2], sizeof(n[2]), b->errors));
}

void fmt_interval_header(FILE *f)
{
	fprintf(f, "#%12s  %-28s %-5s %15s %9s %14s  %s\n", "time", "tracepoint", "kind", "delta",
		"missed", "rate/s", "cpus");
	fflush(f);
}

void fmt_interval(FILE *f, const struct tpstat_report *r)
{
	char num[32], mnum[32], cpus_rest[32];

	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		char *cpus = fmt_row_cpus(row);

		fprintf(f, "%13.3f  %-28s %-5s %15s %9s %14.1f  %s%s\n", r->elapsed, row->name,
			tp_kind_name(row->kind), fmt_thousands(num, sizeof(num), row->delta),
			fmt_thousands(mnum, sizeof(mnum), row->missed_delta),
			fmt_rate(row->delta, r->span), cpus ? cpus : "?", r->paused ? "  [paused]" : "");
		free(cpus);
		for (int c = 0; row->cpu_count && c < row->ncpu; c++)
			fprintf(f, "%13.3f    CPU%-24d %-5s %15s %9s %14.1f\n", r->elapsed, c, "",
				fmt_thousands(num, sizeof(num), row->cpu_delta[c]), "-",
				fmt_rate(row->cpu_delta[c], r->span));
		if (row->cpu_count && row->rest_last)
			fprintf(f, "%13.3f    %-27s %-5s %15s %9s %14.1f\n", r->elapsed,
				fmt_rest_name(row, cpus_rest, sizeof(cpus_rest)), "",
				fmt_thousands(num, sizeof(num), row->rest_delta), "-",
				fmt_rate(row->rest_delta, r->span));
		if (row->nfilters) {
			fprintf(f, "%13.3f    %-27s %-5s %15s %9s %14.1f\n", r->elapsed, "(filtered out)",
				"", fmt_thousands(num, sizeof(num), row->filtered_delta), "-",
				fmt_rate(row->filtered_delta, r->span));
			fprintf(f, "%13.3f    %-27s %-5s %15s %9s %14.1f\n", r->elapsed, "(filter errors)",
				"", fmt_thousands(num, sizeof(num), row->filter_errors_delta), "-",
				fmt_rate(row->filter_errors_delta, r->span));
		}
	}
	/* --hist and --latency: the interval's own histograms (deltas) under its lines. */
	for (int i = 0; i < r->n; i++)
		for (int h = 0; h < r->rows[i].nhists; h++) {
			if (!h && !i)
				fputc('\n', f);
			fmt_hist_block(f, r->rows[i].name, &r->rows[i].hists[h]);
		}
	for (int i = 0; i < r->n; i++)
		for (int l = 0; l < r->rows[i].nlats; l++)
			fmt_lat_block(f, r->rows[i].name, &r->rows[i].lats[l]);
	/*
	 * A --by table is the whole run's (its keys do not subtract): the totals print it, and
	 * each interval names it with what it could not count, so that nothing is hidden.
	 */
	for (int i = 0; i < r->n; i++)
		for (int b = 0; b < r->rows[i].nbys; b++)
			fmt_by_note(f, r->rows[i].name, &r->rows[i].bys[b]);
	fflush(f);
}

/* A row's (filtered out) and (filter errors) lines in the table: totals, over @secs. */
static void table_filter_rows(FILE *f, const struct tpstat_row *row, double secs)
{
	char num[32];

	fprintf(f, "    %-28s %-5s %-9s %15s %9s %14.1f\n", "(filtered out)", "", "",
		fmt_thousands(num, sizeof(num), row->filtered), "-", fmt_rate(row->filtered, secs));
	fprintf(f, "    %-28s %-5s %-9s %15s %9s %14.1f\n", "(filter errors)", "", "",
		fmt_thousands(num, sizeof(num), row->filter_errors), "-", fmt_rate(row->filter_errors, secs));
}

/*
 * Under the table: each tracepoint's filters, and what filtered out and filter errors are.
 * With -r the count column is the mean run, the others are over all runs.
 */
static void fmt_filter_legend(FILE *f, const struct tpstat_report *r, bool runs)
{
	bool any = false;

	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];

		for (int k = 0; k < row->nfilters; k++)
			fprintf(f, "%s '%s'", k ? " and" : " filter: counted only where",
				row->filters[k]);
		if (row->nfilters) {
			fprintf(f, " (%s)\n", row->name);
			any = true;
		}
	}
	if (any)
		fprintf(f, " (filtered out): events a filter rejected; (filter errors): events whose "
			"filter could not read its field;\n %s + filtered out + filter errors + missed "
			"= hits\n", runs ? "with -r, count is the mean of the runs; the runs' counts" :
			"count");
}

void fmt_table(FILE *f, const struct tpstat_report *r)
{
	char num[32], mnum[32], cpus_rest[32];
	int nruns = r->n ? r->rows[0].nruns : 0;
	const char *target = r->target ? r->target : "system wide";

	fputc('\n', f);
	if (r->command)
		fprintf(f, " tpstat counts for '%s', %s", r->command, target);
	else
		fprintf(f, " tpstat counts, %s", target);
	if (nruns)
		fprintf(f, " (%d runs)", nruns);
	fputs(":\n\n", f);
	fprintf(f, "  %-28s %-5s %-9s %15s %9s %14s  %s\n", "tracepoint", "kind", "module", "count",
		"missed", "rate/s", nruns ? "noise" : "cpus (first)");
	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		char first[16] = "", *cpus;
		double mean, sd, noise;

		if (row->first_cpu >= 0)
			snprintf(first, sizeof(first), " (%d)", row->first_cpu);
		if (row->nruns) {
			fmt_run_stats(row->runs, row->nruns, &mean, &sd, &noise);
			fprintf(f, "  %-28s %-5s %-9s %15s %9s %14.1f  ( +- %.2f%% )\n", row->name,
				tp_kind_name(row->kind), row->module,
				fmt_thousands(num, sizeof(num), (__u64)llround(mean)),
				fmt_thousands(mnum, sizeof(mnum), row->missed),
				fmt_rate(row->count, r->elapsed - r->paused_secs), noise);
			if (row->nfilters)
				table_filter_rows(f, row, r->elapsed - r->paused_secs);
			continue;
		}
		cpus = fmt_row_cpus(row);
		fprintf(f, "  %-28s %-5s %-9s %15s %9s %14.1f  %s%s\n", row->name, tp_kind_name(row->kind),
			row->module, fmt_thousands(num, sizeof(num), row->count),
			fmt_thousands(mnum, sizeof(mnum), row->missed),
			fmt_rate(row->count, r->elapsed - r->paused_secs), cpus ? cpus : "?", first);
		free(cpus);
		for (int c = 0; row->cpu_count && c < row->ncpu; c++)
			fprintf(f, "    CPU%-25d %-5s %-9s %15s %9s %14.1f\n", c, "", "",
				fmt_thousands(num, sizeof(num), row->cpu_count[c]), "-",
				fmt_rate(row->cpu_count[c], r->elapsed - r->paused_secs));
		if (row->cpu_count && row->rest_last)
			fprintf(f, "    %-28s %-5s %-9s %15s %9s %14.1f\n",
				fmt_rest_name(row, cpus_rest, sizeof(cpus_rest)), "", "",
				fmt_thousands(num, sizeof(num), row->rest_count), "-",
				fmt_rate(row->rest_count, r->elapsed - r->paused_secs));
		if (row->nfilters)
			table_filter_rows(f, row, r->elapsed - r->paused_secs);
	}
	if (r->nruns) {
		double mean, sd, noise;

		/* perf stat -r's line: the mean run and its noise, then the whole. */
		fmt_run_stats_d(r->run_secs, r->nruns, &mean, &sd, &noise);
		fprintf(f, "\n %13.6f +- %.6f seconds elapsed per run ( +- %.2f%% )", mean,
			sd / sqrt(r->nruns), noise);
		fprintf(f, "\n %13.6f seconds elapsed in all", r->elapsed);
	} else {
		fprintf(f, "\n %13.6f seconds elapsed", r->elapsed);
	}
	if (r->paused_secs > 0)
		fprintf(f, " (counting paused for %.3f s)", r->paused_secs);
	fputs("\n", f);
	for (int i = 0; i < r->n; i++)
		if (r->rows[i].missed) {
			fprintf(f, " missed: hits the kernel did not let the program see (a tracepoint "
				"fired while its program ran on the same CPU); %s + missed = hits\n",
				nruns ? "the runs' counts" : "count");
			break;
		}
	fmt_filter_legend(f, r, nruns > 0);
	fputs("\n", f);
	for (int i = 0; i < r->n; i++)
		for (int h = 0; h < r->rows[i].nhists; h++)
			fmt_hist_block(f, r->rows[i].name, &r->rows[i].hists[h]);
	for (int i = 0; i < r->n; i++)
		for (int b = 0; b < r->rows[i].nbys; b++)
			fmt_by_block(f, r->rows[i].name, &r->rows[i].bys[b]);
	for (int i = 0; i < r->n; i++)
		for (int l = 0; l < r->rows[i].nlats; l++)
			fmt_lat_block(f, r->rows[i].name, &r->rows[i].lats[l]);
	fflush(f);
}
