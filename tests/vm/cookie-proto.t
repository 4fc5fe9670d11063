#!/usr/bin/python3
# cookie-gend's socket protocol against the real daemon: every malformed request gets a clear
# ERR (or, for an oversized line, a closed connection), and the daemon keeps serving others;
# the per-uid rate limit refuses with ERR and keeps the connection; root's reserve of
# connections holds while other uids take every shared slot.
import grp, json, os, socket, subprocess, time

SOCK = "/run/bareatom/cookie.sock"
n = 0
# The daemon answers at once: a bound is for a hang, never for a slow machine.
PATIENCE = 300


def wait_until(what, cond):
    """Poll cond() every 0.1 s for PATIENCE seconds; say what was waited for when it runs out."""
    end = time.time() + PATIENCE
    while not cond():
        if time.time() >= end:
            print("# waited %d s for %s" % (PATIENCE, what), flush=True)
            return False
        time.sleep(0.1)
    return True

def ok(cond, what):
    global n
    n += 1
    print(("ok" if cond else "not ok"), n, "-", what)

def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(PATIENCE)
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

BAREATOM_GID = grp.getgrnam("bareatom").gr_gid
released = []	# release pipes: every child closes the others' so each sees its own EOF


def first_line(s, req=b"STATS\n"):
    """Send req and return the first reply line; '' when closed. A refused connection has
    its ERR waiting and is closed, so the send may fail while the line is still there."""
    try:
        s.sendall(req)
    except OSError:
        pass
    buf = b""
    try:
        while not buf.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    except OSError:
        pass
    return buf.decode(errors="replace").strip()


def as_uid(uid, fn):
    """Run fn() in a child as uid (in group bareatom) and return what it returns (JSON).
    The child keeps what fn opened until release(); returns (result, handle)."""
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r1)
        os.close(w2)
        for fd in released:
            os.close(fd[1])
        os.setgroups([BAREATOM_GID])
        os.setgid(uid)
        os.setuid(uid)
        keep = []
        res = fn(keep)
        os.write(w1, (json.dumps(res) + "\n").encode())
        os.close(w1)
        os.read(r2, 1)
        os._exit(0)
    os.close(w1)
    os.close(r2)
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(r1, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(r1)
    h = (pid, w2)
    released.append(h)
    return json.loads(data) if data else None, h


def release(h):
    os.close(h[1])
    os.waitpid(h[0], 0)
    released.remove(h)


def hold(n):
    """A child's work: open n connections, probe each, keep the served ones."""
    def fn(keep):
        replies = []
        for _ in range(n):
            s = connect()
            line = first_line(s)
            replies.append(line)
            if line.startswith("OK"):
                keep.append(s)
            else:
                s.close()
        return replies
    return fn


def stat(s, key):
    r = ask(s, b"STATS\n")
    return dict(w.split("=", 1) for w in r.split()[1:]).get(key)


wait_until("cookie-gend to answer STATS",
           lambda: subprocess.run(["cookie", "--stats"], capture_output=True).returncode == 0)

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
while time.time() - t0 < PATIENCE:	# a bound for a hang: the idle timeout is 30 s
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

# The per-uid rate limit (default 16384 cookies/s, burst 2^20): a member of group bareatom
# pipelining GET 65536 gets the burst, 16 of them, then ERR; the connection stays usable.
ok(stat(keeper, "rate_limit") == "16384", "STATS rate_limit is the default, 16384 cookies/s")
limited0 = int(stat(keeper, "rate_limited"))


def flood(keep):
    s = connect()
    t0 = time.time()
    s.sendall(b"GET 65536\n" * 20)
    buf = b""
    while buf.count(b"\n") < 20:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        buf += chunk
    after = first_line(s, b"GET 16384\n")
    took = time.time() - t0
    return [buf.decode().splitlines(), after, took]


res, h = as_uid(2100, flood)
release(h)
lines, after, took = res
served = [l for l in lines if l.startswith("OK ")]
refused = [l for l in lines if l.startswith("ERR rate limited: uid 2100 may draw 16384 cookies/s (burst 1048576); retry in ")]
# 16 from the burst, first; one more per 4 s the exchange took (65536 refilled at 16384/s),
# wherever a refill lands. The GET 16384 after them is refused unless that refill had paid
# for it too: what is left after the last refusal depends on how long the exchange took,
# which is the machine's.
ok(16 <= len(served) <= 16 + int(took / 4) and len(served) + len(refused) == 20 and
   all(l.startswith("OK ") for l in lines[:16]),
   "uid 2100 pipelining 20 x GET 65536: %d served, %d refused in %.2f s (%r)" % (len(served), len(refused), took, (refused or lines)[0]))
after_refused = after.startswith("ERR rate limited: ")
ok(after_refused or (after.startswith("OK ") and 65536 * len(served) + 16384 <= (1 << 20) + 16384 * took),
   "a GET 16384 right after is refused, or served only within the refill of the %.2f s: %r" % (took, after))
ok(int(stat(keeper, "rate_limited")) - limited0 == len(refused) + after_refused,
   "STATS rate_limited counts exactly the %d refusals" % (len(refused) + after_refused))


def stats_after_refusal(keep):
    # Until refused: the bucket refilled since the flood by however long this took to start.
    s = connect()
    for _ in range(40):
        got = first_line(s, b"GET 65536\n")
        if not got.startswith("OK "):
            break
    return first_line(s) if got.startswith("ERR rate limited") else "not refused: " + got


res, h = as_uid(2100, stats_after_refusal)
release(h)
ok(res.startswith("OK next="), "the refused client's connection stays usable: STATS answers")
s = connect()
s.sendall(b"GET 65536\n" * 20)
buf = b""
while buf.count(b"\n") < 20:
    buf += s.recv(1 << 16)
s.close()
ok(all(l.startswith("OK ") for l in buf.decode().splitlines()), "root is not rate-limited: 20 x GET 65536 all served")
keeper.close()

# Root's reserve. 40 root connections at once are all served: root has no per-uid cap.
rs = [connect() for _ in range(40)]
lines = [first_line(s) for s in rs]
ok(all(l.startswith("OK ") for l in lines), "40 root connections at once are all served (%d refused: %r)" %
   (sum(not l.startswith("OK") for l in lines), next((l for l in lines if not l.startswith("OK")), "")))
for s in rs:
    s.close()
# Other uids (32 each) take the 224 shared slots; the next one is refused; root still gets
# its 32 reserved slots, and the 257th connection is refused. First the daemon must have
# seen the 40 close: then the probe is its only client.


def alone():
    s = connect()
    n_clients = stat(s, "clients")
    s.close()
    return n_clients == "1"


wait_until("the daemon to see the 40 root connections closed", alone)
holders, replies = [], []
for i in range(7):
    res, h = as_uid(2000 + i, hold(32))
    holders.append(h)
    replies += res
ok(len(replies) == 224 and all(l.startswith("OK ") for l in replies),
   "7 uids x 32 connections: all 224 shared slots served (%d)" % sum(l.startswith("OK") for l in replies))
res, h = as_uid(2007, hold(1))
holders.append(h)
ok(res == ["ERR too many clients"], "an 8th uid is refused: the shared slots are full: %r" % res)
rs = [connect() for _ in range(33)]
lines = [first_line(s) for s in rs]
ok(all(l.startswith("OK ") for l in lines[:32]), "root still gets its 32 reserved slots (%d served)" %
   sum(l.startswith("OK") for l in lines))
ok(lines[32] == "ERR too many clients", "the 257th connection is refused: %r" % lines[32])
ok(stat(rs[0], "clients") == "256", "STATS clients=256")
for s in rs:
    s.close()
for h in holders:
    release(h)
ok(subprocess.run(["systemctl", "is-active", "--quiet", "cookie-gend"]).returncode == 0,
   "the daemon survived all of it")
print("1..%d" % n)
