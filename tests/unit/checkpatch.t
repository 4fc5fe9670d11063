#!/bin/bash
# checkpatch.pl --strict, from the extracted kernel tree, on every patch and on tpgen.
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$(cat "$BUILD/kernel.dir")
. "$top/tests/lib/tap.sh"
check() {	# WHAT CHECKPATCH-ARGS...
	local what=$1 out; shift
	out=$("$kdir/scripts/checkpatch.pl" --strict --no-tree --quiet "$@" 2>&1)
	ok $? "checkpatch --strict: $what" "$out"
}
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	check "kernel/patches/$p" "$top/kernel/patches/$p"
done <"$top/kernel/patches/series"
for f in "$top"/kernel/module/*.[ch]; do
	check "kernel/module/${f##*/}" -f "$f"
done
done_testing
