#!/bin/bash
# Every tool's --help and --usage, as argp lays them out at its default right margin (79),
# must be what we wrote: no line of ours broken by argp. argp reads ARGP_HELP_FMT, so the
# same text printed with rmargin=1000 has only the line breaks the doc strings contain;
# where the two differ, argp wrapped a line (mid-sentence, an example's path cut in two).
# Both runs set no-dup-args-note: that note is glibc's own paragraph, not one of our
# strings, and it is one line only at a wide margin.
#
# --usage is argp's list of every option, which it always breaks between whole items (each
# "[-c COUNT]" is placed as a unit); there the joined lines must equal the wide output, no
# line may hold half a bracketed item.
#
# Runs the tools only for --help and --usage, as nobody when run as root: argp prints them
# and exits while parsing, before any BPF is set up.
. "$(dirname "$0")/../lib/tap.sh"

run() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@" </dev/null
	else
		"$@" </dev/null
	fi
}

# balanced LINE...: every line closes each [ it opens
balanced() {
	awk '{ d = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
		if (c == "[") d++; else if (c == "]") d--; if (d < 0) bad = 1 }
		if (d) bad = 1 } END { exit bad }'
}

for tool in tpstat cookie cookie-gend eht-hosts counter; do
	bin=$BUILD/$tool
	narrow=$(ARGP_HELP_FMT=no-dup-args-note run "$bin" --help 2>&1); rc=$?
	wide=$(ARGP_HELP_FMT=no-dup-args-note,rmargin=1000 run "$bin" --help 2>&1)
	is "$rc" 0 "$tool --help exits 0"
	if [ "$narrow" = "$wide" ]; then
		ok 0 "$tool --help: no line wrapped by argp ($(wc -l <<<"$narrow") lines)"
	else
		ok 1 "$tool --help: no line wrapped by argp"
		diff <(echo "$wide") <(echo "$narrow") | sed 's/^/#   /'
	fi

	narrow=$(ARGP_HELP_FMT=no-dup-args-note run "$bin" --usage 2>&1); rc=$?
	wide=$(ARGP_HELP_FMT=no-dup-args-note,rmargin=1000 run "$bin" --usage 2>&1)
	is "$rc" 0 "$tool --usage exits 0"
	# argp indents its continuation lines; joined, they are the one wide line.
	joined=$(awk 'NR > 1 && /^ +\[/ { sub(/^ +/, " "); printf "%s", $0; next }
		NR > 1 { print "" } { printf "%s", $0 } END { print "" }' <<<"$narrow")
	if [ "$joined" = "$wide" ]; then
		ok 0 "$tool --usage: argp broke lines only between items ($(wc -l <<<"$narrow") lines)"
	else
		ok 1 "$tool --usage: argp broke lines only between items"
		diff <(echo "$wide") <(echo "$joined") | sed 's/^/#   /'
	fi
	balanced <<<"$narrow"
	ok $? "$tool --usage: no bracketed item split across lines"
done

# argp prints --help and exits while it parses the options, before any BPF set-up: not one
# bpf(2) or perf_event_open(2) call (strace sees the attempt even where it would fail).
trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
bpf_calls() {	# CMD...: how many bpf(2) and perf_event_open(2) calls CMD makes, run as run() does
	local as=()
	[ "$(id -u)" = 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	: >"$trace"
	strace -f -qq -e trace=bpf,perf_event_open -o "$trace" "${as[@]}" "$@" >/dev/null 2>&1 </dev/null
	grep -c -E '^([0-9]+ +)?(bpf|perf_event_open)\(' "$trace"
}
for tool in tpstat cookie cookie-gend eht-hosts counter; do
	is "$(bpf_calls "$BUILD/$tool" --help)" 0 "$tool --help makes no bpf(2) or perf_event_open(2) call"
done
# ... and the count sees one: bpftool listing programs as nobody tries bpf(2) (and is refused).
calls=$(bpf_calls "$(PATH=$PATH:/usr/sbin command -v bpftool)" prog show)
[ "$calls" -gt 0 ]
ok $? "strace counts the bpf(2) calls of bpftool prog show ($calls)"

# The check itself catches a wrap: the same test on a text argp must wrap.
narrow=$(ARGP_HELP_FMT=no-dup-args-note,rmargin=40 run "$BUILD/counter" --help 2>&1)
wide=$(ARGP_HELP_FMT=no-dup-args-note,rmargin=1000 run "$BUILD/counter" --help 2>&1)
[ "$narrow" != "$wide" ]
ok $? "a margin of 40 columns does wrap counter's --help, and the comparison sees it"
done_testing
