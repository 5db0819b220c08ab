"""Rerun the reproducers of `tne-ai serve`'s mended defects against the real server: a transcript, a verdict each.

    python -m bench.web_probe [--tries 6] [--flood 10000]

A probe of `tne-ai serve` from outside found the defects D1-D7 and the
missing cap on games (docs/web.md, "Defects found by a probe"). This runs
each reproducer again, as it was found where that can be done: the real
server (`tne-ai serve`, a subprocess on a free port with a temporary data
folder, as bench/web_bench.py starts it), real WebSockets (the `websockets`
package) and HTTP (urllib). It prints what was sent (`>`), what came back
(`<`, trimmed: a board's SVG is shown by its length), what each check looks
at, and a verdict per defect: `mended` or `NOT MENDED`. The exit status is 1
if any is not mended.

Only what a client sees is used, plus what Linux shows of the server's
processes and sockets (/proc, and pidfd_getfd for D5's socket option), never
the server's memory or its game state: so D1 judges the draws a player
reads, not the bag. Linux only (D2, D3 and D5 read /proc).
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from typing import Optional

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from bench.web_bench import free_port, resident_mb, serve_argv

ENGINE = {"iterations": 20}
MAX_PENDING = 64                      # the per-socket queue the server keeps (docs/web.md, "A page that does not read")
MAX_WASTED = 10                       # D3: decisions' worth of CPU between a push-out and the next review's first
SYS_PIDFD_GETFD = 438                 # Linux >= 5.6


# ---------------------------------------------------------------- the transcript


class Transcript:
    """Print what is sent and received, what each check looks at, and keep each defect's verdict."""

    def __init__(self, out=sys.stdout):
        self.out = out
        self.verdicts: list = []

    def say(self, line: str = "") -> None:
        print(line, file=self.out, flush=True)

    def note(self, text: str) -> None:
        """Print a paragraph of prose (what a check looks at), wrapped."""
        self.say(textwrap.fill(text, 110, subsequent_indent="    "))

    def sent(self, what: str) -> None:
        self.say("  > " + trim(what))

    def got(self, what: str) -> None:
        self.say("  < " + trim(what))

    def heading(self, name: str, title: str) -> None:
        self.say()
        self.say(f"== {name}: {title}")

    def verdict(self, name: str, ok: bool, why: str) -> None:
        """Record and print one defect's verdict, with the figures it rests on."""
        self.verdicts.append((name, ok))
        self.say(f"verdict {name}: {'mended' if ok else 'NOT MENDED'} ({why})")


def trim(text: str, width: int = 200) -> str:
    """Return one line of at most `width` characters (a long message cut with the count of characters left)."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width] + f"... ({len(text) - width} more characters)"


def brief(message: dict) -> str:
    """Return a message as JSON, shortened: a board's SVG by its length; of a state, the fields D1 reads."""
    m = dict(message)
    if isinstance(m.get("svg"), str):
        m["svg"] = f"<svg: {len(m['svg'])} characters>"
    if m.get("type") == "state":
        m = {k: m[k] for k in ("type", "version", "phase", "your_turn", "actions_left", "hand", "bag_size",
                               "can_undo") if k in m} | {"moves": f"<{len(message.get('moves', []))} decisions>"}
    return json.dumps(m, ensure_ascii=False)


# ---------------------------------------------------------------- the server and its clients


class Served:
    """`tne-ai serve` as a subprocess on a free port with a temporary data folder (extra options appended)."""

    def __init__(self, *options: str, workers: int = 1):
        self.options, self.workers = list(options), workers

    def __enter__(self) -> "Served":
        self.data = tempfile.TemporaryDirectory()
        self.port = free_port()
        argv = serve_argv(self.port, self.workers, self.data.name) + self.options
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.command = "tne-ai serve " + " ".join(argv[argv.index("serve") + 1:])
        for _ in range(1200):                 # waiting for it to listen: no verdict on how long that takes
            if self.proc.poll() is not None:
                raise RuntimeError(f"tne-ai serve stopped: {self.proc.stdout.read()[-2000:]}")
            with contextlib.suppress(OSError):
                if request(self, "GET", "/")[0] == 200:
                    return self
            time.sleep(0.05)
        self.__exit__()
        raise RuntimeError("tne-ai serve did not answer within 60 s")

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.data.cleanup()

    @property
    def pid(self) -> int:
        return self.proc.pid


def request(server: Served, method: str, path: str, body: Optional[bytes] = None) -> tuple:
    """Return (HTTP status, body text) of one request; an error status is an answer, not an exception."""
    req = urllib.request.Request(server.base + path, data=body, method=method,
                                 headers={"Content-Type": "application/json"} if body is not None else {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def shown_request(t: Transcript, server: Served, method: str, path: str, body: Optional[bytes] = None,
                  show_body: Optional[str] = None) -> tuple:
    """Make a request and put it and its answer in the transcript."""
    t.sent(f"{method} {path}" + (f" {show_body if show_body is not None else body.decode()}" if body else ""))
    status, text = request(server, method, path, body)
    t.got(f"{status} {text}")
    return status, text


def new_game(t: Transcript, server: Served) -> str:
    status, text = shown_request(t, server, "POST", "/api/games",
                                 json.dumps({"players": 2, "human": 0, "engines": ENGINE}).encode())
    if status != 201:
        raise RuntimeError(f"a new game was refused: {status} {text}")
    return json.loads(text)["game"]


def open_socket(t: Transcript, server: Served, path: str, **kw):
    t.sent(f"WS {path}")
    return connect(server.ws_base + path, compression=None, ping_interval=None, max_size=None, **kw)


def receive(ws, timeout: float = 120) -> dict:
    return json.loads(ws.recv(timeout=timeout))


def until_my_turn(ws, after: int = -1) -> dict:
    """Receive messages until a state newer than `after` where the human is to act (an error stops the probe)."""
    while True:
        m = receive(ws)
        if m["type"] == "error":
            raise RuntimeError(f"the server answered an error: {m}")
        if m["type"] == "state" and m["version"] > after and (m["your_turn"] or m["over"]):
            return m


def children(pid: int) -> list:
    """Return [(pid, nice)] of a process's children (Linux /proc)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                stat = open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()
                if int(stat[1]) == pid:       # the fields after the name: state, ppid, ..., nice (the 17th)
                    out.append((int(name), int(stat[16])))
    return out


def cpu_seconds(pid: int) -> float:
    """Return the CPU time a process has used (user and system, Linux /proc)."""
    stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


def waited(what: str, ready, seconds: float = 120, cpu_of: int = 0):
    """Return ready()'s first true value, polled; RuntimeError naming `what` after `seconds` (a stuck server).

    With `cpu_of` (a pid), `seconds` are that process's CPU seconds, so that a
    nice-19 process starved by a busy machine is not taken for a stuck one;
    four times as many seconds of the clock are the backstop.
    """
    start, end = (cpu_seconds(cpu_of) if cpu_of else 0.0), time.monotonic() + seconds * (4 if cpu_of else 1)
    while time.monotonic() < end:
        value = ready()
        if value:
            return value
        if cpu_of and cpu_seconds(cpu_of) - start > seconds:
            break
        time.sleep(0.02)
    raise RuntimeError(f"no {what} after {seconds:.0f} s" + (f" of process {cpu_of}'s CPU" if cpu_of else ""))


# ---------------------------------------------------------------- D1: undo revealed hidden tiles


def chance_bound(drew: str, hand: str, bag_size: int) -> float:
    """Return an upper bound on the chance that a bag shuffled again deals the draw sequence `drew` again.

    The bag holds `bag_size` tiles; of a colour at most the game's total less
    the player's own tiles of it (engine.position.TILE_TOTALS): the chance of
    the sequence, drawn without replacement, with those counts.
    """
    from engine.actions import COLOURS
    from engine.position import TILE_TOTALS
    most = {c: TILE_TOTALS[i] - hand.count(c) for i, c in enumerate(COLOURS)}
    p = 1.0
    for i, c in enumerate(drew):
        p *= max(0, min(bag_size - i, most[c])) / (bag_size - i)
        most[c] -= 1
    return min(p, 1.0)


def probe_undo(t: Transcript, server: Served, tries: int) -> None:
    t.heading("D1", "an undo revealed hidden tiles (swap the whole hand, read the draws, undo, swap again)")
    gid = new_game(t, server)
    with open_socket(t, server, f"/api/games/{gid}/ws") as ws:
        view = until_my_turn(ws)
        while view["phase"] != "action" or view["actions_left"] != 2:   # the first action of a turn of ours
            move = next(m for m in view["legal"] if not m.startswith("swap"))
            ws.send(json.dumps({"type": "move", "move": move}))
            view = until_my_turn(ws, after=view["version"])
        t.got(brief(view))
        swap = {"type": "move", "move": "swap " + view["hand"]}
        draws, version, same_view = [], view["version"], True
        for _ in range(tries):
            t.sent(json.dumps(swap))
            ws.send(json.dumps(swap))
            after = until_my_turn(ws, after=version)
            mine = after["moves"][-1]
            t.got(f"state: last decision {json.dumps(mine)}")
            draws.append(mine.get("drew", ""))
            t.sent('{"type": "undo"}')
            ws.send('{"type": "undo"}')
            back = until_my_turn(ws, after=after["version"])
            version = back["version"]
            same_view &= back["moves"] == view["moves"] and back["hand"] == view["hand"]
            t.got(f"state: hand {back['hand']}, bag_size {back['bag_size']}, {len(back['moves'])} decisions "
                  f"({'as before the swap' if back['moves'] == view['moves'] else 'NOT as before the swap'})")
    repeats = sum(d == draws[0] for d in draws[1:])
    bound = chance_bound(draws[0], view["hand"], view["bag_size"])
    t.note(f"checks: the tiles the same whole-hand swap draws after each undo. With the bag unchanged by an undo "
           f"(the defect) every swap draws the first one's tiles again, so all {tries - 1} later draws repeat it; "
           f"with the bag shuffled again a repeat of '{draws[0]}' has a chance of at most {bound:.2g} per try "
           f"({bound * (tries - 1):.2g} expected in {tries - 1}), from the bag's {view['bag_size']} tiles and the "
           f"game's tiles of each colour less those in hand. Mended: not every later draw repeats the first "
           f"(a mended server fails this with a chance of at most {bound ** (tries - 1):.1g}), and the undo "
           f"gives back the position seen before the swap.")
    t.say(f"draws: {', '.join(draws)}: {repeats} of {tries - 1} repeat the first")
    t.verdict("D1", tries >= 2 and repeats < tries - 1 and same_view,
              f"{repeats} of {tries - 1} repeats, at most {bound * (tries - 1):.2g} expected by chance"
              + ("" if same_view else "; an undo did not give back the position before the swap"))


# ---------------------------------------------------------------- D2: the send queue grew without bound


def probe_flood(t: Transcript, server: Served, flood: int) -> None:
    t.heading("D2", f"the per-socket send queue grew without bound ({flood:,} state requests, never read)")
    gid = new_game(t, server)
    before = resident_mb(server.pid, "VmHWM")
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)          # a page that reads little...
    raw.connect(("127.0.0.1", server.port))
    with open_socket(t, server, f"/api/games/{gid}/ws", sock=raw, max_queue=1) as ws:
        t.sent(f'{{"type": "state"}} x {flood:,}, reading nothing')
        for _ in range(flood):
            ws.send('{"type": "state"}')
        t.sent('{"type": "ping", "t": "last"}')
        ws.send('{"type": "ping", "t": "last"}')
        views = 0
        while True:                           # the page reads at last
            m = receive(ws)
            if m["type"] == "pong":
                break
            views += m["type"] == "state"
        t.got(f"{views} state message(s), then {json.dumps(m)}")
    during = resident_mb(server.pid, "VmHWM")
    t.say(f"the server's peak memory (resident, /proc VmHWM): {before:.0f} MB before the requests, {during:.0f} MB "
          f"once all are answered")
    # a page that stays behind: views it does not read, then more pings than the queue holds
    gid = new_game(t, server)
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", server.port))
    code = reason = None
    with open_socket(t, server, f"/api/games/{gid}/ws", sock=raw, max_queue=1) as ws:
        pings = 4 * MAX_PENDING
        t.sent(f'{{"type": "state"}} x 100, then {{"type": "ping", "t": i}} x {pings}, reading nothing')
        for _ in range(100):
            ws.send('{"type": "state"}')
        with contextlib.suppress(ConnectionClosed):
            for i in range(pings):
                ws.send(json.dumps({"type": "ping", "t": i}))
        time.sleep(1.0)
        got = 0
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            while True:
                ws.recv(timeout=30)
                got += 1
        code, reason = ws.close_code, ws.close_reason
        t.got(f"{got} message(s), then the close frame: code {code}, reason {reason!r}")
    t.note(f"checks: with no bound every request is answered with a view of its own ({flood:,} views; the server "
           f"grew from 114 MB to 961 MB when this was found); mended: the views sent are far fewer than the requests "
           f"(at most a tenth; how many depends on what the connection buffers), and a page that leaves more than "
           f"{MAX_PENDING} messages unread is closed with code 4429.")
    t.verdict("D2", views <= flood // 10 and code == 4429,
              f"{views} views for {flood:,} requests; peak memory {before:.0f} -> {during:.0f} MB; slow page closed "
              f"with {code}")


# ---------------------------------------------------------------- D3: reviews kept running and starved live games


def review_record(decisions: int, seed: int = 3) -> str:
    """Return a game record of `decisions` decisions chosen at random (seeded) among the legal ones."""
    import random

    import engine
    from engine.record import GameRecorder
    rec = GameRecorder(engine.new_game(2, seed, "standard", []), seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        rec.apply(rng.choice(rec.state.legal_actions()))
    return rec.text()


def review_status(server: Served, rid: str) -> tuple:
    status, text = request(server, "GET", f"/api/review/{rid}")
    return status, (json.loads(text) if status == 200 else text)


def probe_reviews(t: Transcript, server: Served, decisions: int, iterations: int) -> None:
    t.heading("D3", "an evicted review kept running; reviews starved live games")
    record, empty = review_record(decisions), "[players 2]\n[board standard]\n[seed 1]\n"
    path = f"/api/review?iterations={iterations}&seed=0"
    ids = []
    for name in "ABC":
        status, text = shown_request(t, server, "POST", path, record.encode(),
                                     show_body=f"<a record of {decisions} decisions> (review {name})")
        ids.append(json.loads(text)["review"])
    a, b, c = ids
    st = review_status(server, c)[1]
    t.sent("GET /api/review/C")
    t.got(trim(json.dumps({k: st.get(k) for k in ("status", "done", "total", "queued")})))
    capped = st.get("queued") is True
    # a live game while two reviews are searched: its engine decides (the ms vary: information only)
    gid = new_game(t, server)
    with open_socket(t, server, f"/api/games/{gid}/ws") as ws:
        view = until_my_turn(ws)
        start = time.perf_counter()
        while not any(m["seat"] == 1 for m in view["moves"]):
            ws.send(json.dumps({"type": "move", "move": view["legal"][0]}))
            view = until_my_turn(ws, after=view["version"])
        t.got(f"the engine's first decision: {next(m for m in view['moves'] if m['seat'] == 1)['move']} "
              f"({(time.perf_counter() - start) * 1000:.0f} ms after our first decision)")
    waited("first decision of review A", lambda: review_status(server, a)[1]["done"] >= 1)
    procs = children(server.pid)
    t.say(f"the server's child processes (pid, nice): {', '.join(f'{p} nice {n}' for p, n in procs)}")
    reviewers = [p for p, n in procs if n == 19]
    own_pool = len(reviewers) == 1 and any(n == 10 for _, n in procs)
    # push A and B out with newer reviews of no decision (they search nothing): C takes a slot
    done_a = review_status(server, a)[1]["done"]
    t.sent(f"POST {path} <a record of no decision> x 19 (A at {done_a} of {decisions} decisions)")
    for _ in range(19):
        request(server, "POST", path, empty.encode())
    cpu0 = cpu_seconds(reviewers[0]) if reviewers else 0.0
    gone = [review_status(server, x)[0] for x in (a, b)]
    t.sent("GET /api/review/A, GET /api/review/B")
    t.got(f"{gone[0]}, {gone[1]}")
    ratio = float("inf")
    if reviewers:
        marks = {}

        def progress():
            st = review_status(server, c)[1]
            if st["status"] == "error":
                raise RuntimeError(f"review C failed: {st}")
            if "first" not in marks and st["done"] >= 1:
                marks["first"] = (st["done"], cpu_seconds(reviewers[0]))
            if st["status"] == "done":
                marks["last"] = (st["done"], cpu_seconds(reviewers[0]))
            return "last" in marks

        waited("the end of review C", progress, cpu_of=reviewers[0])
        (d1, c1), (dn, cn) = marks["first"], marks["last"]
        per_decision = (cn - c1) / max(1, dn - d1)
        ratio = (c1 - cpu0) / per_decision if per_decision > 0 else float("inf")
        t.got(f"C: {d1} decision(s) done after {c1 - cpu0:.2f} s of the review process's CPU from the push")
        t.got(f"C: its other {dn - d1} decisions in {cn - c1:.2f} s of CPU, {per_decision:.3f} s each")
    t.note(f"checks: reviews run in a process of their own at nice 19 (the engine's are at nice 10); at most 2 at once "
           f"(C says \"queued\": true while A and B run); A and B, pushed out, answer 404 and their "
           f"{2 * decisions - done_a} decisions still waiting are never searched: C's first decision comes after "
           f"only the few already handed to the review process (a process pool cannot take those back), not "
            f"behind theirs (the defect: ~{2 * decisions - done_a} decisions' CPU first). Mended: C queued, a "
           f"nice-19 review process, 404s, and the CPU before C's first decision under {MAX_WASTED} decisions' "
           f"worth (C's mean).")
    t.verdict("D3", capped and own_pool and gone == [404, 404] and ratio < MAX_WASTED,
              f"C queued: {capped}; review process at nice 19: {bool(reviewers)}; pushed out: {gone}; "
              + (f"CPU before C's first decision: {ratio:.1f} decisions' worth" if reviewers
                 else "no review process to measure"))


# ---------------------------------------------------------------- D4, D6, D7: bad frames, bad numbers, unknown ids


def probe_bad_frames(t: Transcript, server: Served) -> None:
    t.heading("D4", "a binary frame or JSON nested 2,000 deep dropped the socket; the same JSON over HTTP was 500")
    deep = "[" * 2000 + "]" * 2000
    gid = new_game(t, server)
    answers, alive = [], True
    with open_socket(t, server, f"/api/games/{gid}/ws") as ws:
        until_my_turn(ws)
        for frame, shown in ((b'{"type": "state"}', "binary frame b'{\"type\": \"state\"}'"),
                             (deep, "[ x 2000 then ] x 2000 (text)"),
                             ('{"type": "ping", "t": ' + deep + "}", '{"type": "ping", "t": <the same>}')):
            t.sent(shown)
            try:
                ws.send(frame)
                m = receive(ws, timeout=30)
                t.got(json.dumps(m))
                answers.append(m["type"] == "error")
                t.sent('{"type": "ping", "t": 1}')
                ws.send('{"type": "ping", "t": 1}')
                m = receive(ws, timeout=30)
                t.got(json.dumps(m))
                alive &= m == {"type": "pong", "t": 1}
            except (ConnectionClosed, TimeoutError) as e:
                t.got(f"the socket closed: {e}")
                answers.append(False)
                alive = False
    statuses = []
    for path in ("/api/games", "/api/watch"):
        status, _ = shown_request(t, server, "POST", path, deep.encode(), show_body="[ x 2000 then ] x 2000")
        statuses.append(status)
    t.note("checks: each bad frame is answered with an error message and the socket still answers a ping; the "
           "deep JSON over HTTP is 400, not 500.")
    t.verdict("D4", all(answers) and alive and statuses == [400, 400],
              f"errors: {sum(answers)} of 3; socket open after each: {alive}; HTTP: {statuses}")


def probe_non_finite(t: Transcript, server: Served) -> None:
    t.heading("D6", "the pong echoed NaN and Infinity")
    gid = new_game(t, server)
    refused = []
    with open_socket(t, server, f"/api/games/{gid}/ws") as ws:
        until_my_turn(ws)
        for bad in ("NaN", "Infinity", "-Infinity", "1e999"):
            frame = '{"type": "ping", "t": %s}' % bad
            t.sent(frame)
            ws.send(frame)
            text = ws.recv(timeout=30)
            t.got(text)
            try:
                m = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
                refused.append(m["type"] == "error")
            except ValueError:            # the server sent a non-finite number: a browser's JSON.parse refuses it
                refused.append(False)
    t.note("checks: each answer is strict JSON (Python's reader told to refuse NaN and Infinity) and an error, "
           "not a pong echoing the number.")
    t.verdict("D6", all(refused), f"{sum(refused)} of {len(refused)} refused")


def probe_unknown_id(t: Transcript, server: Served) -> None:
    t.heading("D7", "an unknown game id's WebSocket was refused with HTTP 403 instead of closed with 4404")
    path = "/api/games/" + "x" * 32 + "/ws"
    code = reason = None
    try:
        with open_socket(t, server, path) as ws:
            with contextlib.suppress(ConnectionClosed):
                ws.recv(timeout=30)
            code, reason = ws.close_code, ws.close_reason
            t.got(f"upgraded (101), then the close frame: code {code}, reason {reason!r}")
    except InvalidStatus as e:
        t.got(f"the upgrade refused: HTTP {e.response.status_code}")
    t.note("checks: the upgrade is accepted and the socket closed with 4404, which a page can read (a refused "
           "upgrade shows it only a failed connection).")
    t.verdict("D7", code == 4404, f"close code {code}" if code is not None else "upgrade refused")


# ---------------------------------------------------------------- D5: TCP_NODELAY


def server_socket_option(pid: int, server_port: int, client_port: int, level: int, option: int) -> int:
    """Return a socket option of the server's end of a loopback connection (its fd copied with pidfd_getfd)."""
    inode = None
    with open("/proc/net/tcp") as f:
        for line in f.read().splitlines()[1:]:
            fields = line.split()
            local, remote = (int(x.split(":")[1], 16) for x in fields[1:3])
            if local == server_port and remote == client_port:
                inode = fields[9]
    if inode is None:
        raise OSError("the server's end of the connection is not in /proc/net/tcp")
    fd = next(int(n) for n in os.listdir(f"/proc/{pid}/fd")
              if os.readlink(f"/proc/{pid}/fd/{n}") == f"socket:[{inode}]")
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    try:
        copy = libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
        if copy < 0:
            raise OSError(ctypes.get_errno(), "pidfd_getfd")
    finally:
        os.close(pidfd)
    sock = socket.socket(fileno=copy)
    try:
        return sock.getsockopt(level, option)
    finally:
        sock.close()                          # closes the copy only: the server's connection stays


def probe_nodelay(t: Transcript, server: Served) -> None:
    t.heading("D5", "no TCP_NODELAY")
    gid = new_game(t, server)
    with open_socket(t, server, f"/api/games/{gid}/ws") as ws:
        until_my_turn(ws)
        client_port = ws.socket.getsockname()[1]
        value = server_socket_option(server.pid, server.port, client_port, socket.IPPROTO_TCP, socket.TCP_NODELAY)
        t.got(f"the server's end of this WebSocket (port {server.port} to {client_port}): TCP_NODELAY = {value}")
    t.note("checks: the option as the server's own socket holds it (its file descriptor copied from the server "
           "process with pidfd_getfd, /proc/net/tcp naming it), not the probe's end.")
    t.verdict("D5", value != 0, f"TCP_NODELAY {value}")


# ---------------------------------------------------------------- the cap on games


def probe_cap(t: Transcript) -> None:
    with Served("--max-games", "2", "--max-saved-games", "3") as server:
        t.say(f"$ {server.command}")
        a, b = new_game(t, server), new_game(t, server)
        with open_socket(t, server, f"/api/games/{a}/ws") as wa, open_socket(t, server, f"/api/games/{b}/ws") as wb:
            until_my_turn(wa), until_my_turn(wb)
            full, full_text = shown_request(t, server, "POST", "/api/games",
                                            json.dumps({"players": 2, "human": 0, "engines": ENGINE}).encode())
        t.say("  (both pages closed: their games may leave memory, still saved)")
        made = []
        for _ in range(3):
            made.append(shown_request(t, server, "POST", "/api/games",
                                      json.dumps({"players": 2, "human": 0, "engines": ENGINE}).encode())[0])
        saved = len(os.listdir(server.data.name))
    in_play, on_disk = full == 503 and "--max-games" in full_text, made[-1] == 503 and saved == 3
    t.note(f"checks: with both games' pages open a third game is 503 naming --max-games; then games start until the "
           f"data folder holds 3 (--max-saved-games) and the next is 503; the folder holds {saved} files.")
    t.verdict("cap", in_play and on_disk and made[0] == 201,
              f"in play: {full}; then {', '.join(map(str, made))}; {saved} saved files")


# ----------------------------------------------------------------


def guarded(t: Transcript, name: str, probe, *args) -> None:
    """Run one reproducer; one that cannot go on (a dropped socket, a missing field) is NOT MENDED, with why."""
    seen = len(t.verdicts)
    try:
        probe(t, *args)
    except Exception as e:
        t.say(f"the reproducer stopped: {type(e).__name__}: {trim(str(e), 300)}")
    if len(t.verdicts) == seen:
        t.verdict(name, False, "the reproducer did not reach its check")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tries", type=int, default=6, help="D1: whole-hand swaps, each undone (default 6)")
    ap.add_argument("--flood", type=int, default=10_000, help="D2: state requests left unread (default 10,000)")
    ap.add_argument("--review-decisions", type=int, default=30, help="D3: decisions in each review (default 30)")
    ap.add_argument("--review-iterations", type=int, default=400, help="D3: iterations per decision (default 400)")
    args = ap.parse_args(argv)
    t = Transcript()
    with Served() as server:
        t.say(f"$ {server.command}")
        guarded(t, "D1", probe_undo, server, args.tries)
        guarded(t, "D2", probe_flood, server, args.flood)
        guarded(t, "D3", probe_reviews, server, args.review_decisions, args.review_iterations)
        guarded(t, "D4", probe_bad_frames, server)
        guarded(t, "D5", probe_nodelay, server)
        guarded(t, "D6", probe_non_finite, server)
        guarded(t, "D7", probe_unknown_id, server)
    t.heading("cap", "no cap on games (1,000 games in 3.4 s, each a file)")
    guarded(t, "cap", probe_cap)
    t.say()
    bad = [name for name, ok in t.verdicts if not ok]
    t.say("all mended: " + ", ".join(name for name, _ in t.verdicts) if not bad else "NOT MENDED: " + ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
