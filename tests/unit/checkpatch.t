#!/bin/bash
# checkpatch.pl --strict, from the extracted kernel tree, on every patch and on tpgen.
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$(cat "$BUILD/kernel.dir")
n=0 failed=0
check() {
	local what=$1; shift
	n=$((n + 1))
	if out=$("$kdir/scripts/checkpatch.pl" --strict --no-tree --quiet "$@" 2>&1); then
		echo "ok $n - checkpatch --strict: $what"
	else
		echo "not ok $n - checkpatch --strict: $what"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	check "kernel/patches/$p" "$top/kernel/patches/$p"
done <"$top/kernel/patches/series"
for f in "$top"/kernel/module/*.[ch]; do
	check "kernel/module/${f##*/}" -f "$f"
done
echo "1..$n"
