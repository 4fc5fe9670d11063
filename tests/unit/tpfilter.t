#!/bin/bash
# --filter's parser and comparison (src/tpfilter.c, bpf/tpfilter_eval.h) against the BTF of the
# kernel this tree built, and a small BTF made by the test.
exec "$BUILD/tests/unit/tpfilter" "$(cat "$BUILD/kernel.dir")/vmlinux"
