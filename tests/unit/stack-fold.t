#!/bin/bash
# Stacks printed (src/stack_fold.c, src/stack_html.c): folded lines, the table, -j, and the
# --flamegraph page opened in headless Chromium (Debian's chromium, images/install-deps):
# its frames' names and titles (count and share) in the rendered page, a search given in
# the link highlighting its frames, and a screenshot in build/stack-flamegraph.png. The page
# carries its viewer inline; Chromium is kept off the network.
. "$(dirname "$0")/../lib/tap.sh"
dir=$BUILD/tests/unit/stack-html
rm -rf "$dir" && mkdir -p "$dir"
page=$dir/flamegraph.html
tap_subtest "$BUILD/tests/unit/stack-fold" "$page"

# A profile of its own each time; no first-run, sync, update or crash-report traffic.
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$dir/profile" --disable-background-networking --disable-sync \
		--disable-component-update --disable-breakpad --disable-features=Translate \
		--virtual-time-budget=10000 --window-size=1280,720 "$@" 2>>"$dir/chromium.log"
}
if ! command -v chromium >/dev/null; then
	skip "chromium is not installed (images/install-deps installs it)"
	done_testing
	exit 0
fi
chrome --dump-dom "file://$page#search=middle" >"$dir/dom.html"
ok $? "chromium --dump-dom of the page" "$(tail -n 5 "$dir/chromium.log")"
for f in 'middle' 'inner (inlined)' 'tpgen_fire [tpgen]' 'entry_SYSCALL_64' 'schedule' '-' \
	'[truncated (deeper than collected)]'; do
	grep -qF "name=\"$f\"" "$dir/dom.html"
	ok $? "rendered: a frame named '$f'"
done
grep -qF '<div class="d3-flame-graph-label" style="display: block;">inner (inlined)</div>' "$dir/dom.html"
ok $? "a frame's label drawn: inner (inlined)"
grep -qF '<title>middle: 40 events, 40.00% of all 100</title>' "$dir/dom.html"
ok $? "a frame's title: its count and share of all events"
grep -qF '&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;' "$dir/dom.html" && ! grep -qF '<b>x</b>' "$dir/dom.html"
ok $? "a name with markup shows as text, not markup"
grep -qF 'search: 1 frames, 40 events, 40.00% of all 100' "$dir/dom.html"
ok $? "#search=middle: the match and its events in the details"
grep -q 'fill="#E600E6"' "$dir/dom.html"
ok $? "#search=middle: its frame highlighted"
# A click on a frame zooms on it: its callers fade, the frames beside it go.
chrome --dump-dom "file://$page#zoom=middle" >"$dir/zoom.html"
ok $? "chromium --dump-dom of the page zoomed on middle"
grep -qF 'name="outer" class="frame fade"' "$dir/zoom.html" &&
	grep -qF 'name="middle" class="frame"' "$dir/zoom.html"
ok $? "#zoom=middle: a click on it; its callers faded, it is not" \
	"$(grep -o 'name="[^"]*" class="[^"]*"' "$dir/zoom.html")"
is "$(grep -c 'name="schedule"' "$dir/zoom.html")" 0 "#zoom=middle: a frame beside it is gone"
# The page is 1280 px wide, less 12 px margins: the chart 1256.
is "$(grep -o 'name="middle" class="frame"><rect [^>]*' "$dir/zoom.html" | grep -o 'width="[0-9.]*"')" \
	'width="1256"' "#zoom=middle: it spans the chart"
png=$BUILD/stack-flamegraph.png
rm -f "$png" "$dir/again.png"
(cd "$dir" && chrome --screenshot="$png" "file://$page")
is "$(file -b "$png" | cut -d, -f1-2)" "PNG image data, 1280 x 720" "screenshot taken: $png"
# Nothing still moving when the picture is taken: a second one is the same, pixel for pixel.
(cd "$dir" && chrome --screenshot="$dir/again.png" "file://$page")
cmp -s "$png" "$dir/again.png"
ok $? "a second screenshot is the same: the page is drawn whole at once"
done_testing
