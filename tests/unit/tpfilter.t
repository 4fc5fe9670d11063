#!/bin/bash
# --filter's parser and comparison (src/tpfilter.c, bpf/tpfilter_eval.h) against the BTF of
# Debian's 6.1 kernel (build/vmlinux.h's, images/vmlinux-h), and a small BTF made by the test.
exec "$BUILD/tests/unit/tpfilter" "$(cat "$BUILD/btf.dir")/vmlinux.btf"
