"""Time the greedy baseline's decisions: the Python reference against the nogil kernel, µs per decision.

    python -m bench.greedy_bench [--games 2] [--seed 1] [--players 2 4]
    python -m bench.greedy_bench --kernel [--games 4] [--repeat 5]

For each player count, plays seeded games in which every seat is greedy (the
kernel agent's decisions are played; the Python agent decides at the same
steps from the same observations, so both are timed on the same positions)
and prints the median, mean and p95 of choose() for each. A decision with
one legal choice is timed too, as a game meets it. Each agent's choose() is
timed whole: the world dealt from the observation and the decision.

`--kernel` times the kernel call alone (`greedy_choose`, without the Python
side that deals the world): it records every decision's world of seeded
greedy games (game g of n players seeded 500 + g), then decides each of
them `--repeat` times and reports the median over the repeats of each
repeat's median and mean. Run it in an old and a new tree alternately to
compare two kernels on the same worlds.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import engine  # noqa: E402
from search.baselines import GreedyAgent, PyGreedyAgent, kernel_world  # noqa: E402


def time_games(players: int, games: int, seed: int) -> tuple:
    """Return ([µs per Python decision], [µs per kernel decision]) over seeded greedy games."""
    py_us, kernel_us = [], []
    for g in range(games):
        game_seed = seed + 1000 * players + g
        state = engine.new_game(players, game_seed)
        py = [PyGreedyAgent(game_seed * 10 + s) for s in range(players)]
        kernel = [GreedyAgent(game_seed * 10 + s) for s in range(players)]
        for s in range(players):
            obs = state.observation(s)
            py[s].new_game(s, obs)
            kernel[s].new_game(s, obs)
        while not state.is_terminal():
            seat = state.to_act
            t0 = time.perf_counter()
            a = py[seat].choose()
            t1 = time.perf_counter()
            b = kernel[seat].choose()
            t2 = time.perf_counter()
            if a != b:
                raise SystemExit(f"the agents disagree at {players}p seed {game_seed}: run tests/test_greedy_kernel.py")
            py_us.append((t1 - t0) * 1e6)
            kernel_us.append((t2 - t1) * 1e6)
            state.apply(b)
            for s in range(players):
                obs = state.observation(s)
                py[s].apply(b, obs)
                kernel[s].apply(b, obs)
    return py_us, kernel_us


def kernel_worlds(players: int, games: int) -> list:
    """Return (world, seat, params, passes) of every decision of seeded all-greedy games."""
    calls = []
    for g in range(games):
        state = engine.new_game(players, 500 + g)
        agents = [GreedyAgent(g * 10 + s) for s in range(players)]
        for s in range(players):
            agents[s].new_game(s, state.observation(s))
        while not state.is_terminal():
            agent = agents[state.to_act]
            calls.append((kernel_world(agent.observation), state.to_act, agent.params, agent.passes))
            a = agent.choose()
            state.apply(a)
            for s in range(players):
                agents[s].apply(a, state.observation(s))
    return calls


def time_kernel(calls: list, repeat: int) -> tuple:
    """Return (median of the repeats' medians, median of their means), µs per greedy_choose call."""
    from ext.search.greedy import greedy_choose
    medians, means = [], []
    for _ in range(repeat):
        us = []
        for world, seat, params, passes in calls:
            t0 = time.perf_counter()
            greedy_choose(world, seat, params, passes, 12345)
            us.append((time.perf_counter() - t0) * 1e6)
        medians.append(statistics.median(us))
        means.append(statistics.mean(us))
    return statistics.median(medians), statistics.median(means)


def summary(xs: list) -> str:
    """Return 'median / mean / p95' of µs timings."""
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    return f"{statistics.median(xs):9.1f} {statistics.mean(xs):9.1f} {p95:9.1f}"


def main(argv=None) -> int:
    """Print the table; return 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2, help="games per player count")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--kernel", action="store_true", help="time the kernel call alone on recorded worlds")
    ap.add_argument("--repeat", type=int, default=5, help="with --kernel: passes over the recorded worlds")
    args = ap.parse_args(argv)
    print(f"python {platform.python_version()}, {platform.machine()}, load {os.getloadavg()[0]:.2f}")
    if args.kernel:
        print(f"{'':14} {'decisions':>9} {'median':>9} {'mean':>9}  (µs per greedy_choose call, "
              f"median of {args.repeat} passes)")
        for players in args.players:
            calls = kernel_worlds(players, args.games)
            median, mean = time_kernel(calls, args.repeat)
            print(f"{players}p kernel     {len(calls):9d} {median:9.1f} {mean:9.1f}")
        return 0
    print(f"{'':14} {'decisions':>9} {'median':>9} {'mean':>9} {'p95':>9}  (µs per decision)")
    for players in args.players:
        py_us, kernel_us = time_games(players, args.games, args.seed)
        print(f"{players}p Python     {len(py_us):9d} {summary(py_us)}")
        print(f"{players}p kernel     {len(kernel_us):9d} {summary(kernel_us)}")
        print(f"{players}p speed-up   {'':9} {statistics.median(py_us) / statistics.median(kernel_us):8.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
