"""Print the inference benchmark: how well the weighted hands predict the true ones, the effective sample size, and what inference costs the search.

    python -m bench.inference_bench [--records FILE.tar.xz] [--games N] [--temperatures 2 4 8] [--iterations N]

Prediction: recorded games (default the 2-player SPRT records kept in
tests/data/records, played by the search) are followed by a HandFilter for
one seat (seat = game number mod players); after every decision the true
hands of the other seats are scored against the pool: the expected L1
distance of a set drawn by weight (tiles misplaced, per seat) and the mean
log chance of each colour's true count, and the share of colours whose
true count no set holds ("no support"). Yardsticks: uniform deals (what the
search draws without inference) and the filter on public facts alone.
Effective sample size: before any resampling, by the number of the other
seats' decisions weighed so far. Cost: the filter's time per decision, and
the search's iterations/s on the fixed positions of `tne-ai bench` with the
hands drawn from a weighted pool against uniform deals (medians of 5, the
runs alternated).
"""
from __future__ import annotations

import argparse
import io
import math
import os
import platform
import random
import statistics
import tarfile
import time

import engine
from engine.info import observation
from engine.record import replay_record
from search.agent import Limits
from search.inference import DEFAULT_SETS, HandFilter
from search.ismcts import ISMCTS
from search.params import SearchParams
from tne_ai.cli.bench import fixed_position as position

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RECORDS = os.path.join(HERE, "..", "tests", "data", "records", "sprt-2p-learned-seed26200.tar.xz")


def records(path: str, games: int) -> list:
    """Return the texts of the first `games` game records (by name) in a .tar.xz."""
    with tarfile.open(path) as tar:
        members = sorted((m for m in tar.getmembers() if os.path.basename(m.name).startswith("game")
                          and m.name.endswith(".txt")), key=lambda m: m.name)
        return [tar.extractfile(m).read().decode() for m in members[:games]]


def _score(hands: list, weights: list, true: list, seat: int) -> tuple:
    """Return (expected L1, log chance, share of colours whose true count the pool lacks), per other seat."""
    l1 = ll = 0.0
    lacking = 0
    others = [q for q in range(len(true)) if q != seat]
    for q in others:
        l1 += sum(w * sum(abs(h[q][c] - true[q][c]) for c in range(4)) for h, w in zip(hands, weights))
        for c in range(4):
            p = sum(w for h, w in zip(hands, weights) if h[q][c] == true[q][c])
            lacking += p == 0
            ll += math.log(0.98 * p + 0.02 / 7)         # smoothed: a count never seen is not -inf
    return l1 / len(others), ll / len(others), lacking / (4 * len(others))


def uniform_pool(obs: dict, seat: int, rng: random.Random, n: int) -> list:
    """Return n uniform deals of the unseen tiles into the other hands (what the search draws without inference)."""
    out = []
    for _ in range(n):
        pool = [c for c in range(4) for _ in range(obs["unseen"][c])]
        rng.shuffle(pool)
        hands, at = [], 0
        for q in range(obs["players"]):
            size = 0 if q == seat else obs["hand_sizes"][q]
            part = pool[at:at + size]
            at += size
            hands.append([part.count(c) for c in range(4)])
        out.append(hands)
    return out


def prediction(texts: list, kinds: list) -> dict:
    """Return {kind: {l1, log_chance, ms_per_update, ess_by_observed}} over the recorded games."""
    out = {k: {"l1": 0.0, "ll": 0.0, "lacking": 0.0, "n": 0, "seconds": 0.0, "updates": 0, "ess": {}} for k in kinds}
    for g, text in enumerate(texts):
        header = "\n".join(line for line in text.splitlines() if line.startswith("["))
        _, actions = replay_record(text, engine.new_game)
        for kind in kinds:
            state, _ = replay_record(header, engine.new_game)
            seat = g % state.players
            obs = observation(state.snapshot(), seat)
            rng = random.Random(g)
            filt = None
            if kind != "uniform":
                temperature = 1.0 if kind == "public" else float(kind)
                filt = HandFilter(seat, obs, temperature=temperature, seed=g, weigh_play=kind != "public")
            stats = out[kind]
            for a in actions:
                before = obs
                state.apply(a)
                obs = observation(state.snapshot(), seat)
                if filt is not None:
                    t0 = time.perf_counter()
                    filt.update(a, before, obs)
                    stats["seconds"] += time.perf_counter() - t0
                    stats["updates"] += 1
                if state.is_terminal():
                    break
                if filt is not None:
                    hands, weights = filt.weighted_hands()
                    bucket = min(filt.observed // 10 * 10, 100)
                    stats["ess"].setdefault(bucket, []).append(filt.last_effective_size)
                else:
                    hands = uniform_pool(obs, seat, rng, DEFAULT_SETS)
                    weights = [1.0 / len(hands)] * len(hands)
                l1, ll, lacking = _score(hands, weights, state.snapshot()["hands"], seat)
                stats["l1"] += l1
                stats["ll"] += ll
                stats["lacking"] += lacking
                stats["n"] += 1
    return {k: {"l1": v["l1"] / v["n"], "log_chance": v["ll"] / v["n"], "lacking": v["lacking"] / v["n"],
                "ms_per_update": 1000 * v["seconds"] / v["updates"] if v["updates"] else 0.0,
                "ess_by_observed": {b: statistics.median(e) for b, e in sorted(v["ess"].items())}}
            for k, v in out.items()}


def search_cost(players: int, iterations: int, reps: int = 5) -> dict:
    """Return median iterations/s with uniform deals and with hands drawn from a weighted pool, on a fixed position."""
    state = position(players)
    seat = state.to_act
    obs = observation(state.snapshot(), seat)
    filt = HandFilter(seat, obs, seed=1)
    rng = random.Random(1)
    filt.logw = [rng.gauss(0.0, 1.0) for _ in filt.logw]         # unequal weights, as after play
    hands = filt.weighted_hands()
    rates = {"uniform": [], "weighted": []}
    for rep in range(reps):
        for kind in rates:
            r = ISMCTS(SearchParams()).search(obs, seat, Limits(iterations=iterations), seed=rep,
                                              hands=hands if kind == "weighted" else None)
            rates[kind].append(r.iterations / r.seconds)
    return {k: statistics.median(v) for k, v in rates.items()}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", default=DEFAULT_RECORDS, help="a .tar.xz of game records")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--temperatures", nargs="*", default=["2", "4", "8"])
    ap.add_argument("--iterations", type=int, default=1000, help="iterations of each timed search")
    args = ap.parse_args(argv)
    print(f"# python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    texts = records(args.records, args.games)
    kinds = ["uniform", "public"] + list(args.temperatures)
    res = prediction(texts, kinds)
    print(f"prediction of the other hands, {len(texts)} games of {os.path.basename(args.records)}")
    print(f"{'deal':>14}  {'L1 a seat':>9}  {'log chance':>10}  {'no support':>10}  {'ms/update':>9}")
    for k in kinds:
        name = {"uniform": "uniform", "public": "public facts"}.get(k, f"T={k}")
        r = res[k]
        print(f"{name:>14}  {r['l1']:9.3f}  {r['log_chance']:10.3f}  {r['lacking']:10.3f}  {r['ms_per_update']:9.2f}")
    k = kinds[-2] if len(kinds) > 3 else kinds[-1]
    print(f"effective sample size (of {DEFAULT_SETS}) before resampling, by decisions weighed, T={k}")
    print("  " + "  ".join(f"{b}+: {e:.0f}" for b, e in res[k]["ess_by_observed"].items()))
    for players in (2, 4):
        rates = search_cost(players, args.iterations)
        print(f"{players} players, {args.iterations} iterations: uniform {rates['uniform']:.0f} it/s, "
              f"weighted hands {rates['weighted']:.0f} it/s ({rates['weighted'] / rates['uniform']:.2f}x)")


if __name__ == "__main__":
    main()
