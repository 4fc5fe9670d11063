#!/bin/bash
# The portability boot really runs Debian's stock kernel, with BTF, and not ours: otherwise the
# other tests in tests/stock/ would prove nothing about compile once, run everywhere.
. "$(dirname "$0")/../lib/tap.sh"
rel=$(uname -r)
diag "$(cat /proc/version)"
grep -q ' Debian ' /proc/version
ok $? "the kernel is a Debian build ($rel)"
ours=$(ls -d /usr/lib/modules/*/extra 2>/dev/null | awk -F/ '{ print $(NF - 1) }' | paste -sd,)
[ -n "$ours" ] && [ "$ours" != "$rel" ]
ok $? "it is not the kernel the suite was built for ($ours)"
[ -s /sys/kernel/btf/vmlinux ]
ok $? "it has BTF (/sys/kernel/btf/vmlinux, $(stat -c %s /sys/kernel/btf/vmlinux) bytes)"
# No patch of ours in it: the EHT bare tracepoints have no BTF type here.
bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "'btf_trace_pelt_cfs_tp'"
ok $? "its BTF has the scheduler's bare tracepoint types (btf_trace_pelt_cfs_tp)"
bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "'btf_trace_br_eht_host_create'"
is "$?" 1 "its BTF has no btf_trace_br_eht_* types (our kernel patch is not in it)"
done_testing
