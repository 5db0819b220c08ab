"""Measure `tne-ai serve` under load: WebSocket ping round trips with 4 engine games running, and click-to-reply.

    python -m bench.web_bench [--workers 2] [--games 4] [--iterations 1000] [--pings 500] [--replies 10]
                              [--flood 10000]

Starts the real server (`tne-ai serve --port P --workers W --data-dir TMP`, a
subprocess) and talks to it over real WebSockets (the `websockets` package)
and HTTP (httpx), as a browser would:

- Ping under load: `--games` 2-player games against an engine at
  `--iterations` iterations per decision; each game's human plays its first
  legal decision as soon as it is to act (a finished game is replaced by a
  new one), so the worker pool is kept busy throughout. Meanwhile a further
  socket (a game of its own, where the human does not move) sends `--pings`
  `{"type": "ping"}` messages one after another (10 ms apart) and times each
  until its `pong`. Target: p99 at most 50 ms.
- Click to reply: then, with the load stopped, one game against the engine
  at `--iterations`: the human's decision that ends their turn is timed from
  the moment it is sent to the engine's first decision announced (`event`),
  `--replies` times.
- Memory under a flood: the server's resident memory (its main process,
  where the sockets' send queues live; /proc, so Linux only) before, right
  after one socket sends `--flood` `{"type": "state"}` requests without
  reading a byte of the answers (its client reads nothing, so the server's
  send buffer fills), and 2 s after that socket closes. Target: at most
  150 MB after the flood.

Nothing is asserted: the figures go to docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import httpx2 as httpx     # Starlette's choice where installed (the [test] extra on Python >= 3.11)
except ImportError:
    import httpx
import websockets


def percentile(values: list, p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def serve_argv(port: int, workers: int, data_dir: str) -> list:
    script = shutil.which("tne-ai", path=os.path.dirname(sys.executable))
    head = [script] if script else [sys.executable, "-c", "from tne_ai.cli import main; main()"]
    return head + ["serve", "--port", str(port), "--workers", str(workers), "--data-dir", data_dir]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def new_game(http: httpx.AsyncClient, iterations: int) -> str:
    r = await http.post("/api/games", json={"players": 2, "human": 0, "engines": {"iterations": iterations}})
    r.raise_for_status()
    return r.json()["game"]


async def busy_player(http, ws_base: str, iterations: int, stop: asyncio.Event, counts: dict) -> None:
    """Play games (first legal decision at once) until `stop`, so an engine is nearly always searching."""
    while not stop.is_set():
        gid = await new_game(http, iterations)
        async with websockets.connect(f"{ws_base}/api/games/{gid}/ws", max_size=None) as ws:
            while not stop.is_set():
                try:
                    m = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                except asyncio.TimeoutError:
                    continue
                if m["type"] == "event":
                    counts["engine"] += 1
                if m["type"] == "state" and m["over"]:
                    break
                if m["type"] == "state" and m["your_turn"]:
                    await ws.send(json.dumps({"type": "move", "move": m["legal"][0]}))
                    counts["human"] += 1


async def pings(http, ws_base: str, n: int) -> list:
    gid = await new_game(http, 20)
    out = []
    async with websockets.connect(f"{ws_base}/api/games/{gid}/ws", max_size=None) as ws:
        for i in range(n):
            t0 = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "t": i}))
            while True:
                m = json.loads(await ws.recv())
                if m["type"] == "pong" and m["t"] == i:
                    break
            out.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.01)
    return out


def resident_mb(pid: int, field: str = "VmRSS") -> float:
    """Return a process's resident memory in MB (Linux /proc); field "VmHWM": its peak so far."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} line")


async def flood(http, ws_base: str, n: int, pid: int) -> dict:
    """Send n state requests on one socket without reading the answers; the server's memory around it."""
    before = resident_mb(pid)
    gid = await new_game(http, 20)
    closed = None
    # max_queue=1: the client stops reading, as a stalled browser tab would
    async with websockets.connect(f"{ws_base}/api/games/{gid}/ws", max_size=None, max_queue=1) as ws:
        try:
            for _ in range(n):
                await ws.send('{"type": "state"}')
        except websockets.ConnectionClosed as e:
            closed = e.rcvd.code if e.rcvd else None
        await asyncio.sleep(1.0)
        during = resident_mb(pid)
    await asyncio.sleep(2.0)
    return {"before_mb": before, "flood_mb": during, "after_close_mb": resident_mb(pid), "closed_code": closed}


async def click_to_reply(http, ws_base: str, iterations: int, n: int) -> list:
    out = []
    while len(out) < n:
        gid = await new_game(http, iterations)
        async with websockets.connect(f"{ws_base}/api/games/{gid}/ws", max_size=None) as ws:
            sent = None
            while len(out) < n:
                m = json.loads(await ws.recv())
                if m["type"] == "event" and sent is not None:
                    out.append((time.perf_counter() - sent) * 1000)
                    sent = None
                elif m["type"] == "state" and m["over"]:
                    break
                elif m["type"] == "state" and m["your_turn"]:
                    ends_turn = m["phase"] != "action" or m["actions_left"] == 1
                    await ws.send(json.dumps({"type": "move", "move": m["legal"][0]}))
                    sent = time.perf_counter() if ends_turn else None
    return out


async def run(args, base: str) -> dict:
    ws_base = base.replace("http://", "ws://")
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        stop, counts = asyncio.Event(), {"engine": 0, "human": 0}
        players = [asyncio.create_task(busy_player(http, ws_base, args.iterations, stop, counts))
                   for _ in range(args.games)]
        await asyncio.sleep(2.0)                  # let every game get going
        t0 = time.perf_counter()
        ping_ms = await pings(http, ws_base, args.pings)
        load_s = time.perf_counter() - t0
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
        await asyncio.sleep(3.0)                  # the searches still running in the pool finish
        reply_ms = await click_to_reply(http, ws_base, args.iterations, args.replies)
        memory = await flood(http, ws_base, args.flood, args.server_pid)
    return {"memory": memory, "ping_ms": ping_ms, "load_seconds": load_s, "engine_decisions_during_pings": counts["engine"],
            "human_decisions_during_pings": counts["human"], "reply_ms": reply_ms}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--pings", type=int, default=500)
    ap.add_argument("--replies", type=int, default=10)
    ap.add_argument("--flood", type=int, default=10_000)
    args = ap.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        proc = subprocess.Popen(serve_argv(port, args.workers, data), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    if httpx.get(base + "/", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
            args.server_pid = proc.pid
            out = asyncio.run(run(args, base))
        finally:
            proc.terminate()
            proc.wait(30)
    p, r = out["ping_ms"], out["reply_ms"]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cores {platform.machine()}, Python {platform.python_version()}, "
          f"load average {load:.2f}")
    print(f"server: {args.workers} workers; {args.games} games at {args.iterations} iterations kept busy "
          f"({out['engine_decisions_during_pings']} engine and {out['human_decisions_during_pings']} human "
          f"decisions during {out['load_seconds']:.1f} s of pings)")
    print(f"ping under load: {len(p)} pings, median {statistics.median(p):.2f} ms, "
          f"p90 {percentile(p, 90):.2f} ms, p99 {percentile(p, 99):.2f} ms, max {max(p):.2f} ms")
    print(f"click to engine reply at {args.iterations} iterations: {len(r)} replies, "
          f"median {statistics.median(r):.0f} ms, min {min(r):.0f} ms, max {max(r):.0f} ms")
    m = out["memory"]
    print(f"server memory: {m['before_mb']:.0f} MB before, {m['flood_mb']:.0f} MB after {args.flood} unread "
          f"state requests, {m['after_close_mb']:.0f} MB 2 s after that socket closed"
          + (f" (the server closed it with code {m['closed_code']})" if m["closed_code"] else ""))


if __name__ == "__main__":
    main()
