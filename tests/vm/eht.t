#!/bin/bash
# eht-hosts in the guest: a bridge with IGMPv3/MLDv2 snooping and fast leave, hosts in
# network namespaces sending reports (igmp-send) one step at a time. After each step the
# table eht-hosts exports must be exactly what the reports imply, host by host (mode,
# sources, reports, cookie), and each tracepoint must have fired exactly as expected; over
# all steps the counts must equal tpstat's on the same tracepoints. Then: fast leave off
# means no tracking, hosts that predate eht-hosts, -w, bpftool views, stale pins, errors.
#
# Topology (the bridge in the root namespace, everything else in namespaces):
#
#   h1 (10.0.0.1, fe80::1) --+
#                            +-- hub (seg1, no snooping) -- p1 --+
#   h2 (10.0.0.2, fe80::2) --+                                    +-- br0 (IGMPv3, MLDv2)
#   h3 (10.0.0.3) ----------------------------------------- p2 --+
#
# The hosts' kernels have IPv6 off and join nothing, so every report comes from igmp-send,
# which returns only once br0 has snooped its report (it waits for it to come up br0).
# Long last-member and membership intervals keep the bridge's timers out of the test.
. "$(dirname "$0")/../lib/tap.sh"
me=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
PIN=/sys/fs/bpf/bareatom/eht
TPS="br_eht_host_create br_eht_host_destroy br_eht_host_filter_mode br_eht_set_entry_create br_eht_set_entry_delete br_eht_fast_leave"
G=239.1.1.1 G0=239.0.0.9 GA=239.3.3.3 S1=192.0.2.1 S2=192.0.2.2 S3=192.0.2.3
G6=ff3e::1234 S6=2001:db8::1 GL=239.5.5.5

# send NS RECORD...: one report from host NS, snooped by br0 when this returns
send() {
	local ns=$1
	shift
	igmp-send -S br0 -n "$ns" -i eth0 "$@"
}

# The table of the tracing eht-hosts, one "PORT GROUP HOST MODE sources=N reports=N
# cookie=N" per host, sorted, joined with "; ".
rows() {
	jq -r '.hosts[] | "\(.port) \(.group) \(.host) \(.mode) sources=\(.sources) reports=\(.reports) cookie=\(.cookie)"' |
		sort | paste -sd';' | sed 's/;/; /g'
}
sorted() { tr ';' '\n' <<<"$1" | sed 's/^ *//' | grep . | sort | paste -sd';' | sed 's/;/; /g'; }
# "N N N N N N": the events object in tracepoint order
events() { jq -r '[.events[]] | map(tostring) | join(" ")'; }
# named non-zero differences between two event lists, e.g. "host_create=1 set_entry_create=2"
names=(host_create host_destroy host_filter_mode set_entry_create set_entry_delete fast_leave)
delta() {
	local -a a=($1) b=($2)
	local out="" i
	for i in "${!names[@]}"; do
		[ $((b[i] - a[i])) != 0 ] && out="$out ${names[$i]}=$((b[i] - a[i]))"
	done
	echo "${out# }"
}
# how many (*, G) MDB entries br0 has for PORT and GROUP
mdb_has() {
	bridge -j mdb show dev br0 | jq --arg p "$1" --arg g "$2" '[.[].mdb[]? | select(.port == $p and .grp == $g and (has("src") | not))] | length'
}

cleanup() {
	for ns in h1 h2 h3 seg1; do ip netns del $ns 2>/dev/null; done
	ip link del br0 2>/dev/null
	ip link del p1 2>/dev/null
	ip link del p2 2>/dev/null
}

setup() {
	cleanup
	ip link add br0 type bridge mcast_snooping 1 mcast_igmp_version 3 mcast_mld_version 2 \
		mcast_last_member_interval 60000 mcast_membership_interval 60000 || return 1
	for ns in seg1 h1 h2 h3; do
		ip netns add $ns
		ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		ip -n $ns link set lo up
	done
	ip link add p1 type veth peer name uplink netns seg1
	ip link add p2 type veth peer name eth0 netns h3
	for dev in br0 p1 p2; do sysctl -qw net.ipv6.conf.$dev.disable_ipv6=1; done
	ip -n seg1 link add hub type bridge mcast_snooping 0
	ip -n seg1 link add d1 type veth peer name eth0 netns h1
	ip -n seg1 link add d2 type veth peer name eth0 netns h2
	for dev in uplink d1 d2; do ip -n seg1 link set $dev master hub up; done
	ip -n seg1 link set hub up
	for i in 1 2 3; do
		ip -n h$i addr add 10.0.0.$i/24 dev eth0
		ip -n h$i link set eth0 up
	done
	ip link set p1 master br0 up
	ip link set p2 master br0 up
	ip link set br0 up
	bridge link set dev p1 fastleave on || return 1
	[ "$(cat /sys/class/net/p1/brport/multicast_fast_leave)" = 1 ] || return 1
	# p2 gets fast leave after the check that a port without it tracks no hosts.
}

# ---------------------------------------------------------------- the steps
# Run inside "eht-hosts -j -- tpstat -j ... -- eht.t --steps": TAP goes to $STEPS_TAP,
# numbered on from $TAP_START.
prev_ev="0 0 0 0 0 0"
declare -A total
# step NS DESC WANT_ROWS WANT_EVENTS RECORD...
step() {
	local ns=$1 desc=$2 want=$3 wantev=$4 j ev kv
	shift 4
	for kv in $wantev; do total[${kv%=*}]=$(( ${total[${kv%=*}]:-0} + ${kv#*=} )); done
	send "$ns" "$@"
	ok $? "$desc: igmp-send $ns $*"
	j=$(eht-hosts -s -j)
	is "$(rows <<<"$j")" "$(sorted "$want")" "$desc: table"
	ev=$(events <<<"$j")
	is "$(delta "$prev_ev" "$ev")" "$wantev" "$desc: tracepoint hits"
	prev_ev=$ev
}

steps() {
	tap_n=$TAP_START
	# Without fast leave the bridge keeps the group but tracks no host.
	step h3 "p2 without fast leave: no host tracked" "" "" allow $G0 $S1
	is "$(mdb_has p2 $G0)" 1 "p2 without fast leave: the group is in the MDB"
	bridge link set dev p2 fastleave on
	is "$(cat /sys/class/net/p2/brport/multicast_fast_leave)" 1 "fast leave is on for p2 now"

	# IPv4, IGMPv3: every record type, two hosts behind p1, one behind p2. Cookies are
	# drawn in the order hosts are first seen.
	local r1 r2 r3
	r1="p1 $G 10.0.0.1 INCLUDE sources=2 reports=2 cookie=1"
	step h1 "h1 ALLOW {S1,S2}" "$r1" "host_create=1 set_entry_create=2" allow $G $S1 $S2
	is "$(mdb_has p1 $G)" 1 "p1 has the group in the MDB"
	r2="p1 $G 10.0.0.2 INCLUDE sources=2 reports=2 cookie=2"
	step h2 "h2 IS_IN {S2,S3}" "$r1; $r2" "host_create=1 set_entry_create=2" is_in $G $S2 $S3
	# An EXCLUDE host also gets the zero-source entry: 2 set entries, 1 source.
	r3="p2 $G 10.0.0.3 EXCLUDE sources=1 reports=2 cookie=3"
	step h3 "h3 IS_EX {S1}" "$r1; $r2; $r3" "host_create=1 set_entry_create=2" is_ex $G $S1
	r1="p1 $G 10.0.0.1 INCLUDE sources=1 reports=2 cookie=1"
	step h1 "h1 BLOCK {S1} (INCLUDE: drops S1)" "$r1; $r2; $r3" "set_entry_delete=1" block $G $S1
	# A mode change: the kernel drops h2 with its entries and creates it again, then
	# reports the change (which counts as one more report).
	r2="p1 $G 10.0.0.2 EXCLUDE sources=1 reports=3 cookie=4"
	step h2 "h2 TO_EX {S3} (INCLUDE -> EXCLUDE)" "$r1; $r2; $r3" \
		"host_create=1 host_destroy=1 host_filter_mode=1 set_entry_create=2 set_entry_delete=2" to_ex $G $S3
	r2="p1 $G 10.0.0.2 EXCLUDE sources=2 reports=4 cookie=4"
	step h2 "h2 BLOCK {S1} (EXCLUDE: adds S1)" "$r1; $r2; $r3" "set_entry_create=1" block $G $S1
	r2="p1 $G 10.0.0.2 EXCLUDE sources=1 reports=4 cookie=4"
	step h2 "h2 ALLOW {S1} (EXCLUDE: drops S1)" "$r1; $r2; $r3" "set_entry_delete=1" allow $G $S1
	r3="p2 $G 10.0.0.3 INCLUDE sources=1 reports=2 cookie=5"
	step h3 "h3 TO_IN {S2} (EXCLUDE -> INCLUDE)" "$r1; $r2; $r3" \
		"host_create=1 host_destroy=1 host_filter_mode=1 set_entry_create=1 set_entry_delete=2" to_in $G $S2
	# Two records in one report: ALLOW {S3} then BLOCK {S2}.
	r1="p1 $G 10.0.0.1 INCLUDE sources=1 reports=3 cookie=1"
	step h1 "h1 ALLOW {S3} + BLOCK {S2} in one report" "$r1; $r2; $r3" \
		"set_entry_create=1 set_entry_delete=1" allow $G $S3 block $G $S2
	# Leaves: the group stays on p1 while h1 is there, fast leave drops it with the last.
	step h2 "h2 TO_IN {} (leave, h1 stays)" "$r1; $r3" "host_destroy=1 set_entry_delete=2" leave $G
	is "$(mdb_has p1 $G)" 1 "p1 keeps the group while h1 is interested"
	step h1 "h1 BLOCK {S3} (its last source: fast leave)" "$r3" \
		"host_destroy=1 set_entry_delete=1 fast_leave=1" block $G $S3
	is "$(mdb_has p1 $G)" 0 "fast leave removed p1's port group"
	is "$(mdb_has p2 $G)" 1 "p2's port group is still there"
	step h3 "h3 TO_IN {} (leave: fast leave)" "" \
		"host_destroy=1 set_entry_delete=1 fast_leave=1" leave $G
	is "$(mdb_has p2 $G)" 0 "fast leave removed p2's port group"

	# IPv6, MLDv2: a join (EXCLUDE {}), a source join, and both leaving.
	local v1 v2
	v1="p1 $G6 fe80::1 EXCLUDE sources=0 reports=1 cookie=6"
	step h1 "MLDv2 h1 join (TO_EX {})" "$v1" "host_create=1 set_entry_create=1" -s fe80::1 join $G6
	v2="p1 $G6 fe80::2 INCLUDE sources=1 reports=1 cookie=7"
	step h2 "MLDv2 h2 ALLOW {S6}" "$v1; $v2" "host_create=1 set_entry_create=1" -s fe80::2 allow $G6 $S6
	is "$(mdb_has p1 $G6)" 1 "p1 has the IPv6 group in the MDB"

	# While it runs: bpftool sees the pinned table with named fields, and the links.
	local dump
	dump=$(bpftool -j map dump pinned $PIN/hosts)
	is "$(jq -r '[.[0].formatted.key | keys[]] | join(",")' <<<"$dump")" "group,host,ifindex,netns,proto,vid" \
		"bpftool map dump names the key's fields (BTF)"
	is "$(jq -r '[.[0].formatted.value | keys[]] | join(",")' <<<"$dump")" \
		"cookie,first_ns,flags,last_change_ns,mode,pad,port,reports,sources" "bpftool map dump names the value's fields"
	is "$(jq -r '[.[].formatted.value.cookie] | sort | map(tostring) | join(",")' <<<"$dump")" "6,7" \
		"bpftool map dump shows both IPv6 hosts' cookies"
	for tp in $TPS; do
		is "$(bpftool -j link show pinned $PIN/link_${tp#br_eht_} | jq -r .tp_name)" "$tp" "pinned link_${tp#br_eht_} is attached to $tp"
	done
	xl=$(bpftool prog dump xlated pinned $PIN/prog_set_entry_create)
	grep -q 'atomic64_fetch_add' <<<"$xl" && grep -q 'lock \*(u32 \*)' <<<"$xl" && grep -q 'lock \*(u64 \*)' <<<"$xl"
	ok $? "the loaded set_entry_create program has its fetch-add, 32-bit and 64-bit atomic adds"
	out=$(eht-hosts -d 1 2>&1)
	rc=$?
	is "$rc" 1 "a second eht-hosts exits 1"
	grep -q "another eht-hosts (pid [0-9]*) is tracing" <<<"$out"
	ok $? "a second eht-hosts says another one is tracing: $out"

	step h1 "MLDv2 h1 leave (TO_IN {})" "$v2" "host_destroy=1 set_entry_delete=1" -s fe80::1 leave $G6
	step h2 "MLDv2 h2 BLOCK {S6} (fast leave)" "" "host_destroy=1 set_entry_delete=1 fast_leave=1" \
		-s fe80::2 block $G6 $S6
	is "$(mdb_has p1 $G6)" 0 "fast leave removed the IPv6 port group"
	# The expected totals: the sums of what each step expected.
	for n in "${names[@]}"; do echo "${total[$n]:-0}"; done | paste -sd' ' >"$STEPS_EVENTS"
}

# Under "eht-hosts -w": 8192 rows that stay, and two writers adding and deleting 4096 rows
# each as fast as they can (the table is full at times), while -w looks every 0.05 s and
# three eht-hosts -s snapshots are taken. (eht-fill writes the pinned map directly, and says
# "filled" when its stable rows are in: then it churns until the stop file.)
full() {
	local dir=$1
	eht-fill $PIN/hosts 8192 4096 "$dir/stop" 2 >"$dir/fill.out" &
	wait_until 600 "eht-fill to write its 8192 rows" grep -q filled "$dir/fill.out"
	eht-fill $PIN/hosts 0 4096 "$dir/stop" 3 >"$dir/fill2.out" &
	wait_until 600 "the second eht-fill to start churning" grep -q filled "$dir/fill2.out"
	for i in 1 2 3; do eht-hosts -s -j >"$dir/s$i.json"; done
	touch "$dir/stop"
	wait
}

# Under "eht-hosts -j": a full table (16384 rows), then real reports from two hosts that
# cannot be stored, with several events each, and their leaves.
lost() {
	eht-fill $PIN/hosts 16384 >/dev/null || return 1
	send h1 allow $GL $S1 $S2 && send h1 allow $GL $S3 && send h2 is_in $GL $S1 &&
		send h1 leave $GL && send h2 leave $GL
}

case "${1:-}" in
--steps)
	steps >"$STEPS_TAP" 2>&1
	exit 0 ;;
--full)
	full "$2"
	exit ;;
--lost)
	lost
	exit ;;
esac

# ---------------------------------------------------------------- main
tmp=$(mktemp -d)
trap 'cleanup; rm -rf "$tmp"' EXIT
setup
ok $? "topology: br0 with IGMPv3/MLDv2 snooping, p1 (fast leave) with h1 and h2 behind a hub, p2 with h3"

export TAP_START=$tap_n STEPS_TAP=$tmp/steps.tap STEPS_EVENTS=$tmp/steps.events
# shellcheck disable=SC2086
eht-hosts -j -- tpstat -o /dev/stdout -a -j $TPS -- "$me" --steps >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/steps.tap"
tap_n=$((tap_n + $(grep -cE '^(not )?ok ' "$tmp/steps.tap")))
is "$rc" 0 "eht-hosts -j -- tpstat -a -j ... -- steps exits 0"
[ -s "$tmp/err" ] && sed 's/^/# stderr: /' "$tmp/err"
eht=$(grep '"hosts"' "$tmp/out" | tail -n1)
tps=$(grep '"tracepoints"' "$tmp/out" | grep '"final":true')
is "$(jq -r .final <<<"$eht")" true "eht-hosts printed its final JSON line"
is "$(jq -c .hosts <<<"$eht")" "[]" "every host left: the final table is empty"
want=$(cat "$tmp/steps.events" 2>/dev/null)
is "$(events <<<"$eht")" "$want" "eht-hosts' final counts are the sums the steps expected"
i=0
for tp in $TPS; do
	w=$(cut -d' ' -f$((i + 1)) <<<"$want")
	t=$(jq -r --arg n "$tp" '.tracepoints[] | select(.name == $n) | .count' <<<"$tps")
	e=$(jq -r --arg n "$tp" '.events[$n]' <<<"$eht")
	is "$e/$t" "$w/$w" "$tp: eht-hosts and tpstat both count $w"
	i=$((i + 1))
done
is "$(jq -r '"\(.adopted) \(.lost)"' <<<"$eht")" "0 0" "no host adopted, none lost"
[ ! -e $PIN ]
ok $? "eht-hosts removed its pins on exit"

# A host that predates eht-hosts: left behind by a -w run, adopted by the next one.
out=$(eht-hosts -w -- igmp-send -S br0 -n h1 -i eth0 join $GA)
ok $? "eht-hosts -w -- join exits 0"
grep -qE "^[0-9.]+ +new +p1 +$GA +10\.0\.0\.1 +EXCLUDE +0 +1 +1\$" <<<"$out"
ok $? "eht-hosts -w prints the new host"
grep -qE "^br_eht_host_create +1\$" <<<"$out"
ok $? "the table after -w ends with the tracepoints' hits"
out=$(eht-hosts -j -- igmp-send -S br0 -n h1 -i eth0 block $GA $S1 $S2)
ok $? "eht-hosts -j -- block S1 S2 on a host from before exits 0"
is "$(rows <<<"$out")" "p1 $GA 10.0.0.1 EXCLUDE sources=2 reports=2 cookie=1" \
	"the host is adopted with its sources counted from the kernel's list"
is "$(jq -r '"\(.hosts[0].adopted) \(.adopted) \(.events.br_eht_set_entry_create)"' <<<"$out")" "true 1 2" \
	"flagged adopted, counted once, two set entries created"
out=$(eht-hosts -j -- igmp-send -S br0 -n h1 -i eth0 leave $GA)
ok $? "eht-hosts -j -- leave exits 0"
is "$(jq -c '[.hosts, .events.br_eht_set_entry_delete, .events.br_eht_host_destroy, .events.br_eht_fast_leave, .adopted]' <<<"$out")" \
	"[[],3,1,1,0]" "an unseen host's leave: 3 set entries and the host deleted, fast leave, nothing adopted"

# -w -j: valid JSON lines, the last one final.
out=$(eht-hosts -w -j -i 0.1 -- igmp-send -S br0 -n h2 -i eth0 allow $GA $S1)
ok $? "eht-hosts -w -j -- allow exits 0"
printf '%s\n' "$out" | jq -e . >/dev/null
ok $? "every -w -j line is valid JSON"
is "$(jq -s -c '[(.[:-1] | all(.final == false)), last.final, (last.hosts | length)]' <<<"$out")" "[true,true,1]" \
	"only the last -w -j line is final, and it has the host"
out=$(eht-hosts -j -- igmp-send -S br0 -n h2 -i eth0 block $GA $S1)
is "$(jq -c '[.hosts, .events.br_eht_fast_leave]' <<<"$out")" "[[],1]" "h2 leaves $GA (fast leave)"

# A host's lifetime, from its create to its destroy tracepoint: tpstat --latency keyed by the
# host's own pointer. Two hosts, one kept 200 ms and one 100 ms (the sleeps are what is
# measured), each gone by fast leave: each lifetime is at least that, and no longer than
# the whole run (how much longer igmp-send takes is the machine's).
life="igmp-send -S br0 -n h1 -i eth0 join $GA; sleep 0.2; igmp-send -S br0 -n h1 -i eth0 leave $GA
igmp-send -S br0 -n h2 -i eth0 join $GA; sleep 0.1; igmp-send -S br0 -n h2 -i eth0 leave $GA"
t0=${EPOCHREALTIME/./}
out=$(tpstat -o /dev/stdout -a -j --latency 'br_eht_host_create:eht_host,br_eht_host_destroy:eht_host' -- sh -c "$life")
ok $? "tpstat --latency br_eht_host_create:eht_host,br_eht_host_destroy:eht_host over two hosts"
run_ns=$(((${EPOCHREALTIME/./} - t0) * 1000))
l=$(grep '"final":true' <<<"$out" | jq -c '.tracepoints[] | select(.name == "br_eht_host_destroy") | .latency[0]')
is "$(jq -c '[.samples, .matched, .no_start, .replaced, .open, .dropped, .start_errors, .end_errors]' <<<"$l")" \
	"[2,2,0,0,0,0,0,0]" "two lifetimes, both matched, nothing else"
is "$(jq --argjson run "$run_ns" '.min >= 100000000 and .max <= $run' <<<"$l")" true \
	"each at least the 100 ms the host was kept, at most the run's $run_ns ns ($(jq -c '[.min, .max]' <<<"$l") ns)"

# A nearly full table while rows come and go: snapshots are complete, -w invents nothing.
mkdir "$tmp/full"
eht-hosts -w -i 0.05 -- "$me" --full "$tmp/full" >"$tmp/full/w.out" 2>"$tmp/full/err"
ok $? "eht-hosts -w -i 0.05 -- 8192 rows, 2 x 4096 more added and deleted meanwhile exits 0"
diag "$(cat "$tmp/full/fill.out" "$tmp/full/fill2.out" | grep churned | paste -sd' ')"
for i in 1 2 3; do
	is "$(jq -r '[.hosts[] | select(.group == "239.9.0.1") | .host] | "\(length) \(unique | length)"' "$tmp/full/s$i.json")" \
		"8192 8192" "eht-hosts -s of a table with 8192 rows that stay while 8192 churn ($i): each of them, once"
done
fillrows() { grep -E "^[0-9.]+ +$1 +fill +239\.9\.0\.1 " "$tmp/full/w.out"; }
is "$(fillrows new | awk '{ print $5 }' | sort -u | wc -l)/$(fillrows new | wc -l)" 8192/8192 \
	"-w prints each of the 8192 rows that stay as new exactly once"
is "$(fillrows gone | wc -l)/$(fillrows change | wc -l)" 0/0 "-w prints no false gone or change lines for them"
is "$(grep -cE "^fill +239\.9\.0\.1 " "$tmp/full/w.out")" 8192 "the final table has the 8192 rows"

# A full table: each host that does not fit is counted lost once, not at each event.
out=$(eht-hosts -j -- "$me" --lost)
ok $? "eht-hosts -j -- fill 16384 rows, then reports from 2 hosts exits 0"
is "$(jq -c '[.lost, (.hosts | length), .events.br_eht_host_create, .events.br_eht_set_entry_create]' <<<"$out")" \
	"[2,16384,2,4]" "2 hosts lost (one with 3 set entries, one with 1), each counted once; the table holds the 16384 rows"
is "$(jq -r '[.hosts[] | select(.port != "fill")] | length' <<<"$out")" 0 "no real host made it into the full table"

# Stale pins: a killed eht-hosts leaves pins that keep its programs attached.
eht-hosts -d 300 >/dev/null 2>&1 &
pid=$!
wait_until 600 "eht-hosts to pin its links" test -e $PIN/link_fast_leave
kill -9 $pid
wait $pid 2>/dev/null
[ -e $PIN/hosts ]
ok $? "a killed eht-hosts leaves its pins"
out=$(eht-hosts -j -- true 2>&1 >/dev/null)
ok $? "the next eht-hosts starts anyway"
grep -q "removing the stale pins under $PIN of pid $pid" <<<"$out"
ok $? "and says it removed the stale pins: $out"
is "$(bpftool -j link show | jq '[.[] | select((.tp_name // "") | startswith("br_eht_"))] | length')" 0 \
	"no br_eht_ link is left attached"

# Errors.
out=$(eht-hosts -s 2>&1)
rc=$?
is "$rc" 1 "eht-hosts -s with none tracing exits 1"
grep -q "no eht-hosts is tracing" <<<"$out"
ok $? "and says so: $out"
out=$(eht-hosts -j -- false 2>&1 >/dev/null)
rc=$?
is "$rc" 1 "a failing CMD makes eht-hosts exit 1"
grep -q "'false' exited with status 1" <<<"$out"
ok $? "and says so: $out"
out=$(eht-hosts -i 1 2>&1)
is "$?" 2 "-i without -w is a usage error (exit 2): $out"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- eht-hosts -d 1 2>&1)
is "$?" 2 "eht-hosts as nobody exits 2"
is "$(wc -l <<<"$out")/$(grep -c 'permission denied: tracing needs root' <<<"$out")" 1/1 \
	"with one line saying why: $out"

done_testing
