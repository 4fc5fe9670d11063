// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition writer of metrics.h. The two formats differ in a few places only:
 *   OpenMetrics 1.0.0: `# TYPE name counter` names the family without `_total`; `# UNIT`;
 *     HELP escapes \\, \n and \"; the text ends with `# EOF`.
 *   Prometheus 0.0.4: a counter's HELP and TYPE name its sample (`name_total`); no UNIT,
 *     no EOF; HELP escapes \\ and \n only.
 * Label values are escaped the same way in both (\\, \", \n) and always valid UTF-8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/metrics.h"
#include "src/json.h"

#define METRICS_INITIAL_CAP 4096

void metrics_init(struct metrics *m, size_t max)
{
	memset(m, 0, sizeof(*m));
	m->max = max;
}

void metrics_free(struct metrics *m)
{
	free(m->buf);
	m->buf = NULL;
	m->len = m->cap = 0;
}

/* Room for @n more bytes and a NUL, growing by doubling up to the bound. */
static bool reserve(struct metrics *m, size_t n)
{
	size_t cap = m->cap ? m->cap : METRICS_INITIAL_CAP;
	char *p;

	if (m->err)
		return false;
	if (n >= m->max || m->len + n + 1 > m->max) {
		m->err = -E2BIG;
		return false;
	}
	if (m->len + n + 1 <= m->cap)
		return true;
	while (cap < m->len + n + 1)
		cap *= 2;
	if (cap > m->max)
		cap = m->max;
	p = realloc(m->buf, cap);
	if (!p) {
		m->err = -ENOMEM;
		return false;
	}
	m->buf = p;
	m->cap = cap;
	return true;
}

static void put(struct metrics *m, const char *s, size_t n)
{
	if (!reserve(m, n))
		return;
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
}

static void puts_(struct metrics *m, const char *s)
{
	put(m, s, strlen(s));
}

static void printf_(struct metrics *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(struct metrics *m, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(tmp)) {
		m->err = m->err ?: -EINVAL;
		return;
	}
	put(m, tmp, n);
}

/*
 * A double as both formats spell it: +Inf, -Inf, NaN, an integral value below 1e15 as an
 * integer, else the shortest "%.*g" that reads back as the same value. @point adds ".0" to an integral value (the canonical form of
 * OpenMetrics' `le`, so a bucket keeps one series name whatever the scraper asked for).
 */
static void put_double(struct metrics *m, double v, bool point)
{
	char tmp[40];

	if (isnan(v)) {
		puts_(m, "NaN");
		return;
	}
	if (isinf(v)) {
		puts_(m, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	/*
	 * The range first: converting a double outside long long's range is undefined
	 * behaviour (UBSan's float-cast-overflow), and 1e15 keeps every such integer exact.
	 */
	if (fabs(v) < 1e15 && v == (double)(long long)v) {
		/* An integral value (a sum, a count as a double) reads best as one: 25150. */
		snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
	} else {
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
			if (strtod(tmp, NULL) == v)
				break;
		}
	}
	puts_(m, tmp);
	if (point && !strpbrk(tmp, ".eEn"))
		puts_(m, ".0");
}

static bool valid_name(const char *s, bool colon)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
			     (colon && *p == ':');

		if (!alpha && (p == s || *p < '0' || *p > '9'))
			return false;
	}
	return true;
}

/* @s escaped: always \\ and \n; \" too when @quote; invalid UTF-8 as U+FFFD. */
static void put_escaped(struct metrics *m, const char *str, bool quote)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t bad = 1, n = json_utf8_char(s, &bad);

		if (!n) {
			puts_(m, "\xef\xbf\xbd");
			s += bad;
		} else if (*s == '\\') {
			puts_(m, "\\\\");
			s++;
		} else if (*s == '\n') {
			puts_(m, "\\n");
			s++;
		} else if (*s == '"' && quote) {
			puts_(m, "\\\"");
			s++;
		} else {
			put(m, (const char *)s, n);
			s += n;
		}
	}
}

void metrics_begin(struct metrics *m, enum metrics_format fmt)
{
	m->fmt = fmt;
	m->len = 0;
	m->err = 0;
	m->skipped = 0;
	m->family[0] = '\0';
	if (reserve(m, 0))
		m->buf[0] = '\0';
}

void metrics_end(struct metrics *m)
{
	if (m->skipped) {
		metrics_family(m, "bareatom_metrics_skipped_series", METRICS_GAUGE, NULL,
			       "Series left out of this exposition: their data could not make a "
			       "valid one (the program says why on stderr).");
		metrics_u64(m, NULL, 0, m->skipped);
		/* Said once per change: a scrape every few seconds would repeat it. */
		if (m->skipped != m->skipped_said)
			fprintf(stderr, "%s: %u series left out of the metrics: %s\n",
				program_invocation_short_name, m->skipped, m->skip_why);
	}
	m->skipped_said = m->skipped;
	if (m->fmt == METRICS_OPENMETRICS)
		puts_(m, "# EOF\n");
}

const char *metrics_content_type(enum metrics_format fmt)
{
	return fmt == METRICS_OPENMETRICS ? METRICS_CONTENT_OPENMETRICS : METRICS_CONTENT_PROMETHEUS;
}

static const char *const type_names[] = {
	[METRICS_COUNTER] = "counter",
	[METRICS_GAUGE] = "gauge",
	[METRICS_HISTOGRAM] = "histogram",
};

void metrics_family(struct metrics *m, const char *name, enum metrics_type type,
		    const char *unit, const char *help)
{
	size_t nlen = strlen(name), ulen = unit ? strlen(unit) : 0;
	/* 0.0.4 names a counter by its sample; OpenMetrics by the family. */
	const char *suffix = type == METRICS_COUNTER && m->fmt == METRICS_PROMETHEUS ? "_total" : "";

	/* A counter named x_total would be sampled as x_total_total. */
	if (!valid_name(name, true) || nlen + 8 >= sizeof(m->family) ||
	    (type == METRICS_COUNTER && nlen >= 6 && !strcmp(name + nlen - 6, "_total")) ||
	    (unit && (!valid_name(unit, false) || ulen + 1 > nlen ||
		      strcmp(name + nlen - ulen, unit) || name[nlen - ulen - 1] != '_'))) {
		m->err = m->err ?: -EINVAL;
		return;
	}
	strcpy(m->family, name);
	m->type = type;
	printf_(m, "# HELP %s%s ", name, suffix);
	put_escaped(m, help, m->fmt == METRICS_OPENMETRICS);
	printf_(m, "\n# TYPE %s%s %s\n", name, suffix, type_names[type]);
	if (unit && m->fmt == METRICS_OPENMETRICS)
		printf_(m, "# UNIT %s %s\n", name, unit);
}

/* NAME{l1="v1",...[,le="@le"]} : the sample's name and labels, up to its value. */
static void put_series(struct metrics *m, const char *suffix, const struct metrics_label *l,
		       int nl, const double *le)
{
	puts_(m, m->family);
	puts_(m, suffix);
	if (nl || le)
		puts_(m, "{");
	for (int i = 0; i < nl; i++) {
		if (!valid_name(l[i].name, false) || !strcmp(l[i].name, "le") || !l[i].value) {
			m->err = m->err ?: -EINVAL;
			return;
		}
		printf_(m, "%s%s=\"", i ? "," : "", l[i].name);
		put_escaped(m, l[i].value, true);
		puts_(m, "\"");
	}
	if (le) {
		puts_(m, nl ? ",le=\"" : "le=\"");
		put_double(m, *le, true);
		puts_(m, "\"");
	}
	puts_(m, (nl || le) ? "} " : " ");
}

/* A sample of the current family may follow: one was named, and of the right kind. */
static bool check_sample(struct metrics *m, bool histogram)
{
	if (!m->family[0] || (m->type == METRICS_HISTOGRAM) != histogram) {
		m->err = m->err ?: -EINVAL;
		return false;
	}
	return !m->err;
}

static const char *scalar_suffix(struct metrics *m)
{
	return m->type == METRICS_COUNTER ? "_total" : "";
}

void metrics_u64(struct metrics *m, const struct metrics_label *l, int nl, uint64_t v)
{
	if (!check_sample(m, false))
		return;
	put_series(m, scalar_suffix(m), l, nl, NULL);
	printf_(m, "%" PRIu64 "\n", v);
}

/*
 * Leave out the series begun at @start: its data cannot make a valid one. The rest of the
 * page stands; metrics_end() counts what was left out and says why.
 */
static void skip_series(struct metrics *m, size_t start, const char *why)
{
	if (m->err)
		return;
	m->len = start;
	if (m->buf)
		m->buf[m->len] = '\0';
	if (!m->skipped++)
		m->skip_why = why;
}

void metrics_double(struct metrics *m, const struct metrics_label *l, int nl, double v)
{
	if (!check_sample(m, false))
		return;
	/* A counter is never negative nor NaN: a value that is cannot be shown as one. */
	if (m->type == METRICS_COUNTER && !(v >= 0)) {
		skip_series(m, m->len, "a counter's value is negative or NaN");
		return;
	}
	put_series(m, scalar_suffix(m), l, nl, NULL);
	put_double(m, v, false);
	puts_(m, "\n");
}

void metrics_histogram(struct metrics *m, const struct metrics_label *l, int nl,
		       const double *le, const uint64_t *counts, int nb, uint64_t count,
		       bool has_sum, double sum)
{
	static const double inf = INFINITY;
	size_t start = m->len;
	uint64_t cum = 0;

	if (!check_sample(m, true))
		return;
	/*
	 * OpenMetrics forbids _sum beside a negative bucket and a negative _sum, and wants
	 * _sum wherever _count is: such a histogram is buckets only (has_sum false).
	 */
	if (has_sum && (!(sum >= 0) || (nb && le[0] < 0))) {
		skip_series(m, start, "a histogram's _sum is negative or beside negative buckets");
		return;
	}
	for (int i = 0; i < nb; i++) {
		/* Ascending, finite bounds. */
		if (!isfinite(le[i]) || (i && !(le[i] > le[i - 1]))) {
			skip_series(m, start, "a histogram's bucket bounds are not finite and ascending");
			return;
		}
		cum += counts[i];
		put_series(m, "_bucket", l, nl, &le[i]);
		printf_(m, "%" PRIu64 "\n", cum);
	}
	/*
	 * A count below the buckets' sum is a torn read of counters still being added to
	 * (tpstat's program adds to the bucket before the count, user space reads the count
	 * first): what the buckets hold was observed, so the count is at least that. The
	 * next read's count is at least this one's buckets, so the series never goes down.
	 */
	if (count < cum)
		count = cum;
	put_series(m, "_bucket", l, nl, &inf);
	printf_(m, "%" PRIu64 "\n", count);
	if (has_sum) {
		put_series(m, "_count", l, nl, NULL);
		printf_(m, "%" PRIu64 "\n", count);
		put_series(m, "_sum", l, nl, NULL);
		put_double(m, sum, false);
		puts_(m, "\n");
	}
}
