# shellcheck shell=bash
# Sourced by the cookie-gend VM tests (after tap.sh): the systemd service run with extra
# arguments, and the daemon's statistics.

wait_daemon() {	# until the socket answers STATS again (after a restart)
	for _ in $(seq 300); do
		cookie --stats >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
stat_of() { cookie --stats -j | jq -r ".$1"; }
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
