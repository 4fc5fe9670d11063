#!/bin/bash
# eht-hosts --listen and --textfile: on a bridge with snooping and fast leave (two hosts
# behind p1, one on p2; the make run topology), the served hosts per port and group and the
# events per kind equal what the reports imply and what eht-hosts -s reads from the pins;
# a group that fast leave deletes leaves the exposition; promtool passes it; the textfile
# holds the final table. promtool and the OpenMetrics reference parser (om-check) are shared
# in by tests/run-all.
. "$(dirname "$0")/../lib/tap.sh"
promtool=/mnt/share/prometheus/promtool
G=239.1.1.1 S1=192.0.2.1 S2=192.0.2.2 S3=192.0.2.3
work=$(mktemp -d)
guard=$((120 * TAP_SLOW))	# for an answer that never comes

cleanup() {
	for ns in hub h1 h2 h3; do ip netns del $ns 2>/dev/null; done
	ip link del br0 2>/dev/null
}
cleanup
ip link add br0 type bridge mcast_snooping 1 mcast_igmp_version 3 \
	mcast_last_member_interval 60000 mcast_membership_interval 60000
for ns in hub h1 h2 h3; do
	ip netns add $ns
	ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done
ip link add p1 type veth peer name uplink netns hub
ip link add p2 type veth peer name eth0 netns h3
ip -n hub link add hub type bridge mcast_snooping 0
for i in 1 2; do ip -n hub link add d$i type veth peer name eth0 netns h$i; done
for d in uplink d1 d2; do ip -n hub link set $d master hub up; done
ip -n hub link set hub up
for i in 1 2 3; do
	ip -n h$i addr add 10.0.0.$i/24 dev eth0
	ip -n h$i link set eth0 up
done
for p in p1 p2; do
	sysctl -qw net.ipv6.conf.$p.disable_ipv6=1
	ip link set $p master br0 up
	bridge link set dev $p fastleave on
done
ip link set br0 up
send() { local ns=$1; shift; igmp-send -S br0 -n "$ns" -i eth0 "$@"; }

http() {
	timeout $guard bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && { printf "%b" "$2" >&3; cat <&3; }' _ "$port" "$1"
}
scrape() { http "GET /metrics HTTP/1.1\r\n${1:+Accept: $1\r\n}\r\n" | tr -d '\r' | sed '1,/^$/d'; }
sample() { awk -v k="$1" '$1 == k { print $2 }'; }
# the pinned table, as "PORT GROUP COUNT" lines, sorted
pinned_groups() { eht-hosts -s -j | jq -r '.hosts[] | "\(.port) \(.group)"' | sort | uniq -c | awk '{ print $2, $3, $1 }'; }
served_groups() {
	sed -n 's/^bareatom_eht_hosts{port="\([^"]*\)",group="\([^"]*\)"} \([0-9]*\)$/\1 \2 \3/p' | sort
}

# Stopped with SIGINT at the end; -d only ends it should the test die first, so it is far
# longer than the test takes however slow the machine is.
eht-hosts --listen 127.0.0.1:0 --textfile "$work/eht.prom" -d 3600 >"$work/out" 2>"$work/err" & eht=$!
port=""
serving() {
	port=$(sed -n 's|^eht-hosts: metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$work/err")
	[ -n "$port" ] && [ "$(scrape 2>/dev/null | sample bareatom_eht_up)" = 1 ]
}
wait_until 300 "eht-hosts to serve its metrics" serving
is "$(scrape | sample bareatom_eht_up)" 1 "eht-hosts --listen 127.0.0.1:0 serves on port $port"
is "$(scrape | grep -c '^bareatom_eht_hosts{')" 0 "no hosts yet: no series"

send h1 allow $G $S1 $S2
send h2 is_ex $G $S3
send h3 is_in $G $S2
body=$(scrape)
is "$(served_groups <<<"$body" | paste -sd';')" "p1 $G 2;p2 $G 1" \
	"hosts{port,group}: h1 and h2 behind p1, h3 on p2"
is "$(served_groups <<<"$body" | paste -sd';')" "$(pinned_groups | paste -sd';')" \
	"the same as eht-hosts -s reads from the pins"
js=$(eht-hosts -s -j)
for e in host_create host_destroy host_filter_mode set_entry_create set_entry_delete fast_leave; do
	is "$(sample "bareatom_eht_events_total{event=\"$e\"}" <<<"$body")" "$(jq -r ".events.br_eht_$e" <<<"$js")" \
		"events{event=$e} equals the pinned counter"
done
is "$(sample 'bareatom_eht_events_total{event="host_create"}' <<<"$body")" 3 "three hosts created"
is "$(sample bareatom_eht_hosts_lost_total <<<"$body")" 0 "no host lost"
printf '%s\n' "$body" >"$work/served.prom"
if [ -x $promtool ]; then
	out=$($promtool check metrics <"$work/served.prom" 2>&1)
	ok $? "promtool check metrics passes the exposition${out:+: $out}"
else
	ok 1 "promtool check metrics: no $promtool (run under tests/run-all, which shares it)"
fi
scrape 'application/openmetrics-text' >"$work/served.om"
is "$(tail -n1 "$work/served.om")" "# EOF" "OpenMetrics when asked"
out=$("$(dirname "$0")/om-check" "$work/served.om" 2>&1); rc=$?
if [ $rc = 2 ]; then
	ok 1 "the OpenMetrics reference parser: $out (run under tests/run-all; make prom-share)"
else
	ok $rc "the OpenMetrics reference parser passes the OpenMetrics exposition${out:+: $out}"
fi

send h3 leave $G
body=$(scrape)
is "$(served_groups <<<"$body" | paste -sd';')" "p1 $G 2" "fast leave deleted p2's group: its series is gone"
is "$(sample 'bareatom_eht_events_total{event="host_destroy"}' <<<"$body")" 1 "host_destroy 1"

kill -INT $eht; wait $eht
is "$?" 0 "eht-hosts ends with status 0"
is "$(served_groups <"$work/eht.prom" | paste -sd';')" "p1 $G 2" "the textfile holds the final table"
is "$(sample 'bareatom_eht_events_total{event="host_create"}' <"$work/eht.prom")" 3 "and the final counts"

err_case 2 "cannot resolve 'no-such-host.invalid'" "eht-hosts --listen of a name that does not resolve" eht-hosts --listen no-such-host.invalid:1
err_case 2 "-s prints the running eht-hosts' table" "eht-hosts -s --listen" eht-hosts -s --listen 127.0.0.1:1
err_case 2 "an empty path" "eht-hosts --textfile ''" eht-hosts --textfile ''
cleanup
rm -rf "$work"
done_testing
