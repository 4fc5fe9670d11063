#!/bin/bash
# libFuzzer on the stack code's text (ASan + UBSan), for a bounded time: kallsyms parsing
# and lookup, folded frames, and the flame graph page's data (tests/fuzz/stack-text.c).
. "$(dirname "$0")/../lib/tap.sh"
secs=${BAREATOM_FUZZ_SECONDS:-20}
corpus=$(mktemp -d)
printf 'ffffffff81000000 T _stext\nffffffffc0a01000 t tpgen_fire\t[tpgen]\n\0main\nfoo;bar\n' >"$corpus/seed"
out=$("$BUILD/tests/fuzz/stack-text" -max_total_time="$secs" -max_len=1024 -print_final_stats=1 \
	-artifact_prefix="$BUILD/tests/fuzz/stack-text-" "$corpus" 2>&1)
rc=$?
rm -rf "$corpus"
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<<"$out")
if [ "$rc" = 0 ] && [ "${runs:-0}" -gt 0 ]; then
	ok 0 "libFuzzer ran ${secs}s on kallsyms parsing, folded frames and the page's data: $runs inputs, no crash"
else
	ok 1 "libFuzzer found a problem (exit $rc)" "$(tail -n 30 <<<"$out")"
fi
done_testing
