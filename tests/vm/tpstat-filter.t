#!/bin/bash
# tpstat --filter in the guest: tpgen's seq runs 1..COUNT on each CPU and ctx->cpu is the
# CPU that fires, so what a filter keeps and what it rejects are known exactly, and
# count + filtered = what tpgen fired (tpgen's own stats); a filter applies to the --hist and
# --by of its tracepoint too; a read that fails is a filter error, neither in nor out; every
# output carries the filtered counts; bad filters are one line and exit 2.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
ncpu=$(nproc)
final() { grep '"final":true' <<<"$1"; }
tp() { final "$1" | jq -c ".tracepoints[] | select(.name == \"$2\")"; }
fired() { tr ' ' '\n' <"$TPGEN/last" | sed -n 's/^fired=//p'; }

# 1. seq & 1 keeps the odd half of 1..1000 on one CPU.
out=$(tpstat -o /dev/stdout -a -j --filter 'tpgen_a:seq & 1' -- taskset -c 0 sh -c "echo tpgen_a 1000 > $TPGEN/fire")
ok $? "tpstat --filter 'tpgen_a:seq & 1' -- CMD exits 0"
is "$(tp "$out" tpgen_a | jq -c '[.count, .filtered, .filter_errors, .missed, .filters]')" \
	'[500,500,0,0,["seq & 1"]]' "seq & 1 of 1..1000: 500 counted, 500 filtered, no errors"
is "$(( $(tp "$out" tpgen_a | jq '.count + .filtered + .filter_errors + .missed') ))" "$(fired)" \
	"count + filtered + filter_errors + missed = what tpgen fired ($(fired))"

# 2. Every CPU, two filters ANDed, with a --hist and a --by of the same tracepoint.
out=$(tpstat -o /dev/stdout -a -j --filter 'tpgen_a:seq > 10' --filter 'tpgen_a:seq<=20' \
	--hist tpgen_a:seq --by 'tpgen_a:ctx->cpu' -- sh -c "echo tpgen_a 1000 all > $TPGEN/fire")
ok $? "two --filter on tpgen_a with --hist and --by, every CPU firing"
t=$(tp "$out" tpgen_a)
is "$(jq -c '[.count, .filtered, .filter_errors]' <<<"$t")" "[$((10 * ncpu)),$((990 * ncpu)),0]" \
	"10 < seq <= 20: 10 of 1000 per CPU counted, 990 filtered ($ncpu CPUs)"
is "$(jq -c '.hist[0] | [.samples, .errors, .min, .max, .sum]' <<<"$t")" \
	"[$((10 * ncpu)),0,11,20,$((155 * ncpu))]" "the --hist saw only the kept events: 11..20 on each CPU"
is "$(jq -c '.by[0] | [.keys, ([.entries[].count] | unique), .other, .dropped, .errors]' <<<"$t")" \
	"[$ncpu,[10],0,0,0]" "the --by saw only the kept events: 10 per CPU"
is "$(jq '.count + .filtered' <<<"$t")" "$(fired)" "count + filtered = what tpgen fired"

# 3. The kernel's keys: cpu, comm (the writer is sh; every CPU's kthread is tpgen/N).
out=$(tpstat -o /dev/stdout -a -j --filter 'tpgen_a:cpu == 0' -- sh -c "echo tpgen_a 300 all > $TPGEN/fire")
is "$(tp "$out" tpgen_a | jq -c '[.count, .filtered, .cpus]')" "[300,$((300 * (ncpu - 1))),[0]]" \
	"cpu == 0: CPU 0's 300 counted, the other CPUs' filtered"
out=$(tpstat -o /dev/stdout -a -j --filter 'tpgen_a:comm == sh' --filter 'tpgen_b:comm != sh' tpgen_b \
	-- taskset -c 0 sh -c "echo tpgen_a 200 > $TPGEN/fire; echo tpgen_b 100 > $TPGEN/fire")
is "$(tp "$out" tpgen_a | jq -c '[.count, .filtered]')" "[200,0]" "comm == sh keeps the writer's 200"
is "$(tp "$out" tpgen_b | jq -c '[.count, .filtered]')" "[0,100]" "comm != sh rejects its 100"
out=$(tpstat -o /dev/stdout -a -j --filter 'tpgen_a:comm == "tpgen/1"' -- sh -c "echo tpgen_a 50 all > $TPGEN/fire")
if [ "$ncpu" -ge 2 ]; then
	is "$(tp "$out" tpgen_a | jq -c '[.count, .filtered]')" "[50,$((50 * (ncpu - 1)))]" \
		"comm == \"tpgen/1\": only CPU 1's kthread"
else
	skip "one CPU: no tpgen/1"
fi

# 4. A field through a pointer, and an enumerator of the module's BTF as the value
# (enum tpgen_tp: TPGEN_A 0, TPGEN_B 1, TPGEN_EVENT 2).
out=$(tpstat -o /dev/stdout -a -j --filter 'tpgen_a:ctx->cpu != 0' --filter 'tpgen_a:seq <= TPGEN_EVENT' \
	-- sh -c "echo tpgen_a 100 all > $TPGEN/fire")
is "$(tp "$out" tpgen_a | jq -c '[.count, .filtered]')" "[$((2 * (ncpu - 1))),$((100 * ncpu - 2 * (ncpu - 1)))]" \
	"ctx->cpu != 0 and seq <= TPGEN_EVENT (2): seq 1 and 2 of each CPU but 0"

# 5. A read that fails is a filter error: prev->mm is NULL for a kernel thread, so its
# map_count cannot be read; neither counted nor filtered, and never silently. The command
# makes both kinds of switch, however few others a while would hold: tpgen's kthreads
# switch out as they end, the shell waiting for them switches out too.
out=$(tpstat -o /dev/stdout -a -j --filter 'sched_switch:prev->mm->map_count > 0' sched_switch \
	-- sh -c "echo tpgen_a 1 all > $TPGEN/fire")
ok $? "a filter through prev->mm on sched_switch while tpgen's kthreads come and go"
t=$(tp "$out" sched_switch)
is "$(jq '.filter_errors > 0 and .count > 0' <<<"$t")" true \
	"kernel threads' switches are filter errors, user tasks' counted ($(jq -c '[.count, .filtered, .filter_errors]' <<<"$t"))"
# An enum-typed argument and its enumerator: hrtimer_start's mode.
out=$(tpstat -o /dev/stdout -j --filter 'hrtimer_start:mode == HRTIMER_MODE_REL_PINNED_HARD' hrtimer_start \
	-- taskset -c 0 sh -c "echo tpgen_a 50 nest > $TPGEN/fire")
ok $? "hrtimer_start:mode == HRTIMER_MODE_REL_PINNED_HARD resolves from BTF"
is "$(tp "$out" hrtimer_start | jq '.count >= 1')" true \
	"tpgen's nest timer start is counted ($(tp "$out" hrtimer_start | jq -c '[.count, .filtered]'))"

# --help's example: preemptions (prev_state 0: the task switched out could still run). The
# three busy loops share CPU 0, so the scheduler must preempt them, whatever else runs.
busy='timeout 1 sh -c "while :; do :; done"'
out=$(tpstat -o /dev/stdout -a -j --filter 'sched_switch:prev_state == 0' sched_switch -- \
	taskset -c 0 sh -c "$busy & $busy & $busy; wait")
t=$(tp "$out" sched_switch)
is "$(jq '.count > 0 and .filtered > 0 and .filter_errors == 0' <<<"$t")" true \
	"--help's prev_state == 0: some switches kept, some filtered ($(jq -c '[.count, .filtered]' <<<"$t"))"

# 6. Every output: table, intervals, CSV columns, metrics.
out=$(tpstat -o /dev/stdout -a --filter 'tpgen_a:seq & 1' -- taskset -c 0 sh -c "echo tpgen_a 10 > $TPGEN/fire")
grep -Eq '^ +\(filtered out\) +5 ' <<<"$out" && grep -Eq '^ +\(filter errors\) +0 ' <<<"$out"
ok $? "the table has (filtered out) 5 and (filter errors) 0 under tpgen_a"
grep -q "filter: counted only where 'seq & 1' (tpgen_a)" <<<"$out"
ok $? "and names the filter under the table"
out=$(tpstat -o /dev/stdout -a -x, --filter 'tpgen_a:seq & 1' tpgen_b -- taskset -c 0 sh -c "echo tpgen_a 10 > $TPGEN/fire")
is "$(cut -d, -f1,3,8,9 <<<"$out" | sort)" "0,tpgen_b,,
5,tpgen_a,5,0" "CSV: FILTERED and FILTER_ERRORS columns, empty for a tracepoint without a filter"
# (The final line has the delta since the last interval: a tick late by more than an
# interval is skipped, so the fire may fall in it.)
out=$(tpstat -o /dev/stdout -a -i 0.2 -j --filter 'tpgen_a:seq & 1' -- sh -c "sleep 0.5; echo tpgen_a 1000 > $TPGEN/fire; sleep 0.5")
is "$(jq -s '[.[].tracepoints[0].filtered_delta] | add' <<<"$out")" \
	"$(final "$out" | jq '.tracepoints[0].filtered')" "the lines' filtered_delta add up to the final filtered"
body=$(tpstat -a --textfile /tmp/filter.prom --filter 'tpgen_a:seq & 1' -- taskset -c 0 sh -c "echo tpgen_a 10 > $TPGEN/fire" 2>/dev/null; cat /tmp/filter.prom)
grep -q '^bareatom_tracepoint_filtered_total{tracepoint="tpgen_a".*} 5$' <<<"$body" &&
	grep -q '^bareatom_tracepoint_filter_errors_total{tracepoint="tpgen_a".*} 0$' <<<"$body"
ok $? "metrics: bareatom_tracepoint_filtered_total 5 and filter_errors_total 0"

# 7. Bad filters: one line, what exists instead, exit 2, nothing loaded.
bad() {	# FILTER WANT: tpstat refuses FILTER with a line containing WANT
	local err rc
	err=$(tpstat -a -d 1 --filter "$1" 2>&1 >/dev/null); rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -qF -- "$2" <<<"$err"
	ok $? "--filter '$1': exit 2, one line: $err"
}
bad 'tpgen_a:seq = 1' "'=' is not an operator: '==' compares"
bad 'tpgen_a:sqe == 1' "seq"
bad 'tpgen_a:seq == -1' "-1 is negative, and"
bad 'tpgen_a:seq == TPGEN_Z' "'TPGEN_Z' is neither an integer nor an enumerator in BTF"
bad 'hrtimer_start:mode == HRTIMER_MODE_NOPE' "is not a value of enum hrtimer_mode: HRTIMER_MODE_ABS"
bad 'tpgen_a:comm < sh' "comm takes == and != only"
bad 'tpgen_a:seq' "no operator: give EXPR OP VALUE"
bad 'tpgen_a' "TRACEPOINT:EXPR OP VALUE"
bad 'nosuch_tp:seq == 1' "unknown tracepoint 'nosuch_tp'"
done_testing
