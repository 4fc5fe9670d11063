#!/bin/bash
# --latency's START and END steps (bpf/tpstat_latency.h) on its homes (per-CPU word, table of buckets): exact accounting.
exec "$BUILD/tests/unit/tpstat-latency"
