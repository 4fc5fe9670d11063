#!/bin/bash
# eht-hosts' command line, on the host: usage errors exit 2 with a one-line reason before
# anything is loaded, and a kernel without the br_eht_* tracepoints gets exit 1 with one
# line naming the kernel patch. Run as nobody, so nothing could ever load BPF here.
bin=$BUILD/eht-hosts
. "$(dirname "$0")/../lib/tap.sh"
expect() { usage_case "$1" "$2" as_nobody "$bin" "${@:3}"; }	# WANT_RC WANT_TEXT ARGS...
expect 2 "invalid interval '0'" -w -i 0
expect 2 "invalid interval 'abc'" -w -i abc
expect 2 "invalid duration '-5'" -d -5
expect 2 "invalid duration 'nan'" -d nan
expect 2 "it needs -w" -i 1
expect 2 "interval 1e-300 s is below the minimum of 0.001 s" -w -i 1e-300
expect 2 "interval 0x1p-1074 s is below the minimum of 0.001 s" -w -i 0x1p-1074
expect 2 "it takes only -j" -s -w
expect 2 "it takes only -j" -s -d 1
expect 2 "it takes only -j" -s -- true
expect 2 "unexpected argument 'foo'" foo
expect 2 "unrecognized option" --bogus
expect 2 "--listen: cannot resolve 'no-such-host.invalid'" --listen no-such-host.invalid:9100
expect 2 "--listen: port '65536' is not a number from 0 to 65535" --listen 127.0.0.1:65536
expect 2 "--textfile: an empty path" --textfile ''
expect 2 "it takes only -j" -s --listen 127.0.0.1:9100
expect 2 "it takes only -j" -s --textfile /tmp/x.prom

out=$("$bin" --help)
[ $? = 0 ] && grep -q EXAMPLES <<<"$out" && grep -q -- '-- CMD' <<<"$out" &&
	[ "$(awk 'length > 79' <<<"$out" | wc -l)" = 0 ]
ok $? "--help shows usage, examples, and no line wider than 79 columns"

# This host's kernel is not ours: unless it has the tracepoints, eht-hosts must say so.
if grep -qa btf_trace_br_eht_host_create /sys/kernel/btf/vmlinux /sys/kernel/btf/bridge 2>/dev/null; then
	skip "this host's kernel has the br_eht_* tracepoints"
else
	expect 1 "has no bridge EHT tracepoints (br_eht_\*): they come from bareatom's kernel patch" -d 1
	expect 1 "has no bridge EHT tracepoints" -- true
fi
done_testing
