#!/bin/bash
# build/vmlinux.h is Debian's 6.1 kernel's BTF (images/vmlinux-h), so the tools build without
# our kernel; the programs run on our kernel. Each BPF object is also compiled against our
# kernel's BTF (build/our-kernel/, the Makefile's core-check, before the image is made), and
# the two must ask the same of the kernel's types (every CO-RE relocation, by member name,
# with the member's kind and size) and hold the same code apart from the relocated offsets:
# tests/unit/core-relos prints both. And the check bites: a member of another size in the
# header is seen. Needs our kernel's build (make image); says so and skips without it.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
relos=$BUILD/tests/unit/core-relos

if [ ! -f "$BUILD/our-kernel/vmlinux.h" ]; then
	skip "our kernel's build of the BPF objects is not there (make image makes it)"
	done_testing
	exit 0
fi
for src in "$top"/bpf/*.bpf.c; do
	o=$(basename "${src%.c}").o
	a=$("$relos" "$BUILD/$o") && b=$("$relos" "$BUILD/our-kernel/$o")
	ok $? "core-relos reads $o, built against Debian's BTF and against our kernel's"
	d=$(diff -U2 <(echo "$a") <(echo "$b"))
	ok $? "$o: the same relocations ($(grep -c '^relo ' <<<"$a")) and code against both" "$d"
done

# A header where task_struct's pid is 8 bytes: the object differs, and the diff names it.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.bpf.c" <<'EOF'
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
int pid;
SEC("tp_btf/sched_process_fork")
int BPF_PROG(t, struct task_struct *parent, struct task_struct *child)
{
	pid = BPF_CORE_READ(child, pid);
	return 0;
}
char LICENSE[] SEC("license") = "GPL";
EOF
mkdir -p "$tmp/wide"
awk '/^struct task_struct \{/ { in_t = 1 } in_t && $0 ~ /^\tpid_t pid;/ { $0 = "\tlong pid;" }
	/^};/ { in_t = 0 } { print }' "$BUILD/vmlinux.h" >"$tmp/wide/vmlinux.h"
bpfcc() { clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I"$1" -c "$tmp/t.bpf.c" -o "$2"; }
bpfcc "$BUILD" "$tmp/a.o" && bpfcc "$tmp/wide" "$tmp/b.o"
ok $? "a probe program compiles against build/vmlinux.h and against a copy with a wider pid"
d=$(diff <("$relos" "$tmp/a.o") <("$relos" "$tmp/b.o"))
grep -q '^> relo .* struct task_struct .pid (int 8)' <<<"$d"
ok $? "a member of another size is seen: task_struct.pid (int 4) against (int 8)" "$d"
done_testing
