#!/bin/sh
# --hist's recording and output (bpf/tpstat_hist.h compiled for the host, tpstat_fmt.c).
exec "$BUILD/tests/unit/tpstat-hist"
