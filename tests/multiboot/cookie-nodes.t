#!/bin/bash
# Two guests, sharing nothing (each its own run-vm boot and its own state directory on its own
# host share), run cookie-gend with node ids 1 and 2: both start at sequence 1, so their
# sequences overlap, yet the cookies they hand out (socket, fast path, BPF at fork) are
# disjoint, and every one decodes to its own guest's node.
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
. "$top/tests/lib/tap.sh"
# A boot and a few thousand cookies: minutes under TCG, more on a loaded host. --timeout
# only stops a hung guest.
for node in 1 2; do
	mkdir "$work/$node"
	"$top/images/run-vm" --cpus 2 --share "$work/$node" --timeout $((900 * TAP_SLOW)) -- \
		/usr/lib/bareatom/tests/vm/cookie-node-boot "$node" >/dev/null 2>"$work/$node.err"
	rc=$?
	ok $rc "guest $node: cookie-gend --node-id $node served from its own state directory (run-vm exit $rc)"
	[ "$rc" = 0 ] || sed 's/^/# /' "$work/$node.err" "$work/$node/daemon.log" 2>/dev/null
done
# node FILES...: every cookie is NODE's with a sequence from 1, all distinct (exact 64-bit).
out=$(python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def load(node, src):
    try:
        return [int(l) for l in open(f"{w}/{node}/{src}") if l.strip()]
    except OSError:
        return []
res = []
sets = {}
for node in (1, 2):
    srcs = {s: load(node, s) for s in ("socket", "fast", "fork")}
    cs = [c for v in srcs.values() for c in v]
    sets[node] = set(cs)
    bad = [c for c in cs if c >> 48 != node or not c & (1 << 48) - 1]
    res.append((not bad and len(cs) == len(set(cs)) and len(srcs["socket"]) == 2000
                and len(srcs["fast"]) == 2000 and len(srcs["fork"]) >= 200,
                f"guest {node}: {len(srcs['socket'])} socket, {len(srcs['fast'])} fast, "
                f"{len(srcs['fork'])} fork cookies, all node {node}'s, sequence never 0, "
                f"{len(cs) - len(set(cs))} repeated, {len(bad)} of another node"))
    try:
        dec = [json.loads(l) for l in open(f"{w}/{node}/decoded")]
    except (OSError, ValueError):
        dec = []
    good = len(dec) == 6 and all(d["node"] == node and d["cookie"] >> 48 == node and
                                 d["sequence"] == d["cookie"] & (1 << 48) - 1 for d in dec)
    res.append((good, f"guest {node}: cookie --decode in the guest says node {node} for the "
                      f"first and last cookie of each drawer ({len(dec)} decoded)"))
common = sets[1] & sets[2]
res.append((sets[1] and sets[2] and not common,
            f"the two guests' {len(sets[1])} + {len(sets[2])} cookies are disjoint "
            f"({len(common)} in common)"))
seq = lambda s: {c & (1 << 48) - 1 for c in s}
shared = seq(sets[1]) & seq(sets[2])
res.append((len(shared) > 0, f"their sequences overlap ({len(shared)} in common): only the "
                             f"node bits keep them apart, so the test can fail"))
for good, what in res:
    print(("ok" if good else "nok") + " " + what)
PY
)
while read -r verdict what; do
	[ "$verdict" = ok ]; ok $? "$what"
done <<<"$out"
for node in 1 2; do
	got=$(jq -r .node "$work/$node/stats" 2>/dev/null)
	[ "$got" = "$node" ]; ok $? "guest $node: STATS says node=$got"
	got=$(cat "$work/$node/state/node" 2>/dev/null)
	[ "$got" = "$node" ]; ok $? "guest $node: its state directory records node $got"
done
echo "# guest 1: $(sort -n "$work"/1/{socket,fast,fork} 2>/dev/null | sed -n '1p;$p' | tr '\n' ' ')" \
	"guest 2: $(sort -n "$work"/2/{socket,fast,fork} 2>/dev/null | sed -n '1p;$p' | tr '\n' ' ')"
rm -rf "$work"
done_testing
