#!/bin/bash
# The BPF programs' logic alone, run by BPF_PROG_TEST_RUN on chosen CPUs (tests/vm/prog-run.c):
# tpstat's count_tp and its -p/-t filter, cookie's per-CPU batches, nesting and refusals.
exec "$(dirname "$0")/prog-run"
