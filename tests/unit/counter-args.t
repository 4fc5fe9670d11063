#!/bin/bash
# counter's -d, on the host as nobody: out-of-range durations are usage errors (exit 2, one
# line) before anything is loaded; fractions are fine (the run loop's deadline is a double).
bin=$BUILD/counter
. "$(dirname "$0")/../lib/tap.sh"
expect() { usage_case 2 "$1" as_nobody "$bin" "${@:2}"; }	# WANT_TEXT ARGS...
expect "invalid duration '0'" -d 0
expect "invalid duration '4294967296': a number of seconds, more than 0 and at most 10000000" -d 4294967296
expect "invalid duration '10000001'" -d 10000001
expect "invalid duration 'nan'" -d nan
expect "invalid duration '1x'" -d 1x
expect "give either -d or a command" -d 1 -- true
expect "unexpected argument 'foo'" foo
expect "unrecognized option" --bogus

# A fraction is accepted: the next check (tpgen not loaded on the host) is what fails.
out=$(as_nobody "$bin" -d 0.5 2>&1 </dev/null)
[ $? = 1 ] && grep -q "load the module first" <<<"$out"
ok $? "counter -d 0.5 parses (then: $out)"
done_testing
