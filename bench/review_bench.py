"""Print the review benchmark: wall time of `tne-ai review` on a recorded 2-player game, 1 and 2 jobs.

    python -m bench.review_bench [--iterations 1000] [--reps 3] [--seat 0]

The game is tests/data/review-game.txt (ISMCTS against greedy, 212
decisions, 109 of them seat 0's). Each figure is the median wall time of
`--reps` runs of search.review.review_record (process start-up of the jobs
included), one run of this script; the ratio is measured in the same run.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

from search.agent import Limits
from search.review import record_decisions, review_record

GAME = Path(__file__).resolve().parent.parent / "tests" / "data" / "review-game.txt"


def wall(text: str, seat: int, iterations: int, jobs: int, reps: int) -> float:
    """Return the median wall seconds of reviewing one seat's decisions."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        review_record(text, [seat], Limits(iterations=iterations), seed=0, jobs=jobs)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seat", type=int, default=0)
    args = ap.parse_args()
    text = GAME.read_text()
    _, items = record_decisions(text, [args.seat])
    print(f"machine: {platform.machine()} python {platform.python_version()}; {GAME.name}: "
          f"{len(items)} decisions of seat {args.seat}, {args.iterations:,} iterations each, "
          f"median of {args.reps}")
    one = wall(text, args.seat, args.iterations, 1, args.reps)
    two = wall(text, args.seat, args.iterations, 2, args.reps)
    print(f"{'jobs':>4} {'wall s':>8} {'ms/decision':>12}")
    for jobs, t in ((1, one), (2, two)):
        print(f"{jobs:>4} {t:>8.2f} {1000 * t / len(items):>12.1f}")
    print(f"speed-up with 2 jobs: {one / two:.2f}x")


if __name__ == "__main__":
    main()
