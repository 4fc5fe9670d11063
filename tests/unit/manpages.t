#!/bin/bash
# The man pages render without groff warnings and name every option the tools accept.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
for page in "$top"/src/man/*.[18]; do
	is "$(groff -man -ww -z "$page" 2>&1)" "" "${page##*/} renders cleanly"
	# man(1) on 80- and 100-column terminals sets the line length to 78n and 98n.
	for ll in 78n 80n 98n 100n; do
		is "$(groff -man -ww -z -rLL=$ll "$page" 2>&1)" "" "${page##*/} renders cleanly at LL=$ll"
	done
done
for tool in tpstat cookie-gend cookie eht-hosts; do
	page=$(ls "$top"/src/man/$tool.[18])
	text=$(groff -man -Tutf8 "$page" 2>/dev/null | col -b)
	missing=""
	for opt in $("$BUILD/$tool" --help | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z-]+' | grep -oE -- '--[a-z-]+' | sort -u); do
		case $opt in --help|--usage|--version) continue ;; esac
		grep -qF -- "$opt" <<<"$text" || missing="$missing $opt"
	done
	is "$missing" "" "${page##*/} documents every option of $tool --help"
done
done_testing
