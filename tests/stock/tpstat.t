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

# Tracepoints this kernel lacks: exit 2 and one line naming the cause.
err_case 2 "unknown tracepoint 'br_eht_host_create'" "our patch's bare tracepoint is unknown here" tpstat br_eht_host_create
err_case 2 "unknown tracepoint 'tpgen_a'" "tpgen's tracepoint is unknown here" tpstat tpgen_a
err_case 2 "unknown tracepoint 'br_eht_fast_leave'" "unknown even with a command to run" tpstat br_eht_fast_leave -- true
done_testing
