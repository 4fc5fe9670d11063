#!/bin/bash
# tpstat's fields on Debian's stock kernel: the same binary resolves the expressions against
# this kernel's BTF (its struct layouts, not ours), so -lv, --hist of pelt_cfs_tp's util_avg
# and its named field, and --by comm work here too, with samples = count; a member this
# kernel lacks is refused naming what it has.
. "$(dirname "$0")/../lib/tap.sh"
final() { grep '"final":true' <<<"$1"; }
work='for i in $(seq 50); do /bin/true; done; dd if=/dev/zero bs=4k count=2000 status=none | cat >/dev/null'

is "$(tpstat -lv pelt_cfs_tp | tail -n1)" "bare  vmlinux      pelt_cfs_tp(struct cfs_rq *cfs_rq)" \
	"tpstat -lv pelt_cfs_tp: the prototype from this kernel's BTF"
out=$(tpstat -o /dev/stdout -a -j --hist 'pelt_cfs_tp:cfs_rq->avg.util_avg' --hist pelt_cfs_tp:util \
	--by sched_switch:comm -- sh -c "$work")
ok $? "tpstat --hist pelt_cfs_tp:cfs_rq->avg.util_avg --hist pelt_cfs_tp:util --by sched_switch:comm"
h=$(final "$out" | jq -c '.tracepoints[] | select(.name == "pelt_cfs_tp") | {count, a: .hist[0], b: .hist[1]}')
is "$(jq '.count > 0 and .a.samples + .a.errors == .count and .a.errors == 0' <<<"$h")" true \
	"samples = count ($(jq .count <<<"$h")), no read failed"
is "$(jq '.a.min >= 0 and .a.max < 65536' <<<"$h")" true "util_avg a PELT value, in [0, 64 x 1024) ($(jq -c '[.a.min, .a.max]' <<<"$h"))"
is "$(jq '.a.buckets == .b.buckets' <<<"$h")" true "the named field util is the same expression"
b=$(final "$out" | jq -c '.tracepoints[] | select(.name == "sched_switch") | {count, by: .by[0]}')
is "$(jq '([.by.entries[].count] | add) + .by.other + .by.dropped + .by.errors == .count' <<<"$b")" true \
	"--by comm: the keys + other + dropped = sched_switch's count ($(jq .count <<<"$b"))"
err_case 2 "struct cfs_rq has no member 'nope' on this kernel; its members: load, nr_running" \
	"an unknown member lists this kernel's" tpstat --hist 'pelt_cfs_tp:cfs_rq->nope'
done_testing
