#!/bin/sh
# libcookie's bounded waits: no answer, half an answer, a full backlog give -ETIMEDOUT in time.
exec "$BUILD/tests/unit/libcookie-timeout"
