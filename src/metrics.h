/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metrics exposition for Prometheus: OpenMetrics 1.0.0 text, or the Prometheus text format
 * 0.0.4 (what node_exporter's textfile collector and older scrapers read), into one bounded,
 * growable buffer. The writer names families once and places every suffix itself (`_total`,
 * `_bucket`/`_count`/`_sum`), escapes label values, cumulates histogram buckets and ends
 * an OpenMetrics exposition with `# EOF`.
 *
 *	struct metrics m;
 *	struct metrics_label l[] = { { "tracepoint", "tpgen_a" }, { "kind", "bare" } };
 *
 *	metrics_init(&m, 1 << 20);
 *	metrics_begin(&m, METRICS_OPENMETRICS);
 *	metrics_family(&m, "bareatom_tracepoint_hits", METRICS_COUNTER, NULL, "Hits.");
 *	metrics_u64(&m, l, 2, 400000);
 *	metrics_end(&m);	(m.buf, m.len: the text; m.err: -E2BIG past the bound, -EINVAL
 *				 for a name the format forbids, and the text is then not to be used)
 */
#ifndef __BAREATOM_METRICS_H
#define __BAREATOM_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum metrics_format {
	METRICS_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
	METRICS_PROMETHEUS,	/* text/plain; version=0.0.4 */
};

enum metrics_type {
	METRICS_COUNTER,	/* samples NAME_total */
	METRICS_GAUGE,		/* samples NAME */
	METRICS_HISTOGRAM,	/* samples NAME_bucket{le}, NAME_count, NAME_sum */
};

struct metrics_label {
	const char *name;
	const char *value;
};

struct metrics {
	char *buf;		/* NUL-terminated text of @len bytes */
	size_t len, cap, max;	/* @max: the bound the buffer never grows past */
	enum metrics_format fmt;
	enum metrics_type type;	/* of the current family */
	char family[128];	/* the current family's name, "" before the first */
	int err;		/* 0, or the first error: -E2BIG, -ENOMEM, -EINVAL */
	/*
	 * Series whose data could not make a valid one (a histogram's bounds out of order, a
	 * negative counter): left out, the rest of the page kept; metrics_end() adds
	 * bareatom_metrics_skipped_series and says why on stderr (once per change).
	 */
	unsigned skipped, skipped_said;
	const char *skip_why;
};

#define METRICS_CONTENT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define METRICS_CONTENT_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"

/* An empty writer whose buffer never grows past @max bytes. */
void metrics_init(struct metrics *m, size_t max);
void metrics_free(struct metrics *m);

/* Start an exposition in @fmt, reusing the buffer; metrics_end() finishes it. */
void metrics_begin(struct metrics *m, enum metrics_format fmt);
void metrics_end(struct metrics *m);
const char *metrics_content_type(enum metrics_format fmt);

/*
 * A new family: @name without the suffixes the type adds (a counter's ending in `_total` is
 * refused),
 * [a-zA-Z_:][a-zA-Z0-9_:]*; @unit (or NULL) must end @name (`_seconds`) and is printed
 * as `# UNIT` in OpenMetrics only; @help is one line of prose (escaped).
 */
void metrics_family(struct metrics *m, const char *name, enum metrics_type type,
		    const char *unit, const char *help);

/* One sample of the current counter or gauge family, with @nl labels (names [a-zA-Z_]...). */
void metrics_u64(struct metrics *m, const struct metrics_label *l, int nl, uint64_t v);
void metrics_double(struct metrics *m, const struct metrics_label *l, int nl, double v);

/*
 * One histogram of the current histogram family: @nb buckets, bucket i holding the
 * @counts[i] observations in (le[i-1], le[i]] (not cumulative: the writer cumulates), with
 * @le finite and ascending; @count observations in all (the `+Inf` bucket, raised to the
 * buckets' sum when a torn read left it below). With @has_sum, `_count` and `_sum` follow
 * (@sum >= 0 and no negative @le: OpenMetrics forbids `_sum` otherwise); without, the
 * histogram is its buckets only (OpenMetrics allows no `_count` without `_sum`), the
 * `+Inf` bucket being the count. Bounds out of order or a sum that cannot be shown leave
 * the series out (counted in @skipped), not the page.
 */
void metrics_histogram(struct metrics *m, const struct metrics_label *l, int nl,
		       const double *le, const uint64_t *counts, int nb, uint64_t count,
		       bool has_sum, double sum);

#endif /* __BAREATOM_METRICS_H */
