"""Time `go movetime` through the real `tne-ai bot` process: median, p95, p99 and max latency to bestmove.

    python -m bench.movetime_bench [--calls 100] [--movetime 200] [--seed 5] [--decisions 60]

The position is a seeded random game played some decisions in (until seat 0
is to act in the action phase), given as `position fen` with seat 0's hand.
Each call is timed from just before `go movetime N` is written to the bot's
stdin to the moment its `bestmove` line is read; `newgame` and the position
are sent again before each call (untimed), so that every search starts from
a fresh tree as in a game. Also reported: the engine's own `time` of its last
report, to tell the search's share from the transport's.
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time

import engine
from engine.view import letters


def position_line(seed: int, decisions: int) -> str:
    """Return `position fen ...` of a seeded random game, seat 0 to act in the action phase."""
    s = engine.new_game(2, seed)
    rng = random.Random(seed)
    n = 0
    while n < decisions or s.phase != "action" or s.to_act != 0:
        s.apply(rng.choice(s.legal_actions()))
        n += 1
    sn = s.snapshot()
    return (f"position fen {s.position()} hand {letters(sn['hands'][0])} "
            f"swapped {','.join(map(str, sn['swapped'][0]))}")


def bot_argv() -> list:
    """Return the command line of `tne-ai bot` (the console script next to this Python)."""
    script = shutil.which("tne-ai", path=os.path.dirname(sys.executable))
    return ([script] if script else [sys.executable, "-m", "tne_ai"]) + ["bot"]


def percentile(sorted_values: list, p: float) -> float:
    """Return the nearest-rank percentile of sorted values."""
    k = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[k - 1]


class Bot:
    """The bot process and line-wise access to it."""

    def __init__(self):
        self.proc = subprocess.Popen(bot_argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode("ascii") + b"\n")

    def read(self) -> str:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the bot exited")
        return line.decode("ascii").rstrip("\n")

    def until(self, prefix: str) -> list:
        lines = []
        while True:
            lines.append(self.read())
            if lines[-1].startswith(prefix):
                return lines

    def close(self) -> None:
        self.send("quit")
        self.proc.stdin.close()
        self.proc.wait(10)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--movetime", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--decisions", type=int, default=60)
    args = ap.parse_args(argv)

    pos = position_line(args.seed, args.decisions)
    bot = Bot()
    bot.send("tne")
    bot.until("tneok")
    latencies, engine_ms, iterations = [], [], []
    for _ in range(args.calls):
        bot.send("newgame")
        bot.send(pos)
        bot.send("isready")
        bot.until("readyok")
        start = time.perf_counter()
        bot.send(f"go movetime {args.movetime}")
        lines = bot.until("bestmove")
        latencies.append((time.perf_counter() - start) * 1000)
        report = [ln for ln in lines if ln.startswith("info iterations")][-1].split()
        engine_ms.append(int(report[report.index("time") + 1]))
        iterations.append(int(report[report.index("iterations") + 1]))
    bot.close()

    lat = sorted(latencies)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cpus, {platform.system()} {platform.release()}, "
          f"Python {platform.python_version()}")
    print(f"position: seed {args.seed}, {args.decisions} decisions in; {args.calls} x go movetime {args.movetime}")
    print()
    print("| figure | ms |")
    print("|---|---:|")
    for name, value in (("median latency", statistics.median(lat)), ("p95 latency", percentile(lat, 95)),
                        ("p99 latency", percentile(lat, 99)), ("max latency", lat[-1]),
                        ("min latency", lat[0]),
                        ("median engine time of the last report", statistics.median(engine_ms))):
        print(f"| {name} | {value:.1f} |")
    print(f"| median iterations per search | {statistics.median(iterations):,.0f} |")
    over = sum(1 for x in lat if x > args.movetime + 50)
    print(f"\ncalls over {args.movetime} + 50 ms: {over} of {len(lat)}")


if __name__ == "__main__":
    main()
