#!/bin/bash
# make static's tpstat on Debian's stock kernel, from a directory holding nothing but that one
# file (and /proc and /sys mounted in a mount namespace of its own): no libbpf, no libc, no
# loader, so it runs only because it needs none. It lists this kernel's tracepoints from its
# BTF as the packaged tpstat does, and counts exactly: -r 5 -- CMD runs CMD (the static
# tpstat itself, the only program there) five times, which is five execs and no fork.
# tests/run-all shares build/static (make static) into the stock boots at /mnt/share.
. "$(dirname "$0")/../lib/tap.sh"
final() { grep '"final":true' <<<"$1"; }
field() { final "$1" | jq -r ".tracepoints[] | select(.name == \"$2\") | $3"; }
share=/mnt/share
read -r cmdline </proc/cmdline
if [[ " $cmdline " != *" bareatom.share "* ]]; then
	echo "1..0 # skip no share in this boot: tests/run-all shares build/static (make static) at $share"
	exit 0
fi
if [ ! -x $share/tpstat ]; then
	ok 1 "the static tpstat is shared at $share/tpstat (make static)"
	done_testing
	exit
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cp $share/tpstat "$root/tpstat"
mkdir "$root/proc" "$root/sys"
# in_root CMD...: CMD in a mount namespace, chrooted to $root with /proc and /sys (bpffs,
# tracefs and debugfs under it) mounted; the mounts go with the namespace.
in_root() {
	unshare -m --propagation private sh -c \
		'mount -t proc proc "$0/proc" && mount --rbind /sys "$0/sys" && exec chroot "$0" "$@"' "$root" "$@"
}

out=$(ldd "$root/tpstat" 2>&1); rc=$?
[ "$rc" != 0 ] && grep -q 'not a dynamic executable' <<<"$out"
ok $? "ldd: $out"
is "$(cd "$root" && find . -path ./proc -prune -o -path ./sys -prune -o -type f -print)" "./tpstat" \
	"the directory holds one file: no libbpf, libelf, libz, libc or loader"
# Control: the packaged (dynamic) tpstat cannot run there.
cp /usr/sbin/tpstat "$root/tpstat-dynamic"
in_root /tpstat-dynamic --version >/dev/null 2>&1
is "$?" 127 "control: the packaged, dynamic tpstat does not start in it (no loader)"
rm "$root/tpstat-dynamic"

got=$(in_root /tpstat -l 'sched_*' 2>&1) want=$(tpstat -l 'sched_*' 2>&1)
[ "$got" = "$want" ] && [ "$(wc -l <<<"$got")" -gt 10 ]
ok $? "tpstat -l 'sched_*' there lists what the packaged tpstat lists ($(wc -l <<<"$got") lines, from this kernel's BTF)"
out=$(in_root /tpstat -j -r 5 sched_process_exec sched_process_fork -- /tpstat --version 2>&1 >/dev/null); rc=$?
is "$rc" 0 "tpstat -j -r 5 sched_process_exec sched_process_fork -- /tpstat --version, there"
is "$(field "$out" sched_process_exec '.runs | map(tostring) | join(",")')/$(field "$out" sched_process_exec .count)" \
	"1,1,1,1,1/5" "sched_process_exec: one exec per run, 5 in all"
is "$(field "$out" sched_process_fork .count)" 0 "sched_process_fork: none (CMD forks nothing)"
done_testing
