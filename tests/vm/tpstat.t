#!/bin/bash
# tpstat in the guest: exact counts against tpgen's stats, interval deltas, CPU sets, the
# kernel's own bare tracepoints, agreement with perf, pausing, and every error case.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
ncpu=$(nproc)
allcpus=$(seq -s, 0 $((ncpu - 1)))
final() { grep '"final":true' <<<"$1"; }
field() { final "$1" | jq -r ".tracepoints[] | select(.name == \"$2\") | $3"; }
# lines_in N PATTERN FILE: FILE has N lines matching PATTERN. Commands below wait with it
# for what tpstat prints (in bash -c, which imports these).
lines_in() { [ "$(grep -c -- "$2" "$3")" -ge "$1" ]; }
export -f wait_until diag lines_in; export TAP_SLOW

# One CPU: fired from a shell pinned to CPU 1.
a0=$(tpgen_stat tpgen_a) b0=$(tpgen_stat tpgen_b)
out=$(tpstat -o /dev/stdout -j tpgen_a tpgen_b -- taskset -c 1 sh -c "echo tpgen_a 1000 > $TPGEN/fire; echo tpgen_b 2500 > $TPGEN/fire")
ok $? "tpstat -j tpgen_a tpgen_b -- CMD exits 0"
is "$(( $(tpgen_stat tpgen_a) - a0 ))/$(( $(tpgen_stat tpgen_b) - b0 ))" "1000/2500" "tpgen fired 1000 tpgen_a and 2500 tpgen_b on one CPU"
is "$(field "$out" tpgen_a .count)" 1000 "tpgen_a counted exactly (one CPU)"
is "$(field "$out" tpgen_b .count)" 2500 "tpgen_b counted exactly (one CPU)"
is "$(field "$out" tpgen_a '.cpus | map(tostring) | join(",")')" 1 "tpgen_a CPU set is {1}"
is "$(field "$out" tpgen_b .first_cpu)" 1 "tpgen_b first CPU is 1"
is "$(field "$out" tpgen_a .bare)/$(field "$out" tpgen_a .module)" "true/tpgen" "tpgen_a reported bare, from module tpgen"

# All CPUs at once, with 0.2 s intervals: totals exact, deltas add up to them. The command
# ends once two interval lines are out: a tick late by more than an interval is skipped, so
# how many a fixed while holds is the machine's.
a0=$(tpgen_stat tpgen_a) b0=$(tpgen_stat tpgen_b)
iv=$(mktemp)
tpstat -o "$iv" -a -j -i 0.2 tpgen_a tpgen_b -- bash -c "echo tpgen_a 300000 all > $TPGEN/fire; sleep 0.3; echo tpgen_b 120000 all > $TPGEN/fire; sleep 0.3
	wait_until 300 'two interval lines' lines_in 2 . $iv >&2"
ok $? "tpstat -a -j -i 0.2 while firing on all CPUs exits 0"
out=$(cat "$iv"); rm -f "$iv"
fa=$(( $(tpgen_stat tpgen_a) - a0 )) fb=$(( $(tpgen_stat tpgen_b) - b0 ))
is "$fa/$fb" "$((300000 * ncpu))/$((120000 * ncpu))" "tpgen fired on all $ncpu CPUs"
is "$(field "$out" tpgen_a .count)" "$fa" "tpgen_a counted exactly under all-CPU contention"
is "$(field "$out" tpgen_b .count)" "$fb" "tpgen_b counted exactly under all-CPU contention"
lines=$(wc -l <<<"$out")
diag "$lines JSON lines"
[ "$lines" -ge 3 ]
ok $? "several interval lines were printed ($lines)"
printf '%s\n' "$out" | jq -e . >/dev/null
ok $? "every line is valid JSON"
is "$(jq -s '[.[].tracepoints[] | select(.name == "tpgen_a") | .delta] | add' <<<"$out")" "$fa" "tpgen_a: the deltas of all lines sum to the total"
is "$(jq -s '[.[].tracepoints[] | select(.name == "tpgen_b") | .delta] | add' <<<"$out")" "$fb" "tpgen_b: the deltas of all lines sum to the total"
is "$(jq -s '[.[].interval] == [range(1; length + 1)]' <<<"$out")" true "intervals are numbered 1..N"
is "$(jq -s '[.[].final] | (last == true) and (.[:-1] | all(. == false))' <<<"$out")" true "only the last line is final"
is "$(field "$out" tpgen_a '.cpus | map(tostring) | join(",")')" "$allcpus" "tpgen_a CPU set is every CPU"
first=$(field "$out" tpgen_a .first_cpu)
[ "$first" -ge 0 ] && [ "$first" -lt "$ncpu" ]
ok $? "tpgen_a first CPU ($first) is one of them"

# Table output.
out=$(tpstat -o /dev/stdout tpgen_a -- sh -c "echo tpgen_a 1234 > $TPGEN/fire")
grep -qE '^ +tpgen_a +bare +tpgen +1,234 ' <<<"$out"
ok $? "table output: name, kind, module, count"

# The kernel's own tracepoints under a workload.
work='for i in $(seq 50); do /bin/true; done; dd if=/dev/zero bs=4k count=2000 status=none | cat >/dev/null'
out=$(tpstat -o /dev/stdout -j pelt_cfs_tp sched_update_nr_running_tp sched_switch -- sh -c "$work")
ok $? "tpstat on the scheduler's tracepoints exits 0"
for tp in pelt_cfs_tp sched_update_nr_running_tp sched_switch; do
	c=$(field "$out" $tp .count)
	[ "${c:-0}" -gt 0 ]
	ok $? "$tp counted under a workload ($c)"
done
is "$(field "$out" pelt_cfs_tp .bare)/$(field "$out" sched_switch .bare)" "true/false" "pelt_cfs_tp bare, sched_switch not"

# -l
list=$(tpstat -l)
grep -qE '^pelt_cfs_tp +bare +vmlinux$' <<<"$list"
ok $? "tpstat -l marks pelt_cfs_tp bare"
grep -qE '^sched_switch +event +vmlinux$' <<<"$list"
ok $? "tpstat -l marks sched_switch as an event"
grep -qE '^tpgen_a +bare +tpgen$' <<<"$list"
ok $? "tpstat -l lists tpgen_a from module tpgen"
grep -qE '^br_eht_host_create +bare +vmlinux$' <<<"$list"
ok $? "tpstat -l lists our patch's bare EHT tracepoints"
is "$(tpstat -lv pelt_cfs_tp | tail -n1)" "bare  vmlinux      pelt_cfs_tp(struct cfs_rq *cfs_rq)" \
	"tpstat -lv: the prototype with the argument's name, from BTF"
is "$(tpstat -lv tpgen_a | tail -n1)" "bare  tpgen        tpgen_a(u64 seq, struct tpgen_ctx *ctx)" \
	"tpstat -lv: a module's tracepoint, from the module's split BTF"
is "$(tpstat -lv -j sched_update_nr_running_tp | jq -c '.[0] | [.proto, .arg_names, .args]')" \
	'["sched_update_nr_running_tp(struct rq *rq, int change)",true,[{"name":"rq","type":"struct rq *"},{"name":"change","type":"int"}]]' \
	"tpstat -lv -j: proto, arg_names and args"
is "$(tpstat -lv 'pelt_*' | tail -n +2 | wc -l)" "$(tpstat -l 'pelt_*' | tail -n +2 | wc -l)" \
	"tpstat -lv lists the same tracepoints as -l"
is "$(tpstat -l -j 'pelt_*' | jq -r 'map(.name) | sort | join(",")')" \
	"pelt_cfs_tp,pelt_dl_tp,pelt_irq_tp,pelt_rt_tp,pelt_se_tp,pelt_thermal_tp" "tpstat -l -j GLOB filters, valid JSON"

# perf sees sched_switch as an event: the same command counted by both. pingpong on one CPU:
# every round trip is two context switches, so both count at least its 100,000. tpstat's
# window holds perf's (it attaches before perf starts and detaches after it ends): it counts
# every switch perf counts, and those of perf's own start and end besides, which take
# longer the slower the machine (reported; bounded only below twice perf's count, which a
# tpstat counting a switch twice would reach).
out=$(tpstat -o /dev/stdout -a -j sched_switch -- perf stat -a -x, -e sched:sched_switch -o /tmp/perf.csv -- \
	taskset -c 0 pingpong 50000)
ok $? "tpstat -a -- perf stat -a -e sched:sched_switch ran"
t=$(field "$out" sched_switch .count)
p=$(awk -F, '/sched:sched_switch/ { print $1 }' /tmp/perf.csv)
diag "sched_switch: tpstat $t, perf $p: $((t - p)) outside perf's window"
[ "${p:-0}" -ge 100000 ] && [ "${t:-0}" -ge "$p" ] && [ "$t" -lt $((2 * p)) ]
ok $? "tpstat and perf agree on sched_switch: both see pingpong's 100,000, tpstat all perf sees ($t vs $p)"

# -- CMD counts what perf stat -- CMD counts: CMD's tree from its exec until each task begins
# to exit (perf stops a task's counters in do_exit() before sched_process_exit and its last
# switch). The same workload under each: the events it makes a fixed number of match exactly.
work='for i in $(seq 100); do /bin/true; done'
tps="sched_process_exec sched_process_fork sched_process_exit sched_switch"
perf stat -x, -e sched:sched_process_exec,sched:sched_process_fork,sched:sched_process_exit,sched:sched_switch \
	-o /tmp/perf-cmd.csv -- sh -c "$work"
out=$(tpstat -o /dev/stdout -j $tps -- sh -c "$work")
for tp in sched_process_exec sched_process_fork sched_process_exit; do
	is "$(field "$out" $tp .count)" "$(awk -F, -v e="sched:$tp" '$3 == e { print $1 }' /tmp/perf-cmd.csv)" \
		"-- CMD: tpstat counts $tp as perf stat does"
done
is "$(field "$out" sched_process_exit .count)/$(field "$out" sched_process_exec .count)" 0/102 \
	"-- CMD: 102 execs (sh, seq and 100 true), no exit: a task stops counting as it begins to exit"
diag "sched_switch for the same workload: tpstat $(field "$out" sched_switch .count), perf $(awk -F, '$3 == "sched:sched_switch" { print $1 }' /tmp/perf-cmd.csv) (runs differ)"

# SIGUSR1 pauses and resumes counting without detaching.
pin=/sys/fs/bpf/bareatom/tpstat
paused_now() {	# the pinned counters say paused == $1
	[ "$(bpftool -j map dump pinned $pin/counters 2>/dev/null |
		jq '.[0].formatted.value[".bss"][] | select(.paused != null) | .paused')" = "$1" ]
}
paused_is() { wait_until 120 "tpstat's pinned paused flag to be $1" paused_now "$1" >&2; }
export -f paused_now paused_is; export pin TPGEN
out=$(tpstat -o /dev/stdout -j --pin tpgen_a -- bash -c "
	paused_is 0 && echo tpgen_a 100 > $TPGEN/fire &&
	kill -USR1 \$PPID && paused_is 1 && echo tpgen_a 50 > $TPGEN/fire &&
	kill -USR1 \$PPID && paused_is 0 && echo tpgen_a 7 > $TPGEN/fire")
ok $? "fire, pause, fire, resume, fire under tpstat --pin"
is "$(field "$out" tpgen_a .count)" 107 "events fired while paused are not counted (100 + 7)"
[ ! -e $pin ]
ok $? "pins are removed on exit"
# The command resumes once a paused interval line is out, and ends once the resume is said.
tt=$(mktemp)
tpstat -o "$tt" -i 0.2 tpgen_a -- bash -c "kill -USR1 \$PPID
	wait_until 120 'a [paused] interval line' lines_in 1 '\[paused\]' $tt >&2; kill -USR1 \$PPID
	wait_until 120 'tpstat to say it resumed' lines_in 1 'counting resumed' $tt >&2"
out=$(cat "$tt"); rm -f "$tt"
grep -q 'counting paused (SIGUSR1)' <<<"$out" && grep -q 'counting resumed (SIGUSR1)' <<<"$out" && grep -q '\[paused\]' <<<"$out"
ok $? "table output shows pausing, resuming and paused intervals"

# -c stops after COUNT intervals, -d after SECS.
out=$(tpstat -j -i 0.1 -c 3 tpgen_a)
is "$(wc -l <<<"$out")" 4 "-i 0.1 -c 3 prints 3 intervals and the final line"
out=$(tpstat -j -i 0.001 -c 20 tpgen_a)
is "$(wc -l <<<"$out")" 21 "-i 0.001 (the minimum) -c 20 prints 20 intervals and the final line"
start=$(date +%s%N); tpstat -d 0.5 tpgen_a >/dev/null; ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -ge 500 ]
ok $? "-d 0.5 counts for at least 0.5 s ($ms ms)"

# A command line that is not UTF-8 and longer than the 1023 bytes kept: still valid JSON,
# U+FFFD for the bad bytes, cut between characters.
long=$(printf '\xc3\xa9%.0s' $(seq 2000))
out=$(tpstat -o /dev/stdout -j tpgen_a -- sh -c 'exit 0' $'\xff\xc3(' "x$long")
ok $? "tpstat -j -- a command with bytes FF C3 and a 4 kB argument of U+00E9 exits 0"
python3 -c '
import json, sys
cmd = json.loads(sys.stdin.buffer.read().splitlines()[-1])["command"]
want = "sh -c exit 0 \ufffd\ufffd( x" + "\u00e9" * 502
sys.exit(cmd != want)' <<<"$out"
ok $? "its JSON parses as UTF-8, FF and C3 are U+FFFD, the command is cut to 1022 bytes between characters"

# perf stat's habits. The report never shares a stream with CMD's output: stderr with a CMD.
t=$(mktemp -d)
tpstat -j sched_process_exec -- echo X >"$t/out" 2>"$t/err"
ok $? "tpstat -j sched_process_exec -- echo X exits 0"
is "$(cat "$t/out")" X "stdout holds CMD's output alone"
is "$(jq -r 'select(.final) | .tracepoints[0].count' "$t/err")" 1 "stderr holds the report alone, valid JSON: one exec in CMD's tree"
tpstat -o "$t/report" -j sched_process_exec -- echo X >"$t/out" 2>"$t/err"
is "$(cat "$t/out")|$(cat "$t/err")" "X|" "-o FILE: stdout is CMD's, stderr is empty"
is "$(jq -r 'select(.final) | .tracepoints[0].count' "$t/report")" 1 "-o FILE holds the report"
tpstat -o "$t/report" --append -j sched_process_exec -- echo X >/dev/null
is "$(grep -c '"final":true' "$t/report")" 2 "--append adds a second report after the first"
tpstat -o "$t/report" -j sched_process_exec -- true
is "$(grep -c '"final":true' "$t/report")" 1 "-o without --append truncates"
{ echo before; tpstat -o /dev/stdout -j sched_process_exec -- true; echo after; } >"$t/shared"
is "$(head -n1 "$t/shared")|$(grep -c '"final":true' "$t/shared")|$(tail -n1 "$t/shared")" "before|1|after" \
	"-o /dev/stdout into a file others write too: stdout as it is, not reopened and truncated"
out=$(tpstat -j -i 0.1 -c 2 tpgen_a)
is "$(grep -c . <<<"$out")" 3 "without CMD the report is on stdout (-c 2: 2 intervals and the final line)"
err_case 1 "cannot open '/nonexistent/r' for the report: No such file or directory" "-o into a missing directory" \
	tpstat -o /nonexistent/r tpgen_a -- true

# Exit status: CMD's, as perf stat's; 128+N for a signal; with -r, the failing run's.
tpstat -o /dev/null tpgen_a -- sh -c 'exit 3' 2>/dev/null
is "$?" 3 "CMD exiting 3: tpstat exits 3"
tpstat -o /dev/null tpgen_a -- sh -c 'kill -TERM $$' 2>/dev/null
is "$?" 143 "CMD killed by SIGTERM: tpstat exits 128+15"
tpstat -o /dev/null -r 5 tpgen_a -- sh -c 'exit 4' 2>/dev/null
is "$?" 4 "-r 5 with CMD exiting 4: tpstat exits 4"
err_case 3 "tpstat: 'sh -c exit 3' exited with status 3" "a failing command is said in one line" \
	tpstat -o /dev/null tpgen_a -- sh -c 'exit 3'

# -c COUNT: exactly COUNT interval lines; the teardown's sliver only in the totals.
for c in 1 3; do
	txt=$(tpstat -a -i 0.1 -c $c tpgen_a)
	is "$(grep -c ' tpgen_a ' <<<"$txt")" $c "-i 0.1 -c $c prints exactly $c interval lines"
done
txt=$(tpstat -a -I 100 -c 2 --summary tpgen_a)
is "$(grep -cE '^ *[0-9]+\.[0-9]+ +tpgen_a ' <<<"$txt")" 2 "-I 100 -c 2 --summary: 2 interval lines"
grep -q 'tpstat counts, system wide' <<<"$txt"
ok $? "--summary: then the totals table"
# (The sleep outlasts the 3 intervals however late their ticks come: -c ends it.)
out=$(tpstat -a -j -i 0.5 -c 3 tpgen_a -- sh -c "echo tpgen_a 777 > $TPGEN/fire; exec sleep 3600" 2>&1 >/dev/null)
is "$(jq -rs '[.[].interval | tostring] | join(",")' <<<"$out")" "1,2,3,3" "-j -c 3: intervals 1..3, the final line stays 3"
is "$(jq -s '(map(select(.final | not) | .tracepoints[0].delta) | add) + (.[-1].tracepoints[0].delta)' <<<"$out")" \
	777 "-j -c 3: the deltas, the final one's too, add up to the 777 fired"

# -r N: the mean elapsed time per run, with its error, as perf stat -r prints it.
# Each run takes at least its 0.2 s; how much more starting sleep takes is the machine's.
txt=$(tpstat -o /dev/stdout -r 3 tpgen_a -- sleep 0.2)
line=$(grep 'per run' <<<"$txt")
grep -qE '^ +[0-9]+\.[0-9]+ \+- [0-9.]+ seconds elapsed per run \( \+- [0-9.]+% \)$' <<<"$line" &&
	awk '{ exit !($1 >= 0.2) }' <<<"$line"
ok $? "-r 3 -- sleep 0.2: '$(sed 's/^ *//' <<<"$line")'"
out=$(tpstat -o /dev/stdout -j -r 3 tpgen_a -- sleep 0.2)
is "$(final "$out" | jq '(.run_elapsed | length) == 3 and (.run_elapsed | all(. >= 0.2)) and .elapsed_mean >= 0.2 and .elapsed_mean < .elapsed')" \
	true "-j -r 3: run_elapsed holds 3 runs of at least 0.2 s, elapsed_mean below the whole"

# -l --bare lists only the bare tracepoints; a glob that matches nothing prints no header.
lst=$(tpstat -l --bare)
grep -qE '^pelt_cfs_tp +bare' <<<"$lst" && grep -qE '^tpgen_a +bare +tpgen' <<<"$lst" && ! grep -qE '^sched_switch ' <<<"$lst" &&
	[ "$(awk 'NR > 1 { print $2 }' <<<"$lst" | sort -u)" = bare ]
ok $? "tpstat -l --bare: $(($(wc -l <<<"$lst") - 1)) bare tracepoints, pelt_cfs_tp and tpgen_a among them, no trace event"
err_case 1 "no bare tracepoint matches 'sched_sw" "-l --bare GLOB matching only trace events" tpstat -l --bare 'sched_sw*'
err_case 2 "unknown tracepoint 'sh', which is a program: did you forget '--' before the command?" \
	"a command without its --" tpstat sched_switch sh
err_case 2 "did you mean the named field 'util'?" "a misspelt named field" tpstat --hist pelt_cfs_tp:utl
rm -rf "$t"

# Errors: one line naming the cause, and the documented exit code.
err_case 2 "did you mean sched_switch" "unknown tracepoint suggests the closest" tpstat sched_swtch
err_case 2 "unknown tracepoint 'no_such_tp_at_all' (tpstat -l lists them)" "unknown tracepoint, nothing close" tpstat no_such_tp_at_all
rmmod tpgen
err_case 2 "belongs to module tpgen, which is not loaded (modprobe tpgen)" "tracepoint of an unloaded module" tpstat tpgen_a
modprobe tpgen
err_case 2 "permission denied: counting needs root" "not root" setpriv --reuid=65534 --regid=65534 --clear-groups tpstat sched_switch
err_case 1 "this kernel has no BTF" "kernel without BTF (hidden by a tmpfs)" unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec tpstat sched_switch'
err_case 1 "lacks the BPF atomic instructions (BPF_FETCH): Linux 5.12 or later is needed" "kernel rejecting BPF_FETCH" bpf-load-einval tpstat sched_switch
err_case 2 "invalid interval '0'" "-i 0" tpstat -i 0 sched_switch
# The limit of 32 at once is gone (tests/vm/tpstat-many.t counts more than 100).
out=$(tpstat -o /dev/stdout -j -d 0.5 $(tpstat -l | awk 'NR > 1 && NR < 36 { print $1 }'))
ok $? "34 tracepoints at once, where tpstat once stopped at 32"
is "$(final "$out" | jq '.tracepoints | length')" 34 "34 rows"
done_testing
