#!/bin/bash
# tpstat's output formatting: C checks, then the JSON lines validated and read back with jq.
bin=$BUILD/tests/unit/tpstat-fmt
. "$(dirname "$0")/../lib/tap.sh"
tap_subtest "$bin"
rc=$?
t() { eval "$2" >/dev/null 2>&1; ok $? "$1"; }	# DESCRIPTION SHELL-CHECK
json=$("$bin" json)
t "every JSON line parses (jq)" "printf '%s\n' \"\$json\" | jq -e . "
t "command with quotes, backslash, newline, tab and control bytes round-trips" \
	"[ \"\$(head -n1 <<<\"\$json\" | jq -r .command)\" = \"\$(printf 'sh -c \"echo \\\\\\\\ hi\"\\n\\ttab\\001')\" ]"
t "fields: count, delta, bare, cpus, first_cpu" \
	"head -n1 <<<\"\$json\" | jq -e '.tracepoints[0] | .count == 1234567 and .delta == 1000 and .bare == true and .cpus == [0,1,2,3,66] and .first_cpu == 66 and .rate == 2000'"
t "an event tracepoint is bare:false, an unhit one has first_cpu null" \
	"head -n1 <<<\"\$json\" | jq -e '.tracepoints[1] | .bare == false and .first_cpu == null and .cpus == []'"
t "final line: final and paused true, command null" \
	"tail -n1 <<<\"\$json\" | jq -e '.final == true and .paused == true and .command == null and .interval == 3'"
done_testing
[ "$rc" = 0 ]
