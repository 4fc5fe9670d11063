#!/bin/bash
# tpstat --listen and --textfile: the served hits equal exactly what tpgen fired, per CPU
# with -A, BPF run counts with kernel.bpf_stats_enabled, the targets map's fill, both
# formats, a silent client that does not stop counting, the textfile's final counts, and
# promtool on what is served and written (promtool shared in by tests/run-all), and the
# OpenMetrics reference parser (om-check) on every OpenMetrics exposition: histograms
# signed and unsigned, --lhist from 0 and over the whole signed range, empty and busy, --by
# keys of processes named "other" and of invalid UTF-8, scrapes while a million events fire.
. "$(dirname "$0")/../lib/tap.sh"
promtool=/mnt/share/prometheus/promtool
omcheck=$(dirname "$0")/om-check
work=$(mktemp -d)
guard=$((120 * TAP_SLOW))	# for an answer that never comes
modprobe tpgen

http() {
	timeout $guard bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && { printf "%b" "$2" >&3; cat <&3; }' _ "$port" "$1"
}
scrape() {
	http "GET /metrics HTTP/1.1\r\n${1:+Accept: $1\r\n}\r\n" | tr -d '\r' | sed '1,/^$/d'
}
sample() { awk -v k="$1" '$1 == k { print $2 }'; }
# start_tpstat LOG ARGS...: tpstat in the background; sets tp_pid and port (from its stderr)
start_tpstat() {
	local log=$1; shift
	tpstat "$@" >"$log.out" 2>"$log" & tp_pid=$!
	port=""
	port_said() {
		port=$(sed -n 's|^tpstat: metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$log")
		[ -n "$port" ]
	}
	wait_until 300 "tpstat to say its metrics port" port_said || return 1
	# The listener is opened before the programs attach: wait for the first hits to count.
	counting() { scrape | grep -q '^bareatom_tracepoint_hits_total'; }
	wait_until 300 "tpstat to serve its hits (programs attached)" counting
}
promcheck() {	# promtool check metrics FILE DESCRIPTION
	local out
	if [ -x $promtool ]; then
		out=$($promtool check metrics <"$1" 2>&1)
		ok $? "$2${out:+: $out}"
	else
		ok 1 "$2: no $promtool (run under tests/run-all, which shares it)"
	fi
}
omcheck() {	# om-check FILE... DESCRIPTION: the OpenMetrics reference parser passes them
	local out rc
	out=$("$omcheck" "${@:1:$#-1}" 2>&1); rc=$?
	if [ $rc = 2 ]; then
		ok 1 "${!#}: $out (run under tests/run-all, which shares it; make prom-share)"
	else
		ok $rc "${!#}${out:+: $(head -n 3 <<<"$out")}"
	fi
}
om_scrape() { scrape 'application/openmetrics-text;version=1.0.0'; }
tp='{tracepoint="tpgen_a",kind="bare",module="tpgen"}'
tpb='{tracepoint="tpgen_b",kind="bare",module="tpgen"}'
ncpu=$(nproc)

# System wide, port 0, a textfile every 0.2 s.
start_tpstat "$work/a" -a -i 0.2 --summary --listen 127.0.0.1:0 --textfile "$work/tpstat.prom" tpgen_a tpgen_b
ok $? "tpstat --listen 127.0.0.1:0 prints the port it got ($port)"
a0=$(tpgen_stat tpgen_a) b0=$(tpgen_stat tpgen_b)
echo "tpgen_a 20000 all" > $TPGEN/fire
echo "tpgen_b 2500" > $TPGEN/fire
body=$(scrape)
is "$(sample "bareatom_tracepoint_hits_total$tp" <<<"$body")" "$(($(tpgen_stat tpgen_a) - a0))" \
	"hits{tpgen_a} equals what tpgen fired (20000 on each of $ncpu CPUs)"
is "$(sample "bareatom_tracepoint_hits_total$tpb" <<<"$body")" "$(($(tpgen_stat tpgen_b) - b0))" \
	"hits{tpgen_b} equals what tpgen fired (2500)"
is "$(sample "bareatom_tracepoint_missed_total$tp" <<<"$body")" 0 "missed{tpgen_a} 0 (nothing nested)"
is "$(sample 'bareatom_bpf_map_entries{map="targets"}' <<<"$body")" 0 "system wide: the targets map is empty"
is "$(sample 'bareatom_bpf_map_max_entries{map="targets"}' <<<"$body")" 16384 "and has room for 16384"
is "$(sample 'bareatom_bpf_map_update_failures_total{map="targets"}' <<<"$body")" 0 "no update refused"
grep -qE '^bareatom_scrape_duration_seconds [0-9.e-]+$' <<<"$body"
ok $? "the scrape reports its own duration"
is "$(grep -c '^bareatom_tracepoint_cpu_hits_total' <<<"$body")" 0 "no per-CPU series without -A"
printf '%s\n' "$body" >"$work/served.prom"
promcheck "$work/served.prom" "promtool check metrics passes the 0.0.4 exposition"
om=$(scrape 'application/openmetrics-text;version=1.0.0')
is "$(tail -n1 <<<"$om")" "# EOF" "OpenMetrics when asked, ending in # EOF"
is "$(grep -c '^# TYPE bareatom_tracepoint_hits counter$' <<<"$om")" 1 "OpenMetrics: the family named without _total"
printf '%s\n' "$om" >"$work/served.om"
omcheck "$work/served.om" "the OpenMetrics parser passes the OpenMetrics exposition"

# A silent client does not stop counting, and the scrape after it is exact.
exec 5<>/dev/tcp/127.0.0.1/$port
echo "tpgen_a 1000" > $TPGEN/fire
is "$(scrape | sample "bareatom_tracepoint_hits_total$tp")" "$(($(tpgen_stat tpgen_a) - a0))" \
	"with a silent client connected, counting and the next scrape go on"
is "$(timeout $guard head -n1 <&5 | tr -d '\r')" "HTTP/1.1 408 Request Timeout" "the silent client got 408"
exec 5<&-
is "$(http 'GET /nope HTTP/1.1\r\n\r\n' | head -n1 | tr -d '\r')" "HTTP/1.1 404 Not Found" "GET /nope: 404"
is "$(http 'DELETE /metrics HTTP/1.1\r\n\r\n' | head -n1 | tr -d '\r')" "HTTP/1.1 405 Method Not Allowed" "DELETE: 405"
is "$(http '\r\n\r\n' | head -n1 | tr -d '\r')" "HTTP/1.1 400 Bad Request" "an empty request line: 400"
is "$(http "GET /metrics HTTP/1.1\r\nX: $(head -c 9000 /dev/zero | tr '\0' a)\r\n\r\n" | head -n1 | tr -d '\r')" \
	"HTTP/1.1 431 Request Header Fields Too Large" "a 9 KB request: 431"

# The end: the final textfile holds the counts of tpstat's own final report.
kill -INT $tp_pid; wait $tp_pid; rc=$?
is "$rc" 0 "tpstat ends with status 0 on SIGINT"
final_a=$(awk '$1 == "tpgen_a" { c = $4 } END { gsub(",", "", c); print c }' "$work/a.out")
is "$(sample "bareatom_tracepoint_hits_total$tp" <"$work/tpstat.prom")" "$final_a" \
	"the textfile's last write holds the final count ($final_a)"
is "$final_a" "$(($(tpgen_stat tpgen_a) - a0))" "which is what tpgen fired"
promcheck "$work/tpstat.prom" "promtool check metrics passes the textfile"
is "$(ls -A "$work" | grep -c '^\.tpstat')" 0 "no temporary file left beside the textfile"

# -A: per-CPU hits that add up to the total; BPF run counts with bpf_stats on.
sysctl -q -w kernel.bpf_stats_enabled=1
start_tpstat "$work/A" -a -A --listen 127.0.0.1:0 tpgen_a
ok $? "tpstat -A --listen"
a0=$(tpgen_stat tpgen_a)
echo "tpgen_a 3000 all" > $TPGEN/fire
body=$(scrape)
hits=$(sample "bareatom_tracepoint_hits_total$tp" <<<"$body")
is "$hits" "$(($(tpgen_stat tpgen_a) - a0))" "-A: hits equal what tpgen fired"
is "$(grep -c '^bareatom_tracepoint_cpu_hits_total{tracepoint="tpgen_a",kind="bare",module="tpgen",cpu="[0-9]*"}' <<<"$body")" \
	"$ncpu" "-A: one cpu_hits series per CPU ($ncpu)"
is "$(awk '/^bareatom_tracepoint_cpu_hits_total/ { s += $2 } END { print s }' <<<"$body")" "$hits" \
	"-A: the per-CPU hits add up to the total"
for c in $(seq 0 $((ncpu - 1))); do
	is "$(sample "bareatom_tracepoint_cpu_hits_total{tracepoint=\"tpgen_a\",kind=\"bare\",module=\"tpgen\",cpu=\"$c\"}" <<<"$body")" \
		3000 "-A: CPU $c counted its 3000"
done
is "$(sample 'bareatom_bpf_runs_total{program="tpstat_0",tracepoint="tpgen_a"}' <<<"$body")" "$hits" \
	"bpf_stats on: the program ran once per hit"
awk '$1 == "bareatom_bpf_run_seconds_total{program=\"tpstat_0\",tracepoint=\"tpgen_a\"}" && $2 > 0 { f = 1 } END { exit !f }' <<<"$body"
ok $? "and its run time is there, above 0"
printf '%s\n' "$body" >"$work/served-A.prom"
promcheck "$work/served-A.prom" "promtool check metrics passes the -A exposition"
om_scrape >"$work/served-A.om"
omcheck "$work/served-A.om" "the OpenMetrics parser passes the -A exposition"
kill -INT $tp_pid; wait $tp_pid
sysctl -q -w kernel.bpf_stats_enabled=0

# -- CMD: the targets map holds CMD's processes while it runs (sh and its sleep). The sleep
# runs until the test ends it, however long the scrape takes to come; it has been forked
# once its pid is written.
start_tpstat "$work/cmd" --listen 127.0.0.1:0 tpgen_a -- sh -c "sleep 3600 & echo \$! >$work/cmd.sleep; wait"
ok $? "tpstat --listen -- CMD"
wait_until 120 "CMD's sleep to start" test -s "$work/cmd.sleep"
is "$(scrape | sample 'bareatom_bpf_map_entries{map="targets"}')" 2 \
	"-- CMD: the targets map holds sh and its sleep"
kill "$(cat "$work/cmd.sleep")"; wait $tp_pid

# Usage errors: one line, exit 2; an address that cannot be had: exit 1, nothing loaded.
err_case 2 "cannot resolve 'no-such-host.invalid'" "tpstat --listen of a name that does not resolve" tpstat --listen no-such-host.invalid:1 tpgen_a
# A name is resolved, as perf users type it: localhost is a loopback address.
lh=$(tpstat --listen localhost:0 -d 0.5 tpgen_a 2>&1 >/dev/null | grep 'metrics on')
grep -qE '^tpstat: metrics on http://(127\.0\.0\.1|\[::1\]):[0-9]+/metrics$' <<<"$lh"
ok $? "tpstat --listen localhost:0 listens on loopback ($lh)"
err_case 2 "port '70000' is not a number" "tpstat --listen 127.0.0.1:70000" tpstat --listen 127.0.0.1:70000 tpgen_a
err_case 2 "an empty path" "tpstat --textfile ''" tpstat --textfile '' tpgen_a
err_case 2 "-l takes no other options" "tpstat -l --listen" tpstat -l --listen 127.0.0.1:1
err_case 1 "cannot listen on 192.0.2.1:9465: Cannot assign requested address" \
	"tpstat --listen on an address not here" tpstat --listen 192.0.2.1:9465 -d 1 tpgen_a
err_case 2 "tpgen_a:seq is given twice (--hist or --lhist): one histogram per expression" \
	"the same --hist twice: its series would repeat" tpstat -d 1 --hist tpgen_a:seq --hist tpgen_a:seq tpgen_a
err_case 1 "cannot write $work/missing/x.prom: No such file or directory" \
	"tpstat --textfile in a missing directory: says so once" tpstat -d 0.3 -i 0.1 --textfile "$work/missing/x.prom" tpgen_a

# --hist as an OpenMetrics histogram, --by as labelled counters with the rest in key_other_hits.
start_tpstat "$work/h" -a --listen 127.0.0.1:0 --hist tpgen_a:seq --by tpgen_a:cpu --top 1 tpgen_a
ok $? "tpstat --listen with --hist tpgen_a:seq and --by tpgen_a:cpu --top 1"
taskset -c 0 sh -c "echo tpgen_a 200 > $TPGEN/fire"
[ "$ncpu" -gt 1 ] && taskset -c 1 sh -c "echo tpgen_a 100 > $TPGEN/fire"
body=$(scrape)
hv='{tracepoint="tpgen_a",expr="seq"'
is "$(sample "bareatom_tracepoint_value_count$hv}" <<<"$body")" $((ncpu > 1 ? 300 : 200)) \
	"value_count = the samples (every event fired)"
is "$(sample "bareatom_tracepoint_value_sum$hv}" <<<"$body")" $((ncpu > 1 ? 20100 + 5050 : 20100)) \
	"value_sum = the sum of seq"
is "$(sample "bareatom_tracepoint_value_bucket$hv,le=\"127.0\"}" <<<"$body")" $((ncpu > 1 ? 127 + 100 : 127)) \
	"the le=127 bucket is cumulative: every seq up to 127"
is "$(sample "bareatom_tracepoint_value_bucket$hv,le=\"+Inf\"}" <<<"$body")" $((ncpu > 1 ? 300 : 200)) \
	"and +Inf holds them all"
kv='{tracepoint="tpgen_a",key_expr="cpu"'
is "$(sample "bareatom_tracepoint_key_hits_total$kv,key=\"0\"}" <<<"$body")" 200 "key_hits{key=0}: CPU 0's 200"
is "$(sample "bareatom_tracepoint_key_other_hits_total$kv}" <<<"$body")" $((ncpu > 1 ? 100 : 0)) \
	"--top 1: CPU 1's 100 in key_other_hits"
is "$(sample "bareatom_tracepoint_keys_shown$kv}" <<<"$body")/$(sample "bareatom_tracepoint_key_dropped_total$kv}" <<<"$body")" \
	"1/0" "the cap is reported (1 series), nothing dropped"
printf '%s\n' "$body" >"$work/fields.prom"
promcheck "$work/fields.prom" "promtool check metrics passes the histogram and the key counters"
om_scrape >"$work/fields.om"
omcheck "$work/fields.om" "the OpenMetrics parser passes the histogram and the key counters"
kill -INT $tp_pid; wait $tp_pid

# Histograms every parser takes: --lhist from 0 on an unsigned field (its below-0 bucket
# has no range: it used to get le=2^64-1 and fail every scrape), a signed field (buckets
# only: no _sum beside negative buckets, no _count without _sum), one that never fires
# (empty), an --lhist over the whole signed range (4 steps; it had 0 and lost its samples);
# --by comm with processes named "other", "a\xff" and "a\xfe" (distinct series, the rest in
# key_other_hits). Checked empty, then busy.
wide=-9223372036854775808:9223372036854775807:4611686018427387904
start_tpstat "$work/e" -a --listen 127.0.0.1:0 --textfile "$work/edge.prom" \
	--lhist tpgen_a:seq:0:1024:64 --hist tpgen_b:ctx-\>cpu \
	--lhist tpgen_a:ctx-\>cpu:$wide --by tpgen_a:comm --top 3 tpgen_a tpgen_b
ok $? "tpstat --lhist from 0, signed --hist, --lhist over the whole signed range, --by comm"
om_scrape >"$work/edge-empty.om"
scrape >"$work/edge-empty.prom"
omcheck "$work/edge-empty.om" "OpenMetrics parser: those histograms and keys with no samples yet"
promcheck "$work/edge-empty.prom" "promtool: the same, empty"
cp /bin/sh "$work/other"
cp /bin/sh "$work/a$(printf '\xff')"
cp /bin/sh "$work/a$(printf '\xfe')"
a0=$(tpgen_stat tpgen_a)
"$work/other" -c "echo tpgen_a 30 > $TPGEN/fire"
"$work/a$(printf '\xff')" -c "echo tpgen_a 20 > $TPGEN/fire"
"$work/a$(printf '\xfe')" -c "echo tpgen_a 10 > $TPGEN/fire"
taskset -c 0 sh -c "echo tpgen_a 5 > $TPGEN/fire"
echo "tpgen_b 7" > $TPGEN/fire
fired=$(($(tpgen_stat tpgen_a) - a0))
om_scrape >"$work/edge.om"
scrape >"$work/edge-busy.prom"
omcheck "$work/edge.om" "OpenMetrics parser: the same, busy"
promcheck "$work/edge-busy.prom" "promtool: the same, busy"
lv='{tracepoint="tpgen_a",expr="seq"'
is "$(sample "bareatom_tracepoint_value_bucket$lv,le=\"63.0\"}" <"$work/edge.om")/$(grep -c "^bareatom_tracepoint_value_bucket$lv," "$work/edge.om")" \
	"$fired/17" "--lhist 0:1024:64: seq 1..30 all in le=63; 16 steps and +Inf, nothing below 0"
cv='{tracepoint="tpgen_b",expr="ctx->cpu"'
is "$(sample "bareatom_tracepoint_value_bucket$cv,le=\"+Inf\"}" <"$work/edge.om")/$(grep -c "^bareatom_tracepoint_value_\(count\|sum\)$cv" "$work/edge.om")" \
	"7/0" "signed --hist: +Inf holds every sample, no _count or _sum"
wv='{tracepoint="tpgen_a",expr="ctx->cpu"'
is "$(sample "bareatom_tracepoint_value_bucket$wv,le=\"4.611686018427388e+18\"}" <"$work/edge.om")" "$fired" \
	"--lhist over the whole signed range: every sample up to 2^62 (CPU numbers)"
kv='{tracepoint="tpgen_a",key_expr="comm"'
is "$(sample "bareatom_tracepoint_key_hits_total$kv,key=\"other\"}" <"$work/edge.om")" 30 \
	"the process named other: its own 30, not mixed with the keys beyond --top"
# (grep -F: awk -v would read the backslashes of the key as escapes)
is "$(grep -F "$kv,key=\"a\\\\xff\"}" "$work/edge.om" | cut -d' ' -f2)/$(grep -F "$kv,key=\"a\\\\xfe\"}" "$work/edge.om" | cut -d' ' -f2)" \
	"20/10" "comms a\\xff and a\\xfe: two series (they escaped to one text before)"
is "$(sample "bareatom_tracepoint_key_other_hits_total$kv}" <"$work/edge.om")" 5 \
	"the keys beyond --top 3 (sh's 5) in key_other_hits"
kill -INT $tp_pid; wait $tp_pid
is "$?" 0 "tpstat ends cleanly"
is "$(grep -A8 '^ tpgen_a:ctx->cpu  samples' "$work/e.out" |
	awk '$1 == "[0," && $2 == "4611686018427387903]" { gsub(",", "", $3); print $3 }')" "$fired" \
	"--lhist over the whole signed range: its samples are in [0, 4611686018427387903] in the table"
promcheck "$work/edge.prom" "promtool: the final textfile"

# A torn read (the program adds to a bucket before the count, a scrape reads the count
# first) never fails a scrape: 40 scrapes while a million events fire.
start_tpstat "$work/t" -a --listen 127.0.0.1:0 --hist tpgen_a:seq tpgen_a
ok $? "tpstat --hist tpgen_a:seq for scrapes during updates"
echo "tpgen_a 500000 all" > $TPGEN/fire &
fire_pid=$!
codes=""
for k in $(seq 40); do
	http "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0\r\n\r\n" |
		tr -d '\r' >"$work/torn.$k"
	codes+=$(head -n1 "$work/torn.$k" | awk '{ print $2 }')
	sed -i '1,/^$/d' "$work/torn.$k"
done
wait $fire_pid
is "$codes" "$(printf '200%.0s' $(seq 40))" "40 scrapes during a million events: each one 200"
omcheck "$work"/torn.* "and each passes the OpenMetrics parser"
kill -INT $tp_pid; wait $tp_pid

rm -rf "$work"
done_testing
