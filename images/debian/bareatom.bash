# bash completion for bareatom's tools: tpstat, cookie-gend, cookie and eht-hosts.
#
# The options come from the tool's own --help (argp prints every one, short and long), so an
# option is completed as soon as the tool has it. An option's argument is completed by the
# name argp gives it (DIR, PATH, PID, ...), tpstat's operands are the tracepoints `tpstat -l`
# lists, and whatever follows `--` is a command (tpstat and eht-hosts run CMD).

# Fills _bareatom_opts (every option) and _bareatom_arg (option -> its argument's name) from
# "$1 --help".
_bareatom_help()
{
	local line re_long re_short
	re_long='^ +(-([^-, ]), )?(--[a-z0-9][a-z0-9-]*)(\[?=([A-Z][A-Z0-9_:.,[]*))?'
	re_short='^ +-([^-, ])( ([A-Z][A-Z0-9_:.,[]*))?( |$)'
	_bareatom_opts=()
	_bareatom_arg=()
	while IFS= read -r line; do
		if [[ $line =~ $re_long ]]; then
			_bareatom_opts+=("${BASH_REMATCH[3]}")
			[[ -n ${BASH_REMATCH[5]} ]] && _bareatom_arg[${BASH_REMATCH[3]}]=${BASH_REMATCH[5]}
			if [[ -n ${BASH_REMATCH[2]} ]]; then
				_bareatom_opts+=("-${BASH_REMATCH[2]}")
				[[ -n ${BASH_REMATCH[5]} ]] && _bareatom_arg[-${BASH_REMATCH[2]}]=${BASH_REMATCH[5]}
			fi
		elif [[ $line =~ $re_short ]]; then
			_bareatom_opts+=("-${BASH_REMATCH[1]}")
			[[ -n ${BASH_REMATCH[3]} ]] && _bareatom_arg[-${BASH_REMATCH[1]}]=${BASH_REMATCH[3]}
		fi
	done < <(LC_ALL=C "$1" --help 2>/dev/null)
}

# Tracepoint names for tpstat (its -l table: a header line, then NAME KIND MODULE).
_bareatom_tracepoints()
{
	"$1" -l 2>/dev/null | awk 'NR > 1 { print $1 }'
}

_bareatom()
{
	local cur prev words cword split
	_init_completion -s || return

	local i cmd=$1
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done

	local -a _bareatom_opts
	local -A _bareatom_arg
	_bareatom_help "$cmd"

	local arg=${_bareatom_arg[$prev]-}
	if [[ -n $arg ]]; then
		case $arg in
		DIR | CGROUP) _filedir -d ;;
		PATH | FILE) _filedir ;;
		PID* | TID*) _pids ;;
		TP*)
			COMPREPLY=($(compgen -W '$(_bareatom_tracepoints "$cmd")' -S : -- "$cur"))
			compopt -o nospace
			;;
		esac
		# Numbers, addresses, globs and expressions: nothing to offer.
		return
	fi
	$split && return

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '${_bareatom_opts[*]}' -- "$cur"))
		local o
		for o in "${!COMPREPLY[@]}"; do
			# A long option with an argument is offered as --opt= (argp takes both forms).
			[[ ${COMPREPLY[o]} == --* && -n ${_bareatom_arg[${COMPREPLY[o]}]-} ]] &&
				COMPREPLY[o]+='='
		done
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi

	case ${cmd##*/} in
	tpstat) COMPREPLY=($(compgen -W '$(_bareatom_tracepoints "$cmd")' -- "$cur")) ;;
	esac
} &&
	complete -F _bareatom tpstat cookie-gend cookie eht-hosts
