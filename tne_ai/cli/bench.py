"""`tne-ai bench`: playout and search speed at fixed positions, and the bench signature.

Two measurements, both seeded:

- playouts: uniform-random full games played by the nogil kernel
  (State.random_playout: the complete legal list at every decision, one
  picked uniformly; every atomic decision counts, draws resolved inside
  apply), standard board, game g seeded with g;
- searches: ISMCTS with the default SearchParams, one worker, a fixed
  iteration budget, at fixed positions per player count: the opening of a
  seeded game and a mid-game reached by seeded random play (the same
  positions as bench/search_bench.py).

The *bench signature* (as Stockfish's `bench`) is one integer that changes
only when behaviour changes, never with speed: the total decisions of the
seeded playouts plus, for each seeded search, its node count and the sum over
root candidates of visits x (action + 1). It depends on the settings, so the
settings are printed with it; the defaults give the reference signature.

`--variants` plays every game and reaches every fixed position with the 2015
variants on (the same seeds, so the positions differ once a variant decision
comes up); the variants are printed in the header and the settings line, and
without the option nothing changes (the signature above included).
"""
from __future__ import annotations

import os
import platform
import random
import time

import click

import engine
from search.agent import Limits
from search.ismcts import ISMCTS
from search.params import DEFAULT_TAIL_AFTER, DEFAULT_WIDEN_COEF, KNOB, SearchParams
from tne_ai import __version__
from tne_ai.inputs import variants_option

DEFAULT_PLAYERS = (2, 4)
DEFAULT_PLAYOUTS = 500
DEFAULT_ITERATIONS = 2000
POSITION_SEED = 3
MIDGAME_DECISIONS = 60


def leaf_mix_words(params) -> str:
    """Return how the leaves blend the rollout's value with the value where the tree stopped, for the settings line."""
    if params.leaf_mix is None:
        mixed = [(n, v) for n, v in sorted(KNOB["leaf_mix"].by_players.items()) if v < 1.0]
        return "".join(f", leaves valued {v:g} by the rollout and {1 - v:g} where the tree stopped with {n} players"
                       for n, v in mixed)
    if params.leaf_mix < 1.0:
        return f", leaves valued {params.leaf_mix:g} by the rollout and {1 - params.leaf_mix:g} where the tree stopped"
    return ""


def fixed_position(players: int, seed: int = POSITION_SEED, decisions: int = MIDGAME_DECISIONS, variants=()):
    """Return a fixed benchmark position: seeded random play to `decisions`, then on to an action phase."""
    s = engine.new_game(players, seed, "standard", variants)
    rng = random.Random(seed)
    n = 0
    while n < decisions or s.phase != "action":
        s.apply(rng.choice(s.legal_actions()))
        n += 1
    return s


def kernel_playouts(players: int, games: int, seed: int = 0, variants=()) -> tuple:
    """Play seeded uniform-random games in the kernel; return (seconds, total decisions)."""
    t0 = time.perf_counter()
    total = 0
    for g in range(seed, seed + games):
        total += engine.new_game(players, g, "standard", variants).random_playout(g)
    return time.perf_counter() - t0, total


def search_signature(result) -> int:
    """Return a search's contribution to the signature: nodes + sum of visits x (action + 1)."""
    return result.nodes + sum(c.visits * (c.action + 1) for c in result.candidates)


def cpu_model() -> str:
    """Return the CPU model name, as well as the platform reveals it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine_line() -> str:
    """Return one line naming the machine: platform, CPU model, cores, Python."""
    cores = os.cpu_count() or 0
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = cores
    avail = f", {usable} usable" if usable != cores else ""
    return (f"machine: {platform.system()} {platform.release()} {platform.machine()}, {cpu_model()}, "
            f"{cores} cores{avail}, one used; Python {platform.python_version()}")


def run_bench(players=DEFAULT_PLAYERS, playouts: int = DEFAULT_PLAYOUTS,
              iterations: int = DEFAULT_ITERATIONS, echo=print, variants=()) -> int:
    """Run the benchmark (with the 2015 `variants` if any), printing through `echo`; return the signature."""
    params = SearchParams()
    variants = tuple(variants)
    on = f", variants {','.join(variants)}" if variants else ""
    echo(f"tne-ai {__version__} bench" + (f" (variants {','.join(variants)})" if variants else ""))
    echo(machine_line())
    echo(f"playouts: {playouts} per player count, uniform random in the nogil kernel (complete legal "
         f"list, every decision), standard board{on}, game g seeded g = 0..{playouts - 1}")
    to_turn = " and on to the start of a turn" if params.resolved(2).rollout_to_turn else ""
    if params.rollout_rounds is None:
        reach = (f"of {params.rollout_depth} decisions{to_turn} with 2 players, to one round of actions past "
                 f"the root with 3 or 4")
        if params.rollout_tail_after is None:
            reach += (f", passing the round's actions after the first {DEFAULT_TAIL_AFTER[4]} "
                      f"with 4")
    elif params.rollout_rounds:
        reach = f"to {params.rollout_rounds:g} round(s) of actions past the root"
    else:
        reach = f"of {params.rollout_depth} decisions{to_turn}"
    if params.widen_coef is None:
        coefs = ", ".join(f"{coef:g} with {players}" for players, coef in sorted(DEFAULT_WIDEN_COEF.items()))
        widening = (f"widening {params.widen_base:g} + c·visits^{params.widen_exponent:g}, "
                    f"c {coefs} players")
    else:
        widening = f"widening {params.widen_base:g} + {params.widen_coef:g}·visits^{params.widen_exponent:g}"
    if params.exploration is None:
        by = KNOB["exploration"].by_players
        exploration = f"exploration {by[2]:g} with 2 players, {by[3]:g} with 3 or 4"
    else:
        exploration = f"exploration {params.exploration:g}"
    echo(f"search: ISMCTS, default SearchParams ({exploration}, {widening}, {params.rollout_policy} "
         f"rollouts {reach}, epsilon {params.rollout_epsilon}"
         f"{', pending conflicts played out' if params.rollout_settle else ''}"
         f"{leaf_mix_words(params)}"
         f"{', evaluation centred on the root' if params.eval_centre else ''}"
         f"{f', endgame weight {params.endgame:g}' if params.endgame else ''}, "
         f"evaluation weights of the player count), 1 worker, "
         f"{iterations} iterations per position, seed 0")
    echo("")
    echo("| players | playouts | decisions | mean game length | games/s | decisions/s |")
    echo("|---|---:|---:|---:|---:|---:|")
    signature = 0
    for p in players:
        secs, decisions = kernel_playouts(p, playouts, variants=variants)
        signature += decisions
        echo(f"| {p} | {playouts} | {decisions:,} | {decisions / playouts:.1f} | "
             f"{playouts / secs:,.0f} | {decisions / secs:,.0f} |")
    echo("")
    echo("| players | position | seat | iterations | nodes | iterations/s | best |")
    echo("|---|---|---:|---:|---:|---:|---|")
    searcher = ISMCTS(params)
    for p in players:
        for name, decisions in (("opening", 0), (f"mid-game (decision {MIDGAME_DECISIONS})", MIDGAME_DECISIONS)):
            s = fixed_position(p, decisions=decisions, variants=variants)
            seat = s.to_act
            r = searcher.search(s.observation(seat), seat, Limits(iterations=iterations), seed=0)
            signature += search_signature(r)
            echo(f"| {p} | {name} | {seat} | {r.iterations:,} | {r.nodes:,} | "
                 f"{r.iterations_per_second:,.0f} | {r.best_move} |")
    echo("")
    echo(f"settings: players {','.join(map(str, players))}, playouts {playouts}, iterations {iterations}{on}")
    echo(f"signature {signature}")
    return signature


@click.command("bench")
@click.option("--players", type=click.IntRange(2, 4), multiple=True,
              help="Player counts to measure (repeatable; default 2 and 4).")
@click.option("--playouts", type=click.IntRange(1, 1_000_000), default=DEFAULT_PLAYOUTS, show_default=True,
              help="Seeded random games per player count.")
@click.option("--iterations", type=click.IntRange(1, 10_000_000), default=DEFAULT_ITERATIONS,
              show_default=True, help="ISMCTS iterations per fixed position.")
@variants_option("Play the games and reach the positions with these 2015 variants (default none: the "
                 "reference signature).")
def bench_command(players, playouts, iterations, variants):
    """Measure playout and search speed; print the bench signature last."""
    run_bench(tuple(players) or DEFAULT_PLAYERS, playouts, iterations, echo=click.echo, variants=variants or ())
