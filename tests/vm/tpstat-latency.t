#!/bin/bash
# tpstat --latency in the guest: tpgen's pair mode fires tpgen_a then, a set delay later with
# interrupts off, tpgen_b with the same seq, so every latency keyed by seq is at least that
# delay; other patterns give known numbers of replaced, unmatched, open and dropped starts.
# Every START is matched, open, replaced, dropped or an error, every END matched, without a
# start or an error, exactly; runqlat on the scheduler's own tracepoints is plausible.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
final() { grep '"final":true' <<<"$1"; }
tp() { final "$1" | jq -c ".tracepoints[] | select(.name == \"$2\")"; }
lat() { tp "$1" "$2" | jq -c ".latency[$3]"; }
acct='[.matched, .no_start, .replaced, .open, .dropped, .start_errors, .end_errors]'
# sums OUT START END: START's count = matched + open + replaced + dropped + start_busy +
# start_errors and END's = matched + no_start + end_busy + end_errors, with samples = matched.
sums() {
	local l; l=$(lat "$1" "$3" 0)
	jq -e --argjson s "$(tp "$1" "$2" | jq .count)" --argjson e "$(tp "$1" "$3" | jq .count)" \
		'.samples == .matched and $s == .matched + .open + .replaced + .dropped + .start_busy +
		 .start_errors and $e == .matched + .no_start + .end_busy + .end_errors' <<<"$l" >/dev/null
}

# The write of a pair fire, timed by its command (bash -c CMD): its pairs follow one another
# within it, so their latencies add up to no more than it took. That bounds them from
# above; how much a machine adds to each is its own (under TCG, and more on a loaded host).
tw=$(mktemp)
timed() { echo "t0=\$EPOCHREALTIME; $1; echo \$t0 \$EPOCHREALTIME >$tw"; }
write_ns() { local a b; read -r a b <"$tw"; echo $(((${b/./} - ${a/./}) * 1000)); }

# 1. 200 pairs 200 us apart on one CPU: 200 matched, each at least 200,000 ns.
out=$(tpstat -o /dev/stdout -a -j --latency 'tpgen_a:seq,tpgen_b:seq' -- taskset -c 0 bash -c \
	"$(timed "echo tpgen_a 200 pair 200000 > $TPGEN/fire")")
ok $? "tpstat --latency tpgen_a:seq,tpgen_b:seq over 200 pairs 200 us apart exits 0"
l=$(lat "$out" tpgen_b 0)
is "$(jq -c "[.start, .key_expr, .samples] + $acct" <<<"$l")" '["tpgen_a","seq,seq",200,200,0,0,0,0,0,0]' \
	"200 samples, all matched; nothing unmatched, replaced, open, dropped or in error"
sums "$out" tpgen_a tpgen_b
ok $? "tpgen_a's 200 = matched + open + replaced + dropped + errors; tpgen_b's 200 = matched + no_start + errors"
is "$(jq '.min >= 200000 and ([.buckets[] | select(.low < 131072)] | length) == 0' <<<"$l")" true \
	"every latency is at least the 200,000 ns tpgen waited (min $(jq .min <<<"$l"))"
is "$(jq --argjson w "$(write_ns)" '.sum <= $w' <<<"$l")" true \
	"together no longer than the write ($(jq .sum <<<"$l") of $(write_ns) ns): $(jq -c '[.buckets[] | [.low, .count]]' <<<"$l")"

# The same with --lhist-style buckets of 100,000 ns: all in [200000, 299999] or above.
out=$(tpstat -o /dev/stdout -a -j --latency 'tpgen_a:seq,tpgen_b:seq:0:1000000:100000' -- taskset -c 0 bash -c \
	"$(timed "echo tpgen_a 100 pair 200000 > $TPGEN/fire")")
l=$(lat "$out" tpgen_b 0)
is "$(jq --argjson w "$(write_ns)" '.matched == 100 and ([.buckets[] | select(.low < 200000)] | length) == 0 and
	([.buckets[] | select(.low < 1000000) | .low % 100000 == 0 and .high - .low == 99999] | all) and .sum <= $w' <<<"$l")" true \
	"END:KEY:0:1000000:100000: linear buckets of 100,000 ns, none below 200000, together within the write: $(jq -c '[.buckets[] | [.low, .count]]' <<<"$l")"

# 2. Starts twice before the ends: the second 100 replace the first; 150 ends, 50 with no start.
out=$(tpstat -o /dev/stdout -a -j --latency 'tpgen_a:seq,tpgen_b:seq' -- taskset -c 0 sh -c \
	"echo tpgen_a 100 > $TPGEN/fire; echo tpgen_a 100 > $TPGEN/fire; echo tpgen_b 150 > $TPGEN/fire")
is "$(lat "$out" tpgen_b 0 | jq -c "$acct")" '[100,50,100,0,0,0,0]' \
	"a 100, a 100, b 150: 100 matched, 50 without a start, 100 replaced"
sums "$out" tpgen_a tpgen_b
ok $? "and the sums hold (200 starts, 150 ends)"

# 3. More starts than the table holds: what finds no room is dropped, what stays is open.
out=$(tpstat -o /dev/stdout -a -j --latency 'tpgen_a:seq,tpgen_b:seq' -- taskset -c 0 sh -c "echo tpgen_a 20000 > $TPGEN/fire")
l=$(lat "$out" tpgen_b 0)
is "$(jq '.open + .dropped == 20000 and .open <= 10240 and .dropped > 0 and .matched == 0' <<<"$l")" true \
	"20,000 starts, no end: $(jq .open <<<"$l") open (the table holds 10,240), $(jq .dropped <<<"$l") dropped"
sums "$out" tpgen_a tpgen_b
ok $? "and the sums hold"

# 4. A pointer as the key (an object's lifetime): the ctx tpgen passes to both fires.
out=$(tpstat -o /dev/stdout -a -j --latency 'tpgen_a:ctx,tpgen_b:ctx' -- sh -c "echo tpgen_a 100 pair 1000 > $TPGEN/fire")
is "$(lat "$out" tpgen_b 0 | jq -c "[.key_expr] + $acct")" '["ctx,ctx",100,0,0,0,0,0,0]' \
	"keyed by the ctx pointer: each pair's START and END match, 100 of them"

# 5. A filter on START applies to the latency: only odd seqs start, so even ends find none.
out=$(tpstat -o /dev/stdout -a -j --filter 'tpgen_a:seq & 1' --latency 'tpgen_a:seq,tpgen_b:seq' \
	-- taskset -c 0 sh -c "echo tpgen_a 100 pair 1000 > $TPGEN/fire")
is "$(lat "$out" tpgen_b 0 | jq -c "$acct")" '[50,50,0,0,0,0,0]' "with --filter 'tpgen_a:seq & 1': 50 matched, 50 ends without a start"
sums "$out" tpgen_a tpgen_b
ok $? "and the sums hold with tpgen_a's count after its filter (50)"

# 5b. cpu,cpu: each CPU's own word. Pairs on CPU 1: START and END two tracepoints (two
# programs, an xchg); then one tracepoint both ending and starting (one program, a plain
# load and store) N times on every CPU: all but each CPU's first END match, each CPU's last
# START stays open.
out=$(tpstat -o /dev/stdout -a -j --latency 'tpgen_a:cpu,tpgen_b:cpu' -- taskset -c 1 sh -c \
	"echo tpgen_a 100 pair 1000 > $TPGEN/fire")
is "$(lat "$out" tpgen_b 0 | jq -c "[.key_expr] + $acct")" '["cpu,cpu",100,0,0,0,0,0,0]' \
	"keyed by cpu, 100 pairs on CPU 1: 100 matched"
sums "$out" tpgen_a tpgen_b
ok $? "and the sums hold"
ncpu=$(nproc)
out=$(tpstat -o /dev/stdout -a -j --latency 'tpgen_a:cpu,tpgen_a:cpu' -- sh -c "echo tpgen_a 1000 all > $TPGEN/fire")
is "$(lat "$out" tpgen_a 0 | jq -c "[.samples] + $acct")" "[$((ncpu * 999)),$((ncpu * 999)),$ncpu,0,$ncpu,0,0,0]" \
	"tpgen_a:cpu,tpgen_a:cpu, 1000 on each of $ncpu CPUs: 999 matched and 1 without a start per CPU, 1 open each"
sums "$out" tpgen_a tpgen_a
ok $? "and the sums hold ($((ncpu * 1000)) starts, as many ends)"

# 5c. pid,pid: the process's START and END, in the table.
out=$(tpstat -o /dev/stdout -a -j --latency 'tpgen_a:pid,tpgen_b:pid' -- sh -c "echo tpgen_a 100 pair 1000 > $TPGEN/fire")
is "$(lat "$out" tpgen_b 0 | jq -c "[.key_expr] + $acct")" '["pid,pid",100,0,0,0,0,0,0]' \
	"keyed by pid: 100 pairs of one process, 100 matched"

# 6. runqlat: from a task's wakeup to its switch in, on the scheduler's tracepoints. No
# latency is longer than the run that measured it (how long a task waits to run is the
# machine's).
busy='i=0; while [ $i -lt 200 ]; do sleep 0.001; i=$((i+1)); done'
t0=${EPOCHREALTIME/./}
out=$(tpstat -o /dev/stdout -a -j --latency 'sched_wakeup:p->pid,sched_switch:next->pid' \
	sched_wakeup -- sh -c "$busy & $busy & $busy; wait")
ok $? "runqlat: --latency sched_wakeup:p->pid,sched_switch:next->pid"
run_ns=$(((${EPOCHREALTIME/./} - t0) * 1000))
l=$(lat "$out" sched_switch 0)
is "$(jq --argjson run "$run_ns" '.matched >= 200 and .min > 0 and .max <= $run' <<<"$l")" true \
	"plausible: $(jq .matched <<<"$l") wakeups matched (600 sleeps woke), min $(jq .min <<<"$l") ns, max $(jq .max <<<"$l") ns of the run's $run_ns"
sums "$out" sched_wakeup sched_switch
ok $? "and every wakeup and switch is accounted: $(jq -c "$acct" <<<"$l")"

# 7. Intervals: each interval's own histogram of ns; they add up to the final one.
fires="sleep 0.3; echo tpgen_a 100 pair 1000 > $TPGEN/fire; sleep 0.3; echo tpgen_a 50 pair 1000 > $TPGEN/fire; sleep 0.3"
out=$(tpstat -o /dev/stdout -a -i 0.2 --latency 'tpgen_a:seq,tpgen_b:seq' -- taskset -c 0 sh -c "$fires")
is "$(sed -n 's/^ latency tpgen_a:seq -> tpgen_b:seq (ns)  samples \([0-9,]*\) in this interval.*/\1/p' <<<"$out" | tr -d , | awk '{ s += $1 } END { print s + 0 }')" \
	150 "-i 0.2: the intervals' own histograms add up to the 150 pairs"
out=$(tpstat -o /dev/stdout -a -i 0.2 -j --latency 'tpgen_a:seq,tpgen_b:seq' -- taskset -c 0 sh -c "$fires")
is "$(jq -s -c '[.[].tracepoints[] | select(.name == "tpgen_b") | .latency[0].samples] | [(. == sort), .[-1]]' <<<"$out")" \
	"[true,150]" "-j: each line's latency is cumulative, like count, the final one 150"
out=$(tpstat -o /dev/stdout -a --latency 'tpgen_a:seq,tpgen_b:seq' -- taskset -c 0 sh -c "echo tpgen_a 10 pair 1000 > $TPGEN/fire")
grep -q '^ latency tpgen_a:seq -> tpgen_b:seq (ns)  samples 10' <<<"$out" &&
	grep -q '^  tpgen_a: matched 10, open 0, replaced 0, dropped 0 (table full), busy 0, errors 0$' <<<"$out" &&
	grep -q '^  tpgen_b: matched 10, no start 0, busy 0, errors 0$' <<<"$out"
ok $? "the table shows the histogram and where every start and end went"

# 8. Metrics: a histogram family in seconds, the outcomes, the open STARTs as a gauge; both
# forms (log2 and linear) of a latency pass promtool (shared in by tests/run-all).
tpstat -a --textfile /tmp/lat.prom --latency 'tpgen_a:seq,tpgen_b:seq' \
	--latency 'tpgen_a:ctx->cpu,tpgen_b:ctx->cpu:0:1000000000:10000000' \
	-- taskset -c 0 sh -c "echo tpgen_a 10 pair 1000 > $TPGEN/fire" 2>/dev/null
grep -q '^bareatom_latency_seconds_count{start="tpgen_a",end="tpgen_b",key_expr="seq,seq"} 10$' /tmp/lat.prom &&
	grep -q '^bareatom_latency_events_total{start="tpgen_a",end="tpgen_b",key_expr="seq,seq",outcome="matched"} 10$' /tmp/lat.prom &&
	grep -q '^bareatom_latency_open{start="tpgen_a",end="tpgen_b",key_expr="seq,seq"} 0$' /tmp/lat.prom &&
	! grep -q 'outcome="open"' /tmp/lat.prom
ok $? "metrics: bareatom_latency_seconds_count 10, events_total{outcome=matched} 10, latency_open 0 (a gauge)"
promtool=/mnt/share/prometheus/promtool
if [ -x $promtool ]; then
	out=$($promtool check metrics </tmp/lat.prom 2>&1)
	ok $? "promtool check metrics passes both forms of --latency${out:+: $out}"
else
	ok 1 "promtool check metrics: no $promtool (run under tests/run-all, which shares it)"
fi
get='GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0\r\nConnection: close\r\n\r\n'
tpstat -a --listen 127.0.0.1:19466 --latency 'tpgen_a:seq,tpgen_b:seq' -- taskset -c 0 bash -c \
	"echo tpgen_a 10 pair 1000 > $TPGEN/fire; exec 3<>/dev/tcp/127.0.0.1/19466; printf '$get' >&3; timeout $((120 * TAP_SLOW)) cat <&3 >/tmp/lat.http" 2>/dev/null
tr -d '\r' </tmp/lat.http | sed '1,/^$/d' >/tmp/lat.om
out=$("$(dirname "$0")/om-check" /tmp/lat.om 2>&1); rc=$?
if [ $rc = 2 ]; then
	ok 1 "OpenMetrics parser: $out (run under tests/run-all, which shares it)"
else
	grep -q '^bareatom_latency_seconds_bucket{start="tpgen_a",end="tpgen_b",key_expr="seq,seq",le="+Inf"} 10$' /tmp/lat.om
	ok $(( rc || $? )) "the OpenMetrics reference parser takes the served latency families${out:+: $out}"
fi

# 9. Bad latencies: one line, exit 2.
bad() {
	local err rc
	err=$(tpstat -a -d 1 "$@" 2>&1 >/dev/null); rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ]
	ok $? "$*: exit 2, one line: $err"
}
bad --latency 'tpgen_a:seq'
bad --latency 'tpgen_a:comm,tpgen_b:comm'
bad --latency 'tpgen_a:sqe,tpgen_b:seq'
bad --latency 'tpgen_a:ctx->name,tpgen_b:seq'
bad -x, --latency 'tpgen_a:seq,tpgen_b:seq'
rm -f "$tw"
done_testing
