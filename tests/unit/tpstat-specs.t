#!/bin/sh
# The command line into one spec per tracepoint (src/tpstat_specs.c), without a kernel.
exec "$BUILD/tests/unit/tpstat-specs"
