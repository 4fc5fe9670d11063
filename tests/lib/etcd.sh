# A real etcd for a test (Debian's etcd-server, images/install-deps): N members on 127.0.0.1
# only, on ports free at start, data in a temporary directory; sourced after tap.sh:
#   etcd_start 3          members 1..3 up and healthy; ETCD_URLS lists their client URLs
#   etcd_stop_member I    SIGKILL member I (its data stays)
#   etcd_start_member I   start member I again on its data
#   etcd_ctl ARGS...      etcdctl on every member
#   etcd_cleanup          every member killed, the directory removed (the test traps it)
ETCD_DIR=
ETCD_URLS=
declare -a ETCD_PID ETCD_CPORT ETCD_PPORT

# N ports free on 127.0.0.1 now, held open together so that none is chosen twice
etcd_free_ports() {
	python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

etcd_start_member() {
	local i=$1 cluster="" j
	for j in "${!ETCD_CPORT[@]}"; do
		cluster+="${cluster:+,}m$j=http://127.0.0.1:${ETCD_PPORT[$j]}"
	done
	etcd --name "m$i" --data-dir "$ETCD_DIR/m$i" \
		--listen-client-urls "http://127.0.0.1:${ETCD_CPORT[$i]}" \
		--advertise-client-urls "http://127.0.0.1:${ETCD_CPORT[$i]}" \
		--listen-peer-urls "http://127.0.0.1:${ETCD_PPORT[$i]}" \
		--initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PPORT[$i]}" \
		--initial-cluster "$cluster" --initial-cluster-token "bareatom-test-$$" \
		>>"$ETCD_DIR/m$i.log" 2>&1 &
	ETCD_PID[$i]=$!
}

etcd_stop_member() {
	kill -9 "${ETCD_PID[$1]}" 2>/dev/null
	wait "${ETCD_PID[$1]}" 2>/dev/null
	ETCD_PID[$1]=
}

etcd_ctl() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URLS" --command-timeout=5s "$@"; }

etcd_healthy() { etcd_ctl endpoint health --cluster >/dev/null 2>&1 && etcd_ctl put /bareatom-test/ping 1 >/dev/null; }

etcd_start() {
	local n=$1 ports i
	ETCD_DIR=$(mktemp -d /tmp/bareatom-etcd.XXXXXX)
	ports=($(etcd_free_ports $((2 * n))))
	ETCD_URLS=
	for ((i = 1; i <= n; i++)); do
		ETCD_CPORT[$i]=${ports[$((2 * i - 2))]}
		ETCD_PPORT[$i]=${ports[$((2 * i - 1))]}
		ETCD_URLS+="${ETCD_URLS:+,}http://127.0.0.1:${ETCD_CPORT[$i]}"
	done
	for ((i = 1; i <= n; i++)); do
		etcd_start_member "$i"
	done
	wait_until 120 "etcd's $n members to be healthy" etcd_healthy
}

etcd_cleanup() {
	local i
	for i in "${!ETCD_PID[@]}"; do
		[ -n "${ETCD_PID[$i]}" ] || continue
		kill -9 "${ETCD_PID[$i]}" 2>/dev/null
		wait "${ETCD_PID[$i]}" 2>/dev/null
	done
	[ -n "$ETCD_DIR" ] && rm -rf "$ETCD_DIR"
}
