#!/bin/bash
# The man pages render without groff warnings and name every option the tools accept.
top=$(cd "$(dirname "$0")/../.." && pwd)
n=0
for page in "$top"/src/man/*.[18]; do
	n=$((n + 1))
	out=$(groff -man -ww -z "$page" 2>&1)
	if [ -z "$out" ]; then echo "ok $n - ${page##*/} renders cleanly"; else
		echo "not ok $n - ${page##*/} renders cleanly"; sed 's/^/# /' <<<"$out"; fi
	# man(1) on 80- and 100-column terminals sets the line length to 78n and 98n.
	for ll in 78n 80n 98n 100n; do
		n=$((n + 1))
		out=$(groff -man -ww -z -rLL=$ll "$page" 2>&1)
		if [ -z "$out" ]; then echo "ok $n - ${page##*/} renders cleanly at LL=$ll"; else
			echo "not ok $n - ${page##*/} renders cleanly at LL=$ll"; sed 's/^/# /' <<<"$out"; fi
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
	n=$((n + 1))
	if [ -z "$missing" ]; then echo "ok $n - ${page##*/} documents every option of $tool --help"
	else echo "not ok $n - ${page##*/} misses:$missing"; fi
done
echo "1..$n"
