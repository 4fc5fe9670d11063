#!/bin/bash
# Nobody can block a scrape: with 20 idle connections open to tpstat --listen (the run loop's
# server) and to cookie-gend --listen (its own epoll loop), a scrape is answered before the
# request head's 2 s deadline; the idle clients get 408, the oldest at once (their slots
# taken), the rest at that deadline. The bound is the server's own deadline, which tells the
# two designs apart: a server that waits for idle clients to free a slot cannot answer
# before one of them reaches it (with 8 slots and 20 idle, not before two of them have);
# one that takes the oldest idle slot answers in milliseconds, under TCG too, and well
# within 2 s on a loaded host. (A bound free of the clock needs the deadline longer than any
# stall of a loaded machine: the server's, HTTP_HEAD_TIMEOUT, is fixed.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/cookie.sh"
work=$(mktemp -d)
guard=$((120 * TAP_SLOW))	# for an answer that never comes: the others come at once or at 2 s
modprobe tpgen

now_us() { echo "${EPOCHREALTIME/./}"; }	# a builtin: no process started in the timing

# answers: a scrape of the port gets 200
answers() {
	timeout $guard bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && printf "GET /metrics HTTP/1.1\r\n\r\n" >&3 &&
		head -n1 <&3' _ "$port" | grep -q '^HTTP/1.1 200 '
}
# idle_then_scrape TOOL: 20 idle connections, then a timed scrape and the idle ones' answers.
idle_then_scrape() {
	local tool=$1 fds=() fd s t0 ms first
	# The listener opens before the programs attach (seconds on a loaded machine): time a
	# server that serves, not its start.
	wait_until 300 "$tool to answer a scrape" answers
	for _ in $(seq 20); do
		exec {fd}<>/dev/tcp/127.0.0.1/$port
		fds+=("$fd")
	done
	# The server takes connections in order, the idle ones before the scrape whenever it
	# gets to them: this pause only keeps that work out of the timed part.
	sleep 0.2
	# From connect to the status line (the response is sent in one piece after it).
	t0=$(now_us)
	exec {s}<>/dev/tcp/127.0.0.1/$port
	printf 'GET /metrics HTTP/1.1\r\n\r\n' >&"$s"
	IFS= read -r -t $guard first <&"$s"
	ms=$((($(now_us) - t0) / 1000))
	exec {s}<&-
	first=${first%$'\r'}
	diag "$tool: the scrape took $ms ms with 20 idle connections open"
	is "$first" "HTTP/1.1 200 OK" "$tool: a scrape with 20 idle connections open is answered"
	[ "$ms" -lt 2000 ]
	ok $? "$tool: before an idle client's 2 s deadline could free a slot ($ms ms)"
	is "$(timeout $guard head -n1 <&"${fds[0]}" | tr -d '\r')" "HTTP/1.1 408 Request Timeout" \
		"$tool: the oldest idle client gave its slot up, with a 408"
	is "$(timeout $guard head -n1 <&"${fds[19]}" | tr -d '\r')" "HTTP/1.1 408 Request Timeout" \
		"$tool: the newest got 408 at the head's deadline"
	for fd in "${fds[@]}"; do
		exec {fd}<&-
	done
}

tpstat -a --listen 127.0.0.1:0 tpgen_a >"$work/tpstat.out" 2>"$work/tpstat.err" & tp_pid=$!
port=""
port_said() {
	port=$(sed -n 's|^tpstat: metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$work/tpstat.err")
	[ -n "$port" ]
}
wait_until 300 "tpstat to say its metrics port" port_said
[ -n "$port" ]
ok $? "tpstat serves metrics on 127.0.0.1:$port"
idle_then_scrape tpstat
kill -INT $tp_pid; wait $tp_pid
is "$?" 0 "tpstat ends with status 0"

port=9464
set_daemon_args "--listen 127.0.0.1:$port"
ok $? "cookie-gend restarted with --listen 127.0.0.1:$port"
idle_then_scrape cookie-gend
timeout $guard cookie -n 10 --socket-only >/dev/null
ok $? "cookie-gend still serves cookies"
set_daemon_args ""
ok $? "cookie-gend back to its default arguments"
rm -rf "$work"
done_testing
