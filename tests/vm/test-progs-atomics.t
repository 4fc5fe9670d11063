#!/bin/bash
# The kernel's own run-time test of the BPF atomic instructions against our kernel:
# `test_progs -t atomics` (tools/testing/selftests/bpf/prog_tests/atomics.c) runs the programs
# of progs/atomics.c, compiled by clang -mcpu=v3 -DENABLE_ATOMICS_TESTS, with BPF_PROG_TEST_RUN
# and checks every value they leave. Each subtest must be OK, none skipped: without atomics
# support in clang the whole test would be skipped, which is a failure here.
. "$(dirname "$0")/../lib/tap.sh"
dir=/usr/lib/bareatom/tests/selftests
subtests=$dir/atomics-subtests

[ -x "$dir/test_progs" ] && [ -s "$subtests" ] && [ -f "$dir/bpf_testmod.ko" ]
ok $? "test_progs, bpf_testmod.ko and the list of atomics subtests are installed in $dir"
if [ ! -x "$dir/test_progs" ] || [ ! -s "$subtests" ]; then done_testing; exit 1; fi
n=$(wc -l <"$subtests")

# test_progs loads bpf_testmod.ko from its working directory (and unloads it at exit).
out=$(cd "$dir" && ./test_progs -t atomics 2>&1)
rc=$?
is "$rc" 0 "test_progs -t atomics exit status"
while read -r name; do
	grep -qE "^#[0-9]+/[0-9]+ +atomics/$name:OK$" <<<"$out"
	ok $? "atomics/$name: OK"
done <"$subtests"
grep -qE '^#[0-9]+ +atomics:OK$' <<<"$out"
ok $? "atomics: OK"
is "$(grep '^Summary: ' <<<"$out")" "Summary: 1/$n PASSED, 0 SKIPPED, 0 FAILED" "test_progs summary"
if [ "$rc" != 0 ] || ! grep -q "^Summary: 1/$n PASSED, 0 SKIPPED, 0 FAILED$" <<<"$out"; then
	sed 's/^/#   /' <<<"$out" | head -n 60
	(cd "$dir" && ./test_progs -v -t atomics 2>&1) | grep -E 'FAIL|SKIP|ERROR' | head -n 40 | sed 's/^/#   /'
fi
done_testing
