#!/bin/bash
# cookie-gend --etcd in one guest, with its BPF side: a one-member etcd (the host's Debian
# etcd, shared in /mnt/share/etcd by make prom-share) on the guest's 127.0.0.1. The claimed
# node's cookies from every drawer (socket, fast path, BPF at fork) are below the mark etcd
# holds; with etcd killed the daemon serves what it had reserved and then refuses, on the
# socket and on the fast path; with etcd back it serves again; with its id taken by another
# holder it moves to a free id (socket, fast path and BPF); a restart after a move cut short
# replaces the pinned counter of the old id, and one after a kill while refusing replaces
# the counter past its limit; nothing repeats. Leaves the
# system's cookie-gend running as it found it. (Faults of several claimers and members:
# tests/unit/cookie-fleet.t, on the host, the same code without BPF.)
# run-vm: systemd
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/cookie.sh"
E=/mnt/share/etcd
if [ ! -x "$E/etcd" ]; then
	skip "no etcd in $E (make prom-share copies the host's)"
	done_testing
	exit 0
fi
work=$(mktemp -d)
sock=$work/etcd.sock
RES=100000
read -r cport pport < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in ss))')
URL=http://127.0.0.1:$cport

etcd_up() {
	"$E/etcd" --name g --data-dir "$work/etcd" --listen-client-urls "$URL" --advertise-client-urls "$URL" \
		--listen-peer-urls "http://127.0.0.1:$pport" --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
		--initial-cluster "g=http://127.0.0.1:$pport" >>"$work/etcd.log" 2>&1 &
	etcd_pid=$!
	wait_until 300 "etcd to answer" "$E/etcdctl" --endpoints "$URL" put /bareatom-test/ping 1
}
etcd_down() { kill -9 "$etcd_pid"; wait "$etcd_pid" 2>/dev/null; }
wait_sock() { wait_until 300 "cookie-gend to answer STATS on $sock" cookie --stats --socket "$sock"; }
stat_of() { cookie --stats --socket "$sock" | awk -v k="$1" '$1 == k { print $2 }'; }
# check NODE HI FILE...: every cookie is NODE's, its sequence in [1, HI), and none repeats
check() {
	python3 - "$@" <<'PY'
import sys
node, hi = int(sys.argv[1]), int(sys.argv[2])
cs = [int(l) for f in sys.argv[3:] for l in open(f) if l.strip()]
bad = [c for c in cs if c >> 48 != node or not 1 <= (c & (1 << 48) - 1) < hi]
print(f"{len(cs) - len(set(cs))} duplicates among {len(cs)} cookies, {len(bad)} outside node {node} below {hi}")
sys.exit(1 if bad or len(cs) != len(set(cs)) or not cs else 0)
PY
}
cleanup() {
	[ -n "${daemon:-}" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	cookie-gend --uninstall >/dev/null 2>&1
	[ -n "${etcd_pid:-}" ] && kill -9 "$etcd_pid" 2>/dev/null
	rm -rf "$work"
	systemctl start cookie-gend
}
trap cleanup EXIT

systemctl stop cookie-gend
cookie-gend --uninstall >/dev/null
etcd_up
ok $? "etcd on the guest's 127.0.0.1:$cport"

cookie-gend --foreground --state-dir "$work/a" --socket "$sock" --etcd "$URL" --etcd-ttl 3 \
	--etcd-reserve $RES 2>>"$work/daemon.log" &
daemon=$!
wait_sock
ok $? "cookie-gend --etcd serves" "$(cat "$work/daemon.log")"
node=$(stat_of node)
is "$(stat_of etcd_claimed)" 1 "STATS: etcd_claimed=1, node $node"
v=$("$E/etcdctl" --endpoints "$URL" get "/bareatom/node/$node" --print-value-only)
[[ $v == "host="*" dir="[0-9a-f]* ]]
ok $? "etcd's /bareatom/node/$node names its holder: $v"

draw_all "$work/a" "$sock"
hw=$("$E/etcdctl" --endpoints "$URL" get "/bareatom/highwater/$node" --print-value-only)
out=$(check "$node" "$hw" "$work/a.socket" "$work/a.fast" "$work/a.fork")
ok $? "socket, fast path and fork cookies are node $node's, below etcd's mark $hw: $out"

# etcd gone: the reserved range, then refusals.
etcd_down
wait_until 300 "a keepalive to fail" eval '[ "$(stat_of etcd_keepalive_failures)" -gt 0 ]'
reserved=$(( $(stat_of next) - (node << 48) + $(stat_of etcd_reserved_left) ))
n=0
while out=$(cookie --socket-only --socket "$sock" -n 65536 2>&1); do
	echo "$out" >>"$work/b.socket"
	n=$((n + 1))
	[ "$n" -lt 100 ] || break
done
# The daemon's own reply (cookie(1) says only that it answered ERR).
out=$(python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"GET 1\n")
print(s.recv(512).decode().strip())' "$sock")
grep -q '^ERR no cookie range reserved in etcd' <<<"$out"
ok $? "etcd killed: the socket served $n more draws, then: $out"
cookie --fast -n 10 >/dev/null 2>&1
ok $([ $? != 0 ]; echo $?) "... and the fast path is refused too"
out=$(check "$node" "$reserved" "$work/b.socket")
ok $? "everything served without etcd is below the reserved mark $reserved: $out"
[ "$(stat_of etcd_refused)" -ge 1 ]
ok $? "STATS counts the refused draws (etcd_refused=$(stat_of etcd_refused), etcd_txn_failures=$(stat_of etcd_txn_failures))"

etcd_up
wait_until 300 "a draw to succeed with etcd back" cookie --socket-only --socket "$sock" -n 1
ok $? "etcd back: draws succeed again"
cookie --socket-only --socket "$sock" -n 1000 >"$work/c.socket"
cookie --fast -n 1000 >"$work/c.fast"
hw=$("$E/etcdctl" --endpoints "$URL" get "/bareatom/highwater/$node" --print-value-only)
out=$(check "$node" "$hw" "$work"/*.socket "$work"/*.fast "$work/a.fork")
ok $? "every cookie of this test, before, without and after etcd: $out"

# Its id taken by another holder (its claim put under another lease, as a daemon that
# claimed it after this one's lease expired would hold it): the daemon serves what it had
# reserved, nothing above, then claims a free id and moves to it, its BPF side included.
ctl() { "$E/etcdctl" --endpoints "$URL" "$@"; }
lease=$(ctl lease grant 600 | awk '{ print $2 }')
ctl put --lease="$lease" "/bareatom/node/$node" \
	"host=other pid=1 started=2026-12-07T00:00:00Z dir=00000000000000ff" >/dev/null
ok $? "/bareatom/node/$node taken over by another holder (lease $lease)"
hw_old=$(ctl get "/bareatom/highwater/$node" --print-value-only)
# Draws until the next reservation finds the claim gone and the daemon has moved.
moved() { [ "$(stat_of etcd_moves)" = 1 ]; }
pull() { cookie --socket-only --socket "$sock" -n 10000 >>"$work/d.socket" 2>/dev/null; moved; }
wait_until 300 "the daemon to move to another id" pull
ok $? "the daemon moved: $(grep -o 'claimed node id [0-9]* (.*) in place of [0-9]*' "$work/daemon.log")" \
	"$(tail -n 20 "$work/daemon.log")"
new=$(stat_of node)
[ -n "$new" ] && [ "$new" != "$node" ]
ok $? "STATS: node $new now, not $node; etcd_moves=$(stat_of etcd_moves)"
is "$(cat "$work/a/node")" "$new" "the state directory names node $new"
grep -q "moved from node $node to node $new: mark" "$work/daemon.log"
ok $? "its log: $(grep -o "moved from node $node to node $new: mark [0-9]*" "$work/daemon.log")"
wait_until 300 "a draw as node $new" cookie --socket-only --socket "$sock" -n 1
draw_all "$work/e" "$sock"
hw_new=$(ctl get "/bareatom/highwater/$new" --print-value-only)
out=$(check "$new" "$hw_new" "$work/e.socket" "$work/e.fast" "$work/e.fork")
ok $? "after the move, socket, fast path and fork cookies are node $new's, below its mark $hw_new: $out"
# Drawn around the move: node $node's below the mark it had reserved, then node $new's.
out=$(python3 - "$node" "$hw_old" "$new" "$work/d.socket" <<'PY'
import sys
old, hw, new = (int(a) for a in sys.argv[1:4])
cs = [int(l) for l in open(sys.argv[4]) if l.strip()]
a = [c for c in cs if c >> 48 == old]
b = [c for c in cs if c >> 48 == new]
print(f"{len(a)} of node {old}, all below {hw}: {all((c & (1 << 48) - 1) < hw for c in a)}; "
      f"{len(b)} of node {new}; {len(cs) - len(a) - len(b)} of neither")
sys.exit(0 if all((c & (1 << 48) - 1) < hw for c in a) and len(a) + len(b) == len(cs) else 1)
PY
)
ok $? "drawn while it moved: $out"

# A move cut short by a crash after the node file was written: the directory names another
# id than the pinned counter. The restart claims the directory's id and replaces the counter.
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
cut=$((new == 65535 ? 65534 : new + 1))
echo "$cut" >"$work/a/node"
cookie-gend --foreground --state-dir "$work/a" --socket "$sock" --etcd "$URL" --etcd-ttl 3 \
	--etcd-reserve $RES 2>>"$work/daemon.log" &
daemon=$!
wait_sock
ok $? "restarted on a directory moved to node $cut, the pinned counter node $new's" "$(tail -n 5 "$work/daemon.log")"
is "$(stat_of node)" "$cut" "STATS: node $cut"
grep -q "the counter pinned in .* is node $new's, the state directory node $cut's" "$work/daemon.log"
ok $? "the pinned counter is replaced, not reused: $(grep -o 'the counter pinned in .* cut short' "$work/daemon.log")"
draw_all "$work/f" "$sock"
hw_cut=$(ctl get "/bareatom/highwater/$cut" --print-value-only)
out=$(check "$cut" "$hw_cut" "$work/f.socket" "$work/f.fast" "$work/f.fork")
ok $? "its cookies are node $cut's: $out"

# Killed while refusing (etcd gone, its range drawn): refused draws took values above the
# limit, which a stalled drawer could still hold. The restart replaces that counter.
etcd_down
while cookie --socket-only --socket "$sock" -n 65536 >>"$work/g.socket" 2>/dev/null; do :; done
cookie --fast -n 65536 >/dev/null 2>&1
past=$(python3 -c 'import sys; print(int(int(sys.argv[1]) > int(sys.argv[2])))' "$(stat_of next)" "$(stat_of limit)")
is "$past" 1 "etcd killed, drawn until refused: the counter is past its limit (next $(stat_of next), limit $(stat_of limit))"
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
etcd_up
cookie-gend --foreground --state-dir "$work/a" --socket "$sock" --etcd "$URL" --etcd-ttl 3 \
	--etcd-reserve $RES 2>>"$work/daemon.log" &
daemon=$!
wait_sock
grep -q "the counter pinned in .* is past its limit" "$work/daemon.log"
ok $? "killed and restarted: a fresh counter replaces the one past its limit" "$(tail -n 5 "$work/daemon.log")"
wait_until 300 "a draw after the restart" cookie --socket-only --socket "$sock" -n 1
draw_all "$work/h" "$sock"
hw_h=$(ctl get "/bareatom/highwater/$cut" --print-value-only)
out=$(check "$cut" "$hw_h" "$work/g.socket" "$work/h.socket" "$work/h.fast" "$work/h.fork")
ok $? "before and after: node $cut's cookies below its mark: $out"

out=$(cat "$work"/*.socket "$work"/*.fast "$work"/*.fork | grep -c .)
dups=$(cat "$work"/*.socket "$work"/*.fast "$work"/*.fork | grep . | sort | uniq -d | wc -l)
is "$dups" 0 "every cookie of this test, on nodes $node, $new and $cut: $dups duplicates among $out"
done_testing
