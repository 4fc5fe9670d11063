#!/bin/sh
# The interval clock of tpstat -i and eht-hosts -w -i: bounded, always after now.
exec "$BUILD/tests/unit/ticks"
