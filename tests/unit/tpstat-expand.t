#!/bin/bash
# tpstat's tracepoint patterns ('sched:*', 'pelt_*'; src/tpstat_expand.c) on a list made by the test.
exec "$BUILD/tests/unit/tpstat-expand"
