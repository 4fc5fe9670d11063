#!/bin/bash
# Two boots of the guest sharing one cookie-gend state directory (run-vm --share): no cookie
# of the second boot equals one of the first, and the second starts above the first.
top=$(cd "$(dirname "$0")/../.." && pwd)
share=$(mktemp -d)
. "$top/tests/lib/tap.sh"
# A boot and a few thousand cookies: minutes under TCG, more on a loaded host. --timeout
# only stops a hung guest.
for b in boot1 boot2; do
	"$top/images/run-vm" --cpus 2 --share "$share" --timeout $((900 * TAP_SLOW)) -- /usr/lib/bareatom/tests/vm/cookie-boot $b >/dev/null 2>"$share/$b.err"
	rc=$?
	ok $rc "$b: cookie-gend served from the shared state directory (run-vm exit $rc)"
	[ "$rc" = 0 ] || sed 's/^/# /' "$share/$b.err"
done
cat "$share"/boot1.{socket,fast,task} 2>/dev/null | sort -n > "$share/1"
cat "$share"/boot2.{socket,fast,task} 2>/dev/null | sort -n > "$share/2"
grep -q "count for another state directory" "$share/boot1.refused"
ok $? "pins of another state directory are not reused: $(tail -n1 "$share/boot1.refused")"
is_count() { [ "$(wc -l < "$1")" = "$2" ]; }
is_count "$share/1" 4001; ok $? "boot 1 handed out 2000 + 2000 + 1 cookies ($(wc -l < "$share/1"))"
is_count "$share/2" 4001; ok $? "boot 2 handed out 2000 + 2000 + 1 cookies ($(wc -l < "$share/2"))"
common=$(comm -12 <(sort "$share/1") <(sort "$share/2") | wc -l)
[ "$common" = 0 ]; ok $? "no cookie of boot 2 equals one of boot 1 ($common in common)"
max1=$(tail -n1 "$share/1") min2=$(head -n1 "$share/2")
[ -n "$max1" ] && [ -n "$min2" ] && [ "$min2" -gt "$max1" ]
ok $? "boot 2 starts above everything boot 1 gave ($min2 > $max1)"
hw=$(cat "$share/state/highwater" 2>/dev/null)
[ -n "$hw" ] && [ "$hw" -gt "$(tail -n1 "$share/2")" ]
ok $? "the durable high-water mark ($hw) is above every cookie handed out"
echo "# boot 1: $(head -n1 "$share/1")..$max1, boot 2: $min2..$(tail -n1 "$share/2"), high-water $hw"
rm -rf "$share"
done_testing
