#!/bin/bash
# The guest's clock. Under TCG run-vm boots with tsc=reliable (tests/README.md, "The guest's
# clock"): the clocksource must then be the TSC, and CLOCK_MONOTONIC must never go backwards
# from one CPU to another, which the kernel no longer checks at boot with that option.
. "$(dirname "$0")/../lib/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)

cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
if grep -qw tsc=reliable /proc/cmdline; then
	is "$cs" tsc "clocksource is the TSC when booted with tsc=reliable"
else
	skip "clocksource is $cs: booted without tsc=reliable (KVM), nothing to check"
fi

cpus=$(nproc)
if [ "$cpus" -lt 2 ]; then
	skip "CLOCK_MONOTONIC across CPUs: one CPU"
else
	out=$("$here/clock-warp" "$cpus" 5)
	rc=$?
	diag "$out"
	is "$rc" 0 "CLOCK_MONOTONIC never went backwards across $cpus CPUs ($out)"
	[[ $out =~ reads\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt "$cpus" ]
	ok $? "the threads took turns (${BASH_REMATCH[1]:-no} reads)"
fi
done_testing
