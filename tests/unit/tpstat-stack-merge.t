#!/bin/bash
# tpstat's named stacks merged, their --value sums carried (src/tpstat_stack_merge.c).
. "$(dirname "$0")/../lib/tap.sh"
tap_subtest "$BUILD/tests/unit/tpstat-stack-merge"
done_testing
