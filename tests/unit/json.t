#!/bin/bash
# The JSON string writer: exact escapes and cuts (C checks), then every output parsed by
# Python's json from raw bytes, so it must be valid UTF-8 (json-check.py).
bin=$BUILD/tests/unit/json
. "$(dirname "$0")/../lib/tap.sh"
tap_subtest "$bin"
rc=$?
# Python's checks follow, numbered on from the C ones; the script gives the whole plan.
python3 "$(dirname "$0")/json-check.py" "$bin" "$tap_n" || rc=1
[ "$rc" = 0 ]
