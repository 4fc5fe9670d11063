# TAP helpers for the VM tests (sourced). Tests name what they check.
tap_n=0
# The compiled helpers live next to the scripts.
PATH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd):$PATH
# ok COND_STATUS DESCRIPTION: pass when the status is 0
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; fi
}
# is GOT WANT DESCRIPTION: exact comparison
is() {
	tap_n=$((tap_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $tap_n - $3 ($1)"
	else
		echo "not ok $tap_n - $3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
	fi
}
diag() { echo "# $*"; }
done_testing() { echo "1..$tap_n"; }

TPGEN=/sys/kernel/debug/tpgen
# tpgen_stat NAME: the tracepoint's FIRED_TOTAL from tpgen's stats
tpgen_stat() { awk -v n="$1" '$1 == n { print $2 }' "$TPGEN/stats"; }

# err_case WANT_RC WANT_TEXT DESCRIPTION CMD...: CMD fails with exit WANT_RC and exactly one
# line on stderr that contains WANT_TEXT
err_case() {
	local rc want=$1 text=$2 what=$3 out; shift 3
	out=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$text" <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ]; then
		echo "ok $((tap_n += 1)) - $what: exit $rc, '$out'"
	else
		echo "not ok $((tap_n += 1)) - $what: want exit $want and '$text'"
		echo "#   got exit $rc: $out"
	fi
}
