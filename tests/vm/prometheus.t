#!/bin/bash
# A real Prometheus (Debian bookworm's 2.42, the host's, shared in by tests/run-all at
# /mnt/share/prometheus) scrapes tpstat and cookie-gend while tpgen fires a known count
# and the test draws a known number of cookies; its HTTP API must then give exactly those
# totals, and a histogram's _count and _sum. Prometheus asks for OpenMetrics first (a probe
# target records the Accept header it sends; the tools answer it with OpenMetrics), so this
# is also the check of our OpenMetrics text by Prometheus' own parser, beside the reference
# one (om-check) on what the tools serve: tpstat with an --lhist from 0 and a signed --hist,
# cookie-gend with its histogram.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/cookie.sh"	# its set_daemon_args needs systemd:
# run-vm: systemd
prom=/mnt/share/prometheus/prometheus
tp_port=9465 cg_port=9464 prom_port=9090 probe_port=9466
omcheck=$(dirname "$0")/om-check
work=$(mktemp -d)
guard=$((120 * TAP_SLOW))	# for an answer that never comes

if [ ! -x $prom ]; then
	ok 1 "no Prometheus at $prom: run under tests/run-all (run-vm --share build/share, make prom-share)"
	done_testing
	exit 1
fi

# get PORT PATH: the body of an HTTP/1.0 GET (no chunking, the server closes).
get() {
	timeout $guard bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && printf "GET %s HTTP/1.0\r\n\r\n" "$2" >&3 && cat <&3' \
		_ "$1" "$2" 2>/dev/null | tr -d '\r' | sed '1,/^$/d'
}
# query PROMQL: the value of its first series, as Prometheus' HTTP API gives it.
query() {
	get $prom_port "/api/v1/query?query=$(jq -rn --arg q "$1" '$q | @uri')" |
		jq -r '.data.result[0].value[1] // empty' 2>/dev/null
}
# wait_value PROMQL WANT: until Prometheus has scraped WANT; prints the last value.
value_is() { v=$(query "$1"); [ "$v" = "$2" ]; }
wait_value() {
	local v=""
	wait_until 300 "Prometheus to have $1 = $2" value_is "$1" "$2" >&2
	echo "$v"
}

modprobe tpgen
set_daemon_args "--listen 127.0.0.1:$cg_port"
ok $? "cookie-gend serves metrics on 127.0.0.1:$cg_port"
tpstat -a --listen 127.0.0.1:$tp_port --lhist tpgen_a:seq:0:1024:64 --hist tpgen_a:ctx-\>cpu tpgen_a \
	>"$work/tpstat.out" 2>"$work/tpstat.err" & tp_pid=$!
# The probe: one OpenMetrics gauge, and the Accept header of each scrape written down.
python3 - "$work/accept" $probe_port <<'PY' & probe_pid=$!
import http.server, sys
class Probe(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[1], "w") as f:
            f.write(self.headers.get("Accept", ""))
        body = b"# TYPE probe gauge\nprobe 1\n# EOF\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/openmetrics-text; version=1.0.0; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[2])), Probe).serve_forever()
PY

# Prometheus gives up a scrape at scrape_timeout (at most the interval): the tools answer
# at once, but a loaded guest may take a second or two to get there. A scrape that fails is
# tried again an interval later, and every check waits for the value it needs, so the
# interval only sets how long each wait is (10 s made this test 125 s; 1 s could time out).
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 3s
  scrape_timeout: 3s
scrape_configs:
  - job_name: tpstat
    static_configs: [{ targets: ['127.0.0.1:$tp_port'] }]
  - job_name: cookie-gend
    static_configs: [{ targets: ['127.0.0.1:$cg_port'] }]
  - job_name: probe
    static_configs: [{ targets: ['127.0.0.1:$probe_port'] }]
EOF
$prom --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
	--web.listen-address=127.0.0.1:$prom_port --log.level=warn >"$work/prom.log" 2>&1 & prom_pid=$!
prom_ready() { [ "$(get $prom_port /-/ready)" = "Prometheus Server is Ready." ]; }
wait_until 600 "Prometheus to be ready" prom_ready
is "$(get $prom_port /-/ready)" "Prometheus Server is Ready." "Prometheus $($prom --version 2>&1 | awk 'NR == 1 { print $3 }') is up"
is "$(wait_value 'up{job="tpstat"}' 1)" 1 "it scrapes tpstat (up 1)"
is "$(wait_value 'up{job="cookie-gend"}' 1)" 1 "it scrapes cookie-gend (up 1)"
is "$(wait_value 'up{job="probe"}' 1)" 1 "and the probe (up 1)"
accept=$(cat "$work/accept")
diag "Prometheus asks with Accept: $accept"
is "${accept%%,*}" "application/openmetrics-text;version=1.0.0" \
	"Prometheus asks for OpenMetrics 1.0.0 first"
# What the tools answer to that very header.
head_of() {	# PORT: the response head to a GET /metrics with Prometheus' Accept header
	timeout $guard bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && printf "GET /metrics HTTP/1.0\r\nAccept: %s\r\n\r\n" "$2" >&3 && cat <&3' \
		_ "$1" "$accept" 2>/dev/null | tr -d '\r'
}
for t in tpstat:$tp_port cookie-gend:$cg_port; do
	head_of ${t#*:} >"$work/${t%%:*}.resp"
	is "$(sed -n 's/^Content-Type: //Ip' "$work/${t%%:*}.resp")" \
		"application/openmetrics-text; version=1.0.0; charset=utf-8" "${t%%:*} answers it with OpenMetrics"
	sed '1,/^$/d' "$work/${t%%:*}.resp" >"$work/${t%%:*}.om"
done

# The known counts: tpgen fires on every CPU; the test draws cookies over the socket.
a0=$(tpgen_stat tpgen_a)
echo "tpgen_a 25000 all" > $TPGEN/fire
fired=$(($(tpgen_stat tpgen_a) - a0))
cookie -n 1000 --socket-only >/dev/null && cookie -n 234 --socket-only >/dev/null &&
	cookie --socket-only >/dev/null
ok $? "drew 1000 + 234 + 1 cookies over the socket"
is "$(wait_value 'bareatom_tracepoint_hits_total{job="tpstat",tracepoint="tpgen_a"}' $fired)" "$fired" \
	"Prometheus has tpstat's hits{tpgen_a} = what tpgen fired ($(nproc) x 25000)"
for t in tpstat cookie-gend; do
	head_of $([ $t = tpstat ] && echo $tp_port || echo $cg_port) | sed '1,/^$/d' >"$work/$t.om"
done
out=$("$omcheck" "$work/tpstat.om" "$work/cookie-gend.om" 2>&1); rc=$?
if [ $rc = 2 ]; then
	ok 1 "the OpenMetrics reference parser: $out (make prom-share shares it)"
else
	ok $rc "the OpenMetrics reference parser passes what tpstat and cookie-gend serve${out:+: $out}"
fi
is "$(wait_value 'bareatom_tracepoint_value_bucket{job="tpstat",expr="seq",le="+Inf"}' $fired)" "$fired" \
	"Prometheus has the --lhist from 0: +Inf holds every sample"
is "$(wait_value 'bareatom_tracepoint_value_bucket{job="tpstat",expr="ctx->cpu",le="+Inf"}' $fired)" "$fired" \
	"and the signed --hist (buckets only): +Inf holds every sample"
diag "$ curl 'http://127.0.0.1:$prom_port/api/v1/query?query=bareatom_tracepoint_hits_total'"
diag "$(get $prom_port "/api/v1/query?query=bareatom_tracepoint_hits_total")"
is "$(wait_value 'bareatom_tracepoint_missed_total{job="tpstat",tracepoint="tpgen_a"}' 0)" 0 "and missed 0"
is "$(wait_value 'bareatom_cookie_served_total{job="cookie-gend",source="socket"}' 1235)" 1235 \
	"Prometheus has cookie-gend's served{socket} = the 1235 cookies drawn"
is "$(wait_value 'bareatom_cookie_get_size_count{job="cookie-gend"}' 3)" 3 \
	"a histogram's _count: the 3 GETs"
is "$(wait_value 'bareatom_cookie_get_size_sum{job="cookie-gend"}' 1235)" 1235 "its _sum: their 1235 cookies"
is "$(wait_value 'bareatom_cookie_get_size_bucket{job="cookie-gend",le="512.0"}' 2)" 2 \
	"its bucket le=512: the GETs of 1 and 234"
# Median of 1, 234, 1000: rank 1.5 in the bucket (128, 256], interpolated to 192.
is "$(wait_value 'histogram_quantile(0.5, bareatom_cookie_get_size_bucket{job="cookie-gend"})' 192)" 192 \
	"PromQL's histogram_quantile reads its buckets (median 192)"

# What the parser made of it: OpenMetrics names a counter family without _total, so the
# metadata is under the family name only when Prometheus parsed OpenMetrics.
meta=$(get $prom_port "/api/v1/metadata?metric=bareatom_tracepoint_hits")
is "$(jq -r '.data.bareatom_tracepoint_hits[0].type' <<<"$meta")" counter \
	"Prometheus parsed the OpenMetrics exposition (metadata of the family bareatom_tracepoint_hits)"
is "$(get $prom_port "/api/v1/metadata?metric=bareatom_cookie_get_size" | jq -r '.data.bareatom_cookie_get_size[0].type')" \
	histogram "and knows bareatom_cookie_get_size as a histogram"
targets=$(get $prom_port /api/v1/targets)
is "$(jq -r '[.data.activeTargets[] | .lastError] | join("|")' <<<"$targets")" "||" "no scrape errors on any target"

kill $prom_pid $probe_pid; wait $prom_pid $probe_pid 2>/dev/null
kill -INT $tp_pid; wait $tp_pid
is "$?" 0 "tpstat ends cleanly after being scraped"
final=$(awk '$1 == "tpgen_a" { c = $4 } END { gsub(",", "", c); print c }' "$work/tpstat.out")
is "$final" "$fired" "tpstat's own final count agrees ($final)"
set_daemon_args ""
ok $? "cookie-gend back to its default arguments"
rm -rf "$work"
done_testing
