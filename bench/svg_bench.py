"""SVG board render time (engine/svg.py) of the built-in sample mid-game: median ms per render.

    python -m bench.svg_bench [--renders 200]

The position is tne_ai/data/sample-midgame.txt (3 players, standard board, 46
decisions in), drawn for the seat to act with its hand, the status lines, the
legend and a highlighted last decision. Target: at most 5 ms per render.
"""
from __future__ import annotations

import argparse
import statistics
import time

from engine.svg import board_svg
from tne_ai.inputs import load_sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=200, help="renders timed one by one")
    args = parser.parse_args()
    snap = load_sample().snapshot
    seat = snap["to_act"]
    board_svg(snap, seat, last="tile r e4")                       # warm up (board file, caches)
    times = []
    for _ in range(args.renders):
        t0 = time.perf_counter()
        doc = board_svg(snap, seat, last="tile r e4")
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    print(f"board_svg, sample mid-game, {args.renders} renders: median {statistics.median(times):.3f} ms, "
          f"min {times[0]:.3f} ms, 90th percentile {times[int(0.9 * len(times))]:.3f} ms, "
          f"{len(doc):,} bytes")


if __name__ == "__main__":
    main()
