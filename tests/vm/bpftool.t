#!/bin/bash
# What the suite pins, as bpftool sees it: every pinned program's xlated code holds the atomic
# operations the host-side object check expects of its source, tpstat's counters dumped by
# bpftool equal what tpstat prints, and the links name the tracepoints.
# cookie-gend's pins come from its unit, so the runner boots systemd for this:
# run-vm: systemd
. "$(dirname "$0")/../lib/tap.sh"
expect=$(dirname "$0")/atomics.expect
modprobe tpgen

# xlated_has PIN OBJECT PROGRAM [OP...]: every op listed for OBJECT PROGRAM (or every OP given)
# shows in bpftool's dump.
xlated_has() {
	local pin=$1 obj=$2 prog=$3 dump ops op pat missing=""
	dump=$(bpftool prog dump xlated pinned "$pin")
	ops=$(awk -v o="$obj" -v p="$prog" '$1 == o && $2 == p { $1 = $2 = ""; print }' "$expect")
	[ $# -gt 3 ] && ops="${*:4}"
	for op in $ops; do
		case $op in
		none) continue ;;
		add64) pat='lock \*(u64 \*)' ;;
		add32) pat='lock \*(u32 \*)' ;;
		fetch_add64|fetch_or64|fetch_and64|fetch_xor64) pat="atomic64_${op%64}" ;;
		fetch_add32|fetch_or32|fetch_and32|fetch_xor32) pat="atomic_${op%32}" ;;
		xchg64) pat='atomic64_xchg' ;;
		cmpxchg64) pat='atomic64_cmpxchg' ;;
		*) pat="unknown op $op" ;;
		esac
		grep -q "$pat" <<<"$dump" || missing="$missing $op"
	done
	[ -n "$ops" ] && [ -z "$missing" ]
	ok $? "bpftool prog dump xlated $pin shows$(printf ' %s' $ops)${missing:+ (missing:$missing)}"
}

# tpstat --pin
pin=/sys/fs/bpf/bareatom/tpstat
lines_after() { [ "$(wc -l <"$2")" -gt "$1" ]; }
tpstat -j -i 0.2 --pin tpgen_a tpgen_b > /tmp/tpstat.out &
tp=$!
wait_until 600 "tpstat --pin to pin its links" test -e $pin/link_tpgen_b
# Its pins come before its loop: signals (SIGUSR1 below) are its own once it prints.
wait_until 300 "tpstat's first interval line" test -s /tmp/tpstat.out
for f in counters counts prog_tpgen_a prog_tpgen_b link_tpgen_a link_tpgen_b; do
	[ -e $pin/$f ]
	ok $? "tpstat --pin pinned $pin/$f"
done
# tpgen_b's program is tpstat_0's copy with index 1 patched in (src/tpstat_progs.c): the same
# operations, its own name, the object's BTF and line info.
# On a kernel that refuses a program's nested run (tpstat -v says so), the CPU's own slot is
# counted with a plain add (bpf/tpstat_update.h) and the verifier drops the fetch-add path:
# the shared slots' add, the CPU set's fetch-or and first_cpu's cmpxchg are the atomics left.
if tpstat -v -o /dev/null -a tpgen_a -- true 2>&1 >/dev/null | grep -q '^tpstat: plain updates'; then
	for t in a b; do
		xlated_has $pin/prog_tpgen_$t tpstat.bpf.o tpstat_0 add64 fetch_or64 cmpxchg64
		! bpftool prog dump xlated pinned $pin/prog_tpgen_$t | grep -q atomic64_fetch_add
		ok $? "plain updates: no fetch-add left in $pin/prog_tpgen_$t"
	done
else
	xlated_has $pin/prog_tpgen_a tpstat.bpf.o tpstat_0
	xlated_has $pin/prog_tpgen_b tpstat.bpf.o tpstat_0
fi
for t in a:0 b:1; do
	is "$(bpftool -j prog show pinned $pin/prog_tpgen_${t%:*} | jq -r '.name + " " + (.btf_id > 0 | tostring)')" \
		"tpstat_${t#*:} true" "tpgen_${t%:*}'s program has its name and BTF"
	bpftool prog dump xlated pinned $pin/prog_tpgen_${t%:*} linum | grep -q 'tpstat.bpf.c'
	ok $? "bpftool shows tpgen_${t%:*}'s program's line info (source file and line)"
done
links=$(bpftool -j link show)
for t in tpgen_a tpgen_b; do
	jq -e --arg t $t 'map(select(.tp_name == $t)) | length == 1' <<<"$links" >/dev/null
	ok $? "bpftool link show names the raw tracepoint $t"
done

echo "tpgen_a 1234 all" > $TPGEN/fire
echo "tpgen_b 77" > $TPGEN/fire
kill -USR1 $tp
paused() {
	p=$(bpftool -j map dump pinned $pin/counters | jq '.[0].formatted.value[".bss"][] | select(.paused != null) | .paused')
	[ "$p" = 1 ]
}
wait_until 120 "the pinned paused flag" paused
is "$p" 1 "bpftool map dump shows the paused flag set by SIGUSR1, as a named field"
# The counts map: entry slot * 8 + tracepoint for two tracepoints (bpf/tpstat.h), 320 slots.
dump=$(bpftool -j map dump pinned $pin/counts)
sum() { jq "[.[].formatted | select(.key < 320 * 8 and .key % 8 == $1) | .value] | add" <<<"$dump"; }
a=$(sum 0) b=$(sum 1)
is "$a/$b" "$((1234 * $(nproc)))/77" "bpftool map dump -j: named per-CPU slots add up to what was fired"
# At least one more interval line, printed while paused (each line is flushed as printed,
# and the flag was set before any line still to come).
n=$(wc -l </tmp/tpstat.out)
wait_until 120 "an interval line printed while paused" lines_after "$n" /tmp/tpstat.out
kill -INT $tp; wait $tp
last=$(grep '"final":false' /tmp/tpstat.out | tail -n1)
is "$(jq -r '[.tracepoints[].count] | map(tostring) | join("/")' <<<"$last")" "$a/$b" \
	"what tpstat printed while paused equals bpftool's dump"
[ ! -e $pin ]
ok $? "tpstat removed its pins on exit"

# cookie-gend's pins
pin=/sys/fs/bpf/bareatom/cookie
wait_until 300 "cookie-gend to answer STATS" cookie --stats
xlated_has $pin/prog_fork cookie.bpf.o cookie_fork
bpftool -j link show | jq -e 'map(select(.prog_id != null)) | length > 0' >/dev/null
lk=$(bpftool -j link show pinned $pin/link_fork)
jq -e '.attach_type == "trace_raw_tp" or .tp_name == "sched_process_fork"' <<<"$lk" >/dev/null
ok $? "cookie-gend's fork link is a raw tracepoint link: $(jq -c '{type, attach_type, tp_name}' <<<"$lk")"
bpftool btf dump id "$(bpftool -j prog show pinned $pin/prog_fork | jq .attach_btf_id // empty 2>/dev/null)" >/dev/null 2>&1 || true
st=$(bpftool -j map dump pinned $pin/state)
next=$(jq '.[0].formatted.value.next' <<<"$st")
limit=$(jq '.[0].formatted.value.limit' <<<"$st")
hw=$(cookie --stats -j | jq .highwater)
[ "$next" -gt 0 ] && [ "$limit" -gt "$next" ]
ok $? "bpftool map dump of the cookie state shows named fields (next=$next, limit=$limit)"
is "$limit" "$hw" "the limit in the map is the durable high-water mark"
done_testing
