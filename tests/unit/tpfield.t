#!/bin/bash
# Tracepoint prototypes and field expressions (src/tpfield_proto.c, src/tpfield.c) against
# the BTF that build/vmlinux.h was made from (Debian's 6.1 kernel, images/vmlinux-h); offsets
# checked against the compiler's layout of build/vmlinux.h.
exec "$BUILD/tests/unit/tpfield" "$(cat "$BUILD/btf.dir")/vmlinux.btf"
