"""Print the search benchmark: ISMCTS iterations/s, worker scaling, node memory, Python baseline.

    python -m bench.search_bench [--iterations N] [--baseline N] [--variants english,buildings,wonder]
        [--params FILE ...]

Fixed mid-game positions (2 and 4 players, standard board, seeded random play
to decision 60, with the 2015 variants if asked); default SearchParams, and
one more row of iterations/s, 1 worker, for each params file; one run,
medians of 3 repetitions.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time

from bench.python_ismcts import search as python_search
from ext.search.tree import Tree
from search.agent import Limits, SearchError
from search.ismcts import ISMCTS
from search.params import SearchParams
from tne_ai.cli.bench import fixed_position as position    # the positions of `tne-ai bench`


def rate(searcher, obs, seat, iterations: int, reps: int = 3) -> float:
    """Median iterations per second over repetitions."""
    rates = []
    for k in range(reps):
        r = searcher.search(obs, seat, Limits(iterations=iterations), seed=k)
        rates.append(r.iterations / r.seconds)
    return statistics.median(rates)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--baseline", type=int, default=60)
    ap.add_argument("--variants", default="", help="2015 variants, comma-separated (default none)")
    ap.add_argument("--params", nargs="*", default=[], metavar="FILE",
                    help="params files whose iterations/s, 1 worker, are printed beside the defaults'")
    args = ap.parse_args(argv)
    try:
        settings = [(path, SearchParams.load(path)) for path in args.params]
    except SearchError as e:
        ap.error(str(e))
    variants = [v for v in args.variants.split(",") if v]
    print(f"machine: {platform.machine()} python {platform.python_version()}; params: {SearchParams()}"
          + (f"; variants {','.join(variants)}" if variants else ""))
    print("\n| players | figure | value |\n|---|---|---:|")
    for players in (2, 4):
        s = position(players, variants=variants)
        seat = s.to_act
        obs = s.observation(seat)
        one = rate(ISMCTS(), obs, seat, args.iterations)
        two_searcher = ISMCTS(workers=2)
        two_searcher.search(obs, seat, Limits(iterations=200), seed=0)   # start the pool
        two = rate(two_searcher, obs, seat, args.iterations)
        two_searcher.close()
        t0 = time.perf_counter()
        python_search(obs, seat, args.baseline, seed=1)
        py = args.baseline / (time.perf_counter() - t0)
        print(f"| {players} | ISMCTS iterations/s, 1 worker | {one:,.0f} |")
        for path, params in settings:
            other = rate(ISMCTS(params), obs, seat, args.iterations)
            print(f"| {players} | ISMCTS iterations/s, 1 worker, {path} | {other:,.0f} ({other / one:.2f}×) |")
        print(f"| {players} | ISMCTS iterations/s, 2 workers | {two:,.0f} ({two / one:.2f}×) |")
        print(f"| {players} | plain-Python ISMCTS on the reference, iterations/s | {py:,.1f} |")
        print(f"| {players} | speed-up over the Python loop | {one / py:,.0f}× |")
    print(f"| - | memory per tree node (node + hash slots at ≤ 50% load) | {Tree.node_size()} bytes |")


if __name__ == "__main__":
    main()
