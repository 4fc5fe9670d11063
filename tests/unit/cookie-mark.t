#!/bin/sh
# cookie-gend's durable mark (cookie_mark.c, cookie_mark_dir.c) on a temporary directory and a counter in memory.
exec "$BUILD/tests/unit/cookie-mark"
