#!/bin/bash
# The Debian packages `make deb` built (images/debian): lintian finds nothing to warn about,
# the contents are exactly the promised ones, the tools are this tree's with their BPF
# objects built in, the maintainer scripts make the group before starting the daemon, and
# libcookie-dev's headers and library build a client. Nothing here needs the network, a
# kernel or root's BPF: the packages are only read, and the client only linked.
top=$(cd "$(dirname "$0")/../.." && pwd)
version=$(dpkg-parsechangelog -l "$top/images/debian/changelog" -S Version)
dir=$BUILD/deb
deb=$dir/bareatom_${version}_amd64.deb
dev=$dir/libcookie-dev_${version}_amd64.deb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/tap.sh"
# The non-directory entries of a package, as absolute paths.
contents() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print substr($6, 2) }' | LC_ALL=C sort; }
mode_of() { dpkg-deb -c "$deb" | awk -v p="./${1#/}" '$6 == p { print $1, $2 }'; }

ok $([ -f "$deb" ] && [ -f "$dev" ]; echo $?) "make deb built bareatom and libcookie-dev $version"

# lintian on the .changes checks both packages (and the debug symbols) as an upload would.
# Errors and warnings fail; info, pedantic and experimental tags are listed, not counted.
out=$(lintian --pedantic -I -E --tag-display-limit 0 "$dir/bareatom_${version}_amd64.changes" 2>&1 |
	grep -v 'running with root privileges')
is "$(grep -E '^[EW]: ' <<<"$out")" "" "lintian: no errors and no warnings"
[ -n "$out" ] && sed 's/^/#   /' <<<"$out"

is "$(contents "$deb")" "$(cat "$top/tests/vm/package.files")" \
	"bareatom holds exactly tests/vm/package.files (tools, unit, sysusers, completion, man pages)"
for t in /usr/sbin/tpstat /usr/sbin/cookie-gend /usr/sbin/eht-hosts /usr/bin/cookie; do
	is "$(mode_of $t)" "-rwxr-xr-x root/root" "$t: mode 0755, owned by root"
done
ok $(contents "$deb" | grep -q counter; [ $? = 1 ]; echo $?) "counter is not in the package (tpgen's companion)"
is "$(contents "$dev")" "/usr/include/bareatom/cookie_abi.h
/usr/include/bareatom/cookie_limit.h
/usr/include/bareatom/libcookie.h
/usr/lib/x86_64-linux-gnu/libcookie.a
/usr/lib/x86_64-linux-gnu/pkgconfig/libcookie.pc
/usr/share/doc/libcookie-dev/changelog.gz
/usr/share/doc/libcookie-dev/copyright" "libcookie-dev holds the headers, the static library and its pkg-config file"

dpkg-deb -x "$deb" "$tmp/root"
dpkg-deb -e "$deb" "$tmp/control"
# Built once: the packaged tools are the very binaries make built and the host tests ran
# (stripped, they keep their build id), and the package build compiled nothing again.
build_id() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: //p'; }
for t in tpstat cookie-gend eht-hosts cookie; do
	p=$(ls "$tmp"/root/usr/*bin/$t)
	id=$(build_id "$BUILD/$t")
	is "$(build_id "$p")" "${id:-none}" "packaged $t is $BUILD/$t (the same build id)"
done
is "$(grep -E '^(cc|gcc|clang|bpftool|ar) ' "$dir/build.log")" "" \
	"the package build (build/deb/build.log) compiled nothing: it packaged make's objects"
# Skeletons: each tool carries its BPF object, an ELF64 relocatable for EM_BPF (247).
for t in tpstat cookie-gend eht-hosts; do
	c=$(LC_ALL=C grep -c -a -P '\x7fELF\x02\x01\x01\x00{9}\x01\x00\xf7\x00' "$tmp/root/usr/sbin/$t")
	ok $([ "${c:-0}" -ge 1 ]; echo $?) "/usr/sbin/$t carries its BPF object (ELF for EM_BPF inside)"
done
is "$(grep '^ExecStart=' "$tmp/root/lib/systemd/system/cookie-gend.service")" \
	"ExecStart=/usr/sbin/cookie-gend --foreground \$COOKIE_GEND_OPTS" "the unit starts the packaged cookie-gend, with /etc/default/cookie-gend's options"
is "$(grep -v '^#' "$tmp/root/usr/lib/sysusers.d/bareatom.conf")" "g bareatom -" \
	"sysusers.d makes the system group bareatom"
is "$(dpkg-deb -f "$deb" Architecture)" amd64 "bareatom is built for amd64 (CO-RE for x86 kernels)"
ok $(dpkg-deb -f "$deb" Depends | grep -q 'libbpf1'; echo $?) "bareatom depends on libbpf1 ($(dpkg-deb -f "$deb" Depends))"

# postinst: the group exists before the daemon starts (its socket is group bareatom).
sysusers=$(grep -n 'systemd-sysusers.*bareatom.conf' "$tmp/control/postinst" | cut -d: -f1)
enable=$(grep -n "deb-systemd-helper enable 'cookie-gend.service'" "$tmp/control/postinst" | cut -d: -f1)
start=$(grep -n "deb-systemd-invoke .*'cookie-gend.service'" "$tmp/control/postinst" | cut -d: -f1)
ok $([ -n "$sysusers" ] && [ -n "$enable" ] && [ -n "$start" ] && [ "$sysusers" -lt "$start" ]; echo $?) \
	"postinst makes the group (line ${sysusers:-none}), enables (${enable:-none}) and starts (${start:-none}) cookie-gend"
# prerm: on removal the daemon is stopped, then its pins go (nothing stays in the kernel).
stop=$(grep -n "deb-systemd-invoke stop 'cookie-gend.service'" "$tmp/control/prerm" | cut -d: -f1)
unpin=$(grep -n 'cookie-gend --uninstall' "$tmp/control/prerm" | cut -d: -f1)
ok $([ -n "$stop" ] && [ -n "$unpin" ] && [ "$stop" -lt "$unpin" ]; echo $?) \
	"prerm stops cookie-gend (line ${stop:-none}), then unpins it (line ${unpin:-none})"

# libcookie-dev builds a client: the headers stand alone, the library and pkg-config link.
dpkg-deb -x "$dev" "$tmp/dev"
cat >"$tmp/client.c" <<'EOF'
#include <stdio.h>
#include <bareatom/libcookie.h>

int main(void)
{
	struct cookie_fast f;
	uint64_t first;
	int fd = cookie_connect(COOKIE_SOCKET_PATH);

	if (fd >= 0 && !cookie_get(fd, 1, &first))
		printf("%llu\n", (unsigned long long)first);
	if (!cookie_fast_open(&f) && !cookie_fast_get(&f, 1, &first))
		printf("%llu\n", (unsigned long long)first);
	cookie_fast_close(&f);
	return 0;
}
EOF
flags=$(PKG_CONFIG_PATH=$tmp/dev/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$tmp/dev \
	pkg-config --cflags --libs libcookie 2>&1)
out=$(cc -Wall -Wextra -Werror -o "$tmp/client" "$tmp/client.c" $flags 2>&1)
ok $? "a client with <bareatom/libcookie.h> compiles and links with pkg-config's libcookie ($flags)"
[ -n "$out" ] && sed 's/^/#   /' <<<"$out"
done_testing
