#!/bin/sh
# eht-hosts' table, JSON and -w change lines, and the snapshot diff, on hand-made snapshots.
exec "$BUILD/tests/unit/eht-fmt"
