"""Games per hour of an arena match through the process pool and through Ray on the same cores, and Ray's per-game overhead.

    python -m bench.backend_bench --games 12 --rounds 2 --iterations 1000 --jobs 2 --noop 400

The match is ISMCTS (`--iterations` a decision) against greedy, 2 players,
seed 0, played `--rounds` times through ProcessBackend(jobs) and through a
local Ray instance of `jobs` CPUs, alternately (pool, Ray, pool, Ray, ...)
so that a load from elsewhere on the machine falls on both; each time runs
from the first game submitted to the last result. The pool's start-up is
inside its time (a match makes its pool); Ray's instance is started once,
before, and reported on its own. The per-game overhead is the wall time per
job of `--noop` jobs that do nothing (a game's result is a small object), so
it is what each backend adds to every game: scheduling, pickling, transfer.
"""
from __future__ import annotations

import argparse
import time

from search.agent import Limits
from search.arena.runner import run_match
from search.arena.backends import ProcessBackend, RayBackend, start_ray
from search.baselines import GreedyAgent
from search.ismcts import ISMCTSAgent


def timed_match(games: int, iterations: int, backend) -> float:
    """Return the wall seconds of an ISMCTS-vs-greedy match through `backend` (closed at the end)."""
    t0 = time.perf_counter()
    res = run_match({"ismcts": ISMCTSAgent, "greedy": GreedyAgent}, games, 2, seed=0,
                    limits=Limits(iterations=iterations), backend=backend)
    assert len(res.games) == games and not res.lost
    return time.perf_counter() - t0


def per_job_ms(n: int, backend) -> float:
    """Return the wall milliseconds per job of n jobs that do nothing, after a warm-up round."""
    with backend:
        list(backend.stream(abs, range(4)))
        t0 = time.perf_counter()
        out = list(backend.stream(abs, range(n)))
        dt = time.perf_counter() - t0
    assert len(out) == n
    return 1000 * dt / n


def main(argv=None) -> int:
    """Run the measurements and print them as a Markdown table."""
    ap = argparse.ArgumentParser(prog="python -m bench.backend_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--noop", type=int, default=400, help="empty jobs for the per-game overhead")
    args = ap.parse_args(argv)
    import ray
    t0 = time.perf_counter()
    start_ray(num_cpus=args.jobs)
    ray_start = time.perf_counter() - t0
    pool_s, ray_s = [], []
    for _ in range(args.rounds):
        pool_s.append(timed_match(args.games, args.iterations, ProcessBackend(args.jobs)))
        ray_s.append(timed_match(args.games, args.iterations, RayBackend()))
    pool_ms = per_job_ms(args.noop, ProcessBackend(args.jobs))
    ray_ms = per_job_ms(args.noop, RayBackend())
    ray.shutdown()
    games = args.games * args.rounds
    pool_rate, ray_rate = 3600 * games / sum(pool_s), 3600 * games / sum(ray_s)
    print(f"| figure | process pool ({args.jobs}) | Ray ({args.jobs} CPUs) |")
    print("|---|---:|---:|")
    print(f"| wall s per {args.games}-game match, ismcts-{args.iterations} vs greedy, each round | "
          f"{', '.join(f'{x:.1f}' for x in pool_s)} | {', '.join(f'{x:.1f}' for x in ray_s)} |")
    print(f"| games per hour ({games} games) | {pool_rate:,.0f} | {ray_rate:,.0f} ({ray_rate / pool_rate:.2f}× the pool) |")
    print(f"| per-game overhead (empty job), ms | {pool_ms:.2f} | {ray_ms:.2f} |")
    print(f"| Ray start-up (local instance), s | — | {ray_start:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
