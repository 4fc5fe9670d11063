#!/bin/bash
# Pin ownership (src/pins.c) for tpstat --pin and eht-hosts: a SIGKILLed owner's pins are
# removed by the next run (its links detached, with one notice), and of two instances
# started together exactly one owns the pins: the other exits 1 with one line naming it and
# removes nothing; the winner's pins stay while it runs and go when it exits.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
TP=/sys/fs/bpf/bareatom/tpstat
EHT=/sys/fs/bpf/bareatom/eht
tmp=$(mktemp -d)
trap 'touch "$tmp"/go; wait; rm -rf "$tmp"' EXIT

# wait_for PATH: until PATH exists (bounded: the loads are slow under TCG)
wait_for() { wait_until 600 "$1 to be pinned" test -e "$1"; }
# one_exited A B: one of the two pids has exited; win is the other, lose that one
one_exited() {
	if ! kill -0 "$1" 2>/dev/null; then win=$2 lose=$1
	elif ! kill -0 "$2" 2>/dev/null; then win=$1 lose=$2
	else return 1
	fi
}
# links_on TP: how many BPF links are attached to raw tracepoint TP
links_on() { bpftool -j link show | jq --arg t "$1" '[.[] | select(.tp_name == $t)] | length'; }
# link_ids_on TP: their ids, sorted, comma separated
link_ids_on() { bpftool -j link show | jq -r --arg t "$1" '[.[] | select(.tp_name == $t) | .id] | sort | map(tostring) | join(",")'; }
# pinned_count: the total the pinned tpstat counters hold for tracepoint 0
pinned_count() {
	bpftool -j map dump pinned $TP/counts |
		jq '[.[].formatted | select(.key < 320 * 8 and .key % 8 == 0) | .value] | add'
}
# one_line FILE: FILE holds exactly one line
one_line() { [ "$(wc -l <"$1")" = 1 ]; }
# held CMD...: runs CMD until $tmp/go exists (what the instances count around)
held='while [ ! -e '"$tmp"'/go ]; do sleep 0.05; done'

# ------------------------------------------------------------ tpstat: a SIGKILLed owner
tpstat --pin tpgen_a >/dev/null 2>&1 &
dead=$!
wait_for $TP/link_tpgen_a
ok $? "tpstat --pin pinned its link"
old=$(bpftool -j link show pinned $TP/link_tpgen_a | jq .id)
kill -9 $dead
wait $dead 2>/dev/null
[ -e $TP/link_tpgen_a ] && [ -e $TP/counters ]
ok $? "a SIGKILLed tpstat --pin leaves its pins"
c0=$(pinned_count)
echo tpgen_a 40 > $TPGEN/fire
is "$(( $(pinned_count) - c0 ))" 40 "its pinned link keeps counting after it died"

out=$(tpstat -o /dev/stdout -j --pin tpgen_a -- sh -c "echo tpgen_a 25 > $TPGEN/fire" 2>"$tmp/err")
ok $? "the next tpstat --pin runs"
is "$(cat "$tmp/err")" "tpstat: removing the stale pins under $TP of pid $dead, which is gone" \
	"and says in one line that it removed the dead one's pins"
is "$(grep '"final":true' <<<"$out" | jq '.tracepoints[0].count')" 25 "it counts exactly what was fired"
is "$(bpftool -j link show | jq --argjson id "$old" '[.[] | select(.id == $id)] | length')" 0 \
	"the dead one's link (id $old) is gone from bpftool link show"
is "$(links_on tpgen_a)" 0 "no link is left on tpgen_a"
[ ! -e $TP ]
ok $? "its own pins are removed on exit"

out=$(tpstat -o /dev/null -j --pin tpgen_a -- true 2>&1 >/dev/null)
is "$out" "" "after a clean exit the next tpstat --pin has nothing to remove"

# ------------------------------------------------------------ tpstat: two at once
# race_tpstat N: two tpstat -a --pin (system wide: the test fires) started together, each counting until $tmp/go; the
# stale pins of a SIGKILLed one are there too when N is odd
race_tpstat() {
	local r=$1 pa pb win lose dead="" c
	rm -f "$tmp"/go
	if [ $((r % 2)) = 1 ]; then
		tpstat --pin tpgen_a >/dev/null 2>&1 &
		dead=$!
		wait_for $TP/link_tpgen_a
		kill -9 $dead
		wait $dead 2>/dev/null
	fi
	tpstat -o /dev/stdout -a -j --pin tpgen_a -- sh -c "$held" >"$tmp/a.out" 2>"$tmp/a.err" &
	pa=$!
	tpstat -o /dev/stdout -a -j --pin tpgen_a -- sh -c "$held" >"$tmp/b.out" 2>"$tmp/b.err" &
	pb=$!
	# The loser exits at once; the winner waits for go. Bounded, in case both won.
	wait_until 600 "one of two tpstat --pin to exit" one_exited $pa $pb
	if [ -z "$win" ]; then
		ok 1 "round $r: one of two tpstat --pin exits (both were still running)"
		touch "$tmp"/go
		wait $pa $pb
		return
	fi
	kill -0 $win 2>/dev/null
	ok $? "round $r: of two tpstat --pin at once, one runs on"
	wait $lose
	is "$?" 1 "round $r: of two tpstat --pin at once, the loser exits 1"
	w=$([ $win = $pa ] && echo a || echo b) l=$([ $lose = $pa ] && echo a || echo b)
	one_line "$tmp/$l.err" && grep -qx "tpstat: $TP is in use by another tpstat --pin (pid $win)" "$tmp/$l.err"
	ok $? "round $r: with one line naming the winner: $(cat "$tmp/$l.err")"
	[ -e $TP/counters ] && [ -e $TP/prog_tpgen_a ] && [ -e $TP/link_tpgen_a ]
	ok $? "round $r: the winner's pins are all there after the loser exited"
	is "$(links_on tpgen_a)" 1 "round $r: one link on tpgen_a: the winner's"
	is "$(bpftool -j link show pinned $TP/link_tpgen_a | jq .id)" "$(link_ids_on tpgen_a)" \
		"round $r: and it is the pinned one"
	c=$(pinned_count)
	echo tpgen_a 300 > $TPGEN/fire
	is "$(( $(pinned_count) - c ))" 300 "round $r: the pinned counters are the live winner's"
	touch "$tmp"/go
	wait $win
	is "$?" 0 "round $r: the winner exits 0"
	is "$(grep '"final":true' "$tmp/$w.out" | jq '.tracepoints[0].count')" 300 "round $r: the winner counted the 300"
	if [ -n "$dead" ]; then
		is "$(cat "$tmp/$w.err")" "tpstat: removing the stale pins under $TP of pid $dead, which is gone" \
			"round $r: the winner, only, removed the SIGKILLed one's pins"
	else
		is "$(cat "$tmp/$w.err")" "" "round $r: the winner printed nothing on stderr"
	fi
	[ ! -e $TP ]
	ok $? "round $r: the winner's pins are removed when it exits"
	is "$(links_on tpgen_a)" 0 "round $r: no link is left on tpgen_a"
}
for r in 1 2 3 4; do race_tpstat $r; done

# ------------------------------------------------------------ eht-hosts: the same
# eht_pins: how many of eht-hosts' 14 pins exist
eht_pins() {
	local n=0 f
	for f in counters hosts; do [ -e $EHT/$f ] && n=$((n + 1)); done
	for f in host_create host_destroy host_filter_mode set_entry_create set_entry_delete fast_leave; do
		[ -e $EHT/prog_$f ] && n=$((n + 1))
		[ -e $EHT/link_$f ] && n=$((n + 1))
	done
	echo $n
}
eht_links() { bpftool -j link show | jq '[.[] | select((.tp_name // "") | startswith("br_eht_"))] | length'; }

race_eht() {
	local r=$1 pa pb win lose dead=""
	rm -f "$tmp"/go
	if [ $((r % 2)) = 1 ]; then
		eht-hosts -d 300 >/dev/null 2>&1 &
		dead=$!
		wait_for $EHT/link_fast_leave
		kill -9 $dead
		wait $dead 2>/dev/null
	fi
	eht-hosts -j -- sh -c "$held" >"$tmp/a.out" 2>"$tmp/a.err" &
	pa=$!
	eht-hosts -j -- sh -c "$held" >"$tmp/b.out" 2>"$tmp/b.err" &
	pb=$!
	wait_until 600 "one of two eht-hosts to exit" one_exited $pa $pb
	if [ -z "$win" ]; then
		ok 1 "eht round $r: one of two eht-hosts exits (both were still running)"
		touch "$tmp"/go
		wait $pa $pb
		return
	fi
	kill -0 $win 2>/dev/null
	ok $? "eht round $r: of two eht-hosts at once, one runs on"
	wait $lose
	is "$?" 1 "eht round $r: of two eht-hosts at once, the loser exits 1"
	w=$([ $win = $pa ] && echo a || echo b) l=$([ $lose = $pa ] && echo a || echo b)
	one_line "$tmp/$l.err" &&
		grep -qx "eht-hosts: another eht-hosts (pid $win) is tracing and owns $EHT; eht-hosts -s shows its table" "$tmp/$l.err"
	ok $? "eht round $r: with one line naming the winner: $(cat "$tmp/$l.err")"
	wait_for $EHT/link_fast_leave
	is "$(eht_pins)" 14 "eht round $r: the winner's 14 pins are there"
	is "$(eht_links)" 6 "eht round $r: six br_eht_ links: the winner's"
	eht-hosts -s -j >/dev/null
	ok $? "eht round $r: eht-hosts -s reads the winner's table"
	touch "$tmp"/go
	wait $win
	is "$?" 0 "eht round $r: the winner exits 0"
	if [ -n "$dead" ]; then
		is "$(cat "$tmp/$w.err")" "eht-hosts: removing the stale pins under $EHT of pid $dead, which is gone" \
			"eht round $r: the winner, only, removed the SIGKILLed one's pins"
	else
		is "$(cat "$tmp/$w.err")" "" "eht round $r: the winner printed nothing on stderr"
	fi
	[ ! -e $EHT ]
	ok $? "eht round $r: the winner's pins are removed when it exits"
	is "$(eht_links)" 0 "eht round $r: no br_eht_ link is left attached"
}
for r in 1 2; do race_eht $r; done

done_testing
