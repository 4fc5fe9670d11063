#!/bin/bash
# tpstat's exactness that accounts for what the kernel drops, and perf stat's targets and
# views: -- CMD counts its process tree only, -a system wide, -p/-t/-G their tasks; misses
# of 6.1's recursion check make count + missed = hits; the final read follows every
# in-flight run; -A rows add up, CSV parses back, -r means equal the runs.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
ncpu=$(nproc)
w=$(mktemp -d)
final() { grep '"final":true' <<<"$1"; }
field() { final "$1" | jq -r ".tracepoints[] | select(.name == \"$2\") | $3"; }
fired() { echo $(( $(tpgen_stat "$1") - $2 )); }
# (Commands below wait with wait_until in bash -c, which imports it.)
export -f wait_until diag; export TAP_SLOW

# ---- targets ----
a0=$(tpgen_stat tpgen_a)
out=$(tpstat -o /dev/stdout -j tpgen_a -- sh -c "echo tpgen_a 1000 > $TPGEN/fire; echo tpgen_a 500 all > $TPGEN/fire;
	(echo tpgen_a 70 > $TPGEN/fire) & wait; sh -c 'echo tpgen_a 30 > $TPGEN/fire'")
ok $? "tpstat -- CMD exits 0"
is "$(fired tpgen_a "$a0")" $((1100 + 500 * ncpu)) "tpgen fired 1100 from CMD's tree and 500 on each CPU from kthreads"
is "$(field "$out" tpgen_a .count)" 1100 "-- CMD counts its process tree only (children and grandchildren), not the kthreads"
is "$(final "$out" | jq -r .target)" "its process tree" "the JSON says what counted"
a0=$(tpgen_stat tpgen_a)
out=$(tpstat -o /dev/stdout -a -j tpgen_a -- sh -c "echo tpgen_a 1000 > $TPGEN/fire; echo tpgen_a 500 all > $TPGEN/fire")
is "$(field "$out" tpgen_a .count)" "$(fired tpgen_a "$a0")" "-a -- CMD counts both, system wide ($((1000 + 500 * ncpu)))"

# -p and -t: a running shell that fires 777 on SIGUSR1; the command's own fires do not count.
# (SIGUSR1 is sent once its trap is set: it says so with a file.)
sh -c "trap 'echo tpgen_a 777 > $TPGEN/fire; touch $w/fired' USR1; touch $w/ready; while :; do sleep 0.05; done" &
target=$!
wait_until 120 "the target shell to set its trap" test -e "$w/ready"
for opt in -p -t; do
	rm -f "$w/fired"
	out=$(tpstat -o /dev/stdout -j $opt $target tpgen_a -- bash -c "kill -USR1 $target
		wait_until 120 'the target to fire' test -e $w/fired >&2; echo tpgen_a 100 > $TPGEN/fire")
	is "$(field "$out" tpgen_a .count)" 777 "$opt PID counts the running process's events only (777, not the 100 of CMD)"
done
kill $target; wait $target 2>/dev/null

# -G: a cgroup made here, with a child cgroup; tasks outside it do not count.
cg=/sys/fs/cgroup/tpstat-test
mkdir -p $cg/sub
out=$(tpstat -o /dev/stdout -j -G tpstat-test tpgen_a -- sh -c "
	sh -c 'echo \$\$ > $cg/cgroup.procs; echo tpgen_a 555 > $TPGEN/fire'
	sh -c 'echo \$\$ > $cg/sub/cgroup.procs; echo tpgen_a 111 > $TPGEN/fire'
	echo tpgen_a 99 > $TPGEN/fire")
is "$(field "$out" tpgen_a .count)" 666 "-G counts the cgroup and its descendants (555 + 111), not the rest (99)"
is "$(final "$out" | jq -r .target)" "cgroup tpstat-test" "and says so"
rmdir $cg/sub $cg

err_case 2 "no such process: 4000000" "-p of a PID that does not exist" tpstat -p 4000000 tpgen_a
err_case 2 "is not a cgroup v2 directory" "-G of a path that is not cgroup v2" tpstat -G /tmp tpgen_a
err_case 2 "-a counts system wide: it cannot be combined with -p" "-a and -p contradict" tpstat -a -p 1 tpgen_a

# The filter is in the program only when asked for: system wide it is gone (dead code).
# Each tpstat runs until the dump is taken: its command waits for the file go.
held="while [ ! -e $w/go ]; do sleep 0.05; done"
calls() {	# TPSTAT_OPTIONS...: the helper calls in the pinned program of tpstat --pin OPTIONS
	rm -f "$w/go"
	tpstat -o /dev/null --pin "$@" tpgen_a -- sh -c "$held" &
	tp=$!
	wait_until 600 "tpstat --pin $* to pin its program" test -e /sys/fs/bpf/bareatom/tpstat/prog_tpgen_a >&2
	bpftool prog dump xlated pinned /sys/fs/bpf/bareatom/tpstat/prog_tpgen_a | grep -c 'call '
	touch "$w/go"
	wait $tp
}
sw=$(calls -a)
fl=$(calls -p 1)
[ "$fl" -gt "$sw" ]
ok $? "system wide, the filter's helper calls are not in the program ($sw calls; with -p: $fl)"

# ---- count + missed = hits: nest fires the same tracepoint in task and hardirq context ----
any=0 all_exact=0
for run in 1 2 3; do
	a0=$(tpgen_stat tpgen_a)
	out=$(tpstat -o /dev/stdout -a -j tpgen_a -- sh -c "echo tpgen_a 200000 nest > $TPGEN/fire")
	c=$(field "$out" tpgen_a .count) m=$(field "$out" tpgen_a .missed) f=$(fired tpgen_a "$a0")
	diag "nest run $run: fired $f, count $c, missed $m ($(cat $TPGEN/last))"
	[ $((c + m)) = "$f" ] || all_exact=1
	[ "$m" -gt 0 ] && any=1
done
ok $all_exact "every nest run: count + missed = what tpgen fired, exactly"
ok $((1 - any)) "the kernel's recursion check did drop hits (missed > 0 in at least one run)"
is "$(field "$out" tpgen_a .missed_delta)" "$(field "$out" tpgen_a .missed)" "missed has its delta like count"

# ---- the final read follows every in-flight run ----
# tpstat stops (its command ends) while CPU 1 goes on firing; the firing is stopped with
# SIGINT after.
# (Firing on every CPU at once under TCG starves RCU's grace-period kthread, so the detach,
# which waits for a grace period, would return only once the firing ended.)
over=0 overlapped=0
counting() {	# the pinned counters of tpgen_a hold a hit
	[ "$(bpftool -j map dump pinned /sys/fs/bpf/bareatom/tpstat/counts |
		jq '[.[].formatted | select(.key < 320 * 8 and .key % 8 == 0) | .value] | add')" -gt 0 ]
}
interrupted() { ! kill -INT "$1" 2>/dev/null; }	# PID: SIGINT sent until it is gone
for run in 1 2 3; do
	a0=$(tpgen_stat tpgen_a)
	# tpstat stops when its command ends: once its counters show CPU 1's firing, so the
	# firing goes on past the stop however slowly both start.
	rm -f "$w/go"
	timeout $((300 * TAP_SLOW)) taskset -c 0 tpstat -o "$w/race.out" -a -j --pin tpgen_a -- sh -c "$held" &
	tp=$!
	wait_until 600 "tpstat --pin to attach" test -e /sys/fs/bpf/bareatom/tpstat/link_tpgen_a
	# Bounded (seconds under TCG), so that a grace period that CPU 1's firing holds off ends
	# with the firing at the latest: tpstat's detach waits for one, and the SIGINT below
	# is sent only once tpstat is done. (The guest that hung for good here was CPU 1 stuck
	# at the tracepoint's jump site while the detach patched it: tpgen now keeps its
	# tracepoints enabled, so a detach patches no code; see keep_enabled in tpgen.c.)
	taskset -c 1 write1 $TPGEN/fire "tpgen_a 300000000" >/dev/null &
	firer=$!
	wait_until 300 "tpstat's pinned counters to count CPU 1's firing" counting
	touch "$w/go"
	wait $tp
	wait_until 300 "write1 to end on SIGINT" interrupted $firer
	kill -KILL $firer 2>/dev/null
	wait $firer
	out=$(cat "$w/race.out")
	c=$(field "$out" tpgen_a .count) m=$(field "$out" tpgen_a .missed) f=$(fired tpgen_a "$a0")
	diag "stop while firing, run $run: count $c + missed $m of $f fired"
	[ $((c + m)) -le "$f" ] || over=1
	[ "$c" -gt 0 ] && [ "$f" -gt $((c + m)) ] && overlapped=$((overlapped + 1))
done
ok $over "stopping while a CPU fires never reports more than was fired"
[ "$overlapped" -gt 0 ]
ok $? "and the firing really went on past the stop ($overlapped of 3 runs)"

# ---- views ----
a0=$(tpgen_stat tpgen_a)
out=$(tpstat -o /dev/stdout -a -A -j tpgen_a -- sh -c "echo tpgen_a 2000 all > $TPGEN/fire")
is "$(field "$out" tpgen_a '[.per_cpu[].count] | add')" "$(field "$out" tpgen_a .count)" "-A: the per-CPU rows add up to the total"
is "$(field "$out" tpgen_a '[.per_cpu[] | select(.count == 2000)] | length')" "$ncpu" "-A: each CPU's row has its 2000"
txt=$(tpstat -o /dev/stdout -a -A tpgen_a -- sh -c "echo tpgen_a 2000 all > $TPGEN/fire")
is "$(grep -cE '^ +CPU[0-9]+ +2,000 ' <<<"$txt")" "$ncpu" "-A table: a row per CPU"

# -C: only the events on those CPUs count (each CPU fired 700), in the program.
out=$(tpstat -o /dev/stdout -a -C 1 -j tpgen_a -- sh -c "echo tpgen_a 700 all > $TPGEN/fire")
is "$(field "$out" tpgen_a '"\(.count) \(.cpus | map(tostring) | join(","))"')" "700 1" "-C 1: CPU 1's 700 events, on CPU 1 alone"
out=$(tpstat -o /dev/stdout -a -C 0-1 -j tpgen_a -- sh -c "echo tpgen_a 700 all > $TPGEN/fire")
is "$(field "$out" tpgen_a '"\(.count) \(.cpus | map(tostring) | join(","))"')" "1400 0,1" "-C 0-1: two CPUs' 700 events each"
is "$(final "$out" | jq -r .target)" "system wide, CPUs 0-1" "-C names its CPUs in the target"
out=$(tpstat -o /dev/stdout -C 0 -j tpgen_a -- sh -c "echo tpgen_a 700 all > $TPGEN/fire; taskset -c 0 sh -c 'echo tpgen_a 33 > $TPGEN/fire'; taskset -c 1 sh -c 'echo tpgen_a 44 > $TPGEN/fire'")
is "$(field "$out" tpgen_a .count)" 33 "-C 0 with CMD's tree: only the tree's events on CPU 0 (not tpgen's kthreads, not CPU 1)"
err_case 2 "-C 4095: there is no CPU 4095" "-C with a CPU this machine cannot have" tpstat -C 4095 tpgen_a

a0=$(tpgen_stat tpgen_a) b0=$(tpgen_stat tpgen_b)
csv=$(tpstat -o /dev/stdout -a -x, tpgen_a tpgen_b -- sh -c "echo tpgen_a 1234 all > $TPGEN/fire; echo tpgen_b 4321 > $TPGEN/fire")
is "$(awk -F, '$3 == "tpgen_a" { print $1 }' <<<"$csv")/$(awk -F, '$3 == "tpgen_b" { print $1 }' <<<"$csv")" \
	"$(fired tpgen_a "$a0")/$(fired tpgen_b "$b0")" "-x, parses back: COUNT in field 1, TRACEPOINT in field 3"
is "$(awk -F, '$3 == "tpgen_a" { print NF "/" $2 "/" $4 "/" $5 }' <<<"$csv")" "7/0/bare/tpgen" "-x,: 7 columns, MISSED, KIND, MODULE"
is "$(grep -c '[0-9],[0-9][0-9][0-9][^0-9]' <<<"$(cut -d, -f1 <<<"$csv")")" 0 "-x: no thousands separators"
csv=$(tpstat -o /dev/stdout -a -x';' -A -i 0.2 tpgen_a -- sh -c "echo tpgen_a 3000 all > $TPGEN/fire; sleep 0.3")
is "$(awk -F';' '$2 ~ /^CPU/ { s += $3 } END { print s }' <<<"$csv")" $((3000 * ncpu)) "-x';' -A -i: the per-CPU deltas of all lines add up to what was fired"

echo 1000 >"$w/n"
out=$(tpstat -o /dev/stdout -r 3 -j tpgen_a -- sh -c "n=\$(cat $w/n); echo \$((n + 1000)) > $w/n; echo tpgen_a \$n > $TPGEN/fire")
ok $? "tpstat -r 3 -- CMD exits 0"
is "$(field "$out" tpgen_a '.runs | map(tostring) | join(",")')" "1000,2000,3000" "-r 3: each run's count"
is "$(field "$out" tpgen_a '.mean')/$(field "$out" tpgen_a '.count')" "2000/6000" "-r 3: the mean of the runs, and their total"
is "$(field "$out" tpgen_a '.stddev')" 1000 "-r 3: the runs' standard deviation"
txt=$(tpstat -o /dev/stdout -r 3 tpgen_a -- sh -c "echo tpgen_a 500 > $TPGEN/fire")
grep -qE '^ +tpgen_a +bare +tpgen +500 .*\( \+- 0\.00% \)' <<<"$txt"
ok $? "-r table: the mean and perf's noise (+- 0.00% for equal runs)"

txt=$(tpstat -o /dev/stdout -a -i 0.2 --summary tpgen_a -- sh -c "echo tpgen_a 4444 all > $TPGEN/fire; sleep 0.3")
commas() { rev <<<"$1" | sed 's/\([0-9]\{3\}\)/\1,/g; s/,$//' | rev; }
grep -q "tpstat counts for" <<<"$txt" && grep -qE "^ +tpgen_a +bare +tpgen +$(commas $((4444 * ncpu))) " <<<"$txt"
ok $? "--summary prints the totals after the intervals"
txt=$(tpstat -o /dev/stdout -a -i 0.2 tpgen_a -- sh -c "sleep 0.3")
grep -q "tpstat counts for" <<<"$txt"
ok $((1 - $?)) "without --summary, -i prints interval lines only"
rm -rf "$w"
done_testing
