#!/bin/bash
# Nobody can block a scrape: with 20 idle connections open to tpstat --listen (the run loop's
# server) and to cookie-gend --listen (its own epoll loop), a scrape is answered within 1 s;
# the idle clients get 408, the oldest at once (their slots taken), the rest at the request
# head's 2 s deadline. The bound tells the two designs apart: a server that waits for an idle
# client's deadline takes at least 2 s per client ahead of the scrape; one that serves side by
# side answers in milliseconds, here under TCG too.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/cookie.sh"
work=$(mktemp -d)
modprobe tpgen

now_us() { echo "${EPOCHREALTIME/./}"; }	# a builtin: no process started in the timing

# idle_then_scrape TOOL: 20 idle connections, then a timed scrape and the idle ones' answers.
idle_then_scrape() {
	local tool=$1 fds=() fd s t0 ms first
	for _ in $(seq 20); do
		exec {fd}<>/dev/tcp/127.0.0.1/$port
		fds+=("$fd")
	done
	sleep 0.2	# the server has taken them all by now
	# From connect to the status line (the response is sent in one piece after it).
	t0=$(now_us)
	exec {s}<>/dev/tcp/127.0.0.1/$port
	printf 'GET /metrics HTTP/1.1\r\n\r\n' >&"$s"
	IFS= read -r -t 20 first <&"$s"
	ms=$((($(now_us) - t0) / 1000))
	exec {s}<&-
	first=${first%$'\r'}
	diag "$tool: the scrape took $ms ms with 20 idle connections open"
	is "$first" "HTTP/1.1 200 OK" "$tool: a scrape with 20 idle connections open is answered"
	[ "$ms" -lt 1000 ]
	ok $? "$tool: within 1 s ($ms ms)"
	is "$(timeout 5 head -n1 <&"${fds[0]}" | tr -d '\r')" "HTTP/1.1 408 Request Timeout" \
		"$tool: the oldest idle client gave its slot up, with a 408"
	is "$(timeout 10 head -n1 <&"${fds[19]}" | tr -d '\r')" "HTTP/1.1 408 Request Timeout" \
		"$tool: the newest got 408 at the head's deadline"
	for fd in "${fds[@]}"; do
		exec {fd}<&-
	done
}

tpstat -a --listen 127.0.0.1:0 tpgen_a >"$work/tpstat.out" 2>"$work/tpstat.err" & tp_pid=$!
port=""
for _ in $(seq 300); do
	port=$(sed -n 's|^tpstat: metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$work/tpstat.err")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ]
ok $? "tpstat serves metrics on 127.0.0.1:$port"
idle_then_scrape tpstat
kill -INT $tp_pid; wait $tp_pid
is "$?" 0 "tpstat ends with status 0"

port=9464
set_daemon_args "--listen 127.0.0.1:$port"
ok $? "cookie-gend restarted with --listen 127.0.0.1:$port"
idle_then_scrape cookie-gend
timeout 20 cookie -n 10 --socket-only >/dev/null
ok $? "cookie-gend still serves cookies"
set_daemon_args ""
ok $? "cookie-gend back to its default arguments"
rm -rf "$work"
done_testing
