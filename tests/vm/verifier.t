#!/bin/bash
# The kernel's own tests of the BPF atomic instructions, run against our kernel: test_verifier's
# cases from verifier/atomic_*.c and verifier/xadd.c (tools/testing/selftests/bpf), each one
# privileged (/p) and, where test_verifier does so, unprivileged (/u). Every run must print OK:
# a skipped or failed one is "not ok", and each file's summary must read "N PASSED, 0 SKIPPED,
# 0 FAILED". The cases' indices in test_verifier's table were found at build time from the same
# sources (tests/selftests/list-cases.c); the description test_verifier prints next to each
# index is compared here with the expected one, so a shifted index cannot pass.
. "$(dirname "$0")/../lib/tap.sh"
dir=/usr/lib/bareatom/tests/selftests
tv=$dir/test_verifier
cases=$dir/atomic-cases

[ -x "$tv" ] && [ -s "$cases" ]
ok $? "test_verifier and its list of atomic cases are installed in $dir"
if [ ! -x "$tv" ] || [ ! -s "$cases" ]; then done_testing; exit 1; fi

# test_verifier runs the /u half only when unprivileged BPF is enabled; our kernel, like
# Debian's, defaults to 2 (CONFIG_BPF_UNPRIV_DEFAULT_OFF), which would skip every /u run.
sysctl=/proc/sys/kernel/unprivileged_bpf_disabled
saved=$(cat $sysctl)
echo 0 >$sysctl
is "$(cat $sysctl)" 0 "unprivileged BPF enabled for the /u runs (was $saved)"

sum_p=0 sum_s=0 sum_f=0
for file in $(cut -f2 "$cases" | uniq); do
	first=$(awk -F'\t' -v f="$file" '$2 == f { print $1; exit }' "$cases")
	last=$(awk -F'\t' -v f="$file" '$2 == f { l = $1 } END { print l }' "$cases")
	out=$("$tv" "$first" "$last" 2>&1)
	rc=$?
	# First word of each result line ("#21/u") -> the rest of it.
	declare -A got=()
	while read -r key rest; do
		[[ $key =~ ^#[0-9]+/[up]$ ]] && got[$key]=$rest
	done <<<"$out"
	want=0
	while IFS=$'\t' read -r idx f modes descr; do
		[ "$f" = "$file" ] || continue
		for m in p u; do
			[[ $modes == *$m* ]] || continue
			want=$((want + 1))
			r=${got["#$idx/$m"]-}
			if [[ $r == "$descr OK" || $r =~ ^"$descr "[0-9]+" cases OK"$ ]]; then
				ok 0 "$file #$idx/$m $descr"
			else
				ok 1 "$file #$idx/$m $descr" "got: '${r:-no result line}'"
				[ "$m" = p ] && "$tv" -v "$idx" 2>&1 | head -n 40 | sed 's/^/#   /'
			fi
		done
	done <"$cases"
	unset got
	summary=$(grep '^Summary: ' <<<"$out")
	is "$summary" "Summary: $want PASSED, 0 SKIPPED, 0 FAILED" "$file: test_verifier $first $last"
	is "$rc" 0 "$file: test_verifier exit status"
	if [[ $summary =~ ([0-9]+)\ PASSED,\ ([0-9]+)\ SKIPPED,\ ([0-9]+)\ FAILED ]]; then
		sum_p=$((sum_p + BASH_REMATCH[1]))
		sum_s=$((sum_s + BASH_REMATCH[2]))
		sum_f=$((sum_f + BASH_REMATCH[3]))
	fi
done
echo "$saved" >$sysctl
diag "test_verifier, atomic_*.c and xadd.c: Summary: $sum_p PASSED, $sum_s SKIPPED, $sum_f FAILED"
done_testing
