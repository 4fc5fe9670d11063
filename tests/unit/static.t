#!/bin/bash
# make static's files (build/static/): one per tool, each statically linked (no program
# interpreter, no shared library needed: what lets it run on a host without libbpf), and each
# runs: --help prints its usage. The dynamic build is the control: the same checks see its
# interpreter and libraries. The tools' real work on a kernel is tests/stock/static.t's.
. "$(dirname "$0")/../lib/tap.sh"
tools="tpstat cookie cookie-gend eht-hosts"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# interp BIN: its PT_INTERP program header's path, empty when it has none
interp() { readelf -lW "$1" 2>/dev/null | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p'; }
# needed BIN: its DT_NEEDED libraries, comma-separated
needed() { readelf -dW "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd,; }

dyn=$BUILD/tpstat
[ -n "$(interp "$dyn")" ] && [[ ,$(needed "$dyn"), == *,libbpf.so.1,* ]]
ok $? "control: the dynamic tpstat names its interpreter ($(interp "$dyn")) and libbpf ($(needed "$dyn"))"

for t in $tools; do
	bin=$BUILD/static/$t
	if [ ! -x "$bin" ]; then
		ok 1 "$bin exists (make static)"
		continue
	fi
	is "$(interp "$bin")/$(needed "$bin")" "/" "$t: no program interpreter, no DT_NEEDED"
	file -b "$bin" | grep -q 'statically linked'
	ok $? "$t: file(1) says statically linked"
	ldd "$bin" >/dev/null 2>&1
	is "$?" 1 "$t: ldd says it is not a dynamic executable"
	out=$(env -i "$bin" --help 2>&1); rc=$?
	[ "$rc" = 0 ] && [ "$(head -n1 <<<"$out")" = "Usage: $t [OPTION...]" ]
	ok $? "$t --help runs with an empty environment (exit $rc, $(wc -l <<<"$out") lines)"
	strip -o "$tmp" "$bin" && diag "$t: $(stat -c %s "$bin") bytes, $(stat -c %s "$tmp") stripped"
done
done_testing
