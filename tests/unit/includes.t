#!/bin/bash
# The include rule and the layers it shows. Every header of this tree is included by its path
# from the top ("src/cli.h", "bpf/tpstat_abi.h", "tests/unit/test.h": the Makefile's -I.), so
# an include names one file; only the generated vmlinux.h and NAME.skel.h are named bare (they
# come from the build directory). On that graph, with a file's .c and .h as one unit (src/json
# is json.c and json.h): no circle, so every include runs down; bpf/ (shared by the BPF
# programs and user space) includes only bpf/; src/ includes nothing of tests/; and a shared
# src/ file (one not named for a tool: tpstat*, cookie*, eht*, counter*) includes no tool's
# header. Reads the sources only.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top" || exit 1

files=$(ls bpf/*.[ch] src/*.[ch] tests/unit/*.[ch] tests/unit/layout/*.c tests/vm/*.c \
	tests/bench/*.c tests/fuzz/*.c 2>/dev/null)
# "FILE HEADER" per quoted include
edges=$(for f in $files; do
	sed -nE 's/^#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$f" | sed "s|^|$f |"
done)
diag "$(wc -l <<<"$files") files, $(wc -l <<<"$edges") quoted includes"

bad=$(while read -r f h; do
	case "$h" in vmlinux.h | *.skel.h) [[ $h == */* ]] && echo "$f: $h" ;;
	*) [[ $h == */* && -f $h ]] || echo "$f: \"$h\" is not a path from the top of the tree" ;;
	esac
done <<<"$edges")
is "$bad" "" "every include names a header by its path from the top (generated ones bare)"

is "$(awk '$1 ~ /^bpf\// && $2 ~ /\// && $2 !~ /^bpf\//' <<<"$edges")" "" \
	"bpf/ includes only bpf/ (the layer shared by BPF and user space is the lowest)"
is "$(awk '$1 ~ /^src\// && $2 ~ /^tests\//' <<<"$edges")" "" "src/ includes nothing of tests/"
is "$(awk '$1 ~ /^src\// && $1 !~ /^src\/(tpstat|cookie|eht|counter)/ &&
	$2 ~ /^src\/(tpstat|cookie|eht|counter)/' <<<"$edges")" "" \
	"a shared src/ file includes no tool's header"

# Units: a file's path without .c or .h. tsort reports a loop on stderr.
units=$(awk '$2 ~ /\// { a = $1; b = $2; sub(/\.[ch]$/, "", a); sub(/\.[ch]$/, "", b);
	if (a != b) print a, b }' <<<"$edges")
loops=$(tsort <<<"$units" 2>&1 >/dev/null)
is "$loops" "" "no circle of includes between units (a .c with its .h): every include runs down"
done_testing
