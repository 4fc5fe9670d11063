#!/bin/bash
# libFuzzer on cookie-gend's protocol code (ASan + UBSan), for a bounded time.
. "$(dirname "$0")/../lib/tap.sh"
secs=${BAREATOM_FUZZ_SECONDS:-20}
corpus=$(mktemp -d)
printf 'GET 1\n' >"$corpus/get"; printf 'PID 42\r\nSTATS\n' >"$corpus/pid"
out=$("$BUILD/tests/fuzz/cookie-proto" -max_total_time="$secs" -max_len=512 -print_final_stats=1 "$corpus" 2>&1)
rc=$?
rm -rf "$corpus"
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<<"$out")
if [ "$rc" = 0 ] && [ "${runs:-0}" -gt 0 ]; then
	ok 0 "libFuzzer ran ${secs}s on the request parser, line splitter and STATS reply parser: $runs inputs, no crash"
else
	ok 1 "libFuzzer found a problem (exit $rc)" "$(tail -n 30 <<<"$out")"
fi
done_testing
