#!/bin/bash
# Plain updates lose nothing (bpf/tpstat_update.h). On this kernel tpstat's programs update the
# memory one program owns on one CPU with plain loads and stores, and tpgen's nest mode fires
# tpgen_a from a hardirq while a task loop fires it on the same CPU: a nested run that got in
# between a load and its store would lose an update. Every path must still add up exactly:
# count + missed = fired, histogram samples = count, each --by's counts = count, count +
# filtered + missed = fired, and the sums lie between the task loop's alone and that plus
# every timer fire. A second program (hrtimer_expire_entry, in the same hardirq) nests into
# tpgen_a's, on counters of the same cache line.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
N=100000
final() { grep '"final":true' <<<"$1"; }
tp() { final "$out" | jq -rc ".tracepoints[] | select(.name == \"$1\") | $2"; }
nest() {	# TPSTAT_ARGS...: tpstat -a -j ARGS over one nest fire of N on CPU 0: out, f, t
	local a0
	a0=$(tpgen_stat tpgen_a)
	out=$(tpstat -o /dev/stdout -a -j "$@" -- taskset -c 0 sh -c "echo tpgen_a $N nest > $TPGEN/fire")
	ok $? "tpstat -a -j $* over tpgen_a $N nest"
	f=$(( $(tpgen_stat tpgen_a) - a0 ))
	t=$(sed -n 's/.* timer=\([0-9]*\) .*/\1/p' "$TPGEN/last")
	c=$(tp tpgen_a .count) m=$(tp tpgen_a .missed)
	diag "fired $f ($t by the timer), count $c, missed $m"
	missed=$((missed + m))
}
# The task loop's seq 1..N always counts (an outer run is never refused); a timer fire of
# seq 1..t may be missed: a sum lies in [N(N+1)/2, N(N+1)/2 + t(t+1)/2].
sum_ok() { [ "$1" -ge $((N * (N + 1) / 2)) ] && [ "$1" -le $((N * (N + 1) / 2 + t * (t + 1) / 2)) ]; }
missed=0

line=$(tpstat -v -o /dev/null -a tpgen_a -- true 2>&1 >/dev/null | grep '^tpstat: .* updates')
is "$line" "tpstat: plain updates where one program owns the memory: this kernel ($(uname -r)) refuses a raw_tp program's nested run (bpf_prog_inc_misses_counter is in its BTF)" \
	"-v says the programs update plainly, and why"

nest tpgen_a hrtimer_expire_entry
is $((c + m)) "$f" "count: count + missed = fired, exactly"
[ "$(tp hrtimer_expire_entry .count)" -ge "$t" ]
ok $? "a second program nested in tpgen_a's counted its own events ($(tp hrtimer_expire_entry .count) >= $t timer fires)"

nest --hist tpgen_a:seq
is $((c + m)) "$f" "--hist: count + missed = fired, exactly"
is "$(tp tpgen_a '.hist[0] | [.samples, .errors, .min, .max] | @csv')" "$c,0,1,$N" \
	"--hist: samples = count, no errors, min 1, max $N"
sum_ok "$(tp tpgen_a '.hist[0].sum')"
ok $? "--hist: the sum $(tp tpgen_a '.hist[0].sum') is the task loop's and some of the timer's"

nest --by tpgen_a:cpu --by 'tpgen_a:cpu,ctx->count' --value seq --by 'tpgen_a:ctx->count' --value seq
is $((c + m)) "$f" "--by: count + missed = fired, exactly"
for b in 0 1 2; do
	is "$(tp tpgen_a ".by[$b] | [([.entries[].count] | add), .other, .dropped, .errors] | @csv")" "$c,0,0,0" \
		"--by $(tp tpgen_a ".by[$b].key_expr"): the keys' counts add up to the count"
done
for b in 1 2; do
	is "$(tp tpgen_a ".by[$b].entries[0] | [.min, .max] | @csv")" "1,$N" \
		"--by $(tp tpgen_a ".by[$b].key_expr") --value seq: min 1, max $N"
	sum_ok "$(tp tpgen_a ".by[$b].entries[0].sum")"
	ok $? "--by $(tp tpgen_a ".by[$b].key_expr") --value seq: the sum lies in the range"
done

nest --filter 'tpgen_a:seq & 1' --hist tpgen_a:seq
is $(( c + $(tp tpgen_a .filtered) + $(tp tpgen_a .filter_errors) + m )) "$f" \
	"--filter: count + filtered + filter_errors + missed = fired, exactly"
is "$(tp tpgen_a '.hist[0].samples')" "$c" "--filter: samples = count"
[ "$(tp tpgen_a .count)" -ge $((N / 2)) ] && [ "$(tp tpgen_a .filtered)" -ge $((N / 2)) ]
ok $? "--filter: the task loop's odd seqs counted, its even ones filtered"

# Nesting is what is tested: the kernel refused some nested runs.
[ "$missed" -gt 0 ]
ok $? "the kernel refused nested runs ($missed missed in all)"
done_testing
