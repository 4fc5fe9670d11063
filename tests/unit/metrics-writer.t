#!/bin/bash
# The metrics exposition writer: exact text in both formats (C checks, then again built
# with UBSan, which stops on undefined behaviour such as a double cast out of range), then
# the expositions (a sample of every kind, and histograms at their edges: empty, signed,
# a torn read, a series left out) through promtool check metrics (Debian's prometheus
# package) in 0.0.4 and through the OpenMetrics reference parser (python3-prometheus-client,
# tests/vm/om-check, which also refuses a series given twice) in OpenMetrics. promtool 2.42
# parses the 0.0.4 text only: on OpenMetrics it rejects the \" escape OpenMetrics' HELP
# requires and, reading `# TYPE x counter` before `x_total` samples, calls them untyped.
bin=$BUILD/tests/unit/metrics-writer
omcheck=$(dirname "$0")/../vm/om-check
. "$(dirname "$0")/../lib/tap.sh"
tap_subtest "$bin" 2>/dev/null
rc=$?
t() { ok "$2" "$1" "${@:3}"; }	# DESCRIPTION STATUS [DETAIL...]
uout=$("$bin-ubsan" 2>&1); urc=$?
t "built with UBSan (float-cast-overflow too): every check passes, no undefined behaviour" "$urc" \
	"$(grep -E 'runtime error|^not ok' <<<"$uout" | head -n 3)"
for kind in sample edge; do
	arg=${kind#sample}
	text=$("$bin" dump prom $arg 2>/dev/null)
	lint=$(promtool check metrics <<<"$text" 2>&1); prc=$?
	t "promtool check metrics passes the 0.0.4 $kind exposition" "$prc" "$lint"
	lint=$("$omcheck" --prom <<<"$text" 2>&1); prc=$?
	t "the 0.0.4 $kind exposition gives no series twice" "$prc" "$lint"
	text=$("$bin" dump om $arg 2>/dev/null)
	lint=$("$omcheck" <<<"$text" 2>&1); prc=$?
	t "the OpenMetrics parser passes the OpenMetrics $kind exposition" "$prc" "$lint"
done
# Both checkers really read what we give them.
lint=$(printf '# TYPE x counter\nx{a="b} 1\n' | promtool check metrics 2>&1); prc=$?
t "promtool check metrics fails a broken exposition" "$([ "$prc" != 0 ]; echo $?)" "$lint"
lint=$(printf '# TYPE h histogram\nh_bucket{le="-1.0"} 0\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum -2\n# EOF\n' |
	"$omcheck" 2>&1); prc=$?
t "the OpenMetrics parser fails a histogram with _sum beside a negative bucket" \
	"$([ "$prc" = 1 ]; echo $?)" "$lint"
lint=$(printf '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n# EOF\n' | "$omcheck" 2>&1); prc=$?
t "om-check fails a series given twice" "$([ "$prc" = 1 ]; echo $?)" "$lint"
done_testing
[ "$rc" = 0 ]
