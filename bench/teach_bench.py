"""Print the teaching-mode benchmark: the time of one teaching check (tne_ai.teach) per decision, 2 players.

    python -m bench.teach_bench [--iterations 1000] [--decisions 40] [--seat 0]

The decisions are seat 0's first `--decisions` in tests/data/review-game.txt
(ISMCTS against greedy, 2 players, standard board). Each is checked as
teaching mode checks a decision before it is final (tne_ai.teach.check_decision
from the seat's observation, threshold 0.10), one process, one run; the
figures are the median and the 90th percentile of the wall times per decision,
and how many of the decisions the check warned of.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

from search.ismcts import ISMCTS
from search.review import record_decisions
from tne_ai.teach import DEFAULT_THRESHOLD, TEACH_ITERATIONS, check_decision

GAME = Path(__file__).resolve().parent.parent / "tests" / "data" / "review-game.txt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=TEACH_ITERATIONS)
    ap.add_argument("--decisions", type=int, default=40)
    ap.add_argument("--seat", type=int, default=0)
    args = ap.parse_args()
    _, items = record_decisions(GAME.read_text(), [args.seat])
    items = items[:args.decisions]
    searcher = ISMCTS()
    times, warned, searches = [], 0, 0
    for ply, seat, before, action, _ in items:
        t0 = time.perf_counter()
        c = check_decision(searcher, before, action, ply, 0, DEFAULT_THRESHOLD, args.iterations)
        times.append(time.perf_counter() - t0)
        warned += c["warn"]
        searches += c["searches"]
    times.sort()
    print(f"machine: {platform.machine()} python {platform.python_version()}; {GAME.name}: "
          f"seat {args.seat}'s first {len(items)} decisions, {args.iterations:,} iterations, one process")
    print(f"median {1000 * statistics.median(times):.0f} ms, 90th percentile "
          f"{1000 * times[int(0.9 * (len(times) - 1))]:.0f} ms per decision; {searches} searches; "
          f"{warned} warned at {DEFAULT_THRESHOLD:.2f}")


if __name__ == "__main__":
    main()
