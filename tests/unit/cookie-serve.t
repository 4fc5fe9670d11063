#!/bin/sh
# cookie-gend's socket server, its run loop and its metrics alone, behind a fake daemon (no BPF,
# no globals).
exec "$BUILD/tests/unit/cookie-serve"
