#!/bin/bash
# Tracepoint prototypes and field expressions (src/tpfield_proto.c, src/tpfield.c) against the BTF of the kernel
# this tree built; offsets checked against the compiler's layout of build/vmlinux.h.
exec "$BUILD/tests/unit/tpfield" "$(cat "$BUILD/kernel.dir")/vmlinux"
