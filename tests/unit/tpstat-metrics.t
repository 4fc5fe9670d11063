#!/bin/bash
# tpstat's exposition of views a guest cannot easily make (tests/unit/tpstat-metrics.c):
# the C checks, then every case in both formats through promtool check metrics (0.0.4) and
# the OpenMetrics reference parser (tests/vm/om-check, which refuses a series given twice);
# "all" has every family tpstat can write (hist, lhist, signed, by, tuples, value, filter,
# latency in both forms, -A).
bin=$BUILD/tests/unit/tpstat-metrics
omcheck=$(dirname "$0")/../vm/om-check
. "$(dirname "$0")/../lib/tap.sh"
tap_subtest "$bin" 2>/dev/null
rc=$?
t() { ok "$2" "$1" "${@:3}"; }	# DESCRIPTION STATUS [DETAIL...]
for c in lhist0 signed bigsum torn keys lhistwide cpus300 cpus1000 latency all; do
	text=$("$bin" dump prom $c 2>&1); drc=$?
	lint=$(promtool check metrics <<<"$text" 2>&1); prc=$?
	t "$c: promtool check metrics passes the 0.0.4 exposition" "$((drc || prc))" "$lint"
	text=$("$bin" dump om $c 2>&1); drc=$?
	lint=$("$omcheck" <<<"$text" 2>&1); prc=$?
	t "$c: the OpenMetrics parser passes the OpenMetrics exposition" "$((drc || prc))" "$lint"
done
done_testing
[ "$rc" = 0 ]
