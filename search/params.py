"""Every knob of the search in one place (SearchParams), one comment per field."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from search.agent import SearchError


@dataclass(frozen=True)
class SearchParams:
    """Parameters of the ISMCTS search; defaults were tuned by self-play (docs/strength.md)."""

    # UCB1 exploration constant c on rewards in [0, 1].
    exploration: float = 0.7
    # Progressive widening: a node considers its best `widen_base + widen_coef *
    # visits ** widen_exponent` decisions by the cheap prior, the rest wait.
    widen_base: float = 2.0
    widen_coef: float = 1.0
    widen_exponent: float = 0.5
    # Decisions played in a rollout before the heuristic evaluation.
    rollout_depth: int = 10
    # Rollout policy: "greedy" (ε-greedy on the prior) or "uniform".
    rollout_policy: str = "greedy"
    # Chance of a uniformly random decision in an ε-greedy rollout.
    rollout_epsilon: float = 0.1
    # Evaluation: a seat's value is weakest colour (treasures as wild) +
    # second_weight * second weakest + sum_weight * all colours +
    # leader_weight * leaders on the board; the reward is the logistic of
    # (own value - best opponent's value) / eval_scale.
    second_weight: float = 0.3
    sum_weight: float = 0.05
    leader_weight: float = 0.2
    eval_scale: float = 2.0
    # Final choice at the root: "visits" (most visited, ties by mean) or "mean".
    final_move: str = "visits"
    # Keep the subtree between the two actions of a turn when it is valid.
    reuse_tree: bool = True

    def __post_init__(self):
        if self.rollout_policy not in ("greedy", "uniform"):
            raise SearchError(f"rollout_policy must be 'greedy' or 'uniform', got {self.rollout_policy!r}")
        if self.final_move not in ("visits", "mean"):
            raise SearchError(f"final_move must be 'visits' or 'mean', got {self.final_move!r}")
        if self.rollout_depth < 0:
            raise SearchError(f"rollout_depth must be >= 0, got {self.rollout_depth}")
        if self.eval_scale <= 0 or self.exploration < 0:
            raise SearchError("eval_scale must be > 0 and exploration >= 0")

    def with_changes(self, **changes) -> "SearchParams":
        """Return a copy with some fields changed (unknown names raise SearchError)."""
        names = {f.name for f in fields(self)}
        for k in changes:
            if k not in names:
                raise SearchError(f"unknown search parameter {k!r}")
        return replace(self, **changes)

    def configure(self, tree) -> None:
        """Hand the kernel's share of the knobs to an ext.mcts.Tree."""
        tree.configure(self.exploration, self.widen_base, self.widen_coef, self.widen_exponent,
                       self.rollout_depth, self.rollout_epsilon, self.rollout_policy == "greedy",
                       self.second_weight, self.sum_weight, self.eval_scale, self.leader_weight)
