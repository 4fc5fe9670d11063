#!/bin/bash
# cookie-gend --node-id in one guest: every drawer (socket, fast path, BPF at fork) lays out
# node N's cookies (N << 48 | sequence, sequence never 0); the state directory keeps its node
# and refuses another with exit 78, changing nothing; at the top of a node's range every
# drawer is refused and nothing is wrapped into the next node. Leaves the system's
# cookie-gend running as it found it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/cookie.sh"
work=$(mktemp -d)
sock=$work/node.sock
MARK_MAX=$(((1 << 48) - 3 * (1 << 24)))	# bpf/cookie_abi.h: sequences stay below it
guard=$((120 * TAP_SLOW))	# a refused start ends at once: timeout $guard only stops a hang

wait_sock() { wait_until 300 "cookie-gend to answer STATS on $sock" cookie --stats --socket "$sock"; }
# Text, not jq: Debian 12's jq 1.6 reads numbers as doubles and rounds cookies above 2^53.
stat_of() { cookie --stats --socket "$sock" | awk -v k="$1" '$1 == k { print $2 }'; }
start() {	# DIR [ARGS...]: a daemon in the background on $sock, its pid in $daemon
	local dir=$1; shift
	cookie-gend --foreground --state-dir "$dir" --socket "$sock" "$@" 2>>"$work/daemon.log" &
	daemon=$!
	wait_sock
}
stop() { kill "$daemon"; wait "$daemon" 2>/dev/null; cookie-gend --uninstall >/dev/null; }
# check NODE MIN_SEQ MAX_SEQ FILE...: every line of the FILEs is a cookie of NODE with a
# sequence in [MIN_SEQ, MAX_SEQ], and all are distinct (exact 64-bit arithmetic); with
# CHECK_EMPTY_OK=1 the FILEs may hold none
check() {
	python3 - "$@" <<'PY'
import os, sys
node, lo, hi = (int(x) for x in sys.argv[1:4])
cs = [int(l) for f in sys.argv[4:] for l in open(f) if l.strip()]
bad = [c for c in cs if c >> 48 != node or not lo <= (c & (1 << 48) - 1) <= hi]
dup = len(cs) - len(set(cs))
print(f"{len(cs)} cookies, {len(bad)} outside node {node} [{lo}, {hi}], {dup} repeated"
      + (f", e.g. {bad[0]}" if bad else ""))
sys.exit(1 if bad or dup or not (cs or os.environ.get("CHECK_EMPTY_OK") == "1") else 0)
PY
}

systemctl stop cookie-gend
cookie-gend --uninstall >/dev/null
ok $? "the system's cookie-gend is stopped and unpinned for these tests"

# ---- node 300: the socket, the fast path and BPF at fork all draw node 300's cookies ----
start "$work/a" --node-id 300
ok $? "cookie-gend --node-id 300 serves from a new state directory"
draw_all "$work/a" "$sock"
[ "$(wc -l <"$work/a.fork")" -ge 100 ]
ok $? "the fork program drew a cookie for each of 100 forks ($(wc -l <"$work/a.fork") seen)"
out=$(check 300 1 $((MARK_MAX - 1)) "$work"/a.{socket,fast,fork}); rc=$?
ok $rc "socket, fast path and fork cookies are all node 300's and distinct: $out"
# What a new directory promises is where its sequences start, not which drawer or which
# CPU's batch of 4096 came first: the forks the follower saw draw from per-CPU batches, and
# which CPU reserved the first batch depends on scheduling (a forks' CPU can take the second
# batch while an unseen fork took the first). So: nothing below the start, none repeated
# (checked above), and the lowest cookie decodes to node 300.
first=$(sort -n "$work"/a.{socket,fast,fork} | head -n1)
seq1=$((first - (300 << 48)))
[ "$seq1" -ge 1 ]
ok $? "no cookie of a new node-300 directory is below its start, 300 << 48 | 1 (lowest: sequence $seq1)"
is "$(cookie --decode "$first" -j)" "{\"cookie\":$first,\"node\":300,\"sequence\":$seq1}" \
	"cookie --decode splits it into node 300, sequence $seq1"
for f in socket fast fork; do
	c=$(tail -n1 "$work/a.$f")
	is "$(cookie --decode "$c" -j | jq .node)" 300 "cookie --decode of the last $f cookie ($c)"
done
is "$(stat_of node)" 300 "STATS says node=300"
is "$(($(stat_of next) >> 48))/$(($(stat_of limit) >> 48))" "300/300" \
	"the shared counter and its limit carry node 300 in their top 16 bits"
is "$(cat "$work/a/node")" 300 "the state directory records node 300"
hw=$(cat "$work/a/highwater")
is "$((hw + (300 << 48)))" "$(stat_of highwater)" \
	"the high-water file counts sequences within the node ($hw); STATS shows it as a cookie"
stop

# ---- no --node-id: the directory's own ----
start "$work/a"
c=$(cookie --socket-only --socket "$sock")
max=$(sort -n "$work"/a.{socket,fast,fork} | tail -n1)
is "$(stat_of node)/$(cookie --decode "$c" -j | jq .node)" 300/300 \
	"restarted without --node-id, the directory's node 300 is used ($c)"
[ "$c" -gt "$max" ]
ok $? "and its cookies start above everything the first run gave ($c > $max)"
stop

# ---- the node file changed by hand under live pins: refused, the counters not mixed ----
start "$work/a"
kill -9 "$daemon"; wait "$daemon" 2>/dev/null
echo 301 >"$work/a/node"
out=$(timeout $guard cookie-gend --foreground --state-dir "$work/a" --socket "$sock" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "a node file edited to 301 while node 300's counter is pinned: the start fails"
grep -q "is node 300's, but $work/a says node 301: run cookie-gend --uninstall first" <<<"$out" &&
	[ "$(wc -l <<<"$out")" = 1 ]
ok $? "and one line says why: $out"
echo 300 >"$work/a/node"
cookie-gend --uninstall >/dev/null
rm -f "$sock"

# ---- another node id against it: exit 78, one line, nothing changed, nothing served ----
refused() {	# DESCRIPTION DIR WANT_TEXT ARGS...
	local what=$1 dir=$2 text=$3 out rc before after; shift 3
	before=$(cd "$dir" && ls -la --time-style=full-iso . && cat ./* 2>/dev/null | md5sum)
	out=$(timeout $guard cookie-gend --foreground --state-dir "$dir" --socket "$sock" "$@" 2>&1 >/dev/null)
	rc=$?
	after=$(cd "$dir" && ls -la --time-style=full-iso . && cat ./* 2>/dev/null | md5sum)
	is "$rc" 78 "$what: refused with exit 78"
	if grep -q -- "$text" <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ]; then
		ok 0 "$what: one line says why: $out"
	else
		ok 1 "$what: one line with '$text'"; diag "got: $out"
	fi
	[ "$before" = "$after" ] && [ ! -e "$sock" ] && [ ! -e /sys/fs/bpf/bareatom/cookie/state ]
	ok $? "$what: the directory is left as it was, nothing loaded or served"
}
refused "--node-id 301 against node 300's directory" "$work/a" "belongs to node 300, not 301" --node-id 301
refused "--node-id 0 against node 300's directory" "$work/a" "belongs to node 300, not 0" --node-id 0
mkdir "$work/old" && echo 33554433 >"$work/old/highwater" && echo 00000000000000ab >"$work/old/id"
refused "--node-id 5 against a directory from before node ids (node 0)" "$work/old" \
	"belongs to node 0, not 5" --node-id 5
[ ! -e "$work/old/node" ]
ok $? "the refusal wrote no node file into it"
for v in x 65536 -1 007 ""; do
	# Beside a mark: a node file without one is a lost mark, refused before its content.
	mkdir -p "$work/bad" && echo 33554433 >"$work/bad/highwater" && printf '%s\n' "$v" >"$work/bad/node"
	refused "a node file '$v'" "$work/bad" "refusing to guess the node id"
done
out=$(cookie-gend --foreground --state-dir "$work/a" --socket "$sock" --node-id 65536 2>&1); rc=$?
is "$rc" 2 "--node-id 65536 is a usage error (exit 2): $out"

# ---- the top of node 9's range: served to the top mark, then refused, never node 10 ----
mkdir "$work/top"
echo 9 >"$work/top/node"
h=$((MARK_MAX - 1000))
echo "$h" >"$work/top/highwater"
start "$work/top"
ok $? "cookie-gend serves node 9 with its mark 1000 below the top of the node's range"
follow "$work/top.follow"
: >"$work/top.socket"; : >"$work/top.fast"
for _ in $(seq 12); do cookie --socket-only --socket "$sock" -n 100 >>"$work/top.socket" 2>/dev/null || break; done
for _ in $(seq 12); do cookie --fast -n 100 >>"$work/top.fast" 2>/dev/null || break; done
taskset -c 0 bash -c 'for i in $(seq 1500); do /bin/true; done'
out=$(cookie --socket-only --socket "$sock" -n 1 2>&1); rc=$?
[ "$rc" = 1 ] && grep -q "answered ERR" <<<"$out"
ok $? "at the top a socket draw is refused ($out)"
out=$(cookie --fast -n 1 2>&1); rc=$?
[ "$rc" = 1 ] && grep -q "durable limit" <<<"$out"
ok $? "and a fast-path draw ($out)"
# All on CPU 0 (children inherit it, and the fork program runs on the forking CPU), whose
# batch the 1500 forks drained: none of the 50 forks there draws a cookie (none is in the
# follower's output), and each refusal is counted. (Not fork_cookies unchanged: a task of
# the system's that forks on another CPU meanwhile may still draw from that CPU's batch.)
read -r d0 d1 < <(taskset -c 0 bash -c '
	st() { cookie --stats --socket "$1" | awk -v k="$2" '"'"'$1 == k { print $2 }'"'"'; }
	d0=$(st "$1" denied)
	for i in $(seq 50); do /bin/true & echo $! >>"$2"; wait; done
	echo "$d0 $(st "$1" denied)"' _ "$sock" "$work/top.pids")
# (How many forks drew before the batches ran dry is not known: no count to wait for.)
unfollow "$work/top.follow" 0
drew=$(awk 'NR == FNR { p[$1] = 1; next } $1 == "fork" && p[$2]' "$work/top.pids" "$work/top.follow" | wc -l)
[ -n "$d0" ] && [ "$(wc -l <"$work/top.pids")" = 50 ] && [ "$drew" = 0 ] && [ $((d1 - d0)) -ge 50 ]
ok $? "and 50 forks on a drained CPU draw no cookie, each refusal counted ($drew of them drew, denied $d0 -> $d1)"
awk '{ print $3 }' "$work/top.follow" >"$work/top.fork"
# Which drawer got the last 999 sequences is scheduling's: the first fork on any CPU may
# take them all into that CPU's batch (a fork of the test's own polling, before the
# follower or the socket clients), so what these files saw may be none of them.
out=$(CHECK_EMPTY_OK=1 check 9 "$h" $((MARK_MAX - 2)) "$work"/top.{socket,fast,fork}); rc=$?
ok $rc "every cookie handed out that was seen is node 9's, between the mark and the top: $out"
n=$(cat "$work"/top.{socket,fast,fork} | wc -l)
[ "$n" -le 999 ]
ok $? "at most the 999 sequences below the top were handed out ($n; the rest sit in per-CPU batches)"
is "$(stat_of state_error)" exhausted "STATS says state_error=exhausted"
is "$(($(stat_of next) >> 48))" 9 "the counter, pushed by refused draws, is still in node 9's space"
is "$(stat_of limit)" $(((9 << 48) + MARK_MAX - 1)) "the limit stopped at node 9's top mark"
is "$(cat "$work/top/highwater")" $((MARK_MAX - 1)) "and so did the durable mark"
is "$(grep -c "node 9's cookie space is exhausted" "$work/daemon.log")" 1 \
	"the exhaustion is logged once: $(grep "exhausted" "$work/daemon.log" | head -n1)"
stop

systemctl start cookie-gend
wait_daemon
c=$(cookie -n 1)
ok $? "the system's cookie-gend is running again and serves ($c)"
rm -rf "$work"
done_testing
