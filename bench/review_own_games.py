"""Print how much loss a review finds in games the engine itself played at the review's settings.

    python -m bench.review_own_games [--seeds 7 8 9] [--iterations 300] [--jobs 2]

Each game is ISMCTS (seat 0, `--iterations` a decision, seed S) against
greedy (seat 1), dealt with seed S; seat 0's decisions are then reviewed at
the same iterations with review seed 0. Every decision seat 0 played was the
engine's own choice, so a loss the review reports there is mostly noise: the
mean loss should be near 0, the accuracy near 100 and the marks few.
Prints, per game, the decisions, how many the review's search agreed with,
how many were one of its best's equals, the accuracy, the mean loss in win
chance and the marks; one run of this script.
"""
from __future__ import annotations

import argparse

from search.agent import Limits
from search.arena.runner import play_game
from search.baselines import GreedyAgent
from search.ismcts import ISMCTSAgent
from search.review import review_record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[7, 8, 9])
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    limits = Limits(iterations=args.iterations)
    print(f"ISMCTS at {args.iterations} iterations (seat 0) against greedy, seat 0 reviewed at {args.iterations}")
    print(f"{'seed':>4} {'decisions':>9} {'agreed':>6} {'equal':>5} {'accuracy':>8} {'mean loss':>9}  marks")
    losses = []
    for seed in args.seeds:
        game = play_game([ISMCTSAgent(seed, limits=limits), GreedyAgent(seed)], seed, limits=limits)
        doc = review_record(game.record, [0], limits, seed=0, jobs=args.jobs)
        (s,) = doc["summary"]
        losses.append(s["mean_loss"])
        marks = ", ".join(f"{n} {c}" for n, c in s["marks"].items())
        accuracy = "-" if s["accuracy"] is None else f"{s['accuracy']:.1f}"
        print(f"{seed:>4} {s['decisions']:>9} {s['agreed']:>6} {s['equal']:>5} {accuracy:>8} "
              f"{s['mean_loss']:>9.4f}  {marks} "
              f"(loss in {doc['loss_units']})")
    print(f"mean of the games' mean losses: {sum(losses) / len(losses):.4f}")


if __name__ == "__main__":
    main()
