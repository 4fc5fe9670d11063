#!/bin/bash
# images/run-vm's contract on both boot paths (DESIGN.md "The VM runner"): CMD's stdout,
# stderr and exit status, 124 on --timeout, 125 when the guest does not come up, the console
# log under build/vm/; and --init auto's choice: the minimal init for a plain command (with
# everything the suite needs mounted), systemd for a command that uses systemctl.
# Timing decides nothing: the guest's uptime at the command is only reported.
top=$(cd "$(dirname "$0")/../.." && pwd)
rv=$top/images/run-vm
vmdir=$BUILD/vm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/tap.sh"

# 1. auto, a plain command: the minimal path, output, exit status, what is mounted.
probe='echo out; echo err >&2
for m in /sys/fs/bpf /sys/kernel/debug /sys/kernel/tracing /sys/fs/cgroup; do
	echo "$m $(findmnt -n -o FSTYPE "$m")"
done
ip -o link show lo | grep -q "UP" && echo "lo up"
modprobe tpgen && echo "tpgen_a 3" >/sys/kernel/debug/tpgen/fire && grep tpgen_a /sys/kernel/debug/tpgen/stats
exit 7'
rm -f "$vmdir/last-start"
"$rv" --timeout 300 -- sh -c "$probe" >"$tmp/out" 2>"$tmp/err"
rc=$?
is "$rc" 7 "auto, plain command: run-vm exits with the command's status 7"
is "$(cat "$tmp/out")" "out
/sys/fs/bpf bpf
/sys/kernel/debug debugfs
/sys/kernel/tracing tracefs
/sys/fs/cgroup cgroup2
lo up
tpgen_a 3" "minimal path: stdout, with bpffs, debugfs, tracefs and cgroup2 mounted, lo up, tpgen loaded and fired"
is "$(cat "$tmp/err")" err "minimal path: stderr"
read -r path up <"$vmdir/last-start" 2>/dev/null
is "$path" minimal "auto chose the minimal init for a command that needs no services"
echo "# guest uptime at the command, minimal path: ${up:-?} s"
[ -s "$vmdir/console.log" ]
ok $? "the console log is kept ($vmdir/console.log)"

# 2. the minimal path's timeout: 124, the guest killed, one message naming the console log.
"$rv" --init minimal --timeout 2 -- sleep 600 >"$tmp/out" 2>"$tmp/err"
rc=$?
is "$rc" 124 "--init minimal --timeout 2 -- sleep 600: exit 124"
grep -q "run-vm: timed out after 2s; guest killed (console log: .*console.log)" "$tmp/err"
ok $? "the timeout is reported with the console log's path: $(head -n1 "$tmp/err")"

# 3. auto, a command that uses systemctl: the systemd path, with cookie-gend's unit up.
rm -f "$vmdir/last-start"
"$rv" --timeout 300 -- sh -c 'systemctl is-active cookie-gend; echo via-systemd >&2; exit 3' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
is "$rc" 3 "auto, systemctl in the command: exit status 3"
is "$(cat "$tmp/out")" active "systemd path: stdout (cookie-gend's unit is active)"
grep -qx via-systemd "$tmp/err"
ok $? "systemd path: stderr"
read -r path up <"$vmdir/last-start" 2>/dev/null
is "$path" systemd "auto chose systemd for a command that uses systemctl"
echo "# guest uptime at the command, systemd path: ${up:-?} s"

# 4. a guest that does not come up in time: 125.
BAREATOM_BOOT_TIMEOUT=1 "$rv" --init minimal -- true >"$tmp/out" 2>"$tmp/err"
rc=$?
is "$rc" 125 "a boot longer than BAREATOM_BOOT_TIMEOUT=1: exit 125"
grep -q "run-vm: the guest did not come up within 1s (console log: " "$tmp/err"
ok $? "and says so: $(head -n1 "$tmp/err")"

# 5. a bad --init is a usage error, before anything boots.
out=$("$rv" --init fast -- true 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$out" = "run-vm: --init takes auto, minimal or systemd, not 'fast'" ]
ok $? "--init fast: exit 2, one line ($rc: $out)"

# 6. the test payload goes in only for test boots: --tests, or a word of CMD naming a path
# under /usr/lib/bareatom/tests/ or /bench/ (relative paths here, so only --tests counts).
has_tests='cd /usr/lib/bareatom && test -x tests/vm/tap-run && test -f tests/lib/tap.sh &&
	test -f tests/stock/run-all && test -x tests/selftests/test_progs && test -x bench/tpbench'
"$rv" --init minimal --timeout 120 -- sh -c "$has_tests" >"$tmp/out" 2>&1
is "$?" 1 "a plain boot (make run's) carries no test payload"
"$rv" --init minimal --timeout 120 --tests -- sh -c "$has_tests" >"$tmp/out" 2>&1
is "$?" 0 "--tests: the VM and stock tests, the TAP library, the selftests and the benchmarks are in"
"$rv" --init minimal --timeout 120 -- ls /usr/lib/bareatom/tests/lib/tap.sh >"$tmp/out" 2>&1
is "$?" 0 "a command naming a file of the test payload brings it"

# 7. QEMU crashing (7.2 was seen to segfault in CI while a guest booted; images/qemu now
# provides 10.0) is never retried away: exit 125 naming the signal, and the core dump with
# its backtrace kept. A qemu-system-x86_64 first in PATH kills itself with SIGSEGV.
real=$(command -v qemu-system-x86_64)
mkdir "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<WRAP
#!/bin/bash
case "\$1" in --version|-trace) exec "$real" "\$@" ;; esac	# (run-vm's probes, its crash report)
n=\$(cat "$tmp/crashes" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$tmp/crashes"
if [ "\$(cat "$tmp/crash-limit")" -gt "\$n" ]; then echo "crashing on purpose" >&2; kill -SEGV \$\$; fi
exec "$real" "\$@"
WRAP
chmod +x "$tmp/bin/qemu-system-x86_64"
# crash_boot N: run-vm with a qemu that crashes its first N boots; sets rc (out, err, crashes).
crash_boot() {
	rm -f "$tmp/crashes" "$vmdir/qemu-crash.txt"
	echo "$1" >"$tmp/crash-limit"
	PATH=$tmp/bin:$PATH BAREATOM_QEMU=qemu-system-x86_64 BAREATOM_ACCEL=tcg \
		"$rv" --init minimal --timeout 120 -- echo ran >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
crash_boot 1
is "$rc:$(cat "$tmp/out"):$(cat "$tmp/crashes")" "125::1" \
	"qemu crashing before the guest came up: exit 125, no second boot, the command never ran"
grep -q "^run-vm: the guest never came up (qemu died of signal 11) (console log: " "$tmp/err"
ok $? "and says so: $(grep "never came up" "$tmp/err")"
grep -q "^run-vm: qemu's core dump is $vmdir/qemu.core" "$tmp/err" && [ -s "$vmdir/qemu-crash.txt" ]
ok $? "the core dump is kept, its backtrace in build/vm/qemu-crash.txt: $(grep "core dump" "$tmp/err")"
grep -q '^Program terminated with signal SIGSEGV' "$vmdir/qemu-crash.txt"
ok $? "gdb read the core: $(grep -m1 '^Program terminated' "$vmdir/qemu-crash.txt")"

# 8. a guest stuck past --timeout leaves a dump that names the stuck code: tpgen fires on
# one CPU far longer than the timeout (its loop in the kernel, interrupts on).
"$rv" --init minimal --cpus 2 --timeout 20 -- sh -c \
	'modprobe tpgen && echo "tpgen_a 1000000000000" >/sys/kernel/debug/tpgen/fire' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
is "$rc" 124 "a fire of 10^12 events with --timeout 20: exit 124"
is "$(grep -cE '^CPU [01]: RIP 0x[0-9a-f]{16} ' "$tmp/err")" 2 "the dump gives both vCPUs' RIPs"
sym='^CPU [01]: RIP 0xffffffff[0-9a-f]{8} [A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+ '
grep -qE "$sym" "$tmp/err"
ok $? "a kernel RIP is symbolized against System.map: $(grep -m1 -E "$sym" "$tmp/err")"
grep -qE 'NMI backtrace for cpu [01]' "$tmp/err"
ok $? "the guest printed every CPU's backtrace (SysRq l) into the dump"
grep -qE 'tpgen_fire_local\+0x[0-9a-f]+/0x[0-9a-f]+ \[tpgen\]' "$tmp/err"
ok $? "the dump names the stuck code: $(grep -m1 -E 'tpgen_fire_local\+' "$tmp/err" | sed 's/^ *//')"
grep -q 'Show State' "$vmdir/dump.txt" && grep -qE 'task:write1|task:sh ' "$vmdir/dump.txt"
ok $? "every task's state and stack (SysRq t) is in build/vm/dump.txt"

# 9. --host-port: the guest reaches the host's 127.0.0.1:PORT at 10.0.2.100:PORT, and nothing
# else (restrict=on: the host's own address in QEMU's network, 10.0.2.2, refuses).
out=$("$rv" --host-port 80x -- true 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$out" = "run-vm: --host-port takes TCP ports, as in 2379 or 2379,2381, not '80x'" ]
ok $? "--host-port 80x: exit 2, one line ($rc: $out)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
c, _ = s.accept(); c.sendall(b"from the host\n"); c.close()' "$port" &
server=$!
reach='exec 3<>/dev/tcp/10.0.2.100/$0 && read -r line <&3 && echo "10.0.2.100: $line"
ip -o -4 addr show eth0 | awk "{ print \$2, \$4 }"
(exec 4<>/dev/tcp/10.0.2.2/$0) 2>/dev/null || echo "10.0.2.2: refused"'
"$rv" --init minimal --timeout 120 --host-port "$port" -- bash -c "$reach" "$port" >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "--host-port $port: the guest ran"
is "$(cat "$tmp/out")" "10.0.2.100: from the host
eth0 10.0.2.15/24
10.0.2.2: refused" "the guest read the host's server at 10.0.2.100:$port, from eth0 10.0.2.15/24; 10.0.2.2 refused it"
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
# 10. TCG guests of more than one vCPU boot with one CPU online and bring the others online
# right before the command (images/guest/online-cpus: QEMU 10.0's TCG races when the memory
# map changes while other vCPUs run). Every change QEMU made is in build/vm/qemu-memmap.log,
# all of them before the guest's mark.
cpus='dmesg | grep -o "smp: Brought up 1 node, [0-9]* CPUs*"; cat /sys/devices/system/cpu/online'
"$rv" --cpus 4 --init minimal --timeout 120 -- sh -c "$cpus" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$(cat "$vmdir/last-accel")" != tcg ]; then
	for i in 1 2 3 4; do skip "the guest ran under $(cat "$vmdir/last-accel"), which boots every CPU at once"; done
else
	is "$rc:$(cat "$tmp/err")" 0: "--cpus 4: the command ran, nothing on stderr (no memory-map change after the mark)"
	is "$(cat "$tmp/out")" "smp: Brought up 1 node, 1 CPU
0-3" "the kernel booted with one CPU; all four were online for the command"
	n=$(grep -c ':flatview_new ' "$vmdir/qemu-memmap.log")
	[ "$n" -gt 0 ]
	ok $? "QEMU's memory-map changes were traced: $n, in build/vm/qemu-memmap.log"
	# The check itself: a PCI device removed and found again after the mark (with the other
	# CPU taken offline first, so this test does not itself run the race it guards against).
	remap='for d in /sys/bus/pci/devices/*; do [ "$(cat $d/device)" = 0x1005 ] && rng=$d; done
echo 0 >/sys/devices/system/cpu/cpu1/online && echo 1 >$rng/remove && echo 1 >/sys/bus/pci/rescan &&
echo 1 >/sys/devices/system/cpu/cpu1/online && echo rescanned'
	"$rv" --cpus 2 --init minimal --timeout 120 -- sh -c "$remap" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	msg="run-vm: QEMU's memory map changed [0-9]+ time\(s\) after the guest began bringing its CPUs online"
	[ "$rc" = 125 ] && [ "$(cat "$tmp/out")" = rescanned ] && grep -qE "^$msg" "$tmp/err"
	ok $? "a PCI rescan after the mark: the command ran, run-vm exits 125 and says so: $(cut -c1-160 "$tmp/err")"
fi
done_testing
