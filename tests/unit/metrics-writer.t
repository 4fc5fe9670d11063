#!/bin/bash
# The metrics exposition writer: exact text in both formats (C checks), then the 0.0.4
# exposition through promtool check metrics (Debian's prometheus package). promtool 2.42
# parses the 0.0.4 text only: on OpenMetrics it rejects the \" escape OpenMetrics' HELP
# requires and, reading `# TYPE x counter` before `x_total` samples, calls them untyped
# (exit 3). The OpenMetrics text is checked by a real Prometheus scraping it instead
# (tests/vm/prometheus.t), whose OpenMetrics parser is the strict one.
bin=$BUILD/tests/unit/metrics-writer
out=$("$bin")
rc=$?
printf '%s\n' "$out" | grep -v '^1\.\.'
n=$(grep -cE '^(not )?ok ' <<<"$out")
t() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; printf '#   %s\n' "${@:3}"; fi; }
for fmt in prom; do
	text=$("$bin" dump $fmt)
	lint=$(promtool check metrics <<<"$text" 2>&1); prc=$?
	t "promtool check metrics passes the $fmt exposition" "$prc" "$lint"
done
# promtool's parser is the 0.0.4 one: it proves the checker really reads what we give it.
lint=$(printf '# TYPE x counter\nx{a="b} 1\n' | promtool check metrics 2>&1); prc=$?
t "promtool check metrics fails a broken exposition" "$([ "$prc" != 0 ]; echo $?)" "$lint"
echo "1..$n"
[ "$rc" = 0 ]
