#!/bin/bash
# cookie and cookie-gend usage errors, on the host as nobody: exit 2 and one line naming the
# tool (argp's "Try ..." hint aside), before anything is connected, loaded or written.
n=0
expect() {	# TOOL WANT ARGS...
	local tool=$1 want=$2; shift 2
	n=$((n + 1))
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$BUILD/$tool" "$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" = 2 ] && [ "$(grep -vc '^Try `' <<<"$out")" = 1 ] && grep -q -- "^$tool: .*$want" <<<"$out"; then
		echo "ok $n - $tool $* -> exit 2: $(head -n1 <<<"$out")"
	else
		echo "not ok $n - $tool $* -> want exit 2 and one line '$tool: ...$want', got $rc"
		sed 's/^/#   /' <<<"$out"
	fi
}
expect cookie-gend "unexpected argument 'foo'" foo
expect cookie-gend "unrecognized option" --bogus
expect cookie "invalid count '0'" -n 0
expect cookie "invalid count '65537'" -n 65537
expect cookie "invalid PID 'abc'" --pid abc
expect cookie "invalid event count '0'" --follow -c 0
expect cookie "unrecognized option" --bogus
echo "1..$n"
