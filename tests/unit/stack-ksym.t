#!/bin/sh
# Kernel frames by name from kallsyms (src/stack_ksym.c): a fixture, then this machine's.
exec "$BUILD/tests/unit/stack-ksym"
