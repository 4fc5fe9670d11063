#!/bin/bash
# tpstat, unchanged, on Debian's stock kernel: its BPF object was compiled against our kernel's
# vmlinux.h, and CO-RE relocates it to this kernel's BTF. Counting, listing, and the errors for
# tracepoints this kernel does not have (our patch's br_eht_*, the tpgen module's).
. "$(dirname "$0")/../lib/tap.sh"
final() { grep '"final":true' <<<"$1"; }
field() { final "$1" | jq -r ".tracepoints[] | select(.name == \"$2\") | $3"; }

work='for i in $(seq 50); do /bin/true; done; dd if=/dev/zero bs=4k count=2000 status=none | cat >/dev/null'
out=$(tpstat -o /dev/stdout -j sched_switch pelt_cfs_tp -- sh -c "$work")
ok $? "tpstat -j sched_switch pelt_cfs_tp -- CMD exits 0"
printf '%s\n' "$out" | jq -e . >/dev/null
ok $? "its output is valid JSON"
for tp in sched_switch pelt_cfs_tp; do
	c=$(field "$out" $tp .count)
	[ "${c:-0}" -gt 0 ]
	ok $? "$tp counted under a workload ($c)"
done
is "$(field "$out" pelt_cfs_tp .bare)/$(field "$out" sched_switch .bare)" "true/false" "pelt_cfs_tp bare, sched_switch not"
n=$(field "$out" sched_switch '.cpus | length')
[ "${n:-0}" -ge 1 ] && [ "$n" -le "$(nproc)" ]
ok $? "sched_switch CPU set has 1..$(nproc) CPUs ($n)"

# Table output too.
out=$(tpstat -o /dev/stdout sched_switch -- sh -c "$work")
grep -qE '^ +sched_switch +event ' <<<"$out"
ok $? "table output lists sched_switch as an event"

# -l lists this kernel's raw tracepoints from its BTF.
list=$(tpstat -l)
ok $? "tpstat -l exits 0 ($(wc -l <<<"$list") lines)"
grep -qE '^pelt_cfs_tp +bare +vmlinux$' <<<"$list"
ok $? "tpstat -l marks pelt_cfs_tp bare"
grep -qE '^sched_switch +event +vmlinux$' <<<"$list"
ok $? "tpstat -l marks sched_switch as an event"
grep -qE '^br_eht_' <<<"$list"
is "$?" 1 "tpstat -l lists no br_eht_* tracepoint (not in this kernel)"
grep -qE '^tpgen_' <<<"$list"
is "$?" 1 "tpstat -l lists no tpgen tracepoint (no tpgen module for this kernel)"
# The PELT tracepoints differ between kernels (6.9 renamed pelt_thermal_tp to pelt_hw_tp): the
# list is this kernel's btf_trace_pelt_* types, which hold one of the two names.
# (The names are read from BTF's string section directly: bpftool's dump takes seconds here.)
pelt=$(tr '\0' '\n' </sys/kernel/btf/vmlinux | sed -n 's/^btf_trace_\(pelt_[a-z_]*\)$/\1/p' | LC_ALL=C sort -u | paste -sd,)
[[ ,$pelt, == *,pelt_cfs_tp,*,pelt_se_tp,* && ,$pelt, =~ ,pelt_(thermal|hw)_tp, ]]
ok $? "this kernel's BTF has the PELT tracepoints ($pelt)"
is "$(tpstat -l -j 'pelt_*' | jq -r 'map(.name) | sort | join(",")')" "$pelt" "tpstat -l -j GLOB filters, valid JSON"

# Module tracepoints: 9p is a module on Debian's kernels (built in on ours), and the runner's
# run directory is a 9p mount, so reading it fires 9pnet's events. Their prototypes and
# fields come from the module's own BTF; every request has its response, in the same task.
grep -qE '^9p_client_req +event +9pnet$' <<<"$list"
ok $? "tpstat -l lists 9pnet's 9p_client_req as a module's event"
is "$(tpstat -lv 9p_client_req | tail -n1)" "event 9pnet        9p_client_req(struct p9_client *clnt, int8_t type, int tag)" \
	"tpstat -lv 9p_client_req: the prototype from 9pnet's BTF"
out=$(tpstat -o /dev/stdout -j --by 9p_client_req:type 9p_client_req 9p_client_res -- \
	sh -c 'for i in $(seq 20); do ls /run/bareatom-vm >/dev/null; done')
ok $? "tpstat --by 9p_client_req:type 9p_client_req 9p_client_res -- CMD (listing a 9p directory)"
req=$(field "$out" 9p_client_req .count) res=$(field "$out" 9p_client_res .count)
[ "${req:-0}" -ge 20 ] && [ "$req" = "$res" ]
ok $? "requests counted, one response each ($req requests, $res responses)"
b=$(final "$out" | jq -c '.tracepoints[] | select(.name == "9p_client_req") | {count, by: .by[0]}')
is "$(jq '([.by.entries[].count] | add) + .by.other + .by.dropped + .by.errors == .count' <<<"$b")" true \
	"--by type: the message types add up to the count ($(jq -c '[.by.entries[] | [.key, .count]]' <<<"$b"))"
# Every ls makes the same requests (open, walk, getattr, readdir, clunk), and nothing else in
# CMD's tree touches 9p: each type's count is a multiple of the 20 listings.
is "$(jq '[.by.entries[].count % 20] | add' <<<"$b")/$(jq '.by.other + .by.dropped + .by.errors' <<<"$b")" 0/0 \
	"--by type: each type's count a multiple of the 20 listings, nothing unaccounted"

# Several tracepoints, each counted in its own index by a copy of the program with the index
# patched in (tpstat_0, tpstat_1, ...), on every kernel: on 6.10+ too, where one program could
# serve all three through the attach cookie, a copy each keeps each row's misses its own.
# CMD's tree forks 20 times and execs 21 times, and its exits are none of a task target's
# events (tpstat(8), Targets): three counts that differ, exact.
# The tree waits on a FIFO with shell builtins alone, so that it forks nothing more.
rel=$(uname -r)
tree='i=0; while [ $i -lt 20 ]; do /bin/true; i=$((i + 1)); done; read x </tmp/tpstat-go'
rm -f /tmp/tpstat-go && mkfifo /tmp/tpstat-go
tps=(sched_process_fork sched_process_exec sched_process_exit)
tpstat -o /tmp/tpstat-three -j "${tps[@]}" -- sh -c "$tree" &
tp=$!
links() {	# "prog_id prog_name tp_name" of tpstat's counting links on the three: not
		# tpstat_fork's (tp_btf), nor other programs there (cookie-gend's cookie_fork)
	bpftool -j link show | jq -r '.[] | select(.tp_name != null) |
		select(.tp_name | test("^sched_process_(fork|exec|exit)$")) | "\(.prog_id) \(.tp_name)"' |
	while read -r id tp; do
		name=$(bpftool -j prog show id "$id" | jq -r .name)
		case $name in tpstat_[0-9]* | tpstat_hist_[0-9]*) echo "$id $name $tp" ;; esac
	done
}
three() { [ "$(links | wc -l)" = 3 ]; }
wait_until 300 "tpstat's three links" three
l=$(links)
names=$(awk '{ print $2 }' <<<"$l" | sort -u | paste -sd' ')
is "$(awk '{ print $1 }' <<<"$l" | sort -u | wc -l)/$names" "3/tpstat_0 tpstat_1 tpstat_2" \
	"Linux $rel: a copy of the program for each of the three"
echo go >/tmp/tpstat-go
wait $tp
ok $? "tpstat ${tps[*]} -- CMD exits 0"
out=$(cat /tmp/tpstat-three)
is "$(final "$out" | jq -r '[.tracepoints[] | .count] | map(tostring) | join("/")')" "20/21/0" \
	"each counted in its own index: 20 forks, 21 execs, no exit"

# 'sched:*': every sched event of this kernel, one row each.
want=$(ls /sys/kernel/tracing/events/sched | grep -v -e '^enable$' -e '^filter$' | LC_ALL=C sort |
	grep -Fxf <(tpstat -l -j | jq -r '.[].name'))
out=$(tpstat -o /dev/stdout -j -a -d 1 'sched:*')
ok $? "tpstat -j -a -d 1 'sched:*' exits 0"
is "$(final "$out" | jq -r '.tracepoints[].name')" "$want" "'sched:*' counts every sched event ($(wc -l <<<"$want"))"
c=$(field "$out" sched_switch .count)
[ "${c:-0}" -gt 0 ]
ok $? "sched_switch counted among them ($c)"

# Stacks, user ones too: CO-RE relocates the exec tracking (struct linux_binprm, file, dentry,
# mount) to this kernel's layout. Every execve of CMD's tree is in a stack or a bucket.
out=$(tpstat -o /dev/stdout -j --by sys_enter:comm,kstack,ustack --filter 'sys_enter:id == 59' \
	sys_enter -- sh -c '/bin/true; /bin/true')
ok $? "tpstat --by sys_enter:comm,kstack,ustack --filter 'sys_enter:id == 59' -- CMD exits 0"
b=$(final "$out" | jq -c '.tracepoints[] | select(.name == "sys_enter") | {count, by: .by[0]}')
is "$(jq '([.by.stacks[].count] | add) + .by.other + .by.truncated + .by.map_full +
	.by.collision + .by.no_ustack + .by.read_error == .count and .count >= 2' <<<"$b")" true \
	"its execve calls ($(jq .count <<<"$b")) all in stacks or buckets"

# Tracepoints this kernel lacks: exit 2 and one line naming the cause.
err_case 2 "unknown tracepoint 'br_eht_host_create'" "our patch's bare tracepoint is unknown here" tpstat br_eht_host_create
err_case 2 "unknown tracepoint 'tpgen_a'" "tpgen's tracepoint is unknown here" tpstat tpgen_a
err_case 2 "unknown tracepoint 'br_eht_fast_leave'" "unknown even with a command to run" tpstat br_eht_fast_leave -- true
done_testing
