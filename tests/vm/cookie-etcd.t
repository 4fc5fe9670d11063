#!/bin/bash
# cookie-gend --etcd in one guest, with its BPF side: a one-member etcd (the host's Debian
# etcd, shared in /mnt/share/etcd by make prom-share) on the guest's 127.0.0.1. The claimed
# node's cookies from every drawer (socket, fast path, BPF at fork) are below the mark etcd
# holds; with etcd killed the daemon serves what it had reserved and then refuses, on the
# socket and on the fast path; with etcd back it serves again; nothing repeats. Leaves the
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
done_testing
