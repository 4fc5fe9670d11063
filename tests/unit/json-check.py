#!/usr/bin/python3
# json-check.py BIN N: TAP checks, numbered from N + 1, of tests/unit/json's output with
# Python's json module; ends the plan. Each line is parsed from raw bytes, so json.loads
# fails on anything that is not valid UTF-8.
import json
import random
import subprocess
import sys

binary, n = sys.argv[1], int(sys.argv[2])
failed = 0


def check(what, fn):
    global n, failed
    n += 1
    try:
        fn()
        print(f"ok {n} - {what}")
    except Exception as e:  # noqa: BLE001 - any failure is a test failure
        failed += 1
        print(f"not ok {n} - {what}\n#   {e!r}"[:2000])


def run(*args, data=b""):
    return subprocess.run([binary, *args], input=data, capture_output=True,
                          check=True).stdout.split(b"\n")[:-1]


def random_strings():
    # Pieces: ASCII, controls, valid characters and every kind of ill-formed start.
    rng = random.Random(1)
    pieces = [b"a", b'"', b"\\", b"\n", b"\x01", b"\x7f", "é".encode(), "€".encode(),
              "😀".encode(), b"\x80", b"\xbf", b"\xc0", b"\xc1", b"\xc2", b"\xe0", b"\xe0\xa0",
              b"\xed", b"\xed\xa0", b"\xef\xbf", b"\xf0", b"\xf0\x90", b"\xf4\x8f", b"\xf4\x90",
              b"\xf5", b"\xfe", b"\xff"]
    cases = [b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 12)))
             for _ in range(5000)]
    cases += [bytes([b]) for b in range(1, 256)]
    out = run("hex", data="".join(c.hex() + "\n" for c in cases).encode())
    assert len(out) == len(cases), (len(out), len(cases))
    for c, line in zip(cases, out):
        got = json.loads(line)
        # The promise: one U+FFFD per maximal ill-formed subpart, as Python's "replace".
        want = c.decode("utf-8", "replace")
        assert got == want, (c, line, got, want)


def long_commands():
    out = run("join")
    assert len(out) == 9, len(out)
    for line in out:
        s = json.loads(line)
        assert s.startswith("sh -c ") and "\ufffd" not in s, s[-8:]
        assert 1020 <= len(s.encode()) <= 1023, len(s.encode())


check("5255 byte strings (controls, UTF-8, ill-formed pieces) parse as JSON and decode "
      "like Python's errors='replace'", random_strings)
check("4 kB command lines cut to fit 1024 bytes parse as JSON, no U+FFFD from the cut",
      long_commands)
print(f"1..{n}")
sys.exit(1 if failed else 0)
