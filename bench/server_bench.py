"""Measure `tne-ai analysis-server`: queries per second, and the latency it adds to a search of the same size.

    python -m bench.server_bench [--workers 2] [--iterations 200] [--queries 400] [--latency-queries 200]

Every query analyses the built-in sample mid-game position (tne_ai/data,
3 players, seat 1 to act), given whole, at `--iterations` with its own seed.

- Throughput: `--queries` queries written at once to a server with
  `--workers` workers; from the first line written to the last answer read.
- Latency: `--latency-queries` queries one at a time (the next written when
  the answer of the last is read), each timed from just before its line is
  written to the moment its answer is read. Compared with, in this process:
  a bare `ext.search.tree.Tree` search of the same size (a new tree reset on the
  same world, then `run(iterations)`), and `search.analysis.analyse` (what a
  worker runs: the world dealt from the observation, the search, the
  candidates and principal variations read out). The overhead is the median
  round trip less the median bare search.

Nothing is asserted: the figures go to docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

from engine.info import observation
from engine.position import format_position
from ext.search.tree import Tree
from search.agent import Limits
from search.analysis import analyse
from search.ismcts import ISMCTS, world_from_observation
from search.params import SearchParams
from tne_ai.inputs import load_sample


def server_argv(workers: int) -> list:
    script = shutil.which("tne-ai", path=os.path.dirname(sys.executable))
    return ([script] if script else [sys.executable, "-m", "tne_ai"]) + ["analysis-server", "--workers",
                                                                         str(workers)]


def percentile(values: list, p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


class ServerProcess:
    def __init__(self, workers: int):
        self.proc = subprocess.Popen(server_argv(workers), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)
        self.out = self.proc.stdout

    def send(self, lines: list) -> None:
        self.proc.stdin.write(b"".join(line + b"\n" for line in lines))

    def read(self) -> dict:
        line = self.out.readline()
        if not line:
            raise RuntimeError("the server exited")
        return json.loads(line)

    def ready(self) -> None:
        """Wait until both workers have answered a query (they are started and warm)."""
        self.send([json.dumps({"id": f"warm{i}", "position": POSITION, "iterations": 50}).encode()
                   for i in range(8)])
        done = 0
        while done < 8:
            done += self.read().get("isFinal") is True

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(60)


def query(i: int, iterations: int) -> bytes:
    return json.dumps({"id": f"q{i}", "position": POSITION, "iterations": iterations, "seed": i,
                       "candidates": 5}).encode()


def throughput(workers: int, iterations: int, n: int) -> tuple:
    server = ServerProcess(workers)
    try:
        server.ready()
        lines = [query(i, iterations) for i in range(n)]
        t0 = time.perf_counter()
        server.send(lines)
        done = 0
        while done < n:
            a = server.read()
            assert "error" not in a, a
            done += a.get("isFinal") is True
        elapsed = time.perf_counter() - t0
    finally:
        server.close()
    return n / elapsed, elapsed


def latency(workers: int, iterations: int, n: int) -> tuple:
    server = ServerProcess(workers)
    times, inside = [], []
    try:
        server.ready()
        for i in range(n):
            line = query(i, iterations)
            t0 = time.perf_counter()
            server.send([line])
            a = server.read()
            times.append(time.perf_counter() - t0)
            assert a.get("isFinal") is True, a
            inside.append(a["analysis"]["seconds"])
    finally:
        server.close()
    return times, inside


def bare_tree(obs: dict, seat: int, iterations: int, n: int) -> list:
    params = SearchParams()
    out = []
    for i in range(n):
        state = world_from_observation(obs, seat, i)
        t0 = time.perf_counter()
        tree = Tree()
        params.configure(tree, state.players)
        tree.reset(state, seat, i)
        ran = tree.run(iterations)
        out.append(time.perf_counter() - t0)
        assert ran == iterations
    return out


def in_process(obs: dict, iterations: int, n: int) -> list:
    searcher = ISMCTS()
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        analyse(searcher, obs, Limits(iterations), i)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--queries", type=int, default=400)
    ap.add_argument("--latency-queries", type=int, default=200)
    args = ap.parse_args()
    ms = lambda v: 1000 * statistics.median(v)          # noqa: E731
    qps, elapsed = throughput(args.workers, args.iterations, args.queries)
    trips, inside = latency(args.workers, args.iterations, args.latency_queries)
    bare = bare_tree(OBS, OBS["seat"], args.iterations, args.latency_queries)
    full = in_process(OBS, args.iterations, args.latency_queries)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"position: the sample mid-game (3 players, seat {OBS['seat']} to act), {args.iterations} iterations "
          f"a query, {args.workers} workers")
    print()
    print("| figure | value |")
    print("|---|---:|")
    print(f"| throughput: {args.queries} queries in flight | {qps:,.1f} queries/s ({elapsed:.2f} s) |")
    print(f"| ideal: {args.workers} x 1 / in-process analyse | "
          f"{args.workers / statistics.median(full):,.1f} queries/s |")
    print(f"| bare Tree search, median | {ms(bare):.2f} ms |")
    print(f"| in-process analyse(), median | {ms(full):.2f} ms |")
    print(f"| in the worker (the answer's `seconds`), median | {ms(inside):.2f} ms |")
    print(f"| server round trip, one query at a time, median | {ms(trips):.2f} ms |")
    print(f"| server round trip, p95 | {1000 * percentile(trips, 95):.2f} ms |")
    print(f"| overhead: round trip less bare Tree, medians | {ms(trips) - ms(bare):.2f} ms |")
    print(f"| of which outside the search (round trip less `seconds`) | {ms(trips) - ms(inside):.2f} ms |")


SAMPLE = load_sample().snapshot
OBS = observation(SAMPLE, SAMPLE["to_act"])
POSITION = format_position(SAMPLE, hidden=True)

if __name__ == "__main__":
    main()
