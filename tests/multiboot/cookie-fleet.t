#!/bin/bash
# cookie-gend --etcd across guests, with their BPF side, against a real three-member etcd on
# the host's loopback (tests/lib/etcd.sh), reached through run-vm --host-port (QEMU's user
# network with restrict=on: the guests reach those ports and nothing else). Each guest runs
# tests/vm/cookie-fleet-agent, which draws cookies (socket, fast path, BPF at fork) when this
# test asks and appends every one to its share. The faults, in order:
#   two guests start at once: distinct ids, each serves;
#   one etcd member killed: both go on reserving;
#   a guest killed (SIGKILL of its QEMU): its lease expires; two new guests start at once, so
#     three serve with distinct ids, and the one with the freed id serves above every cookie
#     the dead one did;
#   a guest paused (SIGSTOP of its QEMU) until its lease expired, its id claimed by a new
#     guest, then resumed: it serves nothing of its old id above the mark it had reserved,
#     claims the one free id and moves to it (state directory, counter, BPF), and serves
#     above that id's mark and every cookie of it served before; the new holder of its old
#     id serves only at or above the old mark;
#   two of three members killed (no quorum): draws go on below the reserved marks, then are
#     refused; quorum back: draws again;
# and among every cookie every guest served: 0 duplicates. At most three guests exist at
# once, one vCPU each; every wait is for an event (etcd's keys, the agents' answers).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/etcd.sh"
work=$(mktemp -d)
TTL=10 RES=100000
MASK=$(((1 << 48) - 1))
declare -A RUNVM	# guest name -> its run-vm's pid
cleanup() {
	local g q
	etcd_cleanup
	for g in "${!RUNVM[@]}"; do
		q=$(qemu_of "$g")
		[ -z "$q" ] || kill -CONT "$q" 2>/dev/null
		kill "${RUNVM[$g]}" 2>/dev/null && wait "${RUNVM[$g]}"
	done
	rm -rf "$work"
}
trap cleanup EXIT
start=$SECONDS

# boot NAME [COOKIE-GEND OPTION...]: a guest running the agent against every member
boot() {
	local g=$1
	shift
	mkdir "$work/$g"
	"$top/images/run-vm" --cpus 1 --mem 1G --host-port "$PORTS" --share "$work/$g" \
		--timeout $((1800 * TAP_SLOW)) -- /usr/lib/bareatom/tests/vm/cookie-fleet-agent \
		"$GUEST_URLS" --etcd-ttl "$TTL" --etcd-reserve "$RES" "$@" \
		>"$work/$g.out" 2>"$work/$g.err" </dev/null &
	RUNVM[$g]=$!
}
# The guest's QEMU: the child of its run-vm that execs it
qemu_of() { ps --ppid "${RUNVM[$1]}" -o pid=,comm= | awk '$2 ~ /^qemu-system/ { print $1 }'; }
ready() { [ -s "$work/$1/ready" ]; }
# serving NAME: wait until its daemon serves or gave up; prints its node id
serving() {
	wait_until 900 "guest $1's cookie-gend --etcd to serve" ready "$1" || return 1
	local what node
	read -r what node <"$work/$1/ready"
	[ "$what" = serving ] && echo "$node"
}
# ask NAME WORDS...: give the agent its next step; answer NAME: wait for it, return its status
step=0
ask() {
	local g=$1
	shift
	step=$((step + 1))
	echo "$step $*" >"$work/$g/do.tmp" && mv "$work/$g/do.tmp" "$work/$g/do"
	echo "$step" >"$work/$g/asked"
}
answered() { [ -f "$work/$1/done" ] && [ "$(cut -d' ' -f1 "$work/$1/done")" = "$(cat "$work/$1/asked")" ]; }
answer() {
	wait_until 900 "guest $1's agent to finish step $(cat "$work/$1/asked")" answered "$1" || return 1
	return "$(cut -d' ' -f2 "$work/$1/done")"
}
# stopped NAME: its run-vm ended; its exit status
gone() { ! kill -0 "${RUNVM[$1]}"; }
stopped() {
	wait_until 900 "guest $1's run-vm to end" gone "$1"
	wait "${RUNVM[$1]}"
}
# ranges CMD [--node N] FILE...: tests/unit/cookie-ranges.py on the cookies (one a line) in
# FILEs (of node N only)
ranges() {
	local cmd=$1 node=()
	shift
	[ "$1" = --node ] && node=(--node "$2") && shift 2
	python3 "$top/tests/unit/cookie-ranges.py" "$cmd" "${node[@]}" \
		<(cat "$@" 2>/dev/null | awk 'NF { print $1, 1 }')
}
# mark NAME: remember how much it has drawn; since NAME: the cookies drawn after (socket,
# fast path, fork)
mark() {
	local p
	for p in socket fast fork; do
		grep -c . "$work/$1/$p" >"$work/$1.mark-$p"
	done
}
since() {
	local p
	for p in socket fast fork; do
		tail -n +$(($(cat "$work/$1.mark-$p") + 1)) "$work/$1/$p"
	done
}
key_gone() { local out; out=$(etcd_ctl get "$1" --keys-only) && [ -z "$out" ]; }
hw() { etcd_ctl get "/bareatom/highwater/$1" --print-value-only; }
hw_above() { [ "$(hw "$1")" -gt "$2" ]; }
declare -A NODE	# guest name -> the node id it serves as
# boot_at_once NAME...: guests started together (any of ids 1-3); each serves, NODE[NAME]
boot_at_once() {
	local g
	for g in "$@"; do boot "$g" --etcd-ids 1-3; done
	for g in "$@"; do
		NODE[$g]=$(serving "$g")
		ok $? "guest ${g#g} serves as node ${NODE[$g]:-?}" "$(guest_log "$g")"
	done
}
# draw_each N WHAT NAME...: the agents' `draw N` step, on every guest at once
draw_each() {
	local n=$1 what=$2 g
	shift 2
	for g in "$@"; do ask "$g" draw "$n"; done
	for g in "$@"; do answer "$g"; ok $? "$g drew $what" "$(guest_log "$g")"; done
}
# guest_log NAME: what says why a guest's step failed (ok's detail lines)
guest_log() { tail -n 8 "$work/$1.err" "$work/$1/last-error" "$work/$1/refusal" "$work/$1/daemon.log" 2>/dev/null; }

etcd_start 3
ok $? "a three-member etcd on 127.0.0.1 ($ETCD_URLS)"
PORTS=$(IFS=,; echo "${ETCD_CPORT[*]}")
GUEST_URLS=${ETCD_URLS//127.0.0.1/10.0.2.100}

# Two at once.
boot_at_once g1 g2
n1=${NODE[g1]} n2=${NODE[g2]}
[ -n "$n1" ] && [ -n "$n2" ] && [ "$n1" != "$n2" ]
ok $? "two guests started at once claimed distinct ids ($n1, $n2)"
draw_each 20000 "20000 cookies over the socket, 20000 on the fast path, 100 at fork" g1 g2

# One member gone: reservations go on (2 x 40000 more takes each guest past its first range).
etcd_stop_member 1
commits() { etcd_ctl put /bareatom-test/ping 1; }
wait_until 120 "the two members left to commit" commits
ok $? "member 1 killed: the other two commit"
for n in "$n1" "$n2"; do h[$n]=$(hw "$n"); done
draw_each 40000 "40000 + 40000 + 100 more" g1 g2
hw_above "$n1" "${h[$n1]}" && hw_above "$n2" "${h[$n2]}"
ok $? "... and both reserved through the other members (highwater/$n1 ${h[$n1]} -> $(hw "$n1"), highwater/$n2 ${h[$n2]} -> $(hw "$n2"))"
etcd_start_member 1
wait_until 120 "etcd's member 1 to be back" etcd_healthy
ok $? "member 1 back, the cluster healthy"

# Guest 1 killed: its id comes free with its lease; two newcomers start at once.
kill -KILL "$(qemu_of g1)"
stopped g1
is "$?" 125 "guest 1's QEMU killed: run-vm exits 125, the guest died"
wait_until 120 "node/$n1's lease to expire" key_gone "/bareatom/node/$n1"
ok $? "guest 1's claim /bareatom/node/$n1 is gone with its lease"
g1max=$(ranges max "$work"/g1/{socket,fast,fork})
boot_at_once g3 g4
n3=${NODE[g3]} n4=${NODE[g4]}
[ "$(printf '%s\n' "$n2" "$n3" "$n4" | sort -u | grep -c .)" = 3 ]
ok $? "three guests serve with distinct ids ($n2, $n3, $n4), two of them started at once"
draw_each 20000 "20000 + 20000 + 100 cookies" g3 g4
heir=g3
[ "$n4" = "$n1" ] && heir=g4
got=$(ranges min "$work/$heir"/{socket,fast,fork})
[ "$((got >> 48))" = "$n1" ] && [ "$got" -gt "$g1max" ]
ok $? "$heir took the dead guest's id $n1 and serves above every cookie guest 1 served (its lowest $got > $g1max)"

# Guest 2 paused past its lease; its id taken by guest 5; then resumed. (Guest 4 leaves
# first: three guests at most.)
ask g4 stop
answer g4
stopped g4
ok $? "guest 4 stopped its daemon and powered off"
mark g2
kill -STOP "$(qemu_of g2)"
wait_until 120 "node/$n2's lease to expire" key_gone "/bareatom/node/$n2"
ok $? "guest 2 paused: its claim /bareatom/node/$n2 expired"
P=$(hw "$n2")
boot g5 --etcd-ids "$n2-$n2"
NODE[g5]=$(serving g5)
n5=${NODE[g5]}
[ "$n5" = "$n2" ]
ok $? "guest 5 claimed the paused guest's id ($n5) above its mark $P" "$(guest_log g5)"
draw_each 20000 "20000 + 20000 + 100 cookies" g5
# The one id of 1-3 neither guest 3 nor guest 5 holds (guest 4's, its lease gone with it):
# where guest 2 must move. Its mark in etcd and the cookies of it served so far, now.
nf=$(printf '%s\n' 1 2 3 | grep -vx -e "$n3" -e "$n5")
wait_until 120 "node/$nf's lease to expire" key_gone "/bareatom/node/$nf"
ok $? "node $nf is free: guest 2 may move there, above its mark $(hw "$nf")"
Pf=$(hw "$nf")
maxf=$(ranges max --node "$nf" "$work"/g*/{socket,fast,fork})
kill -CONT "$(qemu_of g2)"
moved_to() { grep -q "serving node $2 now" "$work/$1/daemon.log"; }
wait_until 900 "guest 2's daemon to move to node $nf" moved_to g2 "$nf"
ok $? "guest 2 resumed: its id $n2 taken, it claimed node $nf and moved" "$(guest_log g2)"
diag "$(grep -e 'lost the claim' -e 'claimed node id' -e 'moved from node' -e 'serving node' "$work/g2/daemon.log" | tail -n 4 | cut -c1-200)"
grep -q "claimed node id $nf (/bareatom/node/$nf, revision [0-9]*, lease [0-9a-f]*) in place of $n2, which another holder has" "$work/g2/daemon.log"
ok $? "its log names the old id, the new one and the claim's revision"
draw_each 20000 "20000 + 20000 + 100 cookies as node $nf" g2
ask g2 stats
answer g2
is "$(jq -r '"\(.node) \(.etcd_moves)"' "$work/g2/stats")" "$nf 1" "cookie --stats: node $nf, etcd_moves 1"
since g2 >"$work/g2.after"
got=$(ranges maxseq --node "$n2" "$work/g2.after")
[ "$got" = none ] || [ "$got" -lt "$P" ]
ok $? "after the pause guest 2 served no cookie of node $n2 at or above the mark it had reserved, $P (highest sequence: $got)"
is "$(ranges nodes "$work/g2.after" | tr ' ' '\n' | grep -vx "$n2")" "$nf" "the rest of what it served after the pause is node $nf's"
got=$(ranges min --node "$nf" "$work/g2.after")
[ "$((got & MASK))" -ge "$Pf" ] && { [ "$maxf" = none ] || [ "$got" -gt "$maxf" ]; }
ok $? "... at or above node $nf's mark in etcd when it moved, $Pf, and above every cookie of node $nf served before ($maxf < $got)"
got=$(ranges min "$work"/g5/{socket,fast,fork})
[ "$((got >> 48))" = "$n2" ] && [ "$((got & MASK))" -ge "$P" ]
ok $? "guest 5, node $n5, serves only at or above the paused guest's mark (lowest sequence $((got & MASK)))"
ask g2 stop
answer g2
stopped g2
ok $? "guest 2 stopped"

# No quorum: the reserved ranges, then refusals; quorum back: draws again.
for g in g3 g5; do mark "$g"; done
for n in "$n3" "$n5"; do h[$n]=$(hw "$n"); done
etcd_stop_member 1
etcd_stop_member 2
for g in g3 g5; do ask "$g" drain; done
for g in g3 g5; do answer "$g"; ok $? "two of three members killed: $g drew until refused" "$(guest_log "$g")"; done
for g in g3 g5; do
	n=${NODE[$g]}
	since "$g" >"$work/$g.noquorum"
	got=$(ranges maxseq "$work/$g.noquorum")
	[ "$got" != none ] && [ "$got" -lt "${h[$n]}" ] && grep -q '^socket .*ERR' "$work/$g/refusal"
	ok $? "$g served $(grep -c . "$work/$g.noquorum") cookies without quorum, all below its mark ${h[$n]}, then refused"
done
etcd_start_member 1
etcd_start_member 2
wait_until 120 "etcd's quorum to be back" etcd_healthy
ok $? "members 1 and 2 back: quorum"
for g in g3 g5; do ask "$g" serve; done
for g in g3 g5; do answer "$g"; ok $? "$g serves again" "$(guest_log "$g")"; done
for n in "$n3" "$n5"; do
	hw_above "$n" "${h[$n]}"
	ok $? "node $n reserved again (highwater/$n ${h[$n]} -> $(hw "$n"))"
done
draw_each 20000 "20000 + 20000 + 100 again" g3 g5
for g in g3 g5; do ask "$g" stop; done
for g in g3 g5; do answer "$g"; stopped "$g"; ok $? "$g stopped"; done

# Every cookie every guest served.
n=$(cat "$work"/g*/{socket,fast,fork} 2>/dev/null | grep -c .)
out=$(ranges dups "$work"/g*/{socket,fast,fork})
diag "$out"
[ "$out" = "0 duplicates among $n cookies" ] && [ "$n" -gt 200000 ]
ok $? "every cookie of the five guests (socket, fast path, fork): $out"
is "$(cat "$work"/g*/fork | grep -cx 0)" 0 "no fork got cookie 0 (a refused draw)"
# A reserve txn whose reply was lost with quorum may commit when it is back: the daemon
# then finds etcd's mark above its own and reserves above both (its log says so).
diag "draws refused while a reservation was on its way, then served: $(cat "$work"/g*/retried 2>/dev/null | grep -c .)"
diag "the daemons' logs: $(cat "$work"/g*/daemon.log | grep -c 'by someone else') marks found raised by a txn not seen to succeed"
diag "cookie-fleet.t took $((SECONDS - start)) s"
done_testing
