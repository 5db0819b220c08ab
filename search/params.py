"""Every knob of the search in one place (SearchParams), one comment per field."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Optional

from search.agent import SearchError


MIB = 1 << 20


@dataclass(frozen=True)
class SearchParams:
    """Parameters of the ISMCTS search; docs/strength.md holds how each default was measured."""

    # UCB1 exploration constant c on rewards in [0, 1].
    exploration: float = 0.7
    # Progressive widening: a node considers its best
    # `widen_base + widen_coef * visits ** widen_exponent` decisions by the prior.
    widen_base: float = 2.0
    widen_coef: float = 1.0
    widen_exponent: float = 0.5
    # Decisions a rollout plays before the evaluation (when rollout_rounds is 0).
    rollout_depth: int = 3
    # > 0: roll out until rounds * 2 * players action-phase decisions since the
    # root instead; None: 1 with 3 or 4 players, 0 with 2.
    rollout_rounds: Optional[float] = None
    # Play on past the rollout's end (at most 16 decisions) until no conflict
    # or choice is pending; the look-ahead plays out the conflicts it starts.
    rollout_settle: bool = True
    # Rollout policy: "greedy" (epsilon-greedy on the prior) or "uniform".
    rollout_policy: str = "greedy"
    # Chance of a uniformly random decision in an epsilon-greedy rollout.
    rollout_epsilon: float = 0.1
    # Evaluation weights (ext/heuristics.pxd EvalParams says how each counts):
    # concave colour utility and the weakest colour's bonus,
    tau: float = 5.0
    min_bonus: float = 0.6
    # a leader's prospects (presence, temples beside it, supporters, monuments,
    # a treasure near a trader), a king's pull, a catastrophe in hand,
    leader: float = 1.6
    king: float = 0.5
    temple: float = 0.3
    supporter: float = 0.08
    monument: float = 1.5
    treasure_near: float = 0.2
    catastrophe: float = 0.5
    # the opponents' value (opponents_max * best + the rest * mean) and the
    # logistic's scale on the margin,
    opponents_max: float = 0.5
    eval_scale: float = 1.5
    # 1 centres the logistic on each seat's margin at the root (0: on zero),
    eval_centre: float = 1.0
    # the end coming nearer, for a seat that leads at the root (margin units),
    endgame: float = 4.0
    # and the 2015 variants: a leader with its colour's building in its
    # kingdom, a king in the wonder's kingdom (set by reasoning, not tuned).
    building: float = 0.8
    wonder: float = 1.5
    # Final choice at the root: "visits" (most visited, ties by mean) or "mean".
    final_move: str = "visits"
    # Keep the subtree between the two actions of a turn when it is valid.
    reuse_tree: bool = True
    # Memory of the tree in MiB (shared out among the workers); at the limit
    # it stops growing and iterations go on through the nodes it has.
    tree_memory_mb: int = 1024

    def __post_init__(self):
        if self.rollout_policy not in ("greedy", "uniform"):
            raise SearchError(f"rollout_policy must be 'greedy' or 'uniform', got {self.rollout_policy!r}")
        if self.final_move not in ("visits", "mean"):
            raise SearchError(f"final_move must be 'visits' or 'mean', got {self.final_move!r}")
        if self.rollout_depth < 0 or (self.rollout_rounds is not None and self.rollout_rounds < 0):
            raise SearchError(f"rollout_depth and rollout_rounds must be >= 0, got {self.rollout_depth}, {self.rollout_rounds}")
        if (isinstance(self.tree_memory_mb, bool) or not isinstance(self.tree_memory_mb, int)
                or self.tree_memory_mb < 1):
            raise SearchError(f"tree_memory_mb must be an int >= 1, got {self.tree_memory_mb!r}")
        if self.eval_scale <= 0 or self.exploration < 0:
            raise SearchError("eval_scale must be > 0 and exploration >= 0")

    def with_changes(self, **changes) -> "SearchParams":
        """Return a copy with some fields changed (unknown names raise SearchError)."""
        names = {f.name for f in fields(self)}
        for k in changes:
            if k not in names:
                raise SearchError(f"unknown search parameter {k!r}")
        return replace(self, **changes)

    def configure(self, tree, workers: int = 1) -> None:
        """Hand the kernel's share of the knobs to an ext.mcts.Tree (one of `workers` trees)."""
        tree.set_memory_limit(self.tree_memory_mb * MIB // workers)
        tree.configure(self.exploration, self.widen_base, self.widen_coef, self.widen_exponent,
                       self.rollout_depth, self.rollout_epsilon, self.rollout_policy == "greedy",
                       self.eval_weights(), self.rollout_settle,
                       -1.0 if self.rollout_rounds is None else self.rollout_rounds)

    def eval_weights(self) -> tuple:
        """Return the evaluation weights in ext.heuristics.EVAL_FIELDS order."""
        return (self.tau, self.min_bonus, self.leader, self.king, self.temple, self.supporter,
                self.monument, self.treasure_near, self.catastrophe, self.opponents_max,
                self.eval_scale, self.eval_centre, self.endgame, self.building, self.wonder)
