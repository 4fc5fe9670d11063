#!/bin/sh
# tpstat's counting step (the BPF code, compiled for the host) with CPUs above 256 and 8192.
exec "$BUILD/tests/unit/tpstat-cpus"
