#!/bin/sh
# cookie-gend's durable state (high-water mark and id) against a temporary directory.
exec "$BUILD/tests/unit/cookie-store"
