"""Print the learned value's benchmark: search speed and evaluation calls with it and with the handcrafted one, and its training time.

    python -m bench.value_bench [--iterations N] [--calls N] [--games N]

Search: the fixed mid-game positions of `tne-ai bench` (2 and 4 players,
standard board, decision 60), ISMCTS at default SearchParams and at
value="learned", alternated, medians of 5 repetitions. Evaluation calls: the
kernel's `evaluate` on the same positions, called in a nogil loop
(ext.search.evaluation.evaluate_repeatedly). Training: `--games` seeded
2-player self-play games at 20 iterations a decision (search.tuning.calibrate),
their positions' features (search.tuning.value.positions_of) and the fit
(fit_value) timed, per 100,000 positions.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time

from ext.search import evaluation
from search.agent import Limits
from search.ismcts import ISMCTS
from search.learned_value import load_weights
from search.params import SearchParams
from tne_ai.cli.bench import fixed_position as position    # the positions of `tne-ai bench`


def search_rates(obs, seat, iterations: int, reps: int = 5) -> dict:
    """Return the median iterations/s of the search with each value, the runs alternated."""
    searchers = {"handcrafted": ISMCTS(SearchParams()), "learned": ISMCTS(SearchParams(value="learned"))}
    rates = {k: [] for k in searchers}
    for rep in range(reps):
        for kind, s in searchers.items():
            r = s.search(obs, seat, Limits(iterations=iterations), seed=rep)
            rates[kind].append(r.iterations / r.seconds)
    return {k: statistics.median(v) for k, v in rates.items()}


def eval_rates(state, calls: int, reps: int = 5) -> dict:
    """Return the median evaluate calls/s with each value."""
    weights = SearchParams().eval_weights(state.players)
    learned = load_weights(state.players)
    rates = {"handcrafted": [], "learned": []}
    for _ in range(reps):
        for kind, vw in (("handcrafted", None), ("learned", learned)):
            t0 = time.perf_counter()
            evaluation.evaluate_repeatedly(state, weights, calls, vw)
            rates[kind].append(calls / (time.perf_counter() - t0))
    return {k: statistics.median(v) for k, v in rates.items()}


def training_time(games: int) -> tuple:
    """Return (positions, seconds for their features, seconds for the fit) on seeded quick self-play."""
    from search.tuning import calibrate, value
    played = list(calibrate.self_play(games, seed=1, players=2, iterations=20))
    t0 = time.perf_counter()
    pos = value.positions_of(played)
    t1 = time.perf_counter()
    value.fit_value(pos, 2, seed=1)
    return len(pos.y), t1 - t0, time.perf_counter() - t1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=10000)
    ap.add_argument("--calls", type=int, default=200000)
    ap.add_argument("--games", type=int, default=40)
    args = ap.parse_args()
    print(f"machine: {platform.machine()} python {platform.python_version()}")
    print("\n| players | figure | handcrafted | learned | learned / handcrafted |\n|---|---|---:|---:|---:|")
    for players in (2, 4):
        s = position(players)
        seat = s.to_act
        it = search_rates(s.observation(seat), seat, args.iterations)
        ev = eval_rates(s, args.calls)
        print(f"| {players} | ISMCTS iterations/s | {it['handcrafted']:,.0f} | {it['learned']:,.0f} | "
              f"{it['learned'] / it['handcrafted']:.2f}× |")
        print(f"| {players} | evaluation calls/s | {ev['handcrafted']:,.0f} | {ev['learned']:,.0f} | "
              f"{ev['learned'] / ev['handcrafted']:.2f}× |")
    n, features, fit = training_time(args.games)
    per = 100000 / n
    print(f"\ntraining on {n:,} positions of {args.games} games: features {features:.2f} s, fit {fit:.2f} s; "
          f"per 100,000 positions {features * per:.1f} s + {fit * per:.1f} s = {(features + fit) * per:.1f} s")


if __name__ == "__main__":
    main()
