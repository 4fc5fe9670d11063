#!/bin/bash
# A short run of make bench's whole pipeline (guest benchmarks, report, plot), so it cannot
# rot. Timing is never checked here; what is checked is that every benchmark ran, that every
# exact counting method matched tpgen's count, and that the outputs exist and parse.
# The peers run tiny and without bpftrace: sid's LLVM takes 20-50 s to start per run under
# TCG, and make test must not need sid; tpstat and perf stat still go the whole way.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$BUILD/bench
. "$top/tests/lib/tap.sh"
rm -f "$out/results.json" "$out/scaling.png"
"$top/tests/bench/run" "$BUILD" --peers tpstat,perf -n 5000 -r 1 >"$BUILD/bench-smoke.log" 2>&1
rc=$?
ok $rc "tests/bench/run -n 5000 -r 1 (exit $rc)"
[ "$rc" = 0 ] || tail -n 20 "$BUILD/bench-smoke.log" | sed 's/^/# /'
jq -e . "$out/results.json" >/dev/null 2>&1
ok $? "results.json is valid JSON"
is_true() { [ "$(jq -r "$1" "$out/results.json" 2>/dev/null)" = true ]; }
is_true '.checks.every_exact_method_matched_tpgen'
ok $? "every exact counting method matched tpgen's count"
is_true '[.counting[] | keys] | all(contains(["none","empty","tpstat","global_atomic","percpu_array","bss_slots","hash_map","plain_global"]))'
ok $? "every counting method was measured on 1, 2 and 4 CPUs"
is_true '[.cookies_kernel[][] | .all_drawn] | all'
ok $? "kernel-side cookie benchmarks drew one cookie per event, none refused"
is_true '.cookies_user | keys == ["getrandom8","libcookie_fast","lock_xadd","socket_get1","socket_get4096","uuid_generate"]'
ok $? "every user-space cookie source was measured"
is_true '.fleet.claim_s > 0 and .fleet.start_s_etcd > 0 and .fleet.reserve_txn_ms > 0 and
	(.fleet.cookies_user_etcd | keys == ["libcookie_fast","socket_get1","socket_get4096"])'
ok $? "cookie-gend --etcd: the claim, the start, the reserve txn and the cookie sources with etcd were measured"
[ "$(jq -r .accelerator "$out/results.json")" = tcg ] || [ "$(jq -r .accelerator "$out/results.json")" = kvm ]
ok $? "the accelerator is recorded ($(jq -r .accelerator "$out/results.json" 2>/dev/null))"
is_true '[.peers[] | "\(.tool)/\(.what)"] | sort == ["perf/count","tpstat/by_cpu","tpstat/count","tpstat/filter","tpstat/hist","tpstat/kstack","tpstat/lat_seq","tpstat/latency"]'
ok $? "the peers asked tpstat count, hist, by_cpu, filter, latency, lat_seq and kstack, and perf stat count"
is_true '[.peers[] | select(.what == "latency" or .what == "lat_seq") | .max_accounting_off == 0 and .matched > 0] | length == 2 and all'
ok $? "tpstat's latencies (keyed by cpu, and by seq over tpgen's pairs) matched starts, their accounting adding up"
is_true '.checks.peers_exact and ([.peers[] | .startup_s > 0 and .rss_kb > 0 and .report_s > 0 and
	.fire_cpus == 1] | all) and (.peers_errors == [])'
ok $? "every peer counted exactly what tpgen fired on one CPU, with its start-up time, memory and time to report"
file "$out/scaling.png" 2>/dev/null | grep -q 'PNG image'
ok $? "scaling.png is a PNG"
done_testing
