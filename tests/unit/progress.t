#!/bin/bash
# images/progress on fake long jobs: plain lines at the interval when stderr is not a terminal,
# one line redrawn in place (\r) on a terminal, --watch, totals from an earlier log, the exit
# status passed through, usage errors. Timing decides nothing here beyond generous bounds.
top=$(cd "$(dirname "$0")/../.." && pwd)
prog=$top/images/progress
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/tap.sh"
show() { sed 's/^/#   /' "$1" | cat -A | head -n 20; }
# A fake build: N steps, one every D seconds (default 0.25), plus a line that is not a step.
job() { printf 'sh -c %q' "echo make: entering; for i in \$(seq $1); do echo \"  CC      obj\$i.o\"; sleep ${3:-0.25}; done; exit ${2:-0}"; }

# An earlier build's log: 8 steps and a line that is not one.
{ echo 'make: entering'; for i in 1 2 3 4 5 6 7 8; do echo "  CC      obj$i.o"; done; } >"$tmp/prev.log"

# Plain mode, 1 s interval, an 8-step job of ~4 s: a few lines, each a whole line.
BAREATOM_PROGRESS=plain BAREATOM_PROGRESS_INTERVAL=1 "$prog" --label fake --log "$tmp/a.log" \
	--match '^  [A-Z]+ ' --total-from "$tmp/prev.log" -- bash -c "$(job 8 0 0.5)" 2>"$tmp/a.err"
rc=$?
ok $rc "plain: the job's exit status 0 is passed through"
grep -q $'\r' "$tmp/a.err"; [ $? = 1 ]
ok $? "plain: no carriage returns"
lines=$(grep -c '^fake: [0-9]*/8 steps ([0-9]*%), [0-9]*s elapsed' "$tmp/a.err")
[ "$lines" -ge 2 ] && [ "$lines" -le 8 ]
ok $? "plain: a status line about every second of a ~4 s job, 2 to 8 of them ($lines)"
grep -q '^fake: started (log: '"$tmp/a.log"')$' "$tmp/a.err"
ok $? "plain: says where the log is"
tail -n1 "$tmp/a.err" | grep -qE '^fake: done, 8 steps in [0-9]+s$'
ok $? "plain: the last line counts the steps done ($(tail -n1 "$tmp/a.err"))"
grep -q ', about [0-9]*s left' "$tmp/a.err"
ok $? "plain: gives an estimate of the time left"
[ "$(grep -c 'obj' "$tmp/a.log")" = 8 ] && grep -q 'make: entering' "$tmp/a.log"
ok $? "the job's whole output is in the log"
[ $? = 0 ] || show "$tmp/a.err"

# Plain mode with the default interval (30 s): a 2 s job prints only its start and its end.
BAREATOM_PROGRESS=plain "$prog" --label fake --log "$tmp/b.log" --match '^  [A-Z]+ ' \
	--total 4 -- bash -c "$(job 4)" 2>"$tmp/b.err"
[ "$(wc -l <"$tmp/b.err")" = 2 ]
ok $? "plain, 30 s interval: a 1 s job gets only the start and done lines"

# Terminal mode: one line redrawn in place, ended by the done line.
BAREATOM_PROGRESS=tty "$prog" --label fake --log "$tmp/c.log" --match '^  [A-Z]+ ' \
	--total-from "$tmp/prev.log" -- bash -c "$(job 6 3)" 2>"$tmp/c.err"
rc=$?
ok $([ "$rc" = 3 ]; echo $?) "tty: the job's exit status 3 is passed through ($rc)"
redraws=$(grep -o $'\r\e\[K' "$tmp/c.err" | wc -l)
[ "$redraws" -ge 2 ]
ok $? "tty: the status is redrawn in place with \\r ($redraws redraws)"
[ "$(wc -l <"$tmp/c.err")" = 2 ]
ok $? "tty: two newlines in all (the start line and the final line)"
tail -n1 "$tmp/c.err" | tr '\r' '\n' | tail -n1 | sed 's/^\x1b\[K//' | grep -qE '^fake: failed \(exit 3\) after [0-9]+s, see '
ok $? "tty: the final line says it failed and where the log is"
grep -q 'fake: [0-9]/8 steps' "$tmp/c.err"
ok $? "tty: counts against the earlier log's 8 steps"

# A terminal for real (script(1) gives stderr a pty): no override needed.
if command -v script >/dev/null; then
	script -qec "BAREATOM_PROGRESS= $prog --label fake --log $tmp/d.log --total 4 -- $(job 4)" /dev/null \
		>"$tmp/d.out" 2>&1
	grep -q $'\r\e\[K' "$tmp/d.out"
	ok $? "on a real terminal it redraws in place"
fi

# No total known: counts and elapsed time only. The job lasts 2.5 s, so that a line is due
# at 1 s whatever the load (a 1 s job could end before the first one).
BAREATOM_PROGRESS=plain BAREATOM_PROGRESS_INTERVAL=1 "$prog" --label fake --log "$tmp/e.log" \
	--match '^  [A-Z]+ ' --total-from "$tmp/missing.log" -- bash -c "$(job 5 0 0.5)" 2>"$tmp/e.err"
grep -q '^fake: [0-9]* steps, [0-9]*s elapsed (no earlier build to estimate from)$' "$tmp/e.err"
ok $? "no earlier log: steps and elapsed time, no estimate"

# --watch: the job writes the log itself; its own output passes through; nothing is shown
# when it leaves the log alone (a build that is already done).
echo old >"$tmp/w.log"
out=$(BAREATOM_PROGRESS=plain BAREATOM_PROGRESS_INTERVAL=1 "$prog" --watch --label fake --log "$tmp/w.log" \
	--match '^  [A-Z]+ ' --total-cmd "echo $tmp/prev.log" -- \
	bash -c "echo result; echo note >&2; sleep 1; $(job 6) >$tmp/w.log" 2>"$tmp/w.err")
[ "$out" = result ]
ok $? "--watch: the job's stdout passes through ($out)"
grep -q '^note$' "$tmp/w.err" && grep -q '^fake: started' "$tmp/w.err" && grep -q '^fake: [0-9]/8 steps' "$tmp/w.err"
ok $? "--watch: its stderr too, then progress once the log is rewritten, total from --total-cmd"
out=$(BAREATOM_PROGRESS=plain "$prog" --watch --label fake --log "$tmp/w.log" -- echo built 2>&1)
[ "$out" = built ]
ok $? "--watch: a job that does not touch the log gets no progress lines ($out)"

# --total-cmd may print the total itself (kernel/previous-build's count for a first build).
BAREATOM_PROGRESS=plain BAREATOM_PROGRESS_INTERVAL=1 "$prog" --label fake --log "$tmp/n.log" \
	--match '^  [A-Z]+ ' --total-cmd "echo 6" -- bash -c "$(job 6 0 0.5)" 2>"$tmp/n.err"
grep -q '^fake: [0-9]/6 steps ([0-9]*%), [0-9]*s elapsed, about [0-9]*s left$' "$tmp/n.err"
ok $? "--total-cmd printing a number: that is the total, with an estimate" "$(cat "$tmp/n.err")"

# The first kernel build on a machine has no earlier log: kernel/previous-build gives the
# step count shipped in kernel/build-steps, which must be our config's (kbuild's lines, as
# the Makefile counts them) as this tree's cached build shows when its log is of a whole build
# (one that began at the config sync, not resumed).
mkdir "$tmp/cache"
is "$("$top/kernel/previous-build" "$tmp/cache/kernel-new")" "$(cat "$top/kernel/build-steps")" \
	"kernel/previous-build on a fresh machine: the shipped step count"
klog=$(cat "$BUILD/kernel.dir" 2>/dev/null)/build.log
if [ -f "$klog" ] && sed -n 2p "$klog" | grep -q '^  SYNC    include/config/auto.conf.cmd$'; then
	is "$(cat "$top/kernel/build-steps")" "$(grep -cE '^  [A-Z][A-Z0-9_.-]*[[:space:]]' "$klog")" \
		"kernel/build-steps is the step count of this config's whole build ($klog)"
else
	skip "no whole kernel build's log to check kernel/build-steps against"
fi

# Usage errors: exit 2, one line.
usage_case 2 "no command given" "$prog" --label x --log "$tmp/x.log"
usage_case 2 "--label is required" "$prog" --log "$tmp/x.log" -- true
usage_case 2 "--log is required" "$prog" --label x -- true
usage_case 2 "--total takes a number, not 'ten'" "$prog" --label x --log "$tmp/x.log" --total ten -- true
usage_case 2 "unknown option '--bogus'" "$prog" --bogus
usage_case 2 "BAREATOM_PROGRESS must be tty, plain or off" env BAREATOM_PROGRESS=fancy "$prog" --label x --log "$tmp/x.log" -- true
usage_case 2 "BAREATOM_PROGRESS_INTERVAL must be a positive number" env BAREATOM_PROGRESS_INTERVAL=0 "$prog" --label x --log "$tmp/x.log" -- true
done_testing
