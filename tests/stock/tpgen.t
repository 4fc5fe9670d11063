#!/bin/bash
# tpgen is built for our kernel only: on Debian's stock kernel it cannot be loaded, and the
# tools that need it say so instead of failing obscurely.
. "$(dirname "$0")/../lib/tap.sh"
out=$(modprobe tpgen 2>&1); rc=$?
[ "$rc" != 0 ] && grep -q "Module tpgen not found in directory /lib/modules/$(uname -r)" <<<"$out"
ok $? "modprobe tpgen fails: module not found for $(uname -r) (exit $rc)"
[ ! -e /sys/kernel/debug/tpgen ]
ok $? "no /sys/kernel/debug/tpgen"
out=$(counter -- true 2>&1); rc=$?
is "$rc" 1 "counter, whose program attaches to tpgen_a, exits 1"
grep -q "modprobe tpgen" <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ]
ok $? "and says in one line what is missing: $out"
done_testing
