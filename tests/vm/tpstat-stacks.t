#!/bin/bash
# tpstat --by TP:kstack and TP:ustack in the guest, against known call paths: tpgen fires
# tpgen_a from its write handler (kernel frames named, [tpgen] among them); stack-syscall
# (PIE, stripped, its symbols in a .gnu_debuglink file) calls sched_yield from a function
# inlined into middle, called by outer, called by main, and exits before the report (user
# frames named; also as a child of tpstat's command, run by a relative path, and when it
# was running before tpstat started). Every event is in a stack or a bucket: the map full,
# the depth exceeded, no user stack; --folded read back (two stack keys in one file too);
# --flamegraph written.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
ncpu=$(nproc)
prog=$(dirname "$0")/stack-syscall
final() { grep '"final":true' <<<"$1"; }
by() { final "$1" | jq -c ".tracepoints[] | select(.name == \"$2\") | .by[$3]"; }
# Entries + buckets, and the tracepoint's count: equal when every event is accounted.
sums() {
	final "$1" | jq -c ".tracepoints[] | select(.name == \"$2\") | [([.by[0].stacks[].count] |
		add // 0) + .by[0].other + .by[0].truncated + .by[0].map_full + .by[0].collision +
		.by[0].no_ustack + .by[0].read_error, .count]"
}
# sys_enter's stacks in $1: one, of $2 calls, its user frames stack-syscall's (test $3).
user_named() {
	local b
	b=$(by "$1" sys_enter 0)
	diag "$(jq -c '.stacks' <<<"$b")"
	is "$(jq -r '[(.stacks | length | tostring), (.stacks[0].count | tostring)] +
		(.stacks[0].ustack[0:4] | map(sub("\\+0x[0-9a-f]+"; ""))) | join(";")' <<<"$b")" \
		"1;$2;inner (inlined);middle;outer;main" "$3"
	is "$(sums "$1" sys_enter)" "[$2,$2]" "entries + buckets = count"
}
tmp=$(mktemp -d)

# 1. tpgen fires 100 from its write handler, in sh's context: one kernel stack, named.
out=$(tpstat -o /dev/stdout -a -j --by tpgen_a:kstack --folded "$tmp/k.folded" tpgen_a -- \
	sh -c "echo tpgen_a 100 > $TPGEN/fire")
ok $? "--by tpgen_a:kstack --folded while sh fires tpgen_a 100"
b=$(by "$out" tpgen_a 0)
diag "$(jq -c '.stacks[0]' <<<"$b")"
is "$(jq -c '[(.stacks | length), .stacks[0].count, .other, .truncated, .map_full, .no_ustack,
	.read_error]' <<<"$b")" "[1,100,0,0,0,0,0]" "one stack, all 100 events, nothing else"
is "$(jq -r '.stacks[0].kstack[0:2] | map(sub("\\+0x[0-9a-f]+"; "")) | join(";")' <<<"$b")" \
	"tpgen_fire_local [tpgen];tpgen_fire_write [tpgen]" \
	"the leaf frames: tpgen_fire_local and tpgen_fire_write, in [tpgen] (the iterator left out)"
is "$(jq -r '.stacks[0].kstack | map(select(test("vfs_write|ksys_write|do_syscall_64"))) |
	map(sub("\\+0x[0-9a-f]+"; "")) | join(";")' <<<"$b")" "vfs_write;ksys_write;do_syscall_64" \
	"below them the write system call: vfs_write, ksys_write, do_syscall_64"
jq -r '.stacks[0].kstack | map(sub("\\+0x[0-9a-f]+"; "")) | reverse | join(";")' <<<"$b" \
	>"$tmp/want"
is "$(cat "$tmp/k.folded")" "$(cat "$tmp/want") 100" \
	"--folded: the stack root first, ';' between frames, no offsets, the count"

# 1b. With intervals and no --summary, --folded is still the whole run's.
out=$(tpstat -o /dev/stdout -a -I 100 --by tpgen_a:kstack --folded "$tmp/i.folded" tpgen_a -- \
	sh -c "echo tpgen_a 10 > $TPGEN/fire")
grep -q '^ tpgen_a by kstack: the stacks are named at the end (--summary prints them)$' <<<"$out" &&
	grep -q ';tpgen_fire_write \[tpgen\];tpgen_fire_local \[tpgen\] 10$' "$tmp/i.folded"
ok $? "-I 100: each interval names the table only; --folded is written at the end"

# 1c. Two stack keys: both in the files, each --by's stacks under a root frame of its name.
out=$(tpstat -o /dev/stdout -a -j --by tpgen_a:kstack --by tpgen_b:comm,kstack \
	--folded "$tmp/two.folded" --flamegraph "$tmp/two.html" tpgen_a tpgen_b -- \
	sh -c "echo tpgen_a 30 > $TPGEN/fire && echo tpgen_b 20 > $TPGEN/fire")
ok $? "--by tpgen_a:kstack --by tpgen_b:comm,kstack --folded --flamegraph"
diag "$(cut -c1-100 "$tmp/two.folded")"
is "$(awk '{ split($0, f, ";"); n[f[1]] += $NF } END { for (r in n) print r, n[r] }' \
	"$tmp/two.folded" | sort | paste -sd' ')" "tpgen_a:kstack 30 tpgen_b:comm,kstack 20" \
	"--folded: every stack of both, under tpgen_a:kstack and tpgen_b:comm,kstack"
grep -q '^tpgen_b:comm,kstack;sh;.*;tpgen_fire_local \[tpgen\] 20$' "$tmp/two.folded"
ok $? "--folded: the second's line has its comm, then its frames"
grep -qF '<title>tpstat: tpgen_a by kstack, tpgen_b by comm,kstack</title>' "$tmp/two.html" &&
	grep -qF 'const TOTAL = 50;' "$tmp/two.html" &&
	grep -qF '[20,"tpgen_b:comm,kstack","sh",[],' "$tmp/two.html"
ok $? "--flamegraph: both, 50 events in all, the second's stack under its frame"

# 2. The user program: user frames named after it exited, through the debug file.
out=$(tpstat -o /dev/stdout -j --by sys_enter:ustack --filter 'sys_enter:id == 24' sys_enter -- \
	"$prog" 7)
ok $? "--by sys_enter:ustack --filter 'sys_enter:id == 24' -- stack-syscall 7"
b=$(by "$out" sys_enter 0)
diag "$(jq -c '.stacks' <<<"$b")"
is "$(jq -c '[(.stacks | length), .stacks[0].count]' <<<"$b")" "[1,7]" "one stack, its 7 calls"
is "$(jq -r '.stacks[0].ustack[0:4] | map(sub("\\+0x[0-9a-f]+"; "")) | join(";")' <<<"$b")" \
	"inner (inlined);middle;outer;main" \
	"named from the debug file after the exit: inner (inlined) in middle, outer, main"
is "$(sums "$out" sys_enter)" "[7,7]" "entries + buckets = count"

# 2b. A process tpstat did not start (its command is sh), run by a relative path from a
# directory of its own, that exits before any read: no live process maps its file, which
# is found from its exec (bpf/tpstat_exec.h), the debug file beside it.
mkdir "$tmp/bin" && cp "$prog" "$prog.debug" "$tmp/bin/"
out=$(cd "$tmp/bin" && tpstat -o /dev/stdout -j --by sys_enter:ustack \
	--filter 'sys_enter:id == 24' sys_enter -- sh -c './stack-syscall 5; echo done >/dev/null')
ok $? "-- sh -c './stack-syscall 5': the program is sh's child"
user_named "$out" 5 "named through its exec: inner (inlined) in middle, outer, main"

# 2c. A process that was running before tpstat started and exits before the report, from a
# directory of its own: its file is known from the maps every process had at the start. It
# waits for a byte on a FIFO (opened read-write: no open blocks), which tpstat's command
# writes; its stdout, another FIFO it alone holds open for writing, ends at its exit: the
# command opens it first (a reader that came after the last writer would wait for another),
# then lets the program go and reads it to its end.
mkdir "$tmp/early" && cp "$prog" "$prog.debug" "$tmp/early/" && mkfifo "$tmp/go" "$tmp/gone"
(cd "$tmp/early" && exec ./stack-syscall 4 wait <>"$tmp/go" 1<>"$tmp/gone") &
early=$!
wait_until 30 "stack-syscall has started" sh -c "readlink /proc/$early/exe | grep -q /early/stack-syscall"
out=$(tpstat -o /dev/stdout -a -j --by sys_enter:ustack --filter 'sys_enter:id == 24' sys_enter \
	-- sh -c "exec 3<$tmp/gone && echo go >$tmp/go && cat <&3")
ok $? "stack-syscall, started before tpstat, let go by its command"
wait "$early"
ok $? "stack-syscall exited (0: its calls returned)"
user_named "$out" 4 "named through its maps at tpstat's start: inner (inlined) in middle, outer, main"

# 3. A tuple with a kernel and a user stack, and the comm.
out=$(tpstat -o /dev/stdout -j --by sys_enter:comm,kstack,ustack --filter 'sys_enter:id == 24' \
	sys_enter -- "$prog" 3)
b=$(by "$out" sys_enter 0)
is "$(jq -c '[.stacks[0].key, .stacks[0].count, (.stacks[0].ustack[1] | sub("\\+0x[0-9a-f]+"; ""))]' \
	<<<"$b")" '["stack-syscall",3,"middle"]' "comm,kstack,ustack: the comm is the key, both stacks"
is "$(jq -r '.stacks[0].kstack | map(select(test("^do_syscall_64"))) | length' <<<"$b")" 1 \
	"its kernel stack has do_syscall_64"

# 4. A depth limit: tpgen's stack is deeper than 2 frames, every event is truncated.
out=$(tpstat -o /dev/stdout -a -j --by tpgen_a:kstack:2 tpgen_a -- sh -c "echo tpgen_a 50 > $TPGEN/fire")
b=$(by "$out" tpgen_a 0)
is "$(jq -c '[(.stacks | length), .truncated]' <<<"$b")" "[0,50]" "kstack:2: 50 truncated, no stack"
is "$(sums "$out" tpgen_a)" "[50,50]" "entries + buckets = count"

# 5. A table of one stack: with each CPU's kthread firing, all but one CPU's find it full.
out=$(tpstat -o /dev/stdout -a -j --stack-entries 1 --by tpgen_a:cpu,kstack tpgen_a -- \
	sh -c "echo tpgen_a 1000 all > $TPGEN/fire")
b=$(by "$out" tpgen_a 0)
is "$(jq -c '[(.stacks | length), .stacks[0].count, .map_full]' <<<"$b")" \
	"[1,1000,$((1000 * (ncpu - 1)))]" "--stack-entries 1: one CPU's 1000 in it, the rest map full"
is "$(sums "$out" tpgen_a)" "[$((1000 * ncpu)),$((1000 * ncpu))]" "entries + buckets = count"

# 6. No user stack in a kernel thread: tpgen's 'all' fires in its kthreads.
out=$(tpstat -o /dev/stdout -a -j --by tpgen_a:ustack tpgen_a -- sh -c "echo tpgen_a 10 all > $TPGEN/fire")
b=$(by "$out" tpgen_a 0)
is "$(jq -c '[(.stacks | length), .no_ustack]' <<<"$b")" "[0,$((10 * ncpu))]" \
	"ustack in tpgen's kthreads: every event counted as no user stack"

# 7. --value with a stack key, and the table.
out=$(tpstat -o /dev/stdout -a --by tpgen_a:kstack --value seq --top 1 tpgen_a -- \
	sh -c "echo tpgen_a 10 > $TPGEN/fire")
ok $? "--by tpgen_a:kstack --value seq"
grep -Eq '^ +10 +100\.00% *$' <<<"$out" && grep -q '^  10 in stacks + 0 without = 10 of 10 events' <<<"$out" &&
	grep -Eq '^        tpgen_fire_local\+0x[0-9a-f]+ \[tpgen\]$' <<<"$out"
ok $? "the table: the stack's count and share, its frames indented, the sum line"
grep -Eq '^        avg 5\.500, min 1, max 10, sum 55$' <<<"$out"
ok $? "the table: the stack's --value (seq 1..10): avg 5.5, min 1, max 10, sum 55"
out=$(tpstat -o /dev/stdout -a -j --by tpgen_a:kstack --value seq tpgen_a -- \
	sh -c "echo tpgen_a 20 > $TPGEN/fire; echo tpgen_a 10 > $TPGEN/fire")
is "$(jq -c '.stacks[] | [.count, .sum, .min, .max, .avg]' <<<"$(by "$out" tpgen_a 0)")" \
	"[30,265,1,20,8.833]" "-j: two fires, one stack: count 30, sum 210 + 55, min 1, max 20, avg"

# 8. The flame graph of the issue's example.
rm -f "$tmp/f.html"
out=$(tpstat --by sched_switch:kstack --flamegraph "$tmp/f.html" -a -d 5 sched_switch 2>&1)
ok $? "tpstat --by sched_switch:kstack --flamegraph f.html -a -d 5"
grep -q '__schedule' "$tmp/f.html" && grep -q 'flamegraph' "$tmp/f.html" &&
	grep -q "$(grep -o '[0-9,]* in stacks + [0-9,]* without = [0-9,]* of [0-9,]* events' <<<"$out" |
		head -1 | grep -o ' of [0-9,]*' | tr -d ', of')" "$tmp/f.html"
ok $? "the page has the viewer, __schedule's frames and the events' total"
is "$(grep -c 'NOT ACCOUNTED' <<<"$out")" 0 "every switch accounted"

rm -rf "$tmp"
done_testing
