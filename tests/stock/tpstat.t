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
is "$(tpstat -l -j 'pelt_*' | jq -r 'map(.name) | sort | join(",")')" \
	"pelt_cfs_tp,pelt_dl_tp,pelt_irq_tp,pelt_rt_tp,pelt_se_tp,pelt_thermal_tp" "tpstat -l -j GLOB filters, valid JSON"

# Tracepoints this kernel lacks: exit 2 and one line naming the cause.
err_case 2 "unknown tracepoint 'br_eht_host_create'" "our patch's bare tracepoint is unknown here" tpstat br_eht_host_create
err_case 2 "unknown tracepoint 'tpgen_a'" "tpgen's tracepoint is unknown here" tpstat tpgen_a
err_case 2 "unknown tracepoint 'br_eht_fast_leave'" "unknown even with a command to run" tpstat br_eht_fast_leave -- true
done_testing
