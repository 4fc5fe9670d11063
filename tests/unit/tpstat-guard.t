#!/bin/sh
# Plain updates or atomics: the choice from the kernel's BTF and release (src/tpstat_guard.c).
exec "$BUILD/tests/unit/tpstat-guard"
