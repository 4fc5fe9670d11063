#!/bin/bash
# The minimal BPF counter (one atomic add in .bss, read through the mmapped map) against
# tpgen's exact stats, with tpgen_a fired on every CPU at once.
. "$(dirname "$0")/../lib/tap.sh"

modprobe tpgen
ncpu=$(nproc)
diag "$ncpu CPUs"
for count in 1 1000 100000 1000000; do
	before=$(tpgen_stat tpgen_a)
	out=$(counter -p -j -- sh -c "echo tpgen_a $count all > $TPGEN/fire")
	ok $? "counter ran while firing tpgen_a $count all"
	fired=$(( $(tpgen_stat tpgen_a) - before ))
	is "$fired" $((count * ncpu)) "tpgen fired $count x $ncpu"
	got=$(sed -n 's/.*"count":\([0-9]*\).*/\1/p' <<<"$out")
	is "$got" "$fired" "BPF atomic count equals tpgen's stats for $count x $ncpu"
	plain=$(sed -n 's/.*"plain":\([0-9]*\).*/\1/p' <<<"$out")
	lost=$((fired - plain))
	diag "non-atomic counter: $plain of $fired, lost $lost ($(awk -v l=$lost -v f=$fired 'BEGIN{printf "%.3f", f ? 100*l/f : 0}')%)"
done

# The CO-RE read of struct tpgen_ctx (module BTF) gives the fire id of the last write.
out=$(counter -j -- sh -c "echo tpgen_a 3 > $TPGEN/fire")
id=$(sed -n 's/.*"last_fire_id":\([0-9]*\).*/\1/p' <<<"$out")
[ -n "$id" ] && [ "$id" -gt 0 ]
ok $? "CO-RE read of tpgen_ctx->fire_id gives a fire id ($id)"

# Ctrl-C during -- CMD reaches CMD; counter reports what was counted once CMD is gone,
# with CMD's status (130), instead of dying before it prints.
# Job control: the background job gets its own process group, SIGINT not ignored, and
# kill -INT -PGID is what a terminal's Ctrl-C does (counter and CMD both get it).
before=$(tpgen_stat tpgen_a)
set -m
# (The sleep lasts until the Ctrl-C, however long the fire takes to be seen.)
counter -j -- sh -c "echo tpgen_a 5 > $TPGEN/fire; exec sleep 3600" >/tmp/counter.out 2>&1 &
pid=$!
set +m
fired_5() { [ $(($(tpgen_stat tpgen_a) - before)) = 5 ]; }
wait_until 120 "the command's 5 tpgen_a events" fired_5
kill -INT -- -$pid
wait $pid
is "$?" 130 "SIGINT during -- CMD: counter exits with the command's status"
got=$(sed -n 's/.*"count":\([0-9]*\).*/\1/p' /tmp/counter.out)
is "$got" 5 "and still prints the count of what was fired"

# -d takes fractions of a second, like the other tools.
out=$(counter -j -d 0.3); rc=$?
is "$rc:$(sed -n 's/.*"count":\([0-9]*\).*/\1/p' <<<"$out")" "0:0" "counter -d 0.3 stops by itself and prints (nothing fired)"

# Errors: no module, bad arguments.
rmmod tpgen
out=$(counter -- true 2>&1); rc=$?
is "$rc" 1 "counter without tpgen loaded exits 1"
grep -q "modprobe tpgen" <<<"$out"
ok $? "and says to load the module: $out"
modprobe tpgen
counter -d 0 >/dev/null 2>&1
is "$?" 2 "counter -d 0 is a usage error (exit 2)"
done_testing
