# shellcheck shell=bash
# Sourced by the cookie-gend VM tests (after tests/lib/tap.sh): the systemd service run with extra
# arguments, and the daemon's statistics.

# The daemon answers at once; the client's default bound of 5 s tells a hung daemon, not a
# slow machine. (A test of the bounds themselves gives --timeout or unsets this; 3600 is
# the most cookie takes.)
export COOKIE_TIMEOUT=$((120 * TAP_SLOW < 3600 ? 120 * TAP_SLOW : 3600))
wait_daemon() {	# until the socket answers STATS again (after a restart: BPF loads slowly under TCG)
	wait_until 300 "cookie-gend to answer STATS" cookie --stats
}
stat_of() { cookie --stats -j | jq -r ".$1"; }
# The pid in the pinned follower map: the one cookie --follow the programs write events for.
follower_pid() {
	bpftool -j map lookup pinned /sys/fs/bpf/bareatom/cookie/follower key 0 0 0 0 2>/dev/null |
		jq -r '.formatted.value // 0'
}
is_follower() { [ "$(follower_pid)" = "$1" ]; }
wait_follower() {	# PID: until that cookie --follow is registered (it reads from then on)
	wait_until 300 "pid $1 in the pinned follower map" is_follower "$1"
}
# lines_at_least N FILE [PATTERN]: FILE has N lines (matching PATTERN), e.g. a follower's
# output: wait for the events a test made rather than for a while
lines_at_least() { [ "$(grep -c -- "${3:-^}" "$2")" -ge "$1" ]; }
# forks N: N short-lived processes, each given a cookie at fork by BPF
forks() { for _ in $(seq "$1"); do /bin/true; done; }
# follow FILE: a cookie --follow writing FILE, registered (it reads from then on), pid in $follower
follow() { cookie --follow >"$1" & follower=$!; wait_follower $follower; }
# unfollow FILE N: once the follower has printed the N events the test made, stop it (it
# drains the ring as it stops: N is what a test can count on, not a pause)
unfollow() {
	wait_until 300 "$2 events in cookie --follow's output" lines_at_least "$2" "$1"
	kill -INT "$follower"; wait "$follower"
}
# draw_all PREFIX SOCK: 1000 cookies over SOCK, 1000 through the fast path and 100 forks
# (cookie --follow's), into PREFIX.socket, PREFIX.fast and PREFIX.fork
draw_all() {
	follow "$1.follow"
	cookie --socket-only --socket "$2" -n 1000 >"$1.socket"
	cookie --fast -n 1000 >"$1.fast"
	forks 100
	unfollow "$1.follow" 100
	awk '{ print $3 }' "$1.follow" >"$1.fork"
}
set_daemon_args() {	# run the systemd service with extra arguments ("" for none)
	mkdir -p /run/systemd/system/cookie-gend.service.d
	if [ -n "$1" ]; then
		printf '[Service]\nExecStart=\nExecStart=/usr/sbin/cookie-gend --foreground %s\n' "$1" \
			>/run/systemd/system/cookie-gend.service.d/args.conf
	else
		rm -f /run/systemd/system/cookie-gend.service.d/args.conf
	fi
	systemctl daemon-reload && systemctl restart cookie-gend && wait_daemon
}
