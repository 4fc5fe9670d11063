#!/bin/bash
# counter's -d, on the host as nobody: out-of-range durations are usage errors (exit 2, one
# line) before anything is loaded; fractions are fine (the run loop's deadline is a double).
bin=$BUILD/counter
n=0
expect() {
	local want=$1; shift
	n=$((n + 1))
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$bin" "$@" 2>&1 </dev/null)
	rc=$?
	# argp_error adds its standard "Try `counter --help'" line.
	if [ "$rc" = 2 ] && [ "$(grep -vc '^Try `' <<<"$out")" = 1 ] && grep -q -- "$want" <<<"$out"; then
		echo "ok $n - counter $* -> exit 2: $(head -n1 <<<"$out")"
	else
		echo "not ok $n - counter $* -> want exit 2 and one line '$want', got $rc"
		sed 's/^/#   /' <<<"$out"
	fi
}
expect "invalid duration '0'" -d 0
expect "invalid duration '4294967296': a number of seconds, more than 0 and at most 10000000" -d 4294967296
expect "invalid duration '10000001'" -d 10000001
expect "invalid duration 'nan'" -d nan
expect "invalid duration '1x'" -d 1x
expect "give either -d or a command" -d 1 -- true
expect "unexpected argument 'foo'" foo
expect "unrecognized option" --bogus

# A fraction is accepted: the next check (tpgen not loaded on the host) is what fails.
n=$((n + 1))
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$bin" -d 0.5 2>&1 </dev/null)
if [ $? = 1 ] && grep -q "load the module first" <<<"$out"; then
	echo "ok $n - counter -d 0.5 parses (then: $out)"
else
	echo "not ok $n - counter -d 0.5 should parse"; sed 's/^/#   /' <<<"$out"
fi
echo "1..$n"
