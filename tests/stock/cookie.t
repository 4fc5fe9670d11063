#!/bin/bash
# cookie-gend and cookie, unchanged, on Debian's stock kernel: the service comes up (its fork
# program attaches through CO-RE to this kernel's BTF), and cookies from the socket, the fast
# path and the fork tracepoint are never 0 and never repeated.
#
# cookie-gend/cookie portability checks go here: add a case for every feature that must work
# on a kernel we did not build (tpgen-driven cookies cannot: tpgen.t covers that).
. "$(dirname "$0")/../lib/tap.sh"
wait_until 300 "cookie-gend to answer STATS" cookie --stats
is "$(systemctl is-active cookie-gend)" active "cookie-gend runs under systemd"
work=$(mktemp -d)
cookie -n 1000 --socket-only >"$work/socket"
ok $? "cookie -n 1000 --socket-only"
cookie -n 1000 >"$work/fast"
ok $? "cookie -n 1000 (fast path)"
sh -c 'cookie --pid $$' >"$work/task"
ok $? "cookie --pid of a fresh process (cookie given at fork)"
cat "$work"/socket "$work"/fast "$work"/task >"$work/all"
is "$(wc -l <"$work/all")" 2001 "2001 cookies drawn"
is "$(sort -u "$work/all" | wc -l)" 2001 "all distinct"
is "$(grep -cvE '^[1-9][0-9]*$' "$work/all")" 0 "all positive integers (never 0)"
rm -rf "$work"
done_testing
