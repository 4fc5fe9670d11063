#!/bin/sh
# The metrics HTTP server's pool over loopback: idle connections, slow readers, stalled writers.
exec "$BUILD/tests/unit/http-pool"
