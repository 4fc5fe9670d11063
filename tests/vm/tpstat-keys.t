#!/bin/bash
# tpstat --by with a tuple of keys and --value, in the guest, against tpgen's known fires:
# seq runs 1..COUNT on each CPU, ctx->count is COUNT, ctx->cpu the CPU, and each CPU's
# kthread is tpgen/N, so every key, count, sum, min and max is known exactly; a full table
# still accounts for every event; the table, JSON and metrics show a column or label per key.
. "$(dirname "$0")/../lib/tap.sh"
modprobe tpgen
ncpu=$(nproc)
final() { grep '"final":true' <<<"$1"; }
by() { final "$1" | jq -c ".tracepoints[] | select(.name == \"$2\") | .by[$3]"; }

# 0. --by TP:cpu alone: each CPU's count is its key's count, and the count program answers
# it (no field-reading program is loaded for it).
out=$(tpstat -o /dev/stdout -a -j --by tpgen_a:cpu -- sh -c \
	"echo tpgen_a 1000 all > $TPGEN/fire; bpftool prog show -j > /tmp/keys-progs.json")
ok $? "--by tpgen_a:cpu while every CPU fires 1000"
is "$(by "$out" tpgen_a 0 | jq -c '[.entries[] | .count] | unique')" "[1000]" \
	"one key per CPU, 1000 each"
is "$(by "$out" tpgen_a 0 | jq '.entries | length')" "$ncpu" "as many keys as CPUs ($ncpu)"
is "$(jq -c '[.[] | .name | select(test("^tpstat_(hist_)?[0-9]+$"))] | sort' /tmp/keys-progs.json)" \
	'["tpstat_0"]' "its program is the plain count's (tpstat_0, no tpstat_hist_0)"

# 1. cpu and a field as the key, seq as the value: one key per CPU, 1..1000 on each.
out=$(tpstat -o /dev/stdout -a -j --by 'tpgen_a:cpu,ctx->count' --value seq -- sh -c "echo tpgen_a 1000 all > $TPGEN/fire")
ok $? "--by tpgen_a:cpu,ctx->count --value seq while every CPU fires 1000"
b=$(by "$out" tpgen_a 0)
want=$(for c in $(seq 0 $((ncpu - 1))); do echo "{\"key\":[$c,1000],\"count\":1000,\"sum\":500500,\"min\":1,\"max\":1000,\"avg\":500.5}"; done | jq -sc .)
is "$(jq -c '.entries | sort_by(.key)' <<<"$b")" "$want" "per (cpu, count): 1000 events, sum 500500, min 1, max 1000, avg 500.5"
is "$(jq -c '[.key_expr, .key_exprs, .value_expr, .keys, .other, .dropped, .errors]' <<<"$b")" \
	"[\"cpu,ctx->count\",[\"cpu\",\"ctx->count\"],\"seq\",$ncpu,0,0,0]" "key_exprs, value_expr, $ncpu keys, nothing else"

# 2. The kernel's keys in a tuple: cpu and comm (each CPU's kthread is tpgen/N), a signed value.
out=$(tpstat -o /dev/stdout -a -j --by 'tpgen_a:cpu,comm' --value 'ctx->cpu' -- sh -c "echo tpgen_a 500 all > $TPGEN/fire")
want=$(for c in $(seq 0 $((ncpu - 1))); do echo "{\"key\":[$c,\"tpgen/$c\"],\"count\":500,\"sum\":$((500 * c)),\"min\":$c,\"max\":$c,\"avg\":$c}"; done | jq -sc .)
is "$(jq -c '.entries | sort_by(.key[0])' <<<"$(by "$out" tpgen_a 0)")" "$want" \
	"per (cpu, comm): tpgen/N on CPU N, 500 each, value ctx->cpu (an int) sums to 500 x N"

# 3. Two fires of different sizes on one CPU: the value per key follows each.
out=$(tpstat -o /dev/stdout -a -j --by 'tpgen_a:ctx->count' --value seq -- taskset -c 0 sh -c \
	"echo tpgen_a 100 > $TPGEN/fire; echo tpgen_a 300 > $TPGEN/fire")
is "$(jq -c '[.entries[] | [.key, .count, .sum, .min, .max]] | sort' <<<"$(by "$out" tpgen_a 0)")" \
	'[[100,100,5050,1,100],[300,300,45150,1,300]]' "--by ctx->count --value seq: 1..100 and 1..300 apart"

# 4. A tuple that overflows the table: entries + other + dropped = what was fired.
out=$(tpstat -o /dev/stdout -a -j --top 3 --by 'tpgen_a:cpu,seq' -- taskset -c 0 sh -c "echo tpgen_a 20000 > $TPGEN/fire")
b=$(by "$out" tpgen_a 0)
is "$(jq '([.entries[].count] | add) + .other + .dropped + .errors' <<<"$b")" 20000 \
	"(cpu, seq) over 20000 events: entries + other + dropped + errors = 20000"
is "$(jq '.dropped > 0 and .keys <= 10240 and .dropped == 20000 - .keys' <<<"$b")" true \
	"the table is full and says so: $(jq -c '{keys, dropped}' <<<"$b")"

# 5. The table: a column per key, then count, avg, min, max and sum.
out=$(tpstat -o /dev/stdout -a --by 'tpgen_a:cpu,ctx->count' --value seq -- taskset -c 0 sh -c "echo tpgen_a 10 > $TPGEN/fire")
grep -Eq '^  cpu +ctx->count +count +avg +min +max +sum$' <<<"$out" &&
	grep -Eq '^  0 +10 +10 +5\.5 +1 +10 +55$' <<<"$out"
ok $? "the table has a column per key and the value's avg, min, max and sum"

# 6. Metrics: a label per key, the value's sum, min and max.
tpstat -a --textfile /tmp/keys.prom --by 'tpgen_a:cpu,comm' --value seq -- taskset -c 0 sh -c "echo tpgen_a 10 > $TPGEN/fire" 2>/dev/null
grep -q '^bareatom_tracepoint_key_hits_total{tracepoint="tpgen_a",key_expr="cpu,comm",key1="0",key2="sh"} 10$' /tmp/keys.prom &&
	grep -q '^bareatom_tracepoint_key_value_summed{tracepoint="tpgen_a",key_expr="cpu,comm",key1="0",key2="sh"} 55$' /tmp/keys.prom &&
	grep -q '^bareatom_tracepoint_key_value_max{tracepoint="tpgen_a",key_expr="cpu,comm",key1="0",key2="sh"} 10$' /tmp/keys.prom
ok $? "metrics: key_hits{key1=\"0\",key2=\"sh\"} 10, key_value_summed 55, key_value_max 10"
if [ -x /mnt/share/prometheus/promtool ]; then
	out=$(/mnt/share/prometheus/promtool check metrics </tmp/keys.prom 2>&1)
	ok $? "promtool check metrics passes it${out:+: $out}"
else
	ok 1 "no promtool shared in (run under tests/run-all, which shares it)"
fi

get='GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0\r\nConnection: close\r\n\r\n'
tpstat -a --listen 127.0.0.1:19467 --by 'tpgen_a:cpu,comm' --value 'ctx->cpu' -- taskset -c 0 bash -c \
	"echo tpgen_a 10 > $TPGEN/fire; exec 3<>/dev/tcp/127.0.0.1/19467; printf '$get' >&3; timeout $((120 * TAP_SLOW)) cat <&3 >/tmp/keys.http" 2>/dev/null
tr -d '\r' </tmp/keys.http | sed '1,/^$/d' >/tmp/keys.om
out=$("$(dirname "$0")/om-check" /tmp/keys.om 2>&1); rc=$?
grep -q '^bareatom_tracepoint_key_value_min{tracepoint="tpgen_a",key_expr="cpu,comm",key1="0",key2="bash"} 0$' /tmp/keys.om
ok $(( rc || $? )) "the OpenMetrics reference parser takes the served tuple keys and values${out:+: $out}"

# 7. Refusals: one line, exit 2.
bad() {
	local err rc
	err=$(tpstat -a -d 1 "$@" tpgen_a 2>&1 >/dev/null); rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ]
	ok $? "$*: exit 2, one line: $err"
}
bad --by 'tpgen_a:cpu,cpu'
bad --by 'tpgen_a:cpu,pid,comm,cgroup,seq'
bad --by 'tpgen_a:cpu,'
bad --value seq
bad --by tpgen_a:cpu --value nope
bad --by tpgen_a:cpu --value seq --value seq
done_testing
