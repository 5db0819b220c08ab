"""Print the rules-engine benchmark table: Cython engine against the reference, one run.

    python bench/run.py [--games N] [--ref-games N] [--positions N] [--variants english,buildings,wonder]

Figures (2 and 4 players, standard board): uniform-random full games per
second (every decision enumerates the complete legal list and picks one
uniformly), mean decisions per game, and median microseconds per legal
enumeration, per apply and per clone over positions sampled from random
games. The reference is measured in the same run; ratios are Cython over
reference. Medians of per-position timings; the machine is noisy, so compare
ratios, not absolute figures, between runs. `--variants` plays every game and
samples every position with those 2015 variants on, in both engines.
"""
from __future__ import annotations

import argparse
import functools
import platform
import random
import statistics
import time

import engine
from engine import reference
from tne_ai.cli.bench import kernel_playouts    # shared with `tne-ai bench`


def sample_positions(new_game, players: int, count: int, seed: int = 12345) -> list:
    """Return states sampled along seeded random games (every 7th decision)."""
    out, g = [], 0
    while len(out) < count:
        s = new_game(players, seed + g, "standard")
        rng = random.Random(seed + g)
        k = 0
        while not s.is_terminal() and len(out) < count:
            if k % 7 == 0:
                out.append(s.clone())
            s.apply(rng.choice(s.legal_actions()))
            k += 1
        g += 1
    return out


def per_call_us(fn, states, reps: int) -> float:
    """Return the median over states of the mean time of one call, in µs."""
    times = []
    for st in states:
        t0 = time.perf_counter_ns()
        for _ in range(reps):
            fn(st)
        times.append((time.perf_counter_ns() - t0) / reps / 1000)
    return statistics.median(times)


def clone_then_us(states, op, reps: int) -> float:
    """Median µs of op(clone) less the clone alone, over states (defeats per-state caches)."""
    times = []
    for st in states:
        t0 = time.perf_counter_ns()
        for _ in range(reps):
            op(st.clone())
        t1 = time.perf_counter_ns()
        for _ in range(reps):
            st.clone()
        t2 = time.perf_counter_ns()
        times.append(max(0.0, ((t1 - t0) - (t2 - t1)) / reps / 1000))
    return statistics.median(times)


def fresh_enum_us(states, reps: int) -> float:
    """Median µs of legal_actions() on a fresh clone (the reference caches its list per state)."""
    return clone_then_us(states, lambda s: s.legal_actions(), reps)


def apply_us(states, reps: int) -> float:
    """Median µs of apply of one random legal decision on a fresh clone, over states."""
    rng = random.Random(1)
    chosen = [(st, rng.choice(st.legal_actions())) for st in states if st.legal_actions()]
    times = [clone_then_us([st], lambda s, a=a: s.apply(a), reps) for st, a in chosen]
    return statistics.median(times)


def games_per_second_kernel(players: int, games: int, variants=()) -> tuple:
    """Uniform-random games/s played by the nogil kernel, and mean decisions."""
    dt, total = kernel_playouts(players, games, variants=variants)
    return games / dt, total / games


def games_per_second_python(new_game, players: int, games: int) -> tuple:
    """Uniform-random games/s driven from Python through legal_actions/apply."""
    t0 = time.perf_counter()
    total = 0
    for g in range(games):
        s = new_game(players, g, "standard")
        rng = random.Random(g)
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
            total += 1
    dt = time.perf_counter() - t0
    return games / dt, total / games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--ref-games", type=int, default=20)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--variants", default="", help="2015 variants, comma-separated (default none)")
    args = ap.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    fast_new = functools.partial(engine.new_game, variants=variants)
    ref_new = functools.partial(reference.new_game, variants=variants)
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}, one core"
          + (f"; variants {','.join(variants)}" if variants else ""))
    rows = []
    for players in (2, 4):
        fast_states = sample_positions(fast_new, players, args.positions)
        ref_states = sample_positions(ref_new, players, max(30, args.positions // 10))
        kg, kdec = games_per_second_kernel(players, args.games, variants)
        pg, _ = games_per_second_python(fast_new, players, max(50, args.games // 10))
        rg, rdec = games_per_second_python(ref_new, players, args.ref_games)
        enum_f = per_call_us(lambda s: s.count_legal(), fast_states, 200)
        enum_f_list = per_call_us(lambda s: s.legal_actions(), fast_states, 200)
        enum_r = fresh_enum_us(ref_states, 3)   # the reference caches its list per state
        clone_f = per_call_us(lambda s: s.clone(), fast_states, 500)
        clone_r = per_call_us(lambda s: s.clone(), ref_states, 20)
        apply_f = apply_us(fast_states, 200)
        apply_r = apply_us(ref_states, 5)
        rows += [
            (players, "games/s, uniform random (kernel)", kg, rg, kg / rg),
            (players, "games/s, uniform random (Python loop)", pg, rg, pg / rg),
            (players, "decisions per game (mean)", kdec, rdec, None),
            (players, "µs per legal enumeration (median, count)", enum_f, enum_r, enum_r / enum_f),
            (players, "µs per legal enumeration (median, list)", enum_f_list, enum_r, enum_r / enum_f_list),
            (players, "µs per apply (median)", apply_f, apply_r, apply_r / apply_f if apply_f else None),
            (players, "µs per clone (median)", clone_f, clone_r, clone_r / clone_f),
        ]
    print(f"\n| players | figure | cython | reference | speed-up |\n|---|---|---:|---:|---:|")
    for p, name, f, r, ratio in rows:
        rtxt = f"{ratio:,.0f}×" if ratio else "—"
        print(f"| {p} | {name} | {f:,.2f} | {r:,.2f} | {rtxt} |")


if __name__ == "__main__":
    main()
