#!/bin/sh
# libcookie's fast path on an in-memory counter: bounds, the limit, no wrap, accounting.
exec "$BUILD/tests/unit/cookie-fast"
