"""The noise of a search's rewards: how widely one iteration's reward spreads around a root decision's mean, against the gaps between the decisions' means.

    python -m bench.leaf_noise [--players 2] [--positions 20] [--iterations 4000]
        [--seed 0] [--params FILE ...]

On the first `--positions` positions of the convergence set
(bench/data/convergence-{2,4}p.json, bench.convergence), each setting (the
defaults, then each `--params` file) searches every position once at
`--iterations`, one worker, from the same root world and seed. For each
position it reads the five most visited root decisions: each one's
spread (the standard deviation of its iterations' rewards, from the
search's own 95% interval), the gap between the chosen decision's mean
and the best other mean of the five, and the standard error of the
chosen decision's mean. It prints the medians over the positions.

A gap far below the spread means the decisions cannot be told apart
without many visits each: what a rollout's noise costs a budget. The
figures are a function of the options (seeded worlds and searches).
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys

from bench.convergence import OneWorld, load_positions, positions_path
from search.agent import Limits, SearchError
from search.arena.runner import derive_seed
from search.params import SearchParams

TOP = 5


def measure(params: SearchParams, positions: list, iterations: int, seed: int) -> dict:
    """Return the medians of spread, gap and standard error over the positions for one setting."""
    spreads, gaps, errors = [], [], []
    for index, obs in enumerate(positions):
        search = OneWorld(params, derive_seed(seed, "leaf-noise", index, "world"))
        r = search.search(obs, obs["seat"], Limits(iterations=iterations),
                          seed=derive_seed(seed, "leaf-noise", index))
        top = r.candidates[:TOP]
        for c in top:
            spreads.append((c.high - c.low) / 2 / 1.96 * math.sqrt(c.visits))
        if len(top) > 1:
            gaps.append(top[0].mean - max(c.mean for c in top[1:]))
        errors.append((top[0].high - top[0].low) / 2 / 1.96)
    return {"spread": statistics.median(spreads), "gap": statistics.median(gaps),
            "error": statistics.median(errors)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.leaf_noise", description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2, choices=(2, 4))
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--params", nargs="*", default=[], metavar="FILE", help="params files to measure after the defaults")
    args = ap.parse_args(argv)
    doc, _ = load_positions(positions_path(args.players))
    positions = [p["observation"] for p in doc["positions"][:args.positions]]
    try:
        settings = [("defaults", SearchParams())] + [(path, SearchParams.load(path)) for path in args.params]
    except SearchError as e:
        ap.error(str(e))
    print(f"{len(positions)} positions, {args.players} players, {args.iterations} iterations, seed {args.seed}; "
          f"medians over the five most visited root decisions")
    print(f"{'setting':24s} {'spread':>8s} {'gap':>8s} {'std err':>8s}")
    out = {}
    for name, params in settings:
        out[name] = m = measure(params, positions, args.iterations, args.seed)
        print(f"{name:24s} {m['spread']:8.3f} {m['gap']:+8.4f} {m['error']:8.4f}", flush=True)
    return out


if __name__ == "__main__":
    main()
    sys.exit(0)
