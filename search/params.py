"""Every knob of the search in one place (SearchParams), one comment per field."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Optional

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
    # The same for a commitment (revolt or war, attacker or defender), whose
    # prior is sharp (what wins against all the defender could add, the tie,
    # nothing): every other count tried costs the decision that led there a
    # visit at a lost conflict. Kept equal to the general widening: 1 +
    # 0.5 * sqrt(visits) showed no gain with 4 players (docs/strength.md).
    commit_widen_base: float = 2.0
    commit_widen_coef: float = 1.0
    # Virtual visits at its one-decision look-ahead value given to each
    # decision the look-ahead ordered (the root, and the searcher's own
    # decisions near it); 0 tries every widened decision once instead.
    prior_visits: float = 0.0
    # Decisions played in a rollout before the heuristic evaluation (unless
    # rollout_rounds applies).
    rollout_depth: int = 3
    # > 0: instead, roll out until rounds * 2 * players action-phase
    # decisions (tile, leader, catastrophe, swap, pass; conflicts and choices
    # do not count) have been taken since the root, tree and rollout
    # together, so every leaf is valued at the same point of the game. With
    # a fixed rollout depth, a decision whose conflict the tree holds was
    # valued after more of the other seats' replies than one whose rollout
    # played it, and looked worse. None: 1 with 3 or 4 players (one round,
    # every opponent's reply: 0.568 against 0.495 over 200 4-player games),
    # 0 with 2 (one round there won 0.775 against 0.860 on 200 deals).
    rollout_rounds: Optional[float] = None
    # Play on past rollout_depth until no conflict or choice is pending (the
    # evaluation cannot see one), at most 16 more decisions; the look-ahead
    # that orders the searcher's own decisions then also plays out a conflict
    # a decision starts (greedily, in 8 worlds dealt from what it knows)
    # instead of valuing a revolt as a leader in a big kingdom.
    rollout_settle: bool = True
    # Rollout policy: "greedy" (ε-greedy on the prior) or "uniform".
    rollout_policy: str = "greedy"
    # Chance of a uniformly random decision in an ε-greedy rollout.
    rollout_epsilon: float = 0.1
    # Evaluation (ext/heuristics.pxd EvalParams): a seat's value is the concave
    # utility sum tau*(1-exp(-x/tau)) of its colour totals (treasures on the
    # weakest) + min_bonus * weakest, plus, per leader on the board, the seat's
    # need for its colour times (leader + temple*temples beside it (<= 4) +
    # supporter*its colour's tiles in its kingdom (<= 12) + monument*monuments
    # with its colour there + treasure_near for a trader by a treasure), plus
    # king*max need per king and catastrophe per catastrophe in hand. The
    # reward is logistic((own - (opponents_max*best + rest*mean of the
    # others)) / eval_scale).
    tau: float = 5.0
    min_bonus: float = 0.6
    leader: float = 1.6
    king: float = 0.5
    temple: float = 0.3
    supporter: float = 0.08
    monument: float = 1.5
    treasure_near: float = 0.2
    catastrophe: float = 0.5
    opponents_max: float = 0.5
    eval_scale: float = 1.5
    # 1 centres the logistic on each seat's margin at the root (0: on zero),
    # so a seat far ahead or behind still tells its moves apart.
    eval_centre: float = 1.0
    # Weight of the end coming nearer (treasures taken, bag drawn, 0..1) for a
    # seat that leads at the root (less for one behind), in margin units at a
    # lead of 2 or more. 4 won 0.680 against 0.618 on the same 200 deals, and
    # 0.710 against 0.695 with the conflicts played out in the look-ahead;
    # 8 gave 0.625 (docs/strength.md).
    endgame: float = 4.0
    # The 2015 variants (nothing changes without them): per leader whose
    # kingdom holds its colour's building (its tiles score double there),
    # added to its prospects like `monument`; and wonder * max need for a king
    # in the wonder's kingdom (a point of any colour every turn). Set by
    # reasoning, not yet tuned: a building is worth about half a monument, the
    # wonder's free choice of colour about one.
    building: float = 0.8
    wonder: float = 1.5
    # Wars one tile away (two kingdoms with leaders of one colour owned by
    # different seats, one empty square apart): each side's leader is
    # discounted by its chance of losing it (even, moved a sixth per
    # supporter of difference) and credited with its chance of winning the
    # other side's supporters; times this weight (0: off).
    exposure: float = 0.0
    # Final choice at the root: "visits" (most visited, ties by mean) or "mean".
    final_move: str = "visits"
    # Keep the subtree between the two actions of a turn when it is valid.
    reuse_tree: bool = True

    def __post_init__(self):
        if self.rollout_policy not in ("greedy", "uniform"):
            raise SearchError(f"rollout_policy must be 'greedy' or 'uniform', got {self.rollout_policy!r}")
        if self.final_move not in ("visits", "mean"):
            raise SearchError(f"final_move must be 'visits' or 'mean', got {self.final_move!r}")
        if self.rollout_depth < 0 or (self.rollout_rounds is not None and self.rollout_rounds < 0):
            raise SearchError(f"rollout_depth and rollout_rounds must be >= 0, got {self.rollout_depth}, {self.rollout_rounds}")
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
                       self.eval_weights(), self.prior_visits, self.rollout_settle,
                       self.commit_widen_base, self.commit_widen_coef,
                       -1.0 if self.rollout_rounds is None else self.rollout_rounds)

    def eval_weights(self) -> tuple:
        """Return the evaluation weights in ext.heuristics.EVAL_FIELDS order."""
        return (self.tau, self.min_bonus, self.leader, self.king, self.temple, self.supporter,
                self.monument, self.treasure_near, self.catastrophe, self.opponents_max,
                self.eval_scale, self.eval_centre, self.endgame, self.building, self.wonder,
                self.exposure)
