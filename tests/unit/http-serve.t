#!/bin/sh
# The metrics HTTP server over loopback: statuses, negotiation, bounds, slow clients; textfile.
exec "$BUILD/tests/unit/http-serve"
