#!/bin/bash
# tpgen: debugfs control, exact stats, and rejection of bad writes (nothing fired for them).
. "$(dirname "$0")/../lib/tap.sh"

# last KEY: one field of tpgen's last file (the most recent fire)
last() { tr ' ' '\n' <"$TPGEN/last" | sed -n "s/^$1=//p"; }
# A bad write must fail at once; the timeout only keeps a regression (a write that loops)
# from hanging the suite: timeout's SIGTERM kills write1 and the output is then empty.
bad_write() { timeout $((60 * TAP_SLOW)) write1 "$@"; }
max=$((1 << 40))

modprobe tpgen
ok $? "modprobe tpgen"
[ -w "$TPGEN/fire" ] && [ -r "$TPGEN/stats" ] && [ -r "$TPGEN/last" ]
ok $? "debugfs has tpgen/fire, tpgen/stats and tpgen/last"
[ -d /sys/kernel/btf/tpgen ] || [ -f /sys/kernel/btf/tpgen ]
ok $? "the module has BTF (/sys/kernel/btf/tpgen)"
bpftool btf dump file /sys/kernel/btf/tpgen 2>/dev/null | grep -q "'btf_trace_tpgen_a'"
ok $? "module BTF describes the bare tracepoint (btf_trace_tpgen_a)"
[ ! -e /sys/kernel/tracing/events/tpgen/tpgen_a ] && [ -d /sys/kernel/tracing/events/tpgen/tpgen_event ]
ok $? "tpgen_a is bare (no tracefs event), tpgen_event is an event"

before_a=$(tpgen_stat tpgen_a) before_b=$(tpgen_stat tpgen_b) before_e=$(tpgen_stat tpgen_event)
is "$(write1 "$TPGEN/fire" "tpgen_a 7")" "wrote 9" "fire 'tpgen_a 7' succeeds"
is "$(tpgen_stat tpgen_a)" $((before_a + 7)) "stats count the 7 events"
id=$(last fire_id)
is "$(cat "$TPGEN/last")" "fire_id=$id name=tpgen_a mode=cpu count=7 fired=7 timer=0 err=0" \
	"last describes that fire"
ncpu=$(nproc)
is "$(write1 "$TPGEN/fire" "tpgen_b 5 all")" "wrote 13" "fire 'tpgen_b 5 all' succeeds"
is "$(tpgen_stat tpgen_b)" $((before_b + 5 * ncpu)) "stats count 5 events on each of $ncpu CPUs"
is "$(cat "$TPGEN/last")" \
	"fire_id=$((id + 1)) name=tpgen_b mode=all count=5 fired=$((5 * ncpu)) timer=0 err=0" \
	"last describes the 'all' fire, with the next fire_id"
echo "tpgen_event 3" >"$TPGEN/fire"
is "$(tpgen_stat tpgen_event)" $((before_e + 3)) "the trace event fires too"

before=$(cat "$TPGEN/stats") before_last=$(cat "$TPGEN/last")
for bad in "bogus 1" "tpgen_a -5" "tpgen_a 1 nosuchcpu" "" "tpgen_a" "tpgen_a 0" "tpgen_a 1x" \
	"tpgen_a +3" "tpgen_a 1 all extra" "tpgen_a 99999999999999999999999" \
	"tpgen_a $(printf '%070d' 1)" "tpgen_a 18446744073709551615" "tpgen_a $((max + 1))" \
	"tpgen_a 1 cpu" "tpgen_a 1 all nest" "tpgen_a 1 nes" "tpgen_a 5 nest extra" "tpgen_a 0 nest" \
	"tpgen_a $((max + 1)) nest" "tpgen_a $((max + 1)) all" \
	"tpgen_a 5 pair" "tpgen_a 5 pair 1000001" "tpgen_event 5 pair 100" "tpgen_a 5 pair -1" \
	"tpgen_a 5 pair 1x" "tpgen_a 5 pair +10" "tpgen_a 5 all 100" "tpgen_a 5 nest 100" \
	"tpgen_a 5 pair 10 x" "tpgen_a 5 100" "tpgen_a 0 pair 10" "tpgen_a $((max + 1)) pair 1"; do
	is "$(bad_write "$TPGEN/fire" "$bad")" "EINVAL" "bad write '${bad:0:24}' fails with EINVAL"
done
is "$(write1 "$TPGEN/fire" "
")" "EINVAL" "a blank line fails with EINVAL"
# A NUL ends a C string: everything after it used to be ignored, and what came before fired.
for bad in 'tpgen_a 5\0all' 'tpgen_a 5\0' '\0tpgen_a 5' 'tpgen_a 5 all\0' 'tpgen_a 5 nest\0x'; do
	is "$(printf "$bad" | bad_write -s "$TPGEN/fire")" "EINVAL" \
		"a write with a NUL byte, '$bad' ($(printf "$bad" | wc -c) bytes), fails with EINVAL"
done
is "$(cat "$TPGEN/stats")" "$before" "nothing was fired by the bad writes"
is "$(cat "$TPGEN/last")" "$before_last" "and last still shows the fire before them"
is "$(printf 'tpgen_a 5\n' | write1 -s "$TPGEN/fire")" "wrote 10" \
	"the same bytes without a NUL fire (write1 -s)"
is "$(tpgen_stat tpgen_a)" $((before_a + 7 + 5)) "and are counted"

# running PID: PID has not ended (a zombie has)
running() { local st; read -r _ _ st _ 2>/dev/null <"/proc/$1/stat" && [ "$st" != Z ]; }
# interrupt PID: once PID is write1 (exec'd), SIGINT every 0.1 s while it runs; fails if it
# still runs after minutes (the fire checks for a signal as it goes, however slowly).
# Not before the exec: between fork and exec the background job is still a copy of this
# shell, which a SIGINT kills before it opens its output or writes anything (seen on a fast
# QEMU: the write never happened, a stale output file said EINTR). After the exec SIGINT is
# ignored, as in any background job, until write1 catches it, and a caught one before the
# write only lets the fire start: the next one stops it.
execed() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = write1 ] || ! running "$1"; }
gone_on_sigint() { running "$1" || return 0; kill -INT "$1"; return 1; }
interrupt() {
	wait_until 300 "pid $1 to exec write1" execed "$1" &&
		wait_until 300 "pid $1 to end on SIGINT" gone_on_sigint "$1"
}
# interrupted_fire TP MODE: fire TP 2^40 times (the largest COUNT) in MODE, stop it with
# SIGINT as Ctrl-C in an interactive shell would, and check that the write fails with EINTR and
# that stats and last agree exactly on what was fired before it stopped.
interrupted_fire() {
	local tp=$1 mode=$2 before id pid out=/tmp/tpgen-sigint.out fired
	before=$(tpgen_stat "$tp") id=$(last fire_id)
	rm -f $out
	write1 "$TPGEN/fire" "$tp $max${mode:+ $mode}" >$out &
	pid=$!
	interrupt $pid
	ok $? "a ${mode:-single-CPU} fire of $tp 2^40 times ends on SIGINT"
	kill -KILL $pid 2>/dev/null
	wait $pid
	is "$(cat $out)" "EINTR" "the interrupted write fails with EINTR"
	is "$(last fire_id) $(last mode) $(last count) $(last err)" "$((id + 1)) ${mode:-cpu} $max -4" \
		"last shows that fire, with err -4 (EINTR)"
	fired=$(last fired)
	[ "$fired" -gt 0 ] && [ "$fired" -lt "$max" ]
	ok $? "it fired some of the events, not all ($fired)"
	is "$(tpgen_stat "$tp")" $((before + fired)) "stats count exactly the $fired events fired"
}
interrupted_fire tpgen_a ""
interrupted_fire tpgen_b all

# nest: the task loop's COUNT events plus one per expiry of the hrtimer, at least one and at
# most COUNT.
n=200000 before_a=$(tpgen_stat tpgen_a) id=$(last fire_id)
is "$(write1 "$TPGEN/fire" "tpgen_a $n nest")" "wrote 19" "fire 'tpgen_a $n nest' succeeds"
is "$(last fire_id) $(last mode) $(last count) $(last err)" "$((id + 1)) nest $n 0" \
	"last shows the nest fire"
timer=$(last timer)
[ "$timer" -ge 1 ] && [ "$timer" -le $n ]
ok $? "nest's hrtimer fired from 1 to $n times ($timer)"
is "$(last fired)" $((n + timer)) "fired is the task loop's $n plus the timer's $timer"
is "$(tpgen_stat tpgen_a)" $((before_a + n + timer)) "stats count the events of both contexts"
before_b=$(tpgen_stat tpgen_b)
is "$(write1 "$TPGEN/fire" "tpgen_b 1 nest")" "wrote 14" "fire 'tpgen_b 1 nest' succeeds"
is "$(last fired) $(last timer)" "2 1" "with COUNT 1 the task and the timer fire once each"
is "$(tpgen_stat tpgen_b)" $((before_b + 2)) "stats count both"
interrupted_fire tpgen_a nest
[ "$(last timer)" -ge 1 ]
ok $? "the interrupted nest fire's timer fired too ($(last timer) of $(last fired))"

# pair: NAME then its partner with the same seq, NS apart, COUNT times; both are counted.
n=500 ns=200000 before_a=$(tpgen_stat tpgen_a) before_b=$(tpgen_stat tpgen_b) id=$(last fire_id)
t0=$(date +%s%N)
is "$(write1 "$TPGEN/fire" "tpgen_a $n pair $ns")" "wrote 23" "fire 'tpgen_a $n pair $ns' succeeds"
took=$(( $(date +%s%N) - t0 ))
is "$(cat "$TPGEN/last")" \
	"fire_id=$((id + 1)) name=tpgen_a mode=pair count=$n fired=$((2 * n)) timer=0 err=0 delay_ns=$ns" \
	"last describes the pair fire: both tracepoints' events, and the gap"
is "$(tpgen_stat tpgen_a) $(tpgen_stat tpgen_b)" "$((before_a + n)) $((before_b + n))" \
	"stats count $n events of tpgen_a and $n of tpgen_b"
# A lower bound, not a speed: the gaps are busy waits on the kernel's clock.
[ "$took" -ge $((n * ns)) ]
ok $? "the write took at least $n gaps of $ns ns ($took ns)"
before_a=$(tpgen_stat tpgen_a) before_b=$(tpgen_stat tpgen_b)
is "$(write1 "$TPGEN/fire" "tpgen_b 3 pair 0")" "wrote 16" "fire 'tpgen_b 3 pair 0' succeeds"
is "$(tpgen_stat tpgen_a) $(tpgen_stat tpgen_b)" "$((before_a + 3)) $((before_b + 3))" \
	"tpgen_b's partner is tpgen_a: 3 of each"
before_a=$(tpgen_stat tpgen_a) before_b=$(tpgen_stat tpgen_b) id=$(last fire_id)
rm -f /tmp/tpgen-pair.out
write1 "$TPGEN/fire" "tpgen_a $max pair 1000" >/tmp/tpgen-pair.out &
pid=$!
interrupt $pid
ok $? "a pair fire of 2^40 pairs ends on SIGINT"
kill -KILL $pid 2>/dev/null
wait $pid
is "$(cat /tmp/tpgen-pair.out) $(last fire_id) $(last mode) $(last err)" "EINTR $((id + 1)) pair -4" \
	"the interrupted pair write fails with EINTR, and last says so"
fired=$(last fired)
[ "$fired" -gt 0 ] && [ $((fired % 2)) -eq 0 ]
ok $? "it fired whole pairs ($fired events)"
is "$(tpgen_stat tpgen_a) $(tpgen_stat tpgen_b)" "$((before_a + fired / 2)) $((before_b + fired / 2))" \
	"stats count exactly the pairs fired, on both tracepoints"

# The kthreads of "all" and nest's hrtimer are gone once the write returns: the module can be
# unloaded right away, every time, with nothing in the kernel log.
echo "tpgen.t: unload after fires" >/dev/kmsg
rounds=0
for i in 1 2 3 4 5; do
	is "$(write1 "$TPGEN/fire" "tpgen_b 3000 all")" "wrote 16" "round $i: an 'all' fire" &&
		is "$(write1 "$TPGEN/fire" "tpgen_a 3000 nest")" "wrote 17" "round $i: a nest fire" &&
		rmmod tpgen && modprobe tpgen && rounds=$i
done
is "$rounds" 5 "rmmod tpgen and modprobe tpgen right after those fires, 5 times over"

# tpgen keeps its tracepoints enabled with an empty probe of its own (keep_enabled, default
# on), so that a program attached or detached while a CPU fires never patches the running
# code (a TCG guest hung on that). With keep_enabled=0 it loads, fires and counts the same.
is "$(cat /sys/module/tpgen/parameters/keep_enabled)" Y "keep_enabled is on by default"
n0=$(tpgen_stat tpgen_a)
out=$(tpstat -o /dev/stdout -a -j tpgen_a -- sh -c "echo tpgen_a 1000 > $TPGEN/fire")
is "$(grep '"final":true' <<<"$out" | jq '.tracepoints[0].count') $(( $(tpgen_stat tpgen_a) - n0 ))" "1000 1000" \
	"with tpgen's own probe beside it, tpstat counts the 1000 fired, exactly"
rmmod tpgen && modprobe tpgen keep_enabled=0 &&
	[ "$(cat /sys/module/tpgen/parameters/keep_enabled)" = N ]
ok $? "modprobe tpgen keep_enabled=0"
out=$(tpstat -o /dev/stdout -a -j tpgen_a -- sh -c "echo tpgen_a 1000 > $TPGEN/fire")
is "$(grep '"final":true' <<<"$out" | jq '.tracepoints[0].count')" 1000 "and counts the same 1000"
rmmod tpgen && modprobe tpgen
ok $? "back to the default"
is "$(dmesg | sed -n '/tpgen.t: unload after fires/,$p' | grep -c 'BUG\|Oops\|WARNING\|general protection')" 0 \
	"no BUG, Oops or WARNING in the kernel log since"
done_testing
