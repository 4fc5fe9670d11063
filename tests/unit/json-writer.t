#!/bin/sh
# The JSON writer object the tools print through: separators, nesting, escaping, null.
exec "$BUILD/tests/unit/json-writer"
