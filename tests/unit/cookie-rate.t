#!/bin/sh
# cookie-gend's per-uid token buckets (the socket's rate limit) and their option parsers.
exec "$BUILD/tests/unit/cookie-rate"
