#!/usr/bin/env python3
"""The ranges cookie-fleet served ("FIRST N" lines, tests/unit/cookie-fleet.c), exactly:
  cookie-ranges.py min|max FILE...   the lowest first / highest last cookie
  cookie-ranges.py maxseq FILE...    the highest last cookie's sequence (low 48 bits)
  cookie-ranges.py nodes FILE...     the node ids (top 16 bits) of every cookie, sorted
  cookie-ranges.py dups FILE...      "D duplicates among N cookies", D counted exactly
                                      (every value covered twice or more, counted once per extra cover)
  cookie-ranges.py CMD --node N FILE...  CMD on the ranges of node N only
"""
import sys

cmd, files = sys.argv[1], sys.argv[2:]
node = None
if files[:1] == ["--node"]:
    node, files = int(files[1]), files[2:]
ranges = []
for f in files:
    with open(f) as fh:
        for line in fh:
            first, n = line.split()
            if node is None or int(first) >> 48 == node:
                ranges.append((int(first), int(n)))
if not ranges:
    print("none")
elif cmd == "min":
    print(min(a for a, _ in ranges))
elif cmd == "max":
    print(max(a + n - 1 for a, n in ranges))
elif cmd == "maxseq":
    print(max(a + n - 1 for a, n in ranges) & ((1 << 48) - 1))
elif cmd == "nodes":
    print(" ".join(str(x) for x in sorted({a >> 48 for a, _ in ranges} | {(a + n - 1) >> 48 for a, n in ranges})))
elif cmd == "dups":
    # A sweep over the range ends: at each point the depth of cover; values covered at
    # depth k > 1 are k - 1 duplicates each.
    events = {}
    for a, n in ranges:
        events[a] = events.get(a, 0) + 1
        events[a + n] = events.get(a + n, 0) - 1
    dups = depth = 0
    prev = None
    for x in sorted(events):
        if prev is not None and depth > 1:
            dups += (x - prev) * (depth - 1)
        depth += events[x]
        prev = x
    print(f"{dups} duplicates among {sum(n for _, n in ranges)} cookies")
else:
    sys.exit(f"unknown command {cmd}")
