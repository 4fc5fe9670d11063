#!/bin/bash
# cookie and cookie-gend usage errors on the host (--decode, --node-id and the rest): every bad value exits 2 with a
# one-line reason before anything is loaded, and --decode splits a cookie exactly as the
# drawers lay it out (node << 48 | sequence). Run as nobody: nothing can load BPF here.
. "$(dirname "$0")/../lib/tap.sh"
usage_error() { usage_case 2 "$1" as_nobody "$BUILD/$2" "${@:3}"; }	# WANT_TEXT TOOL ARGS...

# cookie-gend --node-id: the node file's own parser, 0 to 65535, nothing else.
for v in -1 65536 4294967296 18446744073709551616 007 00 +5 ' 5' '5 ' 5x 0x10 '' 1e3 \
	$'5\n' $'5\n6'; do
	usage_error "invalid node id" cookie-gend --node-id "$v"
done
usage_error "requires an argument" cookie-gend --node-id
# A valid node id passes parsing and stops at the root check (exit 2, as nobody).
usage_error "must run as root" cookie-gend --node-id 65535
usage_error "must run as root" cookie-gend --node-id 0
# cookie-gend --raise-mark: a whole cookie, strict decimal, no wrap.
for v in -1 +5 ' 5' '5 ' 5x 0x10 '' 1e3 18446744073709551616 99999999999999999999999 $'5\n'; do
	usage_error "invalid --raise-mark" cookie-gend --raise-mark "$v"
done
usage_error "must run as root" cookie-gend --raise-mark 18446744073709551615

# cookie --decode: bad input.
for v in '' -5 +5 ' 5' 5x 0x10 1.5 18446744073709551616 99999999999999999999999 $'5\n' $'5\n6'; do
	usage_error "invalid cookie" cookie --decode "$v"
done
usage_error "is not a cookie: its sequence (the low 48 bits) is 0" cookie --decode 0
usage_error "is not a cookie" cookie --decode $((300 << 48))
usage_error "is not a cookie" cookie --decode 18446462598732840960	# 65535 << 48
usage_error "requires an argument" cookie --decode
usage_error "takes one cookie" cookie --decode 1 --decode 2
for o in "-n 3" "--pid 1" --stats --follow "-c 1" --fast --socket-only "--socket /x"; do
	# shellcheck disable=SC2086
	usage_error "takes no other option than -j" cookie --decode 1 $o
done

# cookie --decode: what the drawers lay out, text and JSON.
is "$(as_nobody "$BUILD/cookie" --decode 84442493013196801)" \
	"$(printf 'cookie         84442493013196801\nnode           300\nsequence       1')" \
	"cookie --decode (300 << 48) + 1: node 300, sequence 1"
is "$(as_nobody "$BUILD/cookie" --decode 5 -j)" '{"cookie":5,"node":0,"sequence":5}' \
	"cookie --decode 5 -j: node 0's cookies are the plain sequence"
is "$(as_nobody "$BUILD/cookie" -j --decode 18446744073709551615)" \
	'{"cookie":18446744073709551615,"node":65535,"sequence":281474976710655}' \
	"cookie -j --decode 2^64 - 1: node 65535, the last sequence"
is "$(as_nobody "$BUILD/cookie" --decode 281474976710657 -j)" \
	'{"cookie":281474976710657,"node":1,"sequence":1}' "cookie --decode 2^48 + 1: node 1's first cookie"
is "$(as_nobody "$BUILD/cookie" --decode 281474976710655 -j)" \
	'{"cookie":281474976710655,"node":0,"sequence":281474976710655}' \
	"cookie --decode 2^48 - 1: still node 0 (no carry into the node bits)"
out=$(as_nobody "$BUILD/cookie" --decode 84442493013196801 -j | jq -e '.node == 300 and .sequence == 1')
is "$?/$out" "0/true" "the JSON is valid for jq"

# The other usage errors of both tools: one line naming the tool, exit 2.
usage_error "^cookie-gend: unexpected argument 'foo'" cookie-gend foo
usage_error "^cookie-gend: unrecognized option" cookie-gend --bogus
usage_error "^cookie: invalid count '0'" cookie -n 0
usage_error "^cookie: invalid count '65537'" cookie -n 65537
usage_error "^cookie: invalid PID 'abc'" cookie --pid abc
usage_error "^cookie: invalid event count '0'" cookie --follow -c 0
usage_error "^cookie: unrecognized option" cookie --bogus
done_testing
