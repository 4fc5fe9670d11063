#!/bin/sh
# --textfile on the run loop (metrics_export.c): the periodic write, a failure said once and
# its end said once, through the tool's own log.
exec "$BUILD/tests/unit/metrics-export"
