#!/bin/bash
# tpstat's command line, on the host: every usage error exits 2 with a one-line reason
# before anything is loaded. Run as nobody, so nothing could ever load BPF into this kernel.
tpstat=$BUILD/tpstat
n=0
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$tpstat" "$@"; }
usage_error() {
	local want=$1; shift
	n=$((n + 1))
	out=$(asnobody "$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- "$want" <<<"$out"; then
		echo "ok $n - tpstat $* -> exit 2: $(head -n1 <<<"$out")"
	else
		echo "not ok $n - tpstat $* -> want exit 2 and '$want', got $rc"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}
usage_error "invalid interval '0'" -i 0 sched_switch
usage_error "invalid interval '-1'" -i -1 sched_switch
usage_error "invalid interval 'abc'" -i abc sched_switch
usage_error "invalid interval '1s'" -i 1s sched_switch
usage_error "invalid duration '-5'" -d -5 sched_switch
usage_error "invalid duration 'nan'" -d nan sched_switch
usage_error "invalid count '0'" -i 1 -c 0 sched_switch
usage_error "invalid count 'x'" -i 1 -c x sched_switch
usage_error "invalid count '-3'" -i 1 -c -3 sched_switch
usage_error "needs -i" -c 3 sched_switch
usage_error "name at least one tracepoint" -i 1
usage_error "named twice" sched_switch pelt_cfs_tp sched_switch
usage_error "at most 32" $(seq -f 'tp%g' 1 33)
usage_error "takes no other options" -l -i 1
usage_error "at most one GLOB" -l 'a*' 'b*'
usage_error "unrecognized option" --bogus sched_switch
usage_error "name at least one tracepoint" -- true

n=$((n + 1))
out=$("$tpstat" --help)
if [ $? = 0 ] && grep -q EXAMPLES <<<"$out" && grep -q -- '-- CMD' <<<"$out"; then
	echo "ok $n - --help shows usage and examples"
else
	echo "not ok $n - --help shows usage and examples"
fi
echo "1..$n"
