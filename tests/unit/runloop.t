#!/bin/sh
# The run loop of tpstat, eht-hosts and counter: commands, signals, deadline, ticks.
exec "$BUILD/tests/unit/runloop"
