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

    python -m bench.leaf_noise --pairs SEEDS [--players 2] [--positions 20] [--iterations 200]

With `--pairs`, how much paired worlds (SearchParams.paired_worlds)
narrow the comparison of two decisions: on each position a tree limited
to the look-ahead's first two decisions (Tree.set_root_candidates) runs
`--iterations` from one root world, once for each of SEEDS seeds, with
and without paired worlds; it prints the standard deviation over the
seeds of the difference of the two means, both ways, and the median
over the positions of their ratio (paired / independent; below 1: the
pairing makes the difference less the luck of the worlds).
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys

from bench.convergence import OneWorld, load_positions, positions_path
from search.agent import Limits, SearchError
from search.ismcts import world_from_observation
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


def pair_spread(positions: list, iterations: int, seeds: int, seed: int, players: int) -> dict:
    """Return the spreads over seeds of two candidates' mean difference, independent and paired, and their ratios."""
    from ext.search.tree import Tree
    rows = []
    for index, obs in enumerate(positions):
        world = world_from_observation(obs, obs["seat"], derive_seed(seed, "pairs", index, "world"))
        spread = {}
        for paired in (False, True):
            params = SearchParams(paired_worlds=paired)
            differences = []
            for k in range(seeds):
                tree = Tree()
                params.configure(tree, players)
                tree.reset(world, obs["seat"], derive_seed(seed, "pairs", index, k))
                first_two = [a for a, _ in tree.lookahead_order()][:2]
                if len(first_two) < 2:
                    break
                tree.set_root_candidates(first_two)
                tree.run(iterations)
                means = {a: r[obs["seat"]] / v for a, v, _, r, *_ in tree.children()}
                differences.append(means[first_two[0]] - means[first_two[1]])
            spread[paired] = statistics.pstdev(differences) if len(differences) == seeds else None
        if spread[False]:
            rows.append((spread[False], spread[True]))
    ratios = [b / a for a, b in rows]
    return {"positions": len(rows), "independent": statistics.median(a for a, _ in rows),
            "paired": statistics.median(b for _, b in rows), "ratio": statistics.median(ratios),
            "ratios": ratios}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.leaf_noise", description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2, choices=(2, 4))
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=None, help="4,000; with --pairs 200")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--params", nargs="*", default=[], metavar="FILE", help="params files to measure after the defaults")
    ap.add_argument("--pairs", type=int, default=None, metavar="SEEDS",
                    help="measure paired worlds instead: two candidates' mean difference over SEEDS seeds")
    args = ap.parse_args(argv)
    if args.pairs is not None and (args.pairs < 3 or args.params):
        ap.error("--pairs takes 3 seeds or more, and no --params")
    doc, _ = load_positions(positions_path(args.players))
    positions = [p["observation"] for p in doc["positions"][:args.positions]]
    if args.pairs is not None:
        iterations = args.iterations or 200
        m = pair_spread(positions, iterations, args.pairs, args.seed, args.players)
        print(f"{m['positions']} positions, {args.players} players, the look-ahead's first two decisions, "
              f"{iterations} iterations, {args.pairs} seeds, seed {args.seed}")
        print(f"spread of the difference of their means: independent worlds {m['independent']:.4f}, "
              f"paired {m['paired']:.4f} (medians); paired / independent: median {m['ratio']:.2f}, "
              f"{sum(r < 1 for r in m['ratios'])} of {m['positions']} below 1")
        return m
    args.iterations = args.iterations or 4000
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
