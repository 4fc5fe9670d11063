# shellcheck shell=bash
# Sourced by the cookie-gend VM tests (after tests/lib/tap.sh): the systemd service run with extra
# arguments, and the daemon's statistics.

wait_daemon() {	# until the socket answers STATS again (after a restart)
	for _ in $(seq 300); do
		cookie --stats >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
stat_of() { cookie --stats -j | jq -r ".$1"; }
# The pid in the pinned follower map: the one cookie --follow the programs write events for.
follower_pid() {
	bpftool -j map lookup pinned /sys/fs/bpf/bareatom/cookie/follower key 0 0 0 0 2>/dev/null |
		jq -r '.formatted.value // 0'
}
wait_follower() {	# PID: until that cookie --follow is registered (it reads from then on)
	for _ in $(seq 300); do
		[ "$(follower_pid)" = "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
set_daemon_args() {	# run the systemd service with extra arguments ("" for none)
	mkdir -p /run/systemd/system/cookie-gend.service.d
	if [ -n "$1" ]; then
		printf '[Service]\nExecStart=\nExecStart=/usr/sbin/cookie-gend --foreground %s\n' "$1" \
			>/run/systemd/system/cookie-gend.service.d/args.conf
	else
		rm -f /run/systemd/system/cookie-gend.service.d/args.conf
	fi
	systemctl daemon-reload && systemctl restart cookie-gend && wait_daemon
}
