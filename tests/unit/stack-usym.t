#!/bin/bash
# User frames named through libdwfl after their process exited (src/stack_usym.c): a small
# program built here PIE, with one function always inlined and two that are not, stripped,
# its symbols and DWARF in a separate debug file found by .gnu_debuglink.
. "$(dirname "$0")/../lib/tap.sh"
dir=$BUILD/tests/unit/stack-prog
src=$(dirname "$0")/stack-prog/prog.c
rm -rf "$dir" && mkdir -p "$dir"
# -O1 inlines what is asked; the sibling-call and frame-pointer flags keep every frame.
gcc -O1 -g -fPIE -pie -fno-omit-frame-pointer -fno-optimize-sibling-calls -Wl,--build-id \
	-o "$dir/stack-prog.full" "$src"
ok $? "stack-prog builds"
objcopy --only-keep-debug "$dir/stack-prog.full" "$dir/stack-prog.debug" &&
	objcopy --strip-all --add-gnu-debuglink="$dir/stack-prog.debug" "$dir/stack-prog.full" \
		"$dir/stack-prog" && rm "$dir/stack-prog.full"
ok $? "stripped, its debug file apart (objcopy --only-keep-debug, --add-gnu-debuglink)"
is "$(file -b "$dir/stack-prog" | grep -o 'pie executable')" "pie executable" "stack-prog is PIE"
is "$(readelf -S "$dir/stack-prog" | grep -c -e '\.symtab' -e '\.debug_info')" 0 \
	"stack-prog has no .symtab and no DWARF"
is "$(readelf -p .gnu_debuglink "$dir/stack-prog" | grep -o 'stack-prog.debug')" "stack-prog.debug" \
	"stack-prog's .gnu_debuglink names its debug file"
tap_subtest "$BUILD/tests/unit/stack-usym" "$dir/stack-prog" "$dir/stack-prog.debug"
done_testing
