#!/bin/bash
# tpstat's fields on Debian's stock kernel: the same binary resolves the expressions against
# this kernel's BTF (its struct layouts, not ours), so -lv, --hist of pelt_cfs_tp's util_avg
# and its named field, and --by comm work here too, with samples = count; a member this
# kernel lacks is refused naming what it has.
. "$(dirname "$0")/../lib/tap.sh"
final() { grep '"final":true' <<<"$1"; }
work='for i in $(seq 50); do /bin/true; done; dd if=/dev/zero bs=4k count=2000 status=none | cat >/dev/null'

is "$(tpstat -lv pelt_cfs_tp | tail -n1)" "bare  vmlinux      pelt_cfs_tp(struct cfs_rq *cfs_rq)" \
	"tpstat -lv pelt_cfs_tp: the prototype from this kernel's BTF"
out=$(tpstat -o /dev/stdout -a -j --hist 'pelt_cfs_tp:cfs_rq->avg.util_avg' --hist pelt_cfs_tp:util \
	--by sched_switch:comm -- sh -c "$work")
ok $? "tpstat --hist pelt_cfs_tp:cfs_rq->avg.util_avg --hist pelt_cfs_tp:util --by sched_switch:comm"
h=$(final "$out" | jq -c '.tracepoints[] | select(.name == "pelt_cfs_tp") | {count, a: .hist[0], b: .hist[1]}')
is "$(jq '.count > 0 and .a.samples + .a.errors == .count and .a.errors == 0' <<<"$h")" true \
	"samples = count ($(jq .count <<<"$h")), no read failed"
is "$(jq '.a.min >= 0 and .a.max < 65536' <<<"$h")" true "util_avg a PELT value, in [0, 64 x 1024) ($(jq -c '[.a.min, .a.max]' <<<"$h"))"
is "$(jq '.a.buckets == .b.buckets' <<<"$h")" true "the named field util is the same expression"
b=$(final "$out" | jq -c '.tracepoints[] | select(.name == "sched_switch") | {count, by: .by[0]}')
is "$(jq '([.by.entries[].count] | add) + .by.other + .by.dropped + .by.errors == .count' <<<"$b")" true \
	"--by comm: the keys + other + dropped = sched_switch's count ($(jq .count <<<"$b"))"
err_case 2 "struct cfs_rq has no member 'nope' on this kernel; its members: load, nr_running" \
	"an unknown member lists this kernel's" tpstat --hist 'pelt_cfs_tp:cfs_rq->nope'

# The hardware (thermal) pressure tracepoint's named fields follow the kernel's names:
# pelt_thermal_tp and rq->avg_thermal up to 6.8, pelt_hw_tp and rq->avg_hw from 6.9. The member
# exists only with CONFIG_SCHED_THERMAL_PRESSURE / CONFIG_SCHED_HW_PRESSURE.
# (Names from BTF's string section: no other struct has a member of either name.)
names=$(tr '\0' '\n' </sys/kernel/btf/vmlinux)
tp=pelt_thermal_tp m=avg_thermal
grep -qx btf_trace_pelt_hw_tp <<<"$names" && tp=pelt_hw_tp m=avg_hw
if grep -qx "$m" <<<"$names"; then
	tpstat -o /dev/null --hist $tp:util -- true
	ok $? "tpstat --hist $tp:util (rq->$m.util_avg)"
else
	err_case 2 "struct rq has no member '$m' on this kernel" "$tp:util names rq->$m, which this kernel's config leaves out" \
		tpstat --hist $tp:util -- true
fi

# --filter and --latency with this kernel's BTF: runqlat from a task's wakeup to its switch in,
# every wakeup and switch accounted, none longer than the run that measured it (how long a
# task waits to run is the machine's); preemptions only (prev_state 0), the rest filtered.
busy='i=0; while [ $i -lt 200 ]; do sleep 0.001; i=$((i+1)); done'
t0=${EPOCHREALTIME/./}
out=$(tpstat -o /dev/stdout -a -j --latency 'sched_wakeup:p->pid,sched_switch:next->pid' sched_wakeup \
	-- sh -c "$busy & $busy & $busy; wait")
ok $? "runqlat: tpstat --latency sched_wakeup:p->pid,sched_switch:next->pid"
run_ns=$(((${EPOCHREALTIME/./} - t0) * 1000))
l=$(final "$out" | jq -c '{w: (.tracepoints[] | select(.name == "sched_wakeup") | .count),
	s: (.tracepoints[] | select(.name == "sched_switch") | .count),
	l: (.tracepoints[] | select(.name == "sched_switch") | .latency[0])}')
is "$(jq --argjson run "$run_ns" '.l.matched >= 200 and .l.min > 0 and .l.max <= $run and .l.samples == .l.matched' <<<"$l")" true \
	"plausible: $(jq .l.matched <<<"$l") wakeups matched (600 sleeps woke), $(jq -c '[.l.min, .l.max]' <<<"$l") ns of the run's $run_ns"
is "$(jq '.w == .l.matched + .l.open + .l.replaced + .l.dropped + .l.start_errors and
	.s == .l.matched + .l.no_start + .l.end_errors' <<<"$l")" true \
	"every wakeup and switch accounted ($(jq -c '[.w, .s, .l.matched, .l.no_start, .l.replaced, .l.open, .l.dropped]' <<<"$l"))"
# Two busy loops share CPU 0, so the scheduler must preempt them, whatever else runs; the
# shells waiting for them sleep.
spin='timeout 1 sh -c "while :; do :; done"'
out=$(tpstat -o /dev/stdout -a -j --filter 'sched_switch:prev_state == 0' sched_switch -- \
	taskset -c 0 sh -c "$spin & $spin; wait")
t=$(final "$out" | jq -c '.tracepoints[0]')
is "$(jq '.count > 0 and .filtered > 0 and .filter_errors == 0' <<<"$t")" true \
	"--filter 'sched_switch:prev_state == 0': preemptions counted, the sleeps filtered ($(jq -c '[.count, .filtered]' <<<"$t"))"
done_testing
