#!/bin/bash
# cookie-gend --listen and --textfile: the served totals equal exactly what this test drew
# (over the socket, and on tpgen_b events), the families match STATS, both formats are
# negotiated, bad requests get their status, a silent HTTP client neither stops the daemon
# serving cookies nor the next scrape, and promtool passes what is served and written;
# highwater and next carry the node (a daemon of node 300), rate-limit refusals are counted.
# promtool comes from the host's prometheus package through run-vm --share
# (tests/run-all shares build/share; /mnt/share/prometheus/promtool in the guest).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/cookie.sh"
port=9464
textfile=/run/bareatom/metrics/cookie-gend.prom
promtool=/mnt/share/prometheus/promtool
work=$(mktemp -d)
guard=$((120 * TAP_SLOW))	# for a client that would hang: answers come at once

# http REQUEST: send REQUEST (printf %b escapes) to the metrics port, print the whole response.
http() {
	timeout $guard bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && { printf "%b" "$2" >&3; cat <&3; }' _ "$port" "$1"
}
status_of() { http "$1" | head -n1 | tr -d '\r'; }
# scrape [ACCEPT]: the exposition's body
scrape() {
	http "GET /metrics HTTP/1.1\r\nHost: guest\r\n${1:+Accept: $1\r\n}\r\n" | tr -d '\r' | sed '1,/^$/d'
}
sample() { awk -v k="$1" '$1 == k { print $2 }'; }

modprobe tpgen
mkdir -p "${textfile%/*}"
set_daemon_args "--tpgen --listen 127.0.0.1:$port --textfile $textfile -i 0.2"
ok $? "cookie-gend restarted with --listen 127.0.0.1:$port --textfile -i 0.2"
# (journald stores what the daemon wrote when it gets to it.)
logged() { journalctl -u cookie-gend -b --no-pager | grep -q "$1"; }
wait_until 120 "the journal to hold cookie-gend's line about its metrics" \
	logged "metrics on http://127.0.0.1:$port/metrics"
ok $? "it logs where the metrics are served"

resp=$(http 'GET /metrics HTTP/1.1\r\n\r\n' | tr -d '\r')
is "$(head -n1 <<<"$resp")" "HTTP/1.1 200 OK" "GET /metrics: 200"
is "$(grep '^Content-Type:' <<<"$resp")" "Content-Type: text/plain; version=0.0.4; charset=utf-8" \
	"no Accept: Prometheus text 0.0.4"
body=$(sed '1,/^$/d' <<<"$resp")
is "$(grep '^Content-Length:' <<<"$resp" | cut -d' ' -f2)" "$(($(printf '%s\n' "$body" | wc -c)))" \
	"Content-Length is the body's length"
is "$(sample 'bareatom_cookie_served_total{source="socket"}' <<<"$body")" 0 "nothing served yet over the socket"

# Exact totals: what this test draws over the socket, and tpgen_b events drawing in BPF.
t0=$(scrape | sample 'bareatom_cookie_served_total{source="tpgen"}')
g0=$(tpgen_stat tpgen_b)
cookie -n 100 --socket-only >/dev/null && cookie -n 65536 --socket-only >/dev/null
for _ in 1 2 3; do cookie --socket-only >/dev/null; done
echo "tpgen_b 5000" > $TPGEN/fire
om=$(scrape 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5')
is "$(sample 'bareatom_cookie_served_total{source="socket"}' <<<"$om")" 65639 \
	"served{source=socket} is exactly the 100 + 65536 + 3 cookies drawn"
is "$(sample 'bareatom_cookie_get_size_count' <<<"$om")" 5 "the GET size histogram counted the 5 GETs"
is "$(sample 'bareatom_cookie_get_size_sum' <<<"$om")" 65639 "its sum is the cookies they drew"
is "$(sample 'bareatom_cookie_get_size_bucket{le="1.0"}' <<<"$om") $(sample 'bareatom_cookie_get_size_bucket{le="64.0"}' <<<"$om") $(sample 'bareatom_cookie_get_size_bucket{le="128.0"}' <<<"$om") $(sample 'bareatom_cookie_get_size_bucket{le="32768.0"}' <<<"$om") $(sample 'bareatom_cookie_get_size_bucket{le="65536.0"}' <<<"$om") $(sample 'bareatom_cookie_get_size_bucket{le="+Inf"}' <<<"$om")" \
	"3 3 4 4 5 5" "its buckets are cumulative: 3 of 1, then 100 (le 128), then 65536"
is "$(($(sample 'bareatom_cookie_served_total{source="tpgen"}' <<<"$om") - t0))" 5000 \
	"served{source=tpgen} went up by exactly the 5000 tpgen_b events fired"
is "$(($(tpgen_stat tpgen_b) - g0))" 5000 "(tpgen's own count of them)"
# The other families read what STATS reads; some move with every fork (task cookies, BPF's
# per-CPU batches), so each is checked between STATS just before and just after a scrape.
for k in highwater next denied batches events_lost fork_cookies extensions state_errors \
	refused_clients rate_limited; do
	case $k in
	highwater | next) m="bareatom_cookie_$k{node=\"0\"}" ;;
	fork_cookies) m='bareatom_cookie_served_total{source="fork"}' ;;
	*) m=bareatom_cookie_${k}_total ;;
	esac
	a=$(stat_of $k); v=$(scrape | sample "$m"); b=$(stat_of $k)
	[ -n "$v" ] && [ "$v" -ge "$a" ] && [ "$v" -le "$b" ]
	ok $? "$m ($v) is STATS $k (between $a and $b)"
done
# The last STATS client's close and the scrape may reach the daemon together: clients 0
# once it has seen the close.
no_clients() { [ "$(scrape | sample bareatom_cookie_clients)" = 0 ]; }
wait_until 120 "bareatom_cookie_clients 0 (the STATS clients' closes seen)" no_clients
is "$(scrape | sample bareatom_cookie_clients)" 0 "no socket client connected: clients 0"
is "$(scrape | sample bareatom_cookie_state_error)" 0 "the mark is saved: state_error 0"
is "$(grep -c '^# TYPE bareatom_cookie_highwater gauge$' <<<"$om")" 1 "highwater is a gauge"
is "$(tail -n1 <<<"$om")" "# EOF" "OpenMetrics when asked: ends with # EOF"
is "$(grep -c '^# TYPE bareatom_cookie_served counter$' <<<"$om")" 1 \
	"OpenMetrics names the counter family without _total"

scrape >"$work/served.prom"
if [ -x $promtool ]; then
	out=$($promtool check metrics <"$work/served.prom" 2>&1)
	ok $? "promtool check metrics passes the served exposition${out:+: $out}"
else
	ok 1 "promtool check metrics: no $promtool (run under tests/run-all, which shares it)"
fi

# Bad requests.
is "$(status_of 'GET / HTTP/1.1\r\n\r\n')" "HTTP/1.1 404 Not Found" "GET /: 404"
is "$(status_of 'POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n')" "HTTP/1.1 405 Method Not Allowed" "POST: 405"
is "$(status_of 'hello\r\n\r\n')" "HTTP/1.1 400 Bad Request" "garbage: 400"
is "$(status_of 'GET /metrics HTTP/1.1\r\nno colon\r\n\r\n')" "HTTP/1.1 400 Bad Request" "a bad header line: 400"
is "$(status_of "GET /metrics HTTP/1.1\r\nX-Pad: $(head -c 9000 /dev/zero | tr '\0' a)\r\n\r\n")" \
	"HTTP/1.1 431 Request Header Fields Too Large" "a 9 KB request: 431"

# A client that connects and says nothing: cookies are still served meanwhile, the next
# scrape is answered, and the silent one gets 408 at its deadline.
exec 5<>/dev/tcp/127.0.0.1/$port
timeout $guard cookie -n 10 --socket-only >/dev/null
ok $? "while an HTTP client sits silent, the daemon still serves cookies"
is "$(status_of 'GET /metrics HTTP/1.1\r\n\r\n')" "HTTP/1.1 200 OK" "and the next scrape is answered"
is "$(timeout $guard head -n1 <&5 | tr -d '\r')" "HTTP/1.1 408 Request Timeout" "the silent client got 408"
exec 5<&-
is "$(scrape | sample 'bareatom_cookie_served_total{source="socket"}')" 65649 "served is 65649 after 10 more"

# The textfile: rewritten every interval, the same families, and the final counts at exit.
textfile_has() { [ "$(sample 'bareatom_cookie_served_total{source="socket"}' <"$textfile")" = "$1" ]; }
wait_until 120 "the textfile to hold served{source=socket} 65649" textfile_has 65649
is "$(sample 'bareatom_cookie_served_total{source="socket"}' <"$textfile")" 65649 \
	"the textfile caught up at a later interval"
is "$(stat -c %a "$textfile")" 644 "the textfile is 0644"
is "$(ls -A "${textfile%/*}")" "${textfile##*/}" "and no temporary file is left beside it"
if [ -x $promtool ]; then
	out=$($promtool check metrics <"$textfile" 2>&1)
	ok $? "promtool check metrics passes the textfile${out:+: $out}"
else
	ok 1 "promtool check metrics on the textfile: no $promtool"
fi
cookie -n 7 --socket-only >/dev/null
systemctl stop cookie-gend
is "$(sample 'bareatom_cookie_served_total{source="socket"}' <"$textfile")" 65656 \
	"stopping writes the final counts (65656)"

# Usage errors: one line, exit 2, before anything is loaded.
err_case 2 "cannot resolve 'no-such-host.invalid'" "cookie-gend --listen of a name that does not resolve" cookie-gend --listen no-such-host.invalid:9464
err_case 2 "port '99999' is not a number from 0 to 65535" "cookie-gend --listen 127.0.0.1:99999" \
	cookie-gend --listen 127.0.0.1:99999
err_case 2 "invalid interval" "cookie-gend -i 0" cookie-gend -i 0
err_case 2 "an empty path" "cookie-gend --textfile ''" cookie-gend --textfile ''
out=$(cookie-gend --foreground --listen 192.0.2.1:9464 2>&1); rc=$?
is "$rc" 1 "an address not on this machine: exit 1"
grep -q "cannot listen on 192.0.2.1:9464: Cannot assign requested address" <<<"$out"
ok $? "and says why: $(tail -n1 <<<"$out")"

set_daemon_args ""
ok $? "cookie-gend back to its default arguments"

# A daemon of node 300: highwater and next count within the node, with the node as a label
# (the whole cookie value of node 32 and above does not fit a float64 sample exactly), and
# the per-uid rate limit's refusals are counted exactly (--rate-limit 1, burst 65536).
systemctl stop cookie-gend
cookie-gend --uninstall >/dev/null
chmod 0755 "$work"
nsock=$work/node.sock
cookie-gend --foreground --state-dir "$work/n300" --node-id 300 --socket "$nsock" \
	--listen 127.0.0.1:$port --rate-limit 1 --rate-burst 65536 2>"$work/n300.log" &
daemon=$!
wait_until 300 "cookie-gend --node-id 300 to answer STATS" cookie --stats --socket "$nsock"
# Text, not jq: jq 1.6 reads numbers as doubles and rounds cookies above 2^53.
nstat() { cookie --stats --socket "$nsock" | awk -v k="$1" '$1 == k { print $2 }'; }
cookie --socket-only --socket "$nsock" -n 1000 >/dev/null
ok $? "cookie-gend --node-id 300 serves"
bgid=$(getent group bareatom | cut -d: -f3)
out=$(setpriv --reuid=2500 --regid=2500 --groups="$bgid" python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b"GET 65536\n" * 4)
buf = b""
while buf.count(b"\n") < 4:
    buf += s.recv(4096)
print(" ".join(l.split()[0] + ("" if l.startswith("OK") else ":" + l.split(":")[0][4:]) for l in buf.decode().splitlines()))
' "$nsock")
is "$out" "OK ERR:rate limited ERR:rate limited ERR:rate limited" \
	"uid 2500 pipelining 4 x GET 65536 at 1 cookie/s: the burst, then 3 refusals"
# next moves with every fork (BPF's per-CPU batches): STATS just before and after the scrape.
next=$(nstat next)
body=$(scrape)
hw=$(nstat highwater)
is "$(sample 'bareatom_cookie_highwater{node="300"}' <<<"$body")" "$(python3 -c "print($hw - (300 << 48))")" \
	"bareatom_cookie_highwater{node=\"300\"} is STATS highwater ($hw) within node 300"
v=$(sample 'bareatom_cookie_next{node="300"}' <<<"$body")
[ -n "$v" ] && [ "$v" -le "$(python3 -c "print($(nstat next) - (300 << 48))")" ] &&
	[ "$v" -ge "$(python3 -c "print($next - (300 << 48))")" ]
ok $? "bareatom_cookie_next{node=\"300\"} ($v) is STATS next within node 300"
is "$(sample bareatom_cookie_rate_limited_total <<<"$body")" 3 "bareatom_cookie_rate_limited_total counts the 3 refusals"
is "$(nstat rate_limited)" 3 "and so does STATS rate_limited"
is "$(sample bareatom_cookie_denied_total <<<"$body")" 0 "bareatom_cookie_denied_total (the durable limit) is apart: 0"
is "$(sample 'bareatom_cookie_served_total{source="socket"}' <<<"$body")" 66536 "served counts the 1000 + 65536 drawn, not the refused"
if [ -x $promtool ]; then
	out=$($promtool check metrics <<<"$body" 2>&1)
	ok $? "promtool check metrics passes node 300's exposition${out:+: $out}"
else
	ok 1 "promtool check metrics: no $promtool"
fi
kill $daemon; wait $daemon 2>/dev/null
cookie-gend --uninstall >/dev/null
systemctl start cookie-gend && wait_daemon
ok $? "the system's cookie-gend is running again"
rm -rf "$work" "${textfile%/*}"
done_testing
