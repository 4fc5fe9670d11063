#!/bin/bash
# cookie-gend --etcd's claim and reservations (src/cookie_fleet*.c, src/etcd.c) against a real
# etcd, three members on 127.0.0.1 started here (tests/lib/etcd.sh), through cookie-fleet
# (tests/unit/cookie-fleet.c: the daemon's own code on a counter in memory, no BPF): claimers
# starting at once get distinct ids; a killed one's id comes free with its lease and its
# successor serves above it; a paused one whose id was taken serves only what it had
# reserved, then claims a free id and moves to it, serving above that id's mark; one member down changes nothing, two (no quorum) stop new ranges
# until they are back; bad URLs, garbage keys and marks changed by hand get their documented
# exit statuses; a directory whose id another holds is refused at start (78), or moved to a
# free id with --etcd-move. Every cookie served by every claimer is kept: none may repeat.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/etcd.sh"

F=$BUILD/tests/unit/cookie-fleet
R=$(dirname "$0")/cookie-ranges.py
P=/bareatom/
TTL=3
RES=200000
T=$(mktemp -d /tmp/bareatom-fleet.XXXXXX)
declare -A CPID
cleanup() {
	local p
	for p in "${CPID[@]}"; do kill -9 "$p" 2>/dev/null; done
	etcd_cleanup
	rm -rf "$T"
}
trap cleanup EXIT

if ! command -v etcd >/dev/null; then
	skip "no etcd (etcd-server, images/install-deps)"
	done_testing
	exit 0
fi

# claimer NAME [ARGS...]: a claimer in the background; its state directory $T/NAME.d, its
# ranges $T/NAME.out, stdout $T/NAME.log, stderr $T/NAME.err
claimer() {
	local n=$1
	shift
	mkdir -p -m 0700 "$T/$n.d"
	"$F" --etcd "$ETCD_URLS" --state-dir "$T/$n.d" --out "$T/$n.out" --ttl "$TTL" \
		--reserve "$RES" --wait 120 "$@" >>"$T/$n.log" 2>>"$T/$n.err" &
	CPID[$n]=$!
}
# claimer_run NAME ARGS...: one in the foreground, its exit status
claimer_run() {
	local n=$1
	shift
	mkdir -p -m 0700 "$T/$n.d"
	"$F" --etcd "$ETCD_URLS" --state-dir "$T/$n.d" --out "$T/$n.out" --ttl "$TTL" \
		--reserve "$RES" "$@" >>"$T/$n.log" 2>>"$T/$n.err"
}
stop_claimer() {
	kill -TERM "${CPID[$1]}" 2>/dev/null
	wait "${CPID[$1]}" 2>/dev/null
	unset "CPID[$1]"
}
node_of() { sed -n 's/^node //p' "$T/$1.log" | tail -n1; }
ranges() { [ -f "$T/$1.out" ] && wc -l <"$T/$1.out" || echo 0; }
# served_beyond NAME K: NAME has served more than K ranges
served_beyond() { [ "$(ranges "$1")" -gt "$2" ]; }
# serves_on NAME...: each NAME serves on: more ranges than now, enough to need several txns
serves_on() {
	local n k need=$((3 * RES / 1000))
	for n in "$@"; do
		k=$(ranges "$n")
		wait_until 120 "$n to serve $need more ranges" served_beyond "$n" $((k + need)) || return 1
	done
}
has_line() { grep -q -- "$2" "$T/$1.$3"; }
count_lines() { grep -c -- "$2" "$T/$1.log"; }
key_gone() { [ -z "$(etcd_ctl get "$1" --print-value-only)" ]; }
bigger() { python3 -c 'import sys; sys.exit(0 if int(sys.argv[1]) > int(sys.argv[2]) else 1)' "$1" "$2"; }

etcd_start 3
ok $? "three etcd members on 127.0.0.1 ($ETCD_URLS)" "$(tail -n 5 "$ETCD_DIR"/m1.log)"

# 1. Two, then three claimers at once: distinct ids, each serves.
# b may claim only 62000-62001: when its id is taken (3.), the other one is where it moves.
claimer a
claimer b --etcd-ids 62000-62001
for n in a b; do wait_until 120 "$n to claim an id" has_line "$n" '^node ' log; done
claimer c
claimer d
claimer e
for n in c d e; do wait_until 120 "$n to claim an id" has_line "$n" '^node ' log; done
ids=$(for n in a b c d e; do node_of $n; done | sort -n | uniq | wc -l)
is "$ids" 5 "five claimers started two, then three at once: five distinct ids ($(for n in a b c d e; do node_of $n; done | paste -sd' '))"
serves_on a b c d e
ok $? "each of them serves, through several reservations"
for n in a b c d e; do
	is "$($R nodes "$T/$n.out")" "$(node_of $n)" "$n's cookies are all of its node $(node_of $n)"
done
v=$(etcd_ctl get "${P}node/$(node_of a)" --print-value-only)
[[ $v == "host="*" pid="*" started="*" dir="[0-9a-f]* ]]
ok $? "etcdctl shows who holds a's id: $v"

# 2. A claimer killed: its lease expires, the id comes free, the next holder serves above it.
na=$(node_of a)
kill -9 "${CPID[a]}"; wait "${CPID[a]}" 2>/dev/null; unset "CPID[a]"
wait_until 120 "a's claim ${P}node/$na to expire with its lease" key_gone "${P}node/$na"
ok $? "a killed: its claim went with its lease"
claimer a2 --node-id "$na"
wait_until 120 "a2 to claim node $na" has_line a2 '^node ' log && serves_on a2
ok $? "a2 claimed the freed id $na and serves"
bigger "$($R min "$T/a2.out")" "$($R max "$T/a.out")"
ok $? "a2's first cookie is above every cookie a served ($($R max "$T/a.out") < $($R min "$T/a2.out"))"

# 3. A claimer paused past its TTL, its id taken, resumed: what it had reserved, nothing
# above it, then a free id claimed and moved to, served above that id's mark in etcd.
nb=$(node_of b)
nf=$((nb == 62000 ? 62001 : 62000))
# The id b will move to has served before: y serves as node $nf, then stops (its lease expires).
claimer y --node-id "$nf"
wait_until 120 "y to claim node $nf" has_line y '^node ' log && serves_on y
ok $? "y claimed node $nf, the one b may move to, and serves"
stop_claimer y
wait_until 120 "y's claim to expire" key_gone "${P}node/$nf"
ok $? "y stopped: its claim of node $nf went with its lease"
kill -STOP "${CPID[b]}"
wait_until 120 "paused b's claim to expire" key_gone "${P}node/$nb"
ok $? "b paused (SIGSTOP): its claim expired"
claimer b2 --node-id "$nb"
wait_until 120 "b2 to claim node $nb" has_line b2 '^node ' log && serves_on b2
ok $? "b2 claimed b's id $nb while b sleeps, and serves"
hf=$(etcd_ctl get "${P}highwater/$nf" --print-value-only)
kill -CONT "${CPID[b]}"
wait_until 120 "b to move to another id" has_line b '^moved to node' log
ok $? "b resumed (SIGCONT): $(grep '^moved to node' "$T/b.log")"
wait_until 60 "b to say it lost its claim" has_line b 'lost the claim' err
ok $? "b logs the lost claim" "$(cat "$T/b.err")"
is "$(node_of b)" "$nf" "b moved to the only free id of its --etcd-ids, $nf"
grep -q "claimed node id $nf (${P}node/$nf, revision [0-9]*, lease [0-9a-f]*) in place of $nb, which another holder has" "$T/b.err"
ok $? "b logs the new claim with the old id, the new id and its revision: $(grep -o "claimed node id $nf (.*) in place of $nb" "$T/b.err")"
grep -q "moved from node $nb to node $nf: mark" "$T/b.err"
ok $? "b logs its state directory's move: $(grep -o "moved from node $nb.*" "$T/b.err")"
is "$(cat "$T/b.d/node")" "$nf" "b's state directory names node $nf now"
! grep -E 'exhausted|cannot save|cannot move' "$T/b.err"
ok $? "... and no save of its mark failed on the way"
serves_on b b2
ok $? "b serves as node $nf, b2 as node $nb"
is "$($R nodes "$T/b2.out")" "$nb" "b2's cookies are all of node $nb"
is "$($R nodes "$T/b.out")" "62000 62001" "b's cookies are of node $nb (before the move) and $nf (after)"
bigger "$($R min "$T/b2.out")" "$($R max --node "$nb" "$T/b.out")"
ok $? "every cookie of node $nb b served, before and after the pause, is below b2's first cookie"
got=$($R min --node "$nf" "$T/b.out")
! bigger "$hf" "$((got & ((1 << 48) - 1)))"
ok $? "b's cookies of node $nf start at or above that id's mark in etcd when b resumed ($hf <= $((got & ((1 << 48) - 1))))"
bigger "$got" "$($R max "$T/y.out")"
ok $? "... above every cookie y served as node $nf"
stop_claimer b
ok $? "b stops cleanly"

# The same with no free id to move to: p may claim only 62002. It refuses while p2 holds
# it, and claims it back above p2's cookies once p2 is gone.
claimer p --etcd-ids 62002-62002
wait_until 120 "p to claim node 62002" has_line p '^node 62002' log && serves_on p
ok $? "p claimed node 62002 and serves"
kill -STOP "${CPID[p]}"
wait_until 120 "paused p's claim to expire" key_gone "${P}node/62002"
claimer p2 --node-id 62002
wait_until 120 "p2 to claim node 62002" has_line p2 '^node ' log && serves_on p2
ok $? "p paused past its lease, p2 claimed node 62002 and serves"
kill -CONT "${CPID[p]}"
wait_until 120 "p to find no id to move to" has_line p 'every node id from 62002 to 62002 is claimed' err
ok $? "p resumed: no free id of its --etcd-ids, it says so: $(grep -o 'every node id from 62002 .*claimed' "$T/p.err")"
wait_until 60 "p to refuse" eval "tail -n1 $T/p.log | grep -q '^refusing'"
ok $? "... and refuses: $(tail -n1 "$T/p.log")"
k=$(ranges p)
serves_on p2
is "$(ranges p)" "$k" "p serves nothing while p2 holds its id"
stop_claimer p2
wait_until 120 "p to claim node 62002 again" has_line p 'claimed node id 62002 again' err && serves_on p
ok $? "p2 gone: p claimed node 62002 again and serves"
is "$($R nodes "$T/p.out")" 62002 "p's cookies are all node 62002's"
tail -n +$((k + 1)) "$T/p.out" >"$T/p.again"
bigger "$($R min "$T/p.again")" "$($R max "$T/p2.out")"
ok $? "... those since above every cookie p2 served"
stop_claimer p

# 4. etcd members killed: one changes nothing; two (no quorum) end reservations until back.
etcd_stop_member 1
serves_on c d e
ok $? "one of three etcd members killed: c, d and e go on reserving and serving"
# Refusals before this (a range not reserved in time, on a loaded machine) do not count:
# each must refuse anew, and still be refusing (its last line).
refusing_anew() { [ "$(count_lines "$1" '^refusing')" -gt "$2" ] && tail -n1 "$T/$1.log" | grep -q '^refusing'; }
for n in c d e; do eval "refused_$n=\$(count_lines $n '^refusing')"; done
etcd_stop_member 2
for n in c d e; do
	eval "k=\$refused_$n"
	wait_until 120 "$n to refuse without quorum" refusing_anew "$n" "$k"
done
ok $? "two of three members killed (no quorum): c, d and e served their reserved ranges, then refused"
for n in c d e; do k=$(count_lines "$n" '^serving'); eval "before_$n=$k"; done
etcd_start_member 1
etcd_start_member 2
wait_until 120 "etcd to be healthy again" etcd_healthy
for n in c d e; do
	eval "k=\$before_$n"
	wait_until 120 "$n to serve again" eval "[ \$(count_lines $n '^serving') -gt $k ]"
done
serves_on c d e
ok $? "quorum back: c, d and e serve again"

# 5. Bad configuration and hand edits: clear errors, documented statuses, nothing repeated.
ports=($(etcd_free_ports 1))
"$F" --etcd "http://127.0.0.1:${ports[0]}" --state-dir "$T/u.d" --out "$T/u.out" --wait 1 \
	>/dev/null 2>"$T/u.err"
is "$?" 75 "nothing listening at the URL: exit 75"
grep -q 'no etcd answered for 1 s: .*Couldn.t connect' "$T/u.err"
ok $? "... saying etcd is unreachable: $(tail -n1 "$T/u.err")"
"$F" --etcd "http://127.0.0.1:${ETCD_PPORT[3]}" --state-dir "$T/v.d" --out "$T/v.out" --wait 1 \
	>/dev/null 2>"$T/v.err"
is "$?" 75 "a URL that is not etcd's client gateway (a peer port): exit 75"
grep -q "HTTP 404, not JSON: not etcd's v3 gateway" "$T/v.err"
ok $? "... saying it is not etcd's gateway: $(tail -n1 "$T/v.err")"
"$F" --etcd "127.0.0.1:${ETCD_CPORT[3]}" --state-dir "$T/w.d" --out "$T/w.out" 2>"$T/w.err"
is "$?" 2 "a URL without http://: exit 2 (usage)"
grep -q 'is not an etcd endpoint' "$T/w.err"
ok $? "... saying what to give: $(tail -n1 "$T/w.err")"

etcd_ctl put "${P}node/garbage" 'not a claim' >/dev/null
etcd_ctl put "${P}highwater/60999" 'garbage' >/dev/null
claimer_run g --node-id 60999 --wait 5
is "$?" 78 "${P}highwater/60999 holding garbage: its claimer exits 78"
grep -q "holds 'garbage', not a mark" "$T/g.err"
ok $? "... saying so: $(grep 'not a mark' "$T/g.err")"
claimer h --etcd-ids 61000-61001
claimer i --etcd-ids 61000-61001
for n in h i; do wait_until 120 "$n to claim an id" has_line "$n" '^node ' log; done
grep -q "node/garbage is not a node id's claim: ignored" "$T/h.err"
ok $? "a key under ${P}node/ that is no id is ignored, with a warning"
claimer_run j --etcd-ids 61000-61001 --wait 2
is "$?" 75 "every id of --etcd-ids 61000-61001 claimed: exit 75"
grep -q 'every node id from 61000 to 61001 is claimed' "$T/j.err"
ok $? "... saying so"

nc=$(node_of c)
etcd_ctl put "${P}highwater/$nc" 5 >/dev/null
wait_until 120 "c to notice its mark lowered" has_line c 'was lowered by someone else' err
ok $? "c's mark lowered by hand: logged ($(grep -m1 'lowered' "$T/c.err" | cut -c1-150))"
etcd_ctl del "${P}highwater/$nc" >/dev/null
wait_until 120 "c to notice its mark deleted" has_line c 'was deleted by someone else' err
ok $? "c's mark deleted by hand: logged"
serves_on c
# Everything c has served so far, then its mark in etcd: c writes it again above what it
# serves before serving it (read the other way round, c may have served on meanwhile).
m=$($R maxseq "$T/c.out")
mark_above() {	# NODE SEQ: NODE's mark in etcd is there, above SEQ
	local v
	v=$(etcd_ctl get "${P}highwater/$1" --print-value-only)
	[[ $v =~ ^[0-9]+$ ]] && bigger "$v" "$2"
}
wait_until 120 "c's mark in etcd to be above the $m it served" mark_above "$nc" "$m"
ok $? "c serves on, its mark back above everything it served ($m < $(etcd_ctl get "${P}highwater/$nc" --print-value-only))"

# b's directory moved to node $nf: a restart claims that id, its own directory's.
k=$(ranges b)
head -n "$k" "$T/b.out" >"$T/b.before"
claimer b
wait_until 120 "b to claim again" eval "[ \$(grep -c '^node ' $T/b.log) -ge 3 ]"
is "$(node_of b)" "$nf" "b restarted on its moved state directory: node $nf"
serves_on b
ok $? "... and serves"
tail -n +$((k + 1)) "$T/b.out" >"$T/b.after"
is "$($R nodes "$T/b.after")" "$nf" "... cookies of node $nf only"
bigger "$($R min "$T/b.after")" "$($R max --node "$nf" "$T/b.before")"
ok $? "... above every cookie of node $nf it served before the restart"

# A restart on the same state directory takes its own claim over at once.
nd=$(node_of d)
stop_claimer d
claimer d
wait_until 120 "d to claim again" eval "[ \$(grep -c '^node ' $T/d.log) -ge 2 ]"
is "$(node_of d)" "$nd" "d restarted on its state directory: the same id $nd"
grep -q "is this state directory's claim from an earlier start" "$T/d.err"
ok $? "... taken over from its earlier start, not waited for"
# a's state directory names node $na, which a2's directory holds now: refused at start.
claimer_run a --wait 5
is "$?" 78 "a restarted on its directory while a2 holds its id $na: exit 78"
grep -q 'held by another state directory' "$T/a.err"
ok $? "... saying two machines have this directory's node id"
claimer_run a --node-id 7 --wait 5
is "$?" 78 "a's directory with --node-id 7: exit 78"
# With --etcd-move the same start moves a's directory to a free id instead.
k=$(ranges a)
claimer a --etcd-move
wait_until 120 "a to claim an id" eval "[ \$(grep -c '^node ' $T/a.log) -ge 2 ]"
nm=$(node_of a)
[ -n "$nm" ] && [ "$nm" != "$na" ]
ok $? "a restarted with --etcd-move: node $nm, not $na"
grep -q "held by another state directory .*: claiming a free id of 0-65535 to move to (--etcd-move)" "$T/a.err" &&
	grep -q "moved from node $na to node $nm: mark" "$T/a.err"
ok $? "... saying why and what it wrote: $(grep -o "moved from node $na.*" "$T/a.err")"
is "$(cat "$T/a.d/node")" "$nm" "a's state directory names node $nm"
serves_on a
ok $? "... and serves"
tail -n +$((k + 1)) "$T/a.out" >"$T/a.moved"
is "$($R nodes "$T/a.moved")" "$nm" "what it serves now is node $nm's"
stop_claimer a

for n in "${!CPID[@]}"; do stop_claimer "$n"; done
is "$($R dups "$T"/*.out | cut -d' ' -f1-2)" "0 duplicates" \
	"every cookie served by every claimer, across kills, pauses and lost quorum: $($R dups "$T"/*.out)"
done_testing
