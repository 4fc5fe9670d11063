#!/bin/bash
# bash completion (images/debian/bareatom.bash, installed for tpstat, cookie-gend, cookie and
# eht-hosts): every option each tool's --help names is offered, option arguments are
# completed by kind (directories, files, processes, nothing for numbers), tpstat's operands
# are tracepoints and what follows `--` is a command. Runs the tools only for --help, and a
# stand-in for `tpstat -l`, so nothing touches BPF.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# tpstat -l needs BTF: a stand-in lists three tracepoints and passes the rest to the real one.
mkdir -p "$tmp/bin" "$tmp/fs/dir1" "$tmp/fs/dir2"
: >"$tmp/fs/file1"
cat >"$tmp/bin/tpstat" <<EOF
#!/bin/sh
if [ "\$1" = -l ]; then
	printf '%-40s %-5s %s\n' TRACEPOINT KIND MODULE pelt_cfs_tp bare vmlinux \
		pelt_rt_tp bare vmlinux sched_switch event vmlinux
	exit 0
fi
exec "$BUILD/tpstat" "\$@"
EOF
chmod +x "$tmp/bin/tpstat"
export PATH=$tmp/bin:$BUILD:$PATH

. /usr/share/bash-completion/bash_completion
. "$top/images/debian/bareatom.bash"
# Outside a real completion compopt refuses to run; what it would set is not checked here.
compopt() { :; }

# complete_words WORD...: what TAB offers for the last WORD, sorted, one per line.
complete_words() { COMP_LINE="$*" complete_as "$@"; }
# complete_eq TOOL OPTION VALUE: the same for OPTION=VALUE, which bash splits at the '=' into
# three words of one unbroken line.
complete_eq() { COMP_LINE="$1 $2=$3" complete_as "$1" "$2" = "$3"; }
complete_as() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	local spec fn
	spec=$(complete -p "$1" 2>/dev/null)
	fn=${spec#*-F }
	fn=${fn%% *}
	"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort -u
}

for tool in tpstat cookie-gend cookie eht-hosts; do
	is "$(complete -p $tool 2>&1)" "complete -F _bareatom $tool" "$tool has the bareatom completion"
	# Every option --help names, short and long, by its own reading of argp's layout.
	help=$("$BUILD/$tool" --help)
	want=$(grep -oE -- '^ +(-[^-, ], )?--[a-z][a-z-]+' <<<"$help" | grep -oE -- '--[a-z-]+'
		grep -oE -- '^ +-[^-, ][, ]' <<<"$help" | grep -oE -- '-[^-, ]')
	offered=$(complete_words $tool -)
	missing=""
	for o in $(LC_ALL=C sort -u <<<"$want"); do
		grep -qxE -- "$(sed 's/[?]/\\?/' <<<"$o")=?" <<<"$offered" || missing="$missing $o"
	done
	is "${missing:-none}" none "$tool -<TAB> offers all $(wc -l <<<"$want") options of its --help"
	is "$(complete_words $tool -- | grep -c -- '^-[^-]')" 0 "$tool --<TAB> offers only long options"
done

is "$(complete_words cookie-gend --state | tr '\n' ' ')" "--state-dir= " \
	"an option that takes an argument is offered with its ="
is "$(complete_words cookie-gend --state-dir "$tmp/fs/" | tr '\n' ' ')" "$tmp/fs/dir1 $tmp/fs/dir2 " \
	"cookie-gend --state-dir DIR: directories only"
is "$(complete_eq cookie-gend --state-dir "$tmp/fs/" | tr '\n' ' ')" "$tmp/fs/dir1 $tmp/fs/dir2 " \
	"cookie-gend --state-dir=DIR: the same"
is "$(complete_words cookie-gend --socket "$tmp/fs/f" | tr '\n' ' ')" "$tmp/fs/file1 " \
	"cookie-gend --socket PATH: files"
is "$(complete_words cookie-gend --textfile "$tmp/fs/f" | tr '\n' ' ')" "$tmp/fs/file1 " \
	"cookie-gend --textfile PATH: files"
is "$(complete_words cookie-gend --listen "")" "" "cookie-gend --listen ADDR:PORT: nothing to offer"
is "$(complete_words tpstat --textfile "$tmp/fs/f" | tr '\n' ' ')" "$tmp/fs/file1 " \
	"tpstat --textfile PATH: files"
is "$(complete_words tpstat --listen "")" "" "tpstat --listen ADDR:PORT: nothing to offer"
is "$(complete_words eht-hosts --textfile "$tmp/fs/f" | tr '\n' ' ')" "$tmp/fs/file1 " \
	"eht-hosts --textfile PATH: files"
ok $(complete_words cookie --pid "" | grep -qx "$$"; echo $?) "cookie --pid PID: process ids (this one, $$, among them)"
ok $(complete_words cookie -p "" | grep -qx "$$"; echo $?) "cookie -p PID: the same"
ok $(complete_eq cookie --pid "" | grep -qx "$$"; echo $?) "cookie --pid=PID: the same"
is "$(complete_words cookie -n "")" "" "cookie -n N: nothing to offer for a number"
is "$(complete_words cookie-gend --node)" "--node-id=" "cookie-gend --node<TAB>: --node-id="
is "$(complete_words cookie-gend --node-id "")" "" "cookie-gend --node-id N: nothing to offer for a number"
is "$(complete_words cookie --dec)" "--decode=" "cookie --dec<TAB>: --decode="
is "$(complete_words cookie --decode "")" "" "cookie --decode COOKIE: nothing to offer for a number"
is "$(complete_words tpstat -d "")" "" "tpstat -d SECS: nothing to offer for a number"
is "$(complete_words tpstat "" | tr '\n' ' ')" "pelt_cfs_tp pelt_rt_tp sched_switch " \
	"tpstat TRACEPOINT: the names tpstat -l lists"
is "$(complete_words tpstat -j pelt_ | tr '\n' ' ')" "pelt_cfs_tp pelt_rt_tp " \
	"tpstat -j pelt_<TAB>: the matching ones"
is "$(complete_words tpstat -l pelt_c)" pelt_cfs_tp "tpstat -l GLOB: tracepoint names too"
is "$(complete_words cookie-gend "")" "" "cookie-gend takes no operands: nothing offered"
ok $(complete_words tpstat sched_switch -- ech | grep -qx echo; echo $?) "tpstat TP -- CMD: commands"
ok $(complete_words eht-hosts -j -- ech | grep -qx echo; echo $?) "eht-hosts -- CMD: commands"
done_testing
