#!/bin/bash
# checkpatch.pl --strict, from the extracted kernel tree, on every patch and on tpgen. Without
# our kernel's build (the host tests need none), checkpatch.pl and the two files it reads come
# from the same linux-source-6.1 tarball the kernel is built from.
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$(cat "$BUILD/kernel.dir" 2>/dev/null)
. "$top/tests/lib/tap.sh"
if [ ! -x "$kdir/scripts/checkpatch.pl" ]; then
	kdir=$(mktemp -d)
	trap 'rm -rf "$kdir"' EXIT
	tar -xf /usr/src/linux-source-6.1.tar.xz -C "$kdir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	ok $? "checkpatch.pl from /usr/src/linux-source-6.1.tar.xz (our kernel is not built here)"
fi
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
