#!/bin/bash
# The JSON string writer: exact escapes and cuts (C checks), then every output parsed by
# Python's json from raw bytes, so it must be valid UTF-8 (json-check.py).
bin=$BUILD/tests/unit/json
out=$("$bin")
rc=$?
printf '%s\n' "$out" | grep -v '^1\.\.'
n=$(grep -cE '^(not )?ok ' <<<"$out")
python3 "$(dirname "$0")/json-check.py" "$bin" "$n" || rc=1
[ "$rc" = 0 ]
