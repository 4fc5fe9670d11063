#!/bin/bash
# cookie-gend in the guest: the systemd service, the socket, the fast path, task cookies,
# uniqueness under a storm of all of them at once (with a SIGKILL of the daemon in the
# middle), and the client's errors.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/cookie.sh"
pins=/sys/fs/bpf/bareatom/cookie
sock=/run/bareatom/cookie.sock
work=$(mktemp -d)


wait_daemon
is "$(systemctl is-active cookie-gend)" active "cookie-gend runs under systemd (Type=notify)"
is "$(stat -c '%a %U %G' $sock)" "660 root bareatom" "socket is 0660 root:bareatom"
is "$(stat -c '%a %U' $pins)" "700 root" "pins directory is root-only"
for p in state batch task_cookies events follower link_fork; do
	[ -e $pins/$p ]
	ok $? "pinned: $pins/$p"
done

# Basic draws: never 0, consecutive within a range, from the socket and the fast path.
out=$(cookie -n 5 --socket-only)
ok $? "cookie -n 5 --socket-only"
first=$(head -n1 <<<"$out")
is "$(tr '\n' ' ' <<<"$out")" "$(seq -s ' ' "$first" $((first + 4))) " "5 consecutive cookies from the socket"
[ "$first" -gt 0 ]
ok $? "cookies are not 0 ($first)"
is "$(cookie -n 3 -j | jq -r .source)" fast "root draws on the fast path by default"
is "$(cookie -n 65536 -j --socket-only | jq -r .count)" 65536 "GET 65536 over the socket"

# A second instance refuses to start.
out=$(cookie-gend --foreground 2>&1); rc=$?
is "$rc" 1 "a second cookie-gend exits 1"
grep -q "another cookie-gend is running" <<<"$out"
ok $? "and says why: $out"

# Task cookies: the BPF side stores one at fork; --pid reads it; a dead PID is an error.
cookie --follow > "$work/follow1" & follower=$!
wait_follower $follower
sleep 3600 & sleeper=$!	# alive until killed below, however slow the checks are
c=$(cookie --pid $sleeper); rc=$?
ok $rc "cookie --pid of a running process ($c)"
wait_until 120 "the fork of pid $sleeper in cookie --follow's output" \
	lines_at_least 1 "$work/follow1" "^fork $sleeper "
kill $follower; wait $follower 2>/dev/null
is "$c" "$(awk -v p=$sleeper '$1 == "fork" && $2 == p { print $3 }' "$work/follow1")" "it equals the cookie BPF stored at fork"
is "$(cookie --pid $sleeper)" "$c" "asking again gives the same cookie"
kill $sleeper; wait $sleeper 2>/dev/null
out=$(cookie --pid $sleeper 2>&1); rc=$?
is "$rc/$out" "1/cookie: no such process: $sleeper" "a dead PID is an error"
is "$(cookie --pid 1)" "$(cookie --pid 1)" "a process older than the daemon gets a stable cookie"

# The storm: 8 socket clients x 10,000, 2 fast-path clients x 10,000, a fork storm and
# tpgen_b drawing on every CPU, all at once; the daemon is SIGKILLed in the middle and
# systemd restarts it. Every cookie collected must be distinct and non-zero.
modprobe tpgen
set_daemon_args --tpgen
ok $? "cookie-gend restarted with --tpgen"
[ -e $pins/link_tpgen ]
ok $? "tpgen_b link pinned"
f0=$(stat_of fork_cookies) t0=$(stat_of tpgen_cookies) lost0=$(stat_of events_lost)
cookie --follow > "$work/kernel" & follower=$!
wait_follower $follower
ok $? "cookie --follow registered as the follower"
pids=()
for i in $(seq 8); do cookie-load socket 10000 > "$work/socket.$i" & pids+=($!); done
for i in 1 2; do cookie-load fast 10000 > "$work/fast.$i" & pids+=($!); done
( for i in $(seq 300); do /bin/true & done; wait ) & pids+=($!)
echo "tpgen_b 5000 all" > $TPGEN/fire & pids+=($!)
# In the middle: once the socket clients are drawing (a client's first buffer of cookies
# is written), not after a fixed while that a slow machine spends starting them.
wait_until 300 "the socket clients to draw cookies" test -s "$work/socket.1"
systemctl kill -s KILL cookie-gend
ok $? "SIGKILL to cookie-gend in the middle of the load"
rc=0
for p in "${pids[@]}"; do wait $p || rc=1; done
ok $rc "every client finished"
wait_daemon
ok $? "systemd restarted cookie-gend"
is "$(stat_of extensions)" "$(stat_of extensions)" "the restarted daemon answers"
echo "tpgen_b 2000 all" > $TPGEN/fire
( for i in $(seq 100); do /bin/true & done; wait )
ncpu=$(nproc)
# (The follower also drains the ring when it stops: waiting for the lines is the check
# that it ran, not a pause.)
wait_until 300 "$((7000 * ncpu)) tpgen cookies in cookie --follow's output" \
	lines_at_least $((7000 * ncpu)) "$work/kernel" '^tpgen '
kill $follower; wait $follower 2>/dev/null
is "$(( $(stat_of tpgen_cookies) - t0 ))" $((7000 * ncpu)) "tpgen_b drew one cookie per event (7000 x $ncpu)"
is "$(stat_of denied)" 0 "no draw was refused at the durable limit"
is "$(( $(stat_of events_lost) - lost0 ))" 0 "the ring buffer lost no kernel cookie"
# (fork events are counted by kind only: the test's own processes fork too.)
is "$(grep -c '^tpgen ' "$work/kernel")" $((7000 * ncpu)) "every tpgen_b cookie reached user space through the ring buffer"
[ "$(grep -c '^fork ' "$work/kernel")" -ge 400 ]
ok $? "the fork storm drew process cookies ($(grep -c '^fork ' "$work/kernel"))"
cat "$work"/socket.* "$work"/fast.* > "$work/user"
is "$(wc -l < "$work/user")" 100000 "user space collected 8 x 10,000 + 2 x 10,000 cookies"
{ cat "$work/user"; awk '{ print $3 }' "$work/kernel"; } > "$work/all"
total=$(wc -l < "$work/all")
is "$(sort -n "$work/all" | uniq -d | wc -l)" 0 "all $total cookies are distinct"
is "$(grep -cx 0 "$work/all")" 0 "none is 0"

# --follow -c COUNT prints COUNT records and not one more.
cookie --follow -c 7 > "$work/first" & follower=$!
wait_follower $follower
echo "tpgen_b 100 all" > $TPGEN/fire
wait $follower
is "$?/$(wc -l < "$work/first")" 0/7 "--follow -c 7 while $((100 * ncpu)) tpgen_b cookies are drawn prints 7 and exits 0"
is "$(follower_pid)" 0 "and unregisters: no follower left"

# A follower sees the events from when it starts: none from before (the rest of the -c 7
# reader's, or any drawn with nobody following), every one after.
lost0=$(stat_of events_lost)
echo "tpgen_b 30 all" > $TPGEN/fire
cookie --follow > "$work/rest" & follower=$!
wait_follower $follower
echo "tpgen_b 50 all" > $TPGEN/fire
wait_until 300 "$((50 * ncpu)) tpgen cookies in cookie --follow's output" \
	lines_at_least $((50 * ncpu)) "$work/rest" '^tpgen '
kill $follower; wait $follower
ok $? "--follow ends with status 0 on SIGTERM"
is "$(grep -c '^tpgen ' "$work/rest")" $((50 * ncpu)) \
	"the next follower prints the $((50 * ncpu)) drawn after it started, nothing older"

# One follower at a time: a second one is refused in one line, the first misses nothing.
cookie --follow > "$work/one" & follower=$!
wait_follower $follower
err_case 1 "another cookie --follow (pid $follower) is following the events: one follower at a time" \
	"a second cookie --follow" cookie --follow
echo "tpgen_b 40 all" > $TPGEN/fire
wait_until 300 "$((40 * ncpu)) tpgen cookies in cookie --follow's output" \
	lines_at_least $((40 * ncpu)) "$work/one" '^tpgen '
kill $follower; wait $follower
is "$(grep -c '^tpgen ' "$work/one")" $((40 * ncpu)) "the first follower got every event ($((40 * ncpu)))"

# Nobody following: nothing is written, so nothing is lost (the 16 MiB ring holds about
# 700,000 events: a million would have overflowed it).
echo "tpgen_b 1000000" > $TPGEN/fire
is "$(( $(stat_of events_lost) - lost0 ))" 0 "a million tpgen_b cookies with nobody following lose no event"
# A follower killed before it could unregister: cookie-gend takes it out at its next tick.
cookie --follow > /dev/null & follower=$!
wait_follower $follower
kill -KILL $follower; wait $follower 2>/dev/null
wait_follower 0
ok $? "a SIGKILLed follower is unregistered by cookie-gend"
echo "tpgen_b 1000000" > $TPGEN/fire
is "$(( $(stat_of events_lost) - lost0 ))" 0 "and nothing is lost for it afterwards"

set_daemon_args ""
ok $? "cookie-gend restarted without --tpgen"
[ ! -e $pins/link_tpgen ]
ok $? "the tpgen_b link is gone, so tpgen can be unloaded"
rmmod tpgen
ok $? "rmmod tpgen"

# Client errors.
fails_with() {	# WANT_RC TEXT DESCRIPTION CMD...
	local rc want=$1 text=$2 what=$3; shift 3
	out=$("$@" 2>&1 >/dev/null); rc=$?
	[ "$rc" = "$want" ] && grep -q -- "$text" <<<"$out"
	ok $? "$what: exit $rc, '$out'" "want exit $want and '$text'"
}
fails_with 2 "invalid count '0'" "cookie -n 0" cookie -n 0
fails_with 2 "invalid count '65537'" "cookie -n 65537" cookie -n 65537
fails_with 2 "invalid count '-1'" "cookie -n -1" cookie -n -1
fails_with 2 "invalid PID 'abc'" "cookie --pid abc" cookie --pid abc
fails_with 1 "permission denied" "not root, not in group bareatom" setpriv --reuid=65534 --regid=65534 --clear-groups cookie -n 1
out=$(setpriv --reuid=65534 --regid=65534 --groups="$(getent group bareatom | cut -d: -f3)" cookie -n 2 -j)
is "$(jq -r '.source + " " + (.count | tostring)' <<<"$out")" "socket 2" "a member of group bareatom gets cookies over the socket"
fails_with 1 "fast path is unavailable: needs root" "--fast as non-root" setpriv --reuid=65534 --regid=65534 --clear-groups cookie --fast
fails_with 1 "no such process" "--pid of a PID that does not exist" cookie --pid 4000000
systemctl stop cookie-gend
fails_with 1 "cookie-gend is not running" "daemon stopped" cookie --socket-only
fails_with 1 "cookie-gend is not running" "daemon stopped, --stats" cookie --stats
# Advice that works where we are: systemctl under systemd, the daemon itself without it.
fails_with 1 "cookie-gend is not running (no listener on /run/bareatom/cookie.sock; start it: systemctl start cookie-gend)" \
	"daemon stopped, under systemd: systemctl start" cookie --socket-only -n 1
fails_with 1 "(no listener on /run/bareatom/cookie.sock; start it: cookie-gend)" \
	"daemon stopped, no systemd (hidden by a tmpfs): the daemon itself" \
	unshare -m sh -c 'mount -t tmpfs none /run/systemd && exec cookie --socket-only -n 1'
fails_with 1 "(no listener on /tmp/no.sock; start it: cookie-gend --socket /tmp/no.sock)" \
	"another socket: the daemon itself, with that socket" cookie --socket-only --socket /tmp/no.sock -n 1
c1=$(cookie --fast); rc=$?
ok $rc "the fast path keeps working while the daemon is down, within the durable limit ($c1)"
# With the daemon down, the fast path runs into the durable limit and is refused: nothing
# beyond the mark is ever handed out, and the refusal raises the need_room flag (xchg).
out=$(cookie-load drain); rc=$?
ok $rc "with the daemon down the fast path stops at the durable limit ($out)"
st=$(bpftool -j map dump pinned $pins/state | jq -c '.[0].formatted.value')
last=${out#* }
limit=$(jq .limit <<<"$st")
[ "$last" -lt "$limit" ]
ok $? "every cookie drawn is below the limit ($last < $limit)"
is "$(jq .need_room <<<"$st")" 1 "the refusal raised need_room"
systemctl start cookie-gend && wait_daemon
ok $? "cookie-gend started again"
# At a tick: need_room is taken down, then the limit raised (a start may raise it first).
room_made() {
	[ "$(stat_of limit)" -gt "$limit" ] &&
		[ "$(bpftool -j map dump pinned $pins/state | jq '.[0].formatted.value.need_room')" = 0 ]
}
wait_until 120 "cookie-gend to raise the limit above $limit and take need_room down" room_made
[ "$(stat_of limit)" -gt "$limit" ]
ok $? "the daemon raised the limit ($(stat_of limit) > $limit)"
is "$(bpftool -j map dump pinned $pins/state | jq '.[0].formatted.value.need_room')" 0 "and took the flag down"
c1=$(cookie --fast)
ok $? "the fast path works again ($c1)"
c2=$(cookie)
[ "$c2" -gt "$c1" ]
ok $? "after a restart cookies continue above the old ones ($c2 > $c1)"

# A stopped daemon (SIGSTOP): the kernel still accepts connections, nobody answers. Every
# client gives up at its bound with one line and exit 1, saying which bound. It waits at
# least that long; how much longer its start and exit take is the machine's, so only the
# guard limits it: timeout $guard, for an unbounded client that would hang the test.
bgid=$(getent group bareatom | cut -d: -f3)
guard=$((120 * TAP_SLOW))
ms() { date +%s%3N; }
within() {	# MIN_MS T0 WHAT: at least MIN_MS since T0
	local took=$(($(ms) - $2))
	[ "$took" -ge "$1" ]
	ok $? "$3 after $took ms (bound $1 ms)"
}
systemctl kill -s STOP cookie-gend
ok $? "cookie-gend stopped with SIGSTOP"
t0=$(ms)
err_case 1 "cookie-gend did not answer on $sock within 1 s (stopped or hung?" \
	"GET from a stopped daemon, --timeout 1" timeout $guard cookie --socket-only --timeout 1
within 1000 "$t0" "it gave up"
t0=$(ms)
err_case 1 "did not answer on $sock within 5 s" "--stats with the default bound" \
	env -u COOKIE_TIMEOUT timeout $guard cookie --stats
within 5000 "$t0" "it gave up at the default 5 s"
t0=$(ms)
err_case 1 "within 0.5 s" "COOKIE_TIMEOUT=0.5 --pid 1" env COOKIE_TIMEOUT=0.5 timeout $guard cookie --pid 1
within 500 "$t0" "it gave up"
t0=$(ms)
err_case 1 "within 1 s" "a member of group bareatom, --timeout 1" \
	timeout $guard setpriv --reuid=65534 --regid=65534 --groups="$bgid" cookie -n 3 --timeout 1
within 1000 "$t0" "it gave up"
# Fill the stopped daemon's backlog: then the connect itself must be bounded.
python3 - "$sock" >"$work/backlog" <<'EOF' &
import socket, sys, time
held = []
for _ in range(200):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(sys.argv[1])
    except BlockingIOError:
        break
    held.append(s)
print(len(held), flush=True)
time.sleep(3600)	# held until killed below
EOF
holder=$!
wait_until 120 "the backlog holder to fill the backlog" test -s "$work/backlog"
diag "the backlog took $(cat "$work/backlog") connections"
t0=$(ms)
err_case 1 "within 1 s" "the backlog is full: the connect is bounded too" \
	timeout $guard cookie --socket-only --timeout 1
within 1000 "$t0" "it gave up"
kill $holder; wait $holder 2>/dev/null
systemctl kill -s CONT cookie-gend
wait_daemon
c=$(cookie --socket-only)
ok $? "after SIGCONT the daemon serves again ($c)"
err_case 2 "invalid timeout '0'" "cookie --timeout 0" cookie --timeout 0
err_case 2 "invalid timeout '1s'" "cookie --timeout 1s" cookie --timeout 1s
err_case 2 "invalid timeout '3601'" "cookie --timeout 3601" cookie --timeout 3601
err_case 2 "invalid COOKIE_TIMEOUT 'soon' in the environment" "COOKIE_TIMEOUT=soon" \
	env COOKIE_TIMEOUT=soon cookie -n 1

# The per-uid rate limit, seen from cookie: a member of group bareatom draws the burst
# (16 x 65536), then is refused with one line and exit 1; root is not limited. The bucket
# refills at 16384/s meanwhile, so what is served is the burst plus one draw per 4 s the
# loop took (a process or two per draw: seconds on a loaded machine).
n=0 rc=0 t0=$(ms)
while [ $n -lt 100 ]; do
	out=$(setpriv --reuid=2200 --regid=2200 --groups="$bgid" cookie -n 65536 2>&1 >/dev/null); rc=$?
	[ $rc = 0 ] || break
	n=$((n + 1))
done
took=$(($(ms) - t0))
[ $n -ge 16 ] && [ $(((n - 16) * 4000)) -le $took ] && [ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
	grep -q "cookie: the daemon refused GET 65536: this user's rate limit is used up" <<<"$out"
ok $? "uid 2200 is refused after the burst: $n x 65536 served in $took ms (16 + 1 per 4 s), then exit $rc: $out"
for i in $(seq 20); do cookie -n 65536 --socket-only >/dev/null || break; done
is "$i" 20 "root draws 20 x 65536 over the socket unlimited"
# 100/s: GET 2000 waits 20 s for its refill, far longer than starting two clients takes,
# so the refusal does not hang on their speed; once refilled it is served (a refused GET
# takes nothing from the bucket, so asking until then changes nothing).
set_daemon_args "--rate-limit 100/s --rate-burst 65536"
ok $? "cookie-gend restarted with --rate-limit 100/s --rate-burst 65536"
is "$(stat_of rate_limit)" 100 "STATS rate_limit=100"
setpriv --reuid=2300 --regid=2300 --groups="$bgid" cookie -n 65536 >/dev/null
ok $? "a new uid gets its burst of 65536"
out=$(setpriv --reuid=2300 --regid=2300 --groups="$bgid" cookie -n 2000 2>&1); rc=$?
is "$rc" 1 "then GET 2000 is refused: 100/s refills it in 20 s ($out)"
wait_until 300 "uid 2300's GET 2000 to be served (100/s refills it in 20 s)" \
	setpriv --reuid=2300 --regid=2300 --groups="$bgid" cookie -n 2000
ok $? "once refilled, GET 2000 is served"
set_daemon_args "--rate-limit unlimited"
ok $? "cookie-gend restarted with --rate-limit unlimited"
is "$(stat_of rate_limit)" 0 "STATS rate_limit=0"
for i in $(seq 20); do
	setpriv --reuid=2400 --regid=2400 --groups="$bgid" cookie -n 65536 >/dev/null || break
done
is "$i" 20 "a member of group bareatom draws 20 x 65536 unlimited"
set_daemon_args ""
ok $? "cookie-gend back to its default arguments"
err_case 2 "invalid --rate-limit '1x': cookies per second" "cookie-gend --rate-limit 1x" cookie-gend --rate-limit 1x
err_case 2 "invalid --rate-limit '-5'" "cookie-gend --rate-limit -5" cookie-gend --rate-limit -5
err_case 2 "invalid --rate-limit '10/m'" "cookie-gend --rate-limit 10/m" cookie-gend --rate-limit 10/m
err_case 2 "invalid --rate-burst '1000': cookies: a whole number from 65536" "cookie-gend --rate-burst 1000" \
	cookie-gend --rate-burst 1000
rm -rf "$work"
done_testing
