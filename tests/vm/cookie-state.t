#!/bin/bash
# cookie-gend against bad state and bad peers, each case from a review of ways to repeat a
# cookie or hang the daemon: corrupt, lost or untrusted high-water marks and ids refuse the
# start and change nothing, --raise-mark repairs a lost mark and never lowers one, a second
# daemon on the same directory is refused, pins of an older layout are replaced with the
# counter above the old one's, systemd does not restart into the same refusal, a full disk backs off and
# recovers, pins of a different program are replaced, per-uid bounds keep root served,
# unfinished lines time out, fast-path draws are bounded, and no file that is not a socket
# is ever removed. Leaves the system's cookie-gend running as it found it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/cookie.sh"	# COOKIE_TIMEOUT for a slow machine
pins=/sys/fs/bpf/bareatom/cookie
work=$(mktemp -d)
sock=$work/test.sock
dropin=/run/systemd/system/cookie-gend.service.d
guard=$((120 * TAP_SLOW))	# a refused start ends at once: timeout $guard only stops a hang

wait_sock() {	# until cookie --stats answers on socket $1
	wait_until 300 "cookie-gend to answer STATS on $1" cookie --stats --socket "$1"
}
stat_on() { cookie --stats -j --socket "$1" | jq -r ".$2"; }
link_prog() { bpftool link show pinned $pins/link_fork -j 2>/dev/null | jq -r .prog_id; }

wait_sock /run/bareatom/cookie.sock
systemctl stop cookie-gend
ok $? "the system's cookie-gend is stopped for these tests"

# ---- corrupt high-water marks: exit 78, one line, nothing served, nothing changed ----
pins_before=$(ls $pins | tr '\n' ' ')
link_before=$(link_prog)
refuses_start() {	# DESCRIPTION FILE WANT_TEXT: the start is refused and FILE is untouched
	local what=$1 file=$2 text=$3 out rc before after
	before=$(stat -c '%F %s %Y' "$file"; md5sum <"$file" 2>/dev/null)
	out=$(timeout $guard cookie-gend --foreground --state-dir "$work/st" --socket "$sock" 2>&1 >/dev/null)
	rc=$?
	after=$(stat -c '%F %s %Y' "$file"; md5sum <"$file" 2>/dev/null)
	is "$rc" 78 "$what: the start is refused with exit 78"
	if grep -q -- "$text" <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ]; then
		ok 0 "$what: one line says why: $out"
	else
		ok 1 "$what: one line with '$text'"; diag "got: $out"
	fi
	[ "$before" = "$after" ] && [ ! -e "$sock" ]
	ok $? "$what: the file is left as it was and nothing is served"
}
for c in "-1" "+42" " 42" "42x" "" "18446744073709551615" "$(printf '%0100d' 7)"; do
	rm -rf "$work/st"; mkdir "$work/st"
	printf '%s\n' "$c" >"$work/st/highwater"
	refuses_start "highwater '${c:0:24}'" "$work/st/highwater" "refusing to guess a high-water mark"
done
rm -rf "$work/st"; mkdir "$work/st"; : >"$work/st/highwater"
refuses_start "an empty highwater (0 bytes)" "$work/st/highwater" "is empty"
rm -rf "$work/st"; mkdir -p "$work/st/highwater"
refuses_start "a highwater that is a directory" "$work/st/highwater" "is not a regular file"
is "$(ls $pins | tr '\n' ' ')/$(link_prog)" "$pins_before/$link_before" \
	"the refused starts left the pins and the link as they were"

# ---- a lost mark: an id or node without a highwater is not a first start ----
rm -rf "$work/st"; mkdir "$work/st"
printf '00000000000000ab\n' >"$work/st/id"; printf '0\n' >"$work/st/node"
refuses_start "id and node without a highwater" "$work/st/id" "highwater is missing but id and node remain"
[ ! -e "$work/st/highwater" ]
ok $? "the lost mark is not written as a fresh 1"
rm "$work/st/node"
refuses_start "an id without a highwater" "$work/st/id" "cookie-gend --raise-mark N"

# ---- untrusted state (StrictModes): exit 78, not a start and not exit 1 ----
rm -rf "$work/st"; mkdir "$work/st"; printf '33554433\n' >"$work/st/highwater"
chmod 0777 "$work/st"; chown nobody "$work/st"
refuses_start "a directory owned by nobody, mode 0777" "$work/st/highwater" "is owned by uid 65534"
chown root "$work/st"; chmod 0775 "$work/st"
refuses_start "a directory writable by its group" "$work/st/highwater" "is writable by its group"
chmod 0755 "$work/st"; chmod 0646 "$work/st/highwater"
refuses_start "a highwater writable by others" "$work/st/highwater" "highwater is writable by others"
chmod 0600 "$work/st/highwater"; chown nobody "$work/st/highwater"
refuses_start "a highwater owned by nobody" "$work/st/highwater" "highwater is owned by uid 65534"
mv "$work/st/highwater" "$work/real"; chown root "$work/real"
ln -s "$work/real" "$work/st/highwater"
refuses_start "a highwater that is a symbolic link" "$work/st/highwater" "highwater is a symbolic link"

# ---- the id file: empty or malformed refuses, with the way to recover ----
rm -rf "$work/st"; mkdir "$work/st"
printf '16777217\n' >"$work/st/highwater"
: >"$work/st/id"
refuses_start "an empty id (a crash between create and write)" "$work/st/id" "remove it if no cookie-gend has run"
printf '12zz000000000000\n' >"$work/st/id"
refuses_start "id '12zz...'" "$work/st/id" "id is corrupt (want 16 lowercase hex digits"

# ... and systemd does not restart into the same refusal.
mkdir -p $dropin
printf '[Service]\nExecStart=\nExecStart=/usr/sbin/cookie-gend --foreground --state-dir %s\n' \
	"$work/st" >$dropin/state.conf
systemctl daemon-reload
systemctl start cookie-gend 2>/dev/null
# The start job ends with the refusal (Type=notify). A restart would be decided at that
# exit: the unit would be activating (auto-restart), then restarted, never settle failed.
unit_failed() { [ "$(systemctl is-failed cookie-gend)" = failed ]; }
wait_until 120 "cookie-gend's unit to settle as failed" unit_failed
is "$(systemctl show -p NRestarts --value cookie-gend)/$(systemctl is-failed cookie-gend)" "0/failed" \
	"a corrupt id leaves the unit failed, not restarting every second (RestartPreventExitStatus=78)"
rm -f $dropin/state.conf
systemctl daemon-reload
systemctl reset-failed cookie-gend

# ---- a full disk: draws refused, logged once, shown in STATS and systemctl status ----
cookie-gend --uninstall >/dev/null	# the pinned maps count for the system's state directory
mkdir "$work/full"
mount -t tmpfs -o size=256k tmpfs "$work/full"
systemd-run --unit=cookie-full -p Type=notify -p NotifyAccess=main \
	-p StandardError=file:"$work/full.log" \
	/usr/sbin/cookie-gend --foreground --state-dir "$work/full/state" --socket "$sock" >/dev/null 2>&1
wait_sock "$sock"
ok $? "cookie-gend serves from a state directory on a small tmpfs"
dd if=/dev/zero of="$work/full/fill" bs=4k 2>/dev/null
out=$(cookie-load drain); rc=$?
ok $rc "the fast path drains the counter to the durable limit ($out)"
# The first save fails at the daemon's next tick; then 3 s of failing saves (retried with
# backoff) are the window in which the error must be logged once.
state_error_is() { [ "$(stat_on "$sock" state_error)" = "$1" ]; }
wait_until 120 "STATS state_error=ENOSPC" state_error_is ENOSPC
sleep 3
is "$(stat_on "$sock" state_error)" ENOSPC "STATS shows state_error=ENOSPC"
[ "$(stat_on "$sock" state_errors)" -ge 1 ]
ok $? "STATS counts the failed saves ($(stat_on "$sock" state_errors))"
out=$(cookie -n 1 --socket-only --socket "$sock" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "answered ERR" <<<"$out"
ok $? "a socket draw past the limit is refused ($out)"
# systemd reads the daemon's STATUS= message when it gets to it: wait for it.
status_says() { grep -q "cannot save the high-water mark" <<<"$(systemctl show -p StatusText --value cookie-full)"; }
wait_until 120 "systemd's StatusText of cookie-full to say why" status_says
grep -q "cannot save the high-water mark" <<<"$(systemctl show -p StatusText --value cookie-full)"
ok $? "systemctl status says why: $(systemctl show -p StatusText --value cookie-full)"
n_err=$(grep -c "cannot save the high-water mark" "$work/full.log")
is "$n_err" 1 "3 s of failing saves logged the error once, not 50 times a second"
rm -f "$work/full/fill"
got=""
draw() { got=$(cookie -n 1 --socket-only --socket "$sock" 2>/dev/null); }
wait_until 300 "a draw to be served once space returned (after the save's backoff)" draw
[ -n "$got" ]
ok $? "after space returns, draws are served again after the backoff ($got)"
is "$(stat_on "$sock" state_error)" none "STATS shows state_error=none again"
is "$(grep -c "saved again" "$work/full.log")" 1 "the recovery is logged once"
systemctl stop cookie-full
umount "$work/full"
cookie-gend --uninstall >/dev/null

# ---- pins of a different program are replaced, the counter kept ----
systemctl start cookie-gend && wait_sock /run/bareatom/cookie.sock
cookie-fakepin
ok $? "pins of a different program (an empty fake_fork) replace link_fork and prog_fork"
systemctl restart cookie-gend && wait_sock /run/bareatom/cookie.sock
f0=$(stat_on /run/bareatom/cookie.sock fork_cookies)
forks 20
f1=$(stat_on /run/bareatom/cookie.sock fork_cookies)
[ "$f1" -ge $((f0 + 20)) ]
ok $? "after a start on them, forks draw cookies again ($f0 -> $f1)"
# (A program is freed after a grace period, not as its link goes.)
fake_gone() { [ -z "$(bpftool prog show name fake_fork 2>/dev/null)" ]; }
wait_until 120 "the fake_fork program to be freed" fake_gone
is "$(bpftool prog show name fake_fork 2>/dev/null | wc -l)" 0 "the old program is detached and gone"
is "$(bpftool prog show pinned $pins/prog_fork -j | jq -r .name)" cookie_fork "prog_fork is cookie-gend's"

systemctl stop cookie-gend
rm $pins/state
systemctl start cookie-gend && wait_sock /run/bareatom/cookie.sock
f0=$(stat_on /run/bareatom/cookie.sock fork_cookies)
forks 20
f1=$(stat_on /run/bareatom/cookie.sock fork_cookies)
[ "$f1" -ge $((f0 + 20)) ]
ok $? "pins left half-made (state gone, link kept): the link is replaced, forks draw from the new map ($f0 -> $f1)"

rodata_batched() {	# the batched setting of the program behind link_fork
	local m
	for m in $(bpftool prog show id "$(link_prog)" -j | jq -r '.map_ids[]'); do
		if bpftool map show id "$m" -j | jq -r .name | grep -q rodata; then
			bpftool map dump id "$m" -j | jq -c . | grep -o '"batched":[a-z]*' | cut -d: -f2
		fi
	done
}
mkdir -p $dropin
printf '[Service]\nExecStart=\nExecStart=/usr/sbin/cookie-gend --foreground --global\n' >$dropin/args.conf
systemctl daemon-reload && systemctl restart cookie-gend && wait_sock /run/bareatom/cookie.sock
is "$(rodata_batched)/$(stat_on /run/bareatom/cookie.sock batched)" "false/0" \
	"--global replaces a batched program: the running program is the one STATS describes"
rm -f $dropin/args.conf
systemctl daemon-reload && systemctl restart cookie-gend && wait_sock /run/bareatom/cookie.sock
is "$(rodata_batched)/$(stat_on /run/bareatom/cookie.sock batched)" "true/1" "and back without it"
l0=$(link_prog)
systemctl restart cookie-gend && wait_sock /run/bareatom/cookie.sock
is "$(link_prog)" "$l0" "a restart with the same binary and options keeps the pinned link"

# ---- fast path bounds on the real map ----
for n in 16777217 4294967295 65537 0; do
	is "$(cookie-load fast-get $n)" "rc=-22 moved=0" "fast path: a draw of $n gets -EINVAL and leaves the counter"
done
is "$(cookie-load fast-get 65536)" "rc=0 moved=65536" "fast path: a draw of 65536 is served"
systemctl stop cookie-gend
out=$(cookie-load at-limit 10000)
refused=$(sed 's/refused=\([0-9]*\).*/\1/' <<<"$out") moved=${out##*moved=}
is "$refused" 10000 "with the daemon down, 10,000 draws of 65536 at the limit are all refused"
[ "$moved" -le 65536 ]
ok $? "and moved the counter by at most one draw of 65536 ($moved), not 10,000 of them"
systemctl start cookie-gend && wait_sock /run/bareatom/cookie.sock
ok $? "the daemon raises the limit again after them"

# ---- bounds per uid: 300 trickling connections of one user cannot lock out others ----
bgid=$(getent group bareatom | cut -d: -f3)
# Each connection asks STATS: a held one answers, a refused one has its ERR waiting and is
# closed (asking, not waiting a while for an ERR that a busy daemon might send later).
cat >"$work/trickle.py" <<'EOF'
import socket, sys, time
n, secs = int(sys.argv[1]), float(sys.argv[2])
held, refused = [], 0
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("/run/bareatom/cookie.sock")
    s.settimeout(120)
    try:
        s.sendall(b"STATS\n")
    except OSError:
        pass
    first = b""
    try:
        while not first.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            first += chunk
    except OSError:
        pass
    if b"too many connections from uid" in first:
        refused += 1
        s.close()
    else:
        s.setblocking(False)
        held.append(s)
print("held=%d refused=%d" % (len(held), refused), flush=True)
end = time.time() + secs
while time.time() < end:
    for s in held:
        try:
            s.send(b"\n")
            s.recv(4096)
        except OSError:
            pass
    time.sleep(1)
EOF
chmod 0755 "$work"; chmod 0644 "$work/trickle.py"	# readable by the user below
# (They trickle until killed below, however long the checks take.)
setpriv --reuid=65534 --regid=65534 --groups="$bgid" python3 "$work/trickle.py" 300 3600 >"$work/trickle.out" &
tpid=$!
wait_until 300 "the 300 trickling connections to be made" test -s "$work/trickle.out"
is "$(cat "$work/trickle.out")" "held=32 refused=268" "one uid holds at most 32 connections; the other 268 are refused"
c=$(cookie -n 1 --socket-only); rc=$?
ok $rc "root is still served while they trickle ($c)"
c=$(setpriv --reuid=4242 --regid=4242 --groups="$bgid" cookie -n 1 -j 2>&1); rc=$?
ok $rc "another uid in group bareatom is still served ($c)"
kill $tpid 2>/dev/null; wait $tpid 2>/dev/null
[ "$(stat_on /run/bareatom/cookie.sock refused_clients)" -ge 268 ]
ok $? "STATS counts the refused connections ($(stat_on /run/bareatom/cookie.sock refused_clients))"

# A line that never ends is cut off, however steadily its bytes arrive.
cat >"$work/partial.py" <<'EOF'
import socket, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("/run/bareatom/cookie.sock")
s.settimeout(1)
start = time.time()
while time.time() - start < 300:	# a bound for a hang: the deadline is 10 s
    try:
        s.send(b"G")
        if s.recv(100) == b"":
            print("closed"); break
    except socket.timeout:
        pass
    except OSError:
        print("closed"); break
else:
    print("still open after 300 s")
EOF
is "$(python3 "$work/partial.py")" closed "a line trickling one byte a second is closed (10 s line deadline)"

# ---- --raise-mark repairs a lost mark; the directory is locked; a mark never goes down ----
systemctl stop cookie-gend
cookie-gend --uninstall >/dev/null	# the pinned maps count for the system's state directory
rm -rf "$work/rm"; mkdir "$work/rm"
printf '00000000000000cd\n' >"$work/rm/id"; printf '0\n' >"$work/rm/node"
out=$(cookie-gend --raise-mark 5000000000 --state-dir "$work/rm" 2>&1); rc=$?
is "$rc/$(cat "$work/rm/highwater")" "0/5000000000" "--raise-mark 5000000000 writes the lost mark ($out)"
out=$(cookie-gend --raise-mark 4000000000 --state-dir "$work/rm" 2>&1); rc=$?
is "$rc/$(cat "$work/rm/highwater")" "1/5000000000" "--raise-mark below it is refused, exit 1, the mark kept"
grep -q "a mark is never lowered" <<<"$out"
ok $? "and says why: $out"
out=$(cookie-gend --raise-mark $(( (3 << 48) + 6000000000 )) --state-dir "$work/rm" 2>&1); rc=$?
is "$rc/$(cat "$work/rm/highwater")" "2/5000000000" "a cookie of node 3 for node 0's directory: exit 2 ($out)"
systemd-run --unit=cookie-rm -p Type=notify -p NotifyAccess=main -p StandardError=file:"$work/rm.log" \
	/usr/sbin/cookie-gend --foreground --state-dir "$work/rm" --socket "$sock" >/dev/null 2>&1
wait_sock "$sock"
ok $? "the repaired directory starts"
c=$(cookie -n 1 --socket-only --socket "$sock")
[ -n "$c" ] && [ "$c" -ge 5000000000 ]
ok $? "its first cookie is at or above the raised mark ($c)"
out=$(cookie-gend --raise-mark 9000000000 --state-dir "$work/rm" 2>&1); rc=$?
is "$rc" 1 "--raise-mark while a daemon uses the directory is refused"
grep -q "another cookie-gend uses the state directory" <<<"$out"
ok $? "and says why: $out"
# A second daemon with its own /run (a container sharing /var/lib and bpffs): the instance
# lock does not see it, the directory's lock does.
out=$(unshare -m sh -c "mount -t tmpfs tmpfs /run && timeout $guard cookie-gend --foreground \
	--state-dir '$work/rm' --socket /run/other.sock" 2>&1); rc=$?
is "$rc" 1 "a second daemon on the same state directory, with its own /run, is refused (exit 1)"
[ "$(wc -l <<<"$out")" = 1 ] && grep -q "another cookie-gend uses the state directory $work/rm" <<<"$out"
ok $? "one line says why: $out"
is "$(cookie -n 1 --socket-only --socket "$sock" >/dev/null; echo $?)" 0 "the first daemon still serves"
systemctl stop cookie-rm
cookie-gend --uninstall >/dev/null

# ---- upgrades: a pinned state map of the older layout (80 bytes, before node ids) ----
# The old counter gave cookies up to its limit (2^32 above the system directory's mark): the
# new one must start above it, with no manual step, and the new layout must be pinned.
systemctl stop cookie-gend
cookie-gend --uninstall >/dev/null
sysid=$(cat /var/lib/bareatom/cookie/id) syshw=$(cat /var/lib/bareatom/cookie/highwater)
old_next=$((syshw + (1 << 31))) old_limit=$((syshw + (1 << 32)))
mkdir -p $pins
bpftool map create $pins/state type array key 4 value 80 entries 1 name state flags 1024
val=$(python3 -c 'import struct, sys
v = struct.pack("<10Q", int(sys.argv[2]), int(sys.argv[3]), 0, 0, 0, 0, 0, int(sys.argv[1], 16), 0, 0)
print(" ".join("%02x" % b for b in v))' "$sysid" "$old_next" "$old_limit")
bpftool map update pinned $pins/state key 0 0 0 0 value hex $val
ok $? "an 80-byte state map is pinned, its limit 2^32 above the mark ($old_limit), owned by the system's directory"
systemctl start cookie-gend && wait_sock /run/bareatom/cookie.sock
ok $? "cookie-gend starts on pins of the older layout"
is "$(bpftool map show pinned $pins/state -j | jq .bytes_value)" 88 "the state map pinned now has the new layout (88 bytes)"
n=$(stat_on /run/bareatom/cookie.sock next)
[ "$n" -ge "$old_limit" ]
ok $? "the new counter starts above the old one's limit ($n >= $old_limit)"
hw=$(cat /var/lib/bareatom/cookie/highwater)
[ "$hw" -gt "$old_limit" ]
ok $? "and the mark on disk is above it ($hw)"
c=$(cookie -n 1 --fast); rc=$?
[ $rc = 0 ] && [ "$c" -ge "$old_limit" ]
ok $? "the fast path works on the new map, above the old counter ($c)"
f0=$(stat_on /run/bareatom/cookie.sock fork_cookies)
forks 20
[ "$(stat_on /run/bareatom/cookie.sock fork_cookies)" -ge $((f0 + 20)) ]
ok $? "forks draw from the new map"
# (journald stores what the daemon wrote when it gets to it.)
logged() { journalctl -u cookie-gend --no-pager 2>/dev/null | grep -q "$1"; }
wait_until 120 "the journal to hold cookie-gend's line about the older layout" \
	logged "an older layout (80 bytes, not 88)"
ok $? "the replacement is logged"

# ---- crashes and holes ----
systemctl stop cookie-gend
mkdir "$work/ro"
mount -t tmpfs -o ro tmpfs "$work/ro"
out=$(cd "$work/ro" && timeout $guard cookie-gend --foreground --state-dir rel --socket "$sock" 2>&1); rc=$?
is "$rc" 1 "--state-dir with no '/' in an unwritable directory: exit 1, no crash"
grep -q "cannot open the state directory rel" <<<"$out"
ok $? "and says why: $out"
umount "$work/ro"
echo keep >"$work/notasock"
out=$(timeout $guard cookie-gend --foreground --state-dir "$work/st2" --socket "$work/notasock" 2>&1); rc=$?
is "$rc/$(cat "$work/notasock")" "1/keep" "--socket naming a regular file: refused, the file kept"
grep -q "is not a socket" <<<"$out"
ok $? "and says why: $out"
[ ! -e "$work/st2" ]
ok $? "refused before the state directory was touched"
out=$(cookie-gend --uninstall --socket "$work/notasock" 2>&1); rc=$?
is "$rc/$(cat "$work/notasock")" "1/keep" "--uninstall with --socket naming a regular file keeps the file"
mkdir -p $pins
bpftool map create $pins/state type array key 4 value 80 entries 1 name state
is "$(cookie-load open-fail | sed 's/.*, //')" "fd intact" \
	"a failed cookie_fast_open leaves nothing for cookie_fast_close to close twice"
rm -f $pins/state
cookie-gend --uninstall >/dev/null 2>&1
systemctl start cookie-gend && wait_sock /run/bareatom/cookie.sock
ok $? "the system's cookie-gend is running again"
c=$(cookie -n 1)
ok $? "and serves ($c)"
rm -rf "$work"
done_testing
