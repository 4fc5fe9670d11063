#!/bin/sh
# cookie-gend's protocol parser and line splitter, case by case.
exec "$BUILD/tests/unit/cookie-proto"
