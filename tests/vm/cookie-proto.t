#!/usr/bin/python3
# cookie-gend's socket protocol against the real daemon: every malformed request gets a clear
# ERR (or, for an oversized line, a closed connection), and the daemon keeps serving others.
import os, socket, subprocess, time

SOCK = "/run/bareatom/cookie.sock"
n = 0

def ok(cond, what):
    global n
    n += 1
    print(("ok" if cond else "not ok"), n, "-", what)

def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(SOCK)
    return s

def ask(s, data):
    s.sendall(data)
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(4096)
        if not chunk:
            return None
        buf += chunk
    return buf.decode()

for _ in range(300):
    if subprocess.run(["cookie", "--stats"], capture_output=True).returncode == 0:
        break
    time.sleep(0.1)

# One long-lived client that must keep working through everything below.
keeper = connect()
r = ask(keeper, b"GET 1\n")
ok(r is not None and r.startswith("OK "), "a client gets a cookie: %r" % r)

s = connect()
cases = [
    (b"\n", "ERR empty request"),
    (b"   \n", "ERR empty request"),
    (b"GET 0\n", "ERR GET count out of range"),
    (b"GET 65537\n", "ERR GET count out of range"),
    (b"GET -1\n", "ERR malformed request: GET takes a whole number"),
    (b"GET 1x\n", "ERR malformed request: GET takes a whole number"),
    (b"GET\n", "ERR malformed request: GET needs a count"),
    (b"GET 1 2\n", "ERR malformed request: too many words"),
    (b"get 1\n", "ERR unknown request"),
    (b"PID abc\n", "ERR malformed request: PID takes a process id"),
    (b"PID 0\n", "ERR malformed request: PID takes a process id"),
    (b"STATS now\n", "ERR malformed request: STATS takes no argument"),
    (b"\x00\x01\xff\xfe GET 1\n", "ERR malformed request: not printable ASCII"),
    (b"HELLO\n", "ERR unknown request"),
]
for req, want in cases:
    r = ask(s, req)
    ok(r is not None and r.startswith(want), "%r -> %r" % (req, (r or "").strip()))
r = ask(s, b"GET 2\r\n")
ok(r is not None and r.startswith("OK ") and r.split()[2] == "2", "CRLF line endings are accepted, and the connection stayed usable: %r" % r)

# Several requests in one write, and one request split over several writes.
s.sendall(b"GET 1\nSTATS\nGET 3\n")
buf = b""
while buf.count(b"\n") < 3:
    buf += s.recv(4096)
lines = buf.decode().splitlines()
ok(len(lines) == 3 and lines[0].startswith("OK ") and "next=" in lines[1] and lines[2].endswith(" 3"),
   "three pipelined requests get three replies in order")
s.sendall(b"GE")
time.sleep(0.2)
r = ask(s, b"T 4\n")
ok(r is not None and r.endswith(" 4\n"), "a request split across writes: %r" % r)
s.close()

# A 10 kB line closes the connection.
s = connect()
s.sendall(b"G" * 10240 + b"\n")
try:
    data = s.recv(4096)
    closed = data == b""
except (ConnectionResetError, BrokenPipeError):
    closed = True
ok(closed, "a 10 kB line closes the connection")
s.close()

# A client that connects and says nothing is dropped after the idle timeout; others go on.
idle = connect()
r = ask(keeper, b"GET 1\n")
ok(r is not None and r.startswith("OK "), "others are served while an idle client is connected")
idle.settimeout(1)
t0 = time.time()
data = None
while time.time() - t0 < 60:
    try:
        data = idle.recv(1)
        break
    except socket.timeout:
        ask(keeper, b"GET 1\n")	# the keeper stays active meanwhile
    except ConnectionResetError:
        data = b""
        break
waited = time.time() - t0
ok(data == b"", "an idle client is disconnected (after %.0f s)" % waited)

r = ask(keeper, b"GET 5\n")
ok(r is not None and r.startswith("OK ") and r.split()[2] == "5", "the first client is still served: %r" % r)
stats = ask(keeper, b"STATS\n")
ok(stats is not None and "clients=" in stats, "STATS answers: %s" % (stats or "").strip()[:80])
keeper.close()
ok(subprocess.run(["systemctl", "is-active", "--quiet", "cookie-gend"]).returncode == 0,
   "the daemon survived all of it")
print("1..%d" % n)
