# The TAP helpers of every shell test: host (tests/unit, tests/multiboot), VM (tests/vm) and
# portability (tests/stock) tests alike, sourced as
#   . "$(dirname "$0")/../lib/tap.sh"
# C tests use tests/unit/test.h; a test that runs one embeds its results with tap_subtest.
# Every test ends with done_testing (the plan); tests/tap-run checks plan and exit status.
tap_n=0
# In the guest the VM tests' compiled helpers sit beside them in tests/vm (images/make-initrd).
PATH=$(cd "$(dirname "${BASH_SOURCE[0]}")/../vm" 2>/dev/null && pwd):$PATH

# ok STATUS DESCRIPTION [DETAIL...]: pass when STATUS is 0; on failure, DETAIL's lines follow
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then echo "ok $tap_n - $2"; else
		echo "not ok $tap_n - $2"
		[ $# -lt 3 ] || printf '%s\n' "${@:3}" | head -n 40 | sed 's/^/#   /'
	fi
}
# is GOT WANT DESCRIPTION: exact comparison; a one-line GOT is shown on success, and both on
# failure (every line of a multi-line one)
is() {
	tap_n=$((tap_n + 1))
	if [ "$1" = "$2" ]; then
		case "$1" in
		*$'\n'* | "") echo "ok $tap_n - $3" ;;
		*) echo "ok $tap_n - $3 ($1)" ;;
		esac
	else
		echo "not ok $tap_n - $3"
		printf '%s\n' "$1" | head -n 40 | sed 's/^/#   got:  /'
		printf '%s\n' "$2" | head -n 40 | sed 's/^/#   want: /'
	fi
}
diag() { echo "# $*"; }

# The bounds of wait_until are multiplied by TAP_SLOW, a whole number (BAREATOM_TEST_SLOW
# in the environment, default 1): a loaded host can make the guest several times slower.
TAP_SLOW=${BAREATOM_TEST_SLOW:-1}
[[ $TAP_SLOW =~ ^[1-9][0-9]*$ ]] || TAP_SLOW=1
# wait_until SECS DESC CMD...: run CMD (its output dropped) every 0.1 s until it succeeds.
# After SECS x TAP_SLOW seconds without success, say what was waited for (diag, on stdout)
# and return 1. Bounds are generous: one is only reached on a hang, and costs nothing else.
wait_until() {
	local secs=$(($1 * TAP_SLOW)) desc=$2 end
	shift 2
	end=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		if [ "$SECONDS" -ge "$end" ]; then
			diag "waited $secs s for $desc"
			return 1
		fi
		sleep 0.1
	done
}
# skip REASON: a test not run here, counted as passed
skip() { echo "ok $((tap_n += 1)) # skip $*"; }
done_testing() { echo "1..$tap_n"; }

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

# usage_case WANT_RC WANT_TEXT CMD...: CMD (stdin /dev/null) exits WANT_RC and prints exactly
# one line, containing WANT_TEXT, on stdout and stderr together (argp's own errors add their
# standard "Try `TOOL --help'" hint, which is not counted)
usage_case() {
	local want_rc=$1 want=$2 out rc what; shift 2
	out=$("$@" 2>&1 </dev/null); rc=$?
	what="$*"; what=${what#as_nobody }; what=${what//"${BUILD:-/nonexistent}/"/}
	what=$(cut -c1-110 <<<"$what")
	if [ "$rc" = "$want_rc" ] && [ "$(grep -vc '^Try `' <<<"$out")" = 1 ] && grep -q -- "$want" <<<"$out"; then
		echo "ok $((tap_n += 1)) - $what -> exit $rc: $(head -n1 <<<"$out" | cut -c1-160)"
	else
		echo "not ok $((tap_n += 1)) - $what -> want exit $want_rc and one line '$want', got $rc"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}
# as_nobody CMD...: CMD as user nobody, so nothing it does could load BPF into the host kernel
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }

# tap_subtest CMD...: run a TAP-speaking binary (a C test on tests/unit/test.h) and pass its
# results on, numbered after this script's, its plan dropped (done_testing gives the whole
# one). A binary that stops short of its own plan, or exits non-zero with nothing failed,
# adds a failure of its own. Returns CMD's exit status.
tap_subtest() {
	local out rc line plan="" ran=0 failed=0
	out=$("$@"); rc=$?
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ [0-9]+(.*)$ ]]; then
			ran=$((ran + 1))
			[ -z "${BASH_REMATCH[1]}" ] || failed=$((failed + 1))
			echo "${BASH_REMATCH[1]}ok $((tap_n += 1))${BASH_REMATCH[2]}"
		elif [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=${BASH_REMATCH[1]}
		else
			printf '%s\n' "$line"
		fi
	done <<<"$out"
	if [ "$plan" != "$ran" ]; then
		echo "not ok $((tap_n += 1)) - ${1##*/}: planned ${plan:-no} tests, ran $ran"
	elif [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
		echo "not ok $((tap_n += 1)) - ${1##*/}: exited with status $rc"
	fi
	return "$rc"
}

# tpgen (kernel/module), in the guest: its debugfs directory, and one tracepoint's FIRED_TOTAL
TPGEN=/sys/kernel/debug/tpgen
tpgen_stat() { awk -v n="$1" '$1 == n { print $2 }' "$TPGEN/stats"; }
