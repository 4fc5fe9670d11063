#!/bin/bash
# tpstat with any number of tracepoints and perf's wildcards ('sched:*', 'pelt_*'): more than
# 100 at once, with tpgen's exact counts among them at indexes past the 32 programs tpstat
# once had (each a copy of one program with its index patched in), every other row
# consistent, 'sched:*' as the guest's tracefs lists it, the errors, and a short RLIMIT_NOFILE.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
ncpu=$(nproc)
final() { grep '"final":true' <<<"$1"; }
field() { final "$1" | jq -r ".tracepoints[] | select(.name == \"$2\") | $3"; }
# events SUBSYS: the trace events tracefs lists for SUBSYS, sorted, one a line
events() { ls /sys/kernel/tracing/events/"$1" | grep -v -e '^enable$' -e '^filter$' | LC_ALL=C sort; }
# raw NAME...: those of the names that are raw tracepoints (in tpstat -l), one a line
raw() { grep -Fxf <(tpstat -l -j | jq -r '.[].name') <(printf '%s\n' "$@"); }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing

# ---- 'sched:*' -d 1: every sched tracepoint, one row each, in tpstat -l's order ----
want=$(raw $(events sched))
out=$(tpstat -o /dev/stdout -j -a -d 1 'sched:*')
ok $? "tpstat -j -a -d 1 'sched:*' exits 0"
rows=$(final "$out" | jq -r '.tracepoints[].name')
is "$rows" "$want" "'sched:*' counts every sched event of the guest, by name ($(wc -l <<<"$want"))"
[ "$(wc -l <<<"$want")" -ge 20 ]
ok $? "that is the scheduler's events: $(paste -sd' ' <<<"$want" | cut -c1-200)"
c=$(field "$out" sched_switch .count)
[ "${c:-0}" -gt 0 ]
ok $? "sched_switch counted in that second ($c)"
is "$(final "$out" | jq '[.tracepoints[] | select(.bare)] | length')" 0 "no bare tracepoint (they have no subsystem)"

# ---- 'pelt_*': the bare PELT tracepoints, by name ----
want=$(tpstat -l 'pelt_*' | awk 'NR > 1 { print $1 }')
out=$(tpstat -o /dev/stdout -j -a -d 0.2 'pelt_*')
ok $? "tpstat -j -a 'pelt_*' exits 0"
is "$(final "$out" | jq -r '.tracepoints[].name')" "$want" "'pelt_*' is tpstat -l 'pelt_*' ($(paste -sd, <<<"$want"))"
is "$(final "$out" | jq '[.tracepoints[] | select(.bare | not)] | length')" 0 "every one of them bare"

# ---- more than 100 at once ----
# tpgen_a first (index 0), tpgen_b after every pattern's match (an index past 100),
# tpgen_event among them by its subsystem; tpgen_a also with a --hist (the program that
# reads fields, beside the plain copies), tpgen_b with a --filter.
pats=('sched:*' 'irq:*' 'timer:*' 'workqueue:*' 'kmem:*' 'block:*' 'writeback:*' 'task:*' 'signal:*' 'tpgen:*' 'pelt_*')
a0=$(tpgen_stat tpgen_a) b0=$(tpgen_stat tpgen_b) e0=$(tpgen_stat tpgen_event)
iv=$(mktemp)
tpstat -o "$iv" -a -j -i 0.5 --hist tpgen_a:seq --filter 'tpgen_b:seq & 1' tpgen_a "${pats[@]}" tpgen_b -- \
	sh -c "echo tpgen_a 3000 all > $TPGEN/fire; echo tpgen_b 2000 > $TPGEN/fire; echo tpgen_event 777 > $TPGEN/fire"
ok $? "tpstat -a -j -i 0.5 tpgen_a ${pats[*]} tpgen_b -- CMD exits 0"
out=$(cat "$iv"); rm -f "$iv"
n=$(final "$out" | jq '.tracepoints | length')
[ "$n" -gt 100 ]
ok $? "$n tracepoints counted at once (more than 100)"
is "$(final "$out" | jq '[.tracepoints[].name] | unique | length')" "$n" "each once"
is "$(final "$out" | jq -r '.tracepoints[0].name + " " + .tracepoints[-1].name')" "tpgen_a tpgen_b" \
	"tpgen_a first, tpgen_b last (index $((n - 1)))"
fa=$(( $(tpgen_stat tpgen_a) - a0 )) fb=$(( $(tpgen_stat tpgen_b) - b0 )) fe=$(( $(tpgen_stat tpgen_event) - e0 ))
is "$fa/$fb/$fe" "$((3000 * ncpu))/2000/777" "tpgen fired tpgen_a on all CPUs, tpgen_b and tpgen_event on one"
is "$(field "$out" tpgen_a '.count + .missed')" "$fa" "tpgen_a: count + missed = fired, exactly"
is "$(field "$out" tpgen_a '.hist[0].samples + .hist[0].errors')" "$(field "$out" tpgen_a .count)" \
	"tpgen_a's --hist holds every event it counted"
is "$(field "$out" tpgen_b '.count + .filtered + .filter_errors + .missed')" "$fb" \
	"tpgen_b (index $((n - 1))): count + filtered + errors + missed = fired, exactly"
is "$(field "$out" tpgen_b '.count')/$(field "$out" tpgen_b '.filtered')" "$((fb / 2))/$((fb / 2))" \
	"tpgen_b's filter passed the odd seq, half"
is "$(field "$out" tpgen_event '.count + .missed')" "$fe" "tpgen_event, matched by 'tpgen:*': count + missed = fired"
# Every row: the deltas of all lines add up to its count, its CPU set is no larger than its
# count and the CPUs allow, empty without hits, and with hits holds its first CPU.
bad=$(jq -rs --argjson ncpu "$ncpu" '
	([.[].tracepoints[]] | group_by(.name) | map({key: .[0].name, value: (map(.delta) | add)}) |
	 from_entries) as $sum |
	last.tracepoints[] |
	select($sum[.name] != .count or (.cpus | length) > ([$ncpu, .count] | min) or
	       (.count > 0 and (.first_cpu as $f | .cpus | any(. == $f) | not)) or
	       (.count == 0 and (.cpus | length) != 0) or .missed < 0) | .name' <<<"$out")
is "$bad" "" "every one of the $n rows: deltas add up to the count, CPU set and first CPU consistent"
k=$(final "$out" | jq '[.tracepoints[] | select(.count > 0)] | length')
[ "$k" -gt 10 ]
ok $? "$k of them counted something while tpgen fired"

# The same names twice, by pattern and by name: counted once, at the first place.
out=$(tpstat -o /dev/stdout -j -a -d 0.2 sched_switch 'sched:sched_s*' 'sched_sw*')
is "$(final "$out" | jq -r '[.tracepoints[].name] | join(",")')" "$(paste -sd, <(echo sched_switch; raw $(events sched | grep '^sched_s') | grep -vx sched_switch))" \
	"sched_switch named, then matched twice: one row, first"

# ---- errors ----
err_case 2 "no tracepoint matches 'nosuch_\*'" "a pattern that matches nothing" tpstat -d 1 'nosuch_*'
err_case 2 "no tracepoint matches 'sched:pelt_\*'" "a bare tracepoint is in no subsystem" tpstat -d 1 'sched:pelt_*'
err_case 2 "unknown tracepoint 'nosuch_tp'" "a plain unknown name beside a pattern" tpstat -d 1 'sched:*' nosuch_tp
err_case 1 "RLIMIT_NOFILE allows 100" "more tracepoints than the hard RLIMIT_NOFILE allows, named" \
	bash -c "ulimit -n 100 && ulimit -Hn 100 && exec tpstat -a -d 1 'sched:*' 'irq:*' 'timer:*' 'kmem:*' 'writeback:*' 'block:*'"
out=$(bash -c "ulimit -Sn 64 && exec tpstat -o /dev/stdout -j -a -d 0.2 ${pats[*]@Q}")
ok $? "a soft RLIMIT_NOFILE of 64 is raised to the hard one ($(ulimit -Hn)): $(final "$out" | jq '.tracepoints | length') tracepoints"

# ---- start-up (diagnostics): from exec to the first interval line, TCG ----
startup() {	# PATTERN...: seconds until tpstat -i 0.1's first line
	local f t0 pid; f=$(mktemp)
	t0=$EPOCHREALTIME
	tpstat -o "$f" -j -a -i 0.1 "$@" &
	pid=$!
	wait_until 600 "tpstat's first line" test -s "$f"
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a - 0.1 }'
	kill -INT $pid; wait $pid; rm -f "$f"
}
one=$(startup sched_switch)
thirty=$(startup $(tpstat -l | awk 'NR > 1 && NR <= 33 { print $1 }'))
many=$(startup tpgen_a "${pats[@]}" tpgen_b)
diag "start-up to the first line (TCG, $ncpu vCPUs): 1 tracepoint $one s, 32 $thirty s, $n $many s"
done_testing
