#!/bin/sh
# Frozen .rodata loads made immediates before load, and what is left alone (src/bpf_fold.c).
exec "$BUILD/tests/unit/bpf-fold"
