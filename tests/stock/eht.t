#!/bin/bash
# eht-hosts on Debian's stock kernel, which has no bridge EHT tracepoints (they come from our
# kernel patch): one line saying so and exit 1, nothing attached, nothing pinned.
. "$(dirname "$0")/../lib/tap.sh"
out=$(eht-hosts -d 1 2>&1); rc=$?
is "$rc" 1 "eht-hosts exits 1"
grep -q "has no bridge EHT tracepoints (br_eht_\*): they come from bareatom's kernel patch" <<<"$out" &&
	[ "$(wc -l <<<"$out")" = 1 ]
ok $? "and says in one line why: $out"
[ ! -e /sys/fs/bpf/bareatom/eht ]
ok $? "nothing is left pinned"
done_testing
