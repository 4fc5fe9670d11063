#!/bin/bash
# --latency's START and END steps (bpf/tpstat_latency.h) on a model of the hash map: exact accounting.
exec "$BUILD/tests/unit/tpstat-latency"
