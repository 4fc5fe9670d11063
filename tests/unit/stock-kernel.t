#!/bin/bash
# images/stock-kernel without the network: an unknown kernel line is a usage error; the 6.12
# line with no reachable archive and nothing cached is "not available" (exit 3, the reason on
# stderr and in OUT/unavailable, which tests/run-all turns into a skip); with a kernel of the
# line cached it needs no network and takes that one, never a cached kernel of the other line.
# Everything lives in a scratch cache (BAREATOM_CACHE) whose apt source is a closed local
# port: nothing is fetched, and the machine's apt and cache are not touched.
. "$(dirname "$0")/../lib/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BAREATOM_CACHE=$tmp/cache
apt=$BAREATOM_CACHE/apt-bookworm-backports
mkdir -p "$apt"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://127.0.0.1:9/debian bookworm-backports main" \
	>"$apt/sources.list"
sk() { "$top/images/stock-kernel" "$tmp/build" "$@"; }

err_case 2 "stock-kernel: no such kernel line '5.10' (6.1 or 6.12)" "an unknown kernel line" sk 5.10

err=$(sk 6.12 2>&1 >/dev/null); rc=$?
is "$rc" 3 "6.12 with the archive unreachable and nothing cached: exit 3 (not available)"
want="Debian's 6.12 kernel is not available: apt knows no linux-image-amd64 of the 6.12 line in bookworm-backports and none is cached in $BAREATOM_CACHE (apt-get update of bookworm-backports failed: W: Failed to fetch http://127.0.0.1:9/"
[[ $(cat "$tmp/build/stock-6.12/unavailable") == "$want"* ]]
ok $? "the reason, one line, in build/stock-6.12/unavailable: $(cat "$tmp/build/stock-6.12/unavailable")"
is "$(tail -n1 <<<"$err")" "stock-kernel: $(cat "$tmp/build/stock-6.12/unavailable")" "and as stderr's last line"
[ ! -e "$tmp/build/stock-6.12/vmlinuz" ]
ok $? "no vmlinuz written"

# Kernels of both lines in the cache, as earlier runs leave them; the 6.1 one sorts after
# a 6.12 one by name prefix only if the line is matched carelessly.
fake() {	# DIR CONTENT
	mkdir -p "$BAREATOM_CACHE/$1"
	for f in vmlinuz modules.cpio release; do echo "$2 $f" >"$BAREATOM_CACHE/$1/$f"; done
	touch "$BAREATOM_CACHE/$1/done"
}
fake stock-linux-image-6.12.7+deb12-amd64-6.12.7-1~bpo12+1 six-twelve
fake stock-linux-image-6.1.0-99-amd64-6.1.999-1 six-one
touch "$apt/lists/fake_Packages"	# lists present, none older than a week: no update
err=$(sk 6.12 2>&1 >/dev/null); rc=$?
is "$rc" 0 "6.12 offline with a 6.12 kernel cached: exit 0"
is "$(cat "$tmp/build/stock-6.12/vmlinuz")/$(cat "$tmp/build/stock-6.12/release")" \
	"six-twelve vmlinuz/six-twelve release" "it takes the cached 6.12 kernel, not the 6.1 one"
grep -q updating <<<"$err"
is "$?" 1 "with apt lists present it does not update them (a second run needs no network)"
[ ! -e "$tmp/build/stock-6.12/unavailable" ]
ok $? "and removes the old unavailable note"
done_testing
