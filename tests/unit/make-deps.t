#!/bin/bash
# Every compiled thing is rebuilt when a header it includes changes: the tools' objects, the
# BPF objects, the unit tests, the VM helpers, the benchmark and the fuzz targets. For each
# header of this tree, `make -n -W HEADER` (as if the header had just been edited) must
# recompile every target whose source includes it, so no test runs a binary older than the
# code it checks. Needs make test-host's build; reads it, changes nothing.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
# The Makefile's names are relative to the tree (its .d files too).
b=$(realpath -m --relative-to="$top" "$BUILD")
mk() { make -C "$top" --no-print-directory -n BUILD="$b" -o deps -o "$b/kernel.dir" -o "$b/btf.dir" \
	-o "$b/base-image.path" "$@" 2>&1; }

# Each source and the target that compiles it.
declare -A target
for f in "$top"/src/*.c; do s=${f#"$top"/}; n=${s##*/}; target[$s]=$b/${n%.c}.o; done
for f in "$top"/bpf/*.bpf.c; do s=${f#"$top"/}; n=${s##*/}; target[$s]=$b/${n%.c}.o; done
for f in "$top"/tests/{unit,vm,fuzz}/*.c; do s=${f#"$top"/}; target[$s]=$b/${s%.c}; done
# tpbench is linked from an object per source (tpbench.c, tpbench_cookies.c).
for f in "$top"/tests/bench/*.c; do s=${f#"$top"/}; target[$s]=$b/${s%.c}.o; done
target[tests/unit/layout/kernel-layout.c]=$b/tests/unit/layout/kernel-layout.o
# metrics-writer.c is compiled a second time, with the sources it tests, under UBSan.
ubsan=$b/tests/unit/metrics-writer-ubsan

missing=""
for s in "${!target[@]}"; do [ -e "$top/${target[$s]}" ] || missing+=" ${target[$s]}"; done
is "$missing" "" "every target is built (make test-host)"
out=$(mk "${target[@]}" "$ubsan")
is "$(grep -E -- ' -o [^ ]+' <<<"$out" | head -n 5)" "" "with no header changed, nothing is recompiled"

# The headers and, for each, the sources that include it directly (by its path from the top,
# as every include names a header of this tree).
for h in $(cd "$top" && ls bpf/*.h src/*.h tests/unit/*.h tests/bench/*.h); do
	want=()
	for s in "${!target[@]}"; do
		grep -qF "#include \"$h\"" "$top/$s" && want+=("${target[$s]}")
	done
	[ "$h" = src/metrics.h ] || [ "$h" = src/json.h ] && want+=("$ubsan")
	[ ${#want[@]} -gt 0 ] || continue
	out=$(mk -W "$h" "${want[@]}")
	stale=""
	for t in "${want[@]}"; do
		grep -qE -- " -o $t( |\$)" <<<"$out" || stale+=" ${t#"$b"/}"
	done
	is "$stale" "" "$h: ${#want[@]} including target(s) recompiled"
done

# A bare `make` is the README's "build everything": as if every source had changed, it would
# compile the tools and make the guest image (it once built build/bpf_util.o and stopped, the
# first rule of the Makefile being the default goal). tpgen.ko is left out: its recipe is a
# recursive make into our kernel's tree, which runs even under -n, and the host tests need no
# kernel build.
out=$(mk -B -o "$b/module/tpgen.ko")
grep -qE -- " -o $b/tpstat( |\$)" <<<"$out" && grep -q "images/make-initrd" <<<"$out"
ok $? "a bare make builds the tools and the guest image" "$(head -n 5 <<<"$out")"
done_testing
