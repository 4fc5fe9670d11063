#!/bin/bash
# tpgen: debugfs control, exact stats, and rejection of bad writes (nothing fired for them).
. "$(dirname "$0")/tap.sh"

modprobe tpgen
ok $? "modprobe tpgen"
[ -w "$TPGEN/fire" ] && [ -r "$TPGEN/stats" ]
ok $? "debugfs has tpgen/fire and tpgen/stats"
[ -d /sys/kernel/btf/tpgen ] || [ -f /sys/kernel/btf/tpgen ]
ok $? "the module has BTF (/sys/kernel/btf/tpgen)"
bpftool btf dump file /sys/kernel/btf/tpgen 2>/dev/null | grep -q "'btf_trace_tpgen_a'"
ok $? "module BTF describes the bare tracepoint (btf_trace_tpgen_a)"
[ ! -e /sys/kernel/tracing/events/tpgen/tpgen_a ] && [ -d /sys/kernel/tracing/events/tpgen/tpgen_event ]
ok $? "tpgen_a is bare (no tracefs event), tpgen_event is an event"

before_a=$(tpgen_stat tpgen_a) before_b=$(tpgen_stat tpgen_b) before_e=$(tpgen_stat tpgen_event)
is "$(write1 "$TPGEN/fire" "tpgen_a 7")" "wrote 9" "fire 'tpgen_a 7' succeeds"
is "$(tpgen_stat tpgen_a)" $((before_a + 7)) "stats count the 7 events"
ncpu=$(nproc)
is "$(write1 "$TPGEN/fire" "tpgen_b 5 all")" "wrote 13" "fire 'tpgen_b 5 all' succeeds"
is "$(tpgen_stat tpgen_b)" $((before_b + 5 * ncpu)) "stats count 5 events on each of $ncpu CPUs"
echo "tpgen_event 3" >"$TPGEN/fire"
is "$(tpgen_stat tpgen_event)" $((before_e + 3)) "the trace event fires too"

before=$(cat "$TPGEN/stats")
for bad in "bogus 1" "tpgen_a -5" "tpgen_a 1 nosuchcpu" "" "tpgen_a" "tpgen_a 0" "tpgen_a 1x" \
	"tpgen_a +3" "tpgen_a 1 all extra" "tpgen_a 99999999999999999999999" \
	"tpgen_a $(printf '%070d' 1)"; do
	is "$(write1 "$TPGEN/fire" "$bad")" "EINVAL" "bad write '${bad:0:24}' fails with EINVAL"
done
is "$(write1 "$TPGEN/fire" "
")" "EINVAL" "a blank line fails with EINVAL"
is "$(cat "$TPGEN/stats")" "$before" "nothing was fired by the bad writes"
done_testing
