#!/bin/bash
# The suite in the guest is the bareatom Debian package (images/make-initrd installs it with
# dpkg): installed, its files where package.files promises, its unit enabled and running, its
# group made. Then purge: everything it installed goes, nothing of cookie-gend stays in the
# kernel, the state directory stays; and a reinstall from the same .deb brings it all back
# with cookies above every one handed out before, so the tests after this one find the suite
# as it was.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

deb=$(ls /usr/lib/bareatom/deb/bareatom_*_amd64.deb 2>/dev/null | head -n1)
version=$(dpkg-deb -f "$deb" Version 2>/dev/null)
state=/var/lib/bareatom/cookie
pins=/sys/fs/bpf/bareatom/cookie
# As make-initrd installs it: the image's dpkg excludes documentation, ours is part of it.
install_deb() {
	dpkg --path-include='/usr/share/man/*' --path-include='/usr/share/doc/bareatom/*' -i "$deb"
}
# The package's files and links, as dpkg -L lists them, without its directories (/lib among
# them, a link to usr/lib in the merged-/usr image).
pkg_files() {
	dpkg -L bareatom | while IFS= read -r p; do [ -d "$p" ] || echo "$p"; done |
		LC_ALL=C sort
}
all_exist() {
	local p missing=""
	while IFS= read -r p; do [ -e "$p" ] || [ -L "$p" ] || missing="$missing $p"; done <"$here/package.files"
	echo "${missing:-none}"
}
any_exist() {
	local p left=""
	while IFS= read -r p; do [ -e "$p" ] || [ -L "$p" ] && left="$left $p"; done <"$here/package.files"
	echo "${left:-none}"
}
# The unit as systemd sees it, after a reload.
unit_state() {
	systemctl daemon-reload
	echo "$(systemctl is-enabled cookie-gend 2>/dev/null || true)/$(systemctl is-active cookie-gend 2>/dev/null || true)"
}

ok $([ -f "$deb" ]; echo $?) "the image carries the package it was built from ($deb)"
is "$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' bareatom 2>&1)" "ii $version" \
	"dpkg -s: bareatom $version is installed"
is "$(pkg_files)" "$(cat "$here/package.files")" "dpkg -L bareatom lists exactly the promised files"
is "$(all_exist)" none "every file dpkg -L lists is on disk"
for t in tpstat cookie-gend eht-hosts; do
	is "$(command -v $t)" /usr/sbin/$t "$t runs from /usr/sbin, the package's copy"
done
is "$(command -v cookie)" /usr/bin/cookie "cookie runs from /usr/bin, the package's copy"
is "$(ls /usr/local/bin)" "" "nothing of the suite is left in /usr/local/bin"
is "$(ls /usr/local/sbin)" counter "only counter, which is not packaged, is in /usr/local/sbin"
is "$(unit_state)" enabled/active "cookie-gend.service is enabled by the package and running"
is "$(systemctl show -P FragmentPath cookie-gend)" /lib/systemd/system/cookie-gend.service \
	"the unit systemd runs is the package's"
is "$(systemctl show -P ExecStart cookie-gend | grep -o 'path=[^ ;]*')" path=/usr/sbin/cookie-gend \
	"its ExecStart is the packaged binary"
gid=$(getent group bareatom | cut -d: -f3)
ok $([ -n "$gid" ] && [ "$gid" -lt 1000 ]; echo $?) "the bareatom group exists, a system group (gid $gid)"
is "$(stat -c '%G %a' /run/bareatom/cookie.sock 2>&1)" "bareatom 660" \
	"the daemon's socket belongs to group bareatom, mode 0660"
before=$(cookie -n 1000 | tail -n1)
ok $([ -n "$before" ] && [ "$before" -gt 0 ]; echo $?) "cookie draws from the packaged daemon (last of 1000: $before)"

# ---- purge ----
out=$(dpkg --purge bareatom 2>&1); rc=$?
ok $rc "dpkg --purge bareatom succeeds"
[ $rc = 0 ] || diag "$out"
dpkg-query -W bareatom >/dev/null 2>&1
is $? 1 "dpkg has no record of bareatom left (dpkg-query -W exits 1)"
is "$(any_exist)" none "purge removed every file the package installed"
ok $([ ! -e /etc/systemd/system/multi-user.target.wants/cookie-gend.service ] && [ ! -L /etc/systemd/system/multi-user.target.wants/cookie-gend.service ]; echo $?) \
	"purge removed the unit's enablement link"
ok $([ ! -e /var/lib/systemd/deb-systemd-helper-enabled/cookie-gend.service.dsh-also ]; echo $?) \
	"purge removed deb-systemd-helper's record of the unit"
is "$(unit_state)" "/inactive" "cookie-gend.service is neither known nor running"
ok $(pgrep -x cookie-gend >/dev/null; [ $? = 1 ]; echo $?) "no cookie-gend process is left"
ok $([ ! -e $pins ]; echo $?) "nothing of cookie-gend stays pinned in the kernel ($pins is gone)"
is "$(bpftool -j prog show | jq '[.[] | select(.name // "" | test("cookie"))] | length')" 0 \
	"no cookie program stays loaded"
ok $([ -s $state/highwater ]; echo $?) \
	"the state directory $state is kept, with its high-water mark ($(cat $state/highwater 2>&1))"
ok $(getent group bareatom >/dev/null; echo $?) "the bareatom group is kept (Debian never removes system groups)"

# ---- reinstall: the suite as it was, for the tests after this one ----
out=$(install_deb 2>&1); rc=$?
ok $rc "dpkg -i brings the package back"
[ $rc = 0 ] || diag "$out"
is "$(pkg_files)" "$(cat "$here/package.files")" "dpkg -L lists the same files again"
is "$(all_exist)" none "and they are on disk"
is "$(unit_state)" enabled/active "the reinstalled package enabled and started cookie-gend"
after=$(cookie -n 1 2>&1)
ok $([ "$after" -gt "$before" ] 2>/dev/null; echo $?) \
	"a cookie after purge and reinstall ($after) is above every one drawn before ($before): the state was kept"
is "$(getent group bareatom | cut -d: -f3)" "$gid" "the group keeps its gid"
done_testing
