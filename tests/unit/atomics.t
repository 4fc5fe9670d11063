#!/bin/sh
# Every BPF object contains exactly the atomic instructions it is meant to.
exec "$BUILD/tests/unit/check-atomics" "$(dirname "$0")/atomics.expect" "$BUILD"
