// SPDX-License-Identifier: GPL-2.0
/*
 * What tpstat's outputs share (tpstat_fmt.h): numbers, CPU lists, rates, --by keys as
 * text, the run statistics of -r.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_fmt.h"
#include "src/json.h"

bool fmt_cpu_in(const __u64 *words, int cpu)
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

		if (!fmt_cpu_in(words, cpu))
			continue;
		while (end + 1 < max && fmt_cpu_in(words, end + 1))
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
 * any fixed buffer) with @extra bytes of room after its *@len; NULL when out of memory.
 */
char *fmt_row_cpus_alloc(const struct tpstat_row *row, int extra, int *len)
{
	char one[1], *buf;

	*len = fmt_cpulist(one, sizeof(one), row->cpus, row->cpu_words);
	buf = malloc(*len + 1 + extra);
	if (buf)
		fmt_cpulist(buf, *len + 1, row->cpus, row->cpu_words);
	return buf;
}

/* The CPU list of @row for the table, with a marker when the set is incomplete. */
char *fmt_row_cpus(const struct tpstat_row *row)
{
	int len;
	char *buf = fmt_row_cpus_alloc(row, 32, &len);

	if (!buf)
		return NULL;
	if (row->cpus_truncated)
		snprintf(buf + len, 32, " (and CPUs >= %d)", row->cpu_words * 64);
	return buf;
}

/* "CPU256-8191": the CPUs of -A's last row when they share slots (tpstat_row.rest_last). */
const char *fmt_rest_name(const struct tpstat_row *row, char *buf, size_t len)
{
	snprintf(buf, len, "CPU%d-%d", row->ncpu, row->rest_last);
	return buf;
}

double fmt_rate(__u64 delta, double span)
{
	return span > 0 ? (double)delta / span : 0.0;
}

int fmt_cpu_counts(const __u64 *slots, int possible, __u64 *per_cpu, __u64 *rest)
{
	/* Slot c is CPU c's own below TPSTAT_NR_SLOTS (the shared ones are CPU & 63 past 256). */
	int n = possible <= TPSTAT_NR_SLOTS ? possible : TPSTAT_SLOTS;

	*rest = 0;
	for (int c = 0; c < n; c++)
		per_cpu[c] = slots[c];
	for (int k = TPSTAT_SLOTS; n < possible && k < TPSTAT_NR_SLOTS; k++)
		*rest += slots[k];
	return n;
}

int fmt_by_nk(const struct tpstat_by_row *b)
{
	return b->nk > 1 ? b->nk : 1;
}

int fmt_by_kind(const struct tpstat_by_row *b, int i)
{
	return b->nk > 1 ? b->kinds[i] : b->kind;
}

bool fmt_by_signed(const struct tpstat_by_row *b, int i)
{
	return b->nk > 1 ? b->signed_keys[i] : b->is_signed;
}

/* Key @i as text: comm as a string (at most 16 bytes, up to its NUL), numbers as such. */
bool fmt_by_stack(const struct tpstat_by_row *b)
{
	for (int i = 0; i < fmt_by_nk(b); i++)
		if (fmt_by_kind(b, i) == TPSTAT_KEY_KSTACK || fmt_by_kind(b, i) == TPSTAT_KEY_USTACK)
			return true;
	return false;
}

void fmt_by_key_i(const struct tpstat_by_row *b, const struct tpstat_by_entry *e, int i,
		  char *buf, size_t len)
{
	const __u64 *k = &e->k[2 * i];

	if (fmt_by_kind(b, i) == TPSTAT_KEY_COMM) {
		unsigned char comm[17] = {};
		size_t o = 0;

		memcpy(comm, k, 16);
		for (const unsigned char *p = comm; *p && o + 5 <= len;) {
			size_t bad = 1, n = json_utf8_char(p, &bad);

			if (*p == '\\') {
				o += snprintf(buf + o, len - o, "\\\\");
				p++;
			} else if (!n || *p < 0x20 || *p == 0x7f) {
				/* One byte at a time: each shows as itself, never as U+FFFD. */
				o += snprintf(buf + o, len - o, "\\x%02x", *p);
				p++;
			} else {
				memcpy(buf + o, p, n);
				o += n;
				p += n;
			}
		}
		if (len)
			buf[o < len ? o : len - 1] = '\0';
	} else if (fmt_by_signed(b, i)) {
		snprintf(buf, len, "%lld", (long long)k[0]);
	} else {
		snprintf(buf, len, "%llu", (unsigned long long)k[0]);
	}
}

/* A --by key as text; a tuple's keys joined by commas. */
void fmt_by_key(const struct tpstat_by_row *b, const struct tpstat_by_entry *e, char *buf,
		size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < fmt_by_nk(b) && o + 1 < len; i++) {
		if (i)
			buf[o++] = ',';
		fmt_by_key_i(b, e, i, buf + o, len - o);
		o += strlen(buf + o);
	}
}

/* --value's average: the true 128-bit sum over the count. */
double fmt_by_avg(const struct tpstat_by_row *b, const struct tpstat_by_entry *e)
{
	if (!e->count)
		return 0;
	return buckets_sum_double(e->sum, e->sum_hi, b->value_signed) / e->count;
}

/* Counts (@u) or seconds (@d): mean, sample standard deviation, perf stat's noise. */
static void run_stats(const __u64 *u, const double *d, int n, double *mean, double *stddev,
		      double *noise_pct)
{
	double sum = 0, sq = 0;

	*mean = *stddev = *noise_pct = 0;
	if (n <= 0)
		return;
	for (int k = 0; k < n; k++)
		sum += u ? (double)u[k] : d[k];
	*mean = sum / n;
	if (n < 2)
		return;
	for (int k = 0; k < n; k++) {
		double v = u ? (double)u[k] : d[k];

		sq += (v - *mean) * (v - *mean);
	}
	*stddev = sqrt(sq / (n - 1));
	/* perf stat's "+- x%": the standard deviation of the mean, relative to the mean. */
	if (*mean > 0)
		*noise_pct = 100.0 * (*stddev / sqrt(n)) / *mean;
}

void fmt_run_stats(const __u64 *runs, int n, double *mean, double *stddev, double *noise_pct)
{
	run_stats(runs, NULL, n, mean, stddev, noise_pct);
}

void fmt_run_stats_d(const double *v, int n, double *mean, double *stddev, double *noise_pct)
{
	run_stats(NULL, v, n, mean, stddev, noise_pct);
}
