"""Every knob of the search declared once (KNOBS), the SearchParams made from them, and the params file that stores them.

A params file is JSON: {"format": "tne-ai params 1", "params": {field: value}}.
`SearchParams.load(path)` reads one (fields it does not name keep their
defaults) and `params.save(path)` writes every field; `tne-ai bot --params`,
`tne-ai analyze --params` and the tuners (search.tuning.spsa, search.tuning.texel) use them.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, fields, replace
from typing import Callable, Optional

from search.agent import SearchError
from search.learned_value import read_weights


MIB = 1 << 20
# a Knob's absent_means when no value stands for "before the knob existed":
# every kept record of a match names it (None can be such a value)
NO_ABSENT = type("NoAbsent", (), {"__repr__": lambda self: "NO_ABSENT"})()
PARAMS_FORMAT = "tne-ai params 1"
MAX_PARAMS_BYTES = 1 << 20


def read_text_file(path: str, max_bytes: int, what: str) -> str:
    """Return a small UTF-8 file's text; SearchError says which file and why it cannot be read."""
    try:
        if os.path.getsize(path) > max_bytes:
            raise SearchError(f"{path}: not a {what} (over {max_bytes} bytes)")
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise SearchError(f"cannot read {what} {path}: {getattr(e, 'strerror', None) or e}") from None


# The evaluation weights a SearchParams field left None takes, by the number
# of players; each set is the default only once an SPRT with that many
# players accepted it against the set before (docs/strength.md says which).
# set by hand (before any fit), kept where no fit has passed an SPRT yet
HAND_SET_WEIGHTS = dict(tau=5.0, min_bonus=0.6, leader=1.6, king=0.5, temple=0.3, supporter=0.08,
                        monument=1.5, treasure_near=0.2, catastrophe=0.5, opponents_max=0.5,
                        eval_scale=1.5)
# Texel fit on 2-player self-play (seed 9100); SPRT +66 Elo, H1 after 540 games
TEXEL_2P_WEIGHTS = dict(tau=5.805, min_bonus=0.437, leader=1.153, king=0.326, temple=0.324,
                        supporter=0.104, monument=1.45, treasure_near=0.151, catastrophe=0.287,
                        opponents_max=0.5, eval_scale=1.956)
# Texel fit on 4-player self-play (seed 9400); SPRT +16 Elo, H1 after 1,312 games
TEXEL_4P_WEIGHTS = dict(tau=5.32, min_bonus=0.556, leader=1.053, king=0.355, temple=0.021,
                        supporter=0.08, monument=1.417, treasure_near=0.075, catastrophe=0.439,
                        opponents_max=1.0, eval_scale=1.616)
# 3 players keep the hand-set weights: no fit has been tested with 3
DEFAULT_WEIGHTS = {2: TEXEL_2P_WEIGHTS, 3: HAND_SET_WEIGHTS, 4: TEXEL_4P_WEIGHTS}
WEIGHT_FIELDS = tuple(HAND_SET_WEIGHTS)


def _weight(name: str) -> dict:
    return {players: weights[name] for players, weights in DEFAULT_WEIGHTS.items()}


@dataclass(frozen=True)
class Knob:
    """One search knob: its SearchParams field, its params-file check, its bot option and flag, its kernel field."""

    name: str                       # the SearchParams field and params-file key
    type: type                      # float, int, bool or str (a knob whose default is None also takes None)
    default: object                 # SearchParams' default; None: by_players (or the kernel's own rule)
    help: str                       # what it sets, in a few words (the bot's --help)
    low: Optional[float] = None     # a params file's value must lie in [low, high] ((low, high] when
    high: Optional[float] = None    #   low_open) where the search would misbehave outside (a division
    low_open: bool = False          #   by zero, a probability over 1, a C int overflow); None: any
    choices: tuple = ()             # a str knob's values
    by_players: Optional[dict] = None   # {players: value} a value of None stands for
    kernel: Optional[str] = None    # the field of ext.search.tree's Tree.configure it sets; None: none
    to_kernel: Optional[Callable] = None  # the kernel's value for a resolved value; None: the value
    option: Optional[str] = None    # the `tne-ai bot` protocol option that sets it; None: none
    option_range: Optional[tuple] = None  # the option's (min, max) where narrower than (low, high)
    flag: Optional[str] = None      # the `tne-ai bot` flag that sets the option
    absent_means: object = NO_ABSENT  # the value that plays as the search did before the knob
                                    #   existed: what a kept match's settings that lack it meant
    check_file: Optional[Callable] = None  # a str knob naming a file (no choices): reads and checks it
                                    #   (SearchError says what is wrong)

    @property
    def kind(self) -> str:
        """Return "float", "int", "bool" or "str", with "?" when None is a value too (e.g. "int?")."""
        return self.type.__name__ + ("?" if self.default is None else "")

    def kernel_value(self, value):
        """Return what the kernel's field gets for a resolved value."""
        return value if self.to_kernel is None else self.to_kernel(value)


# The knobs of the search, in SearchParams' (and a params file's) field order;
# docs/design.md "Adding a search knob" says how to add one.
KNOBS = (
    # UCB1 exploration constant c on rewards in [0, 1] (None: by the player count).
    # With 2 players 0.35 against 0.7 (SPRT at equal time, 0.02 s a decision,
    # elo0=0 elo1=10: H1 after 2,680 games, +18 Elo [+5, +31]); 3-4 untested.
    Knob("exploration", float, None, "the UCB1 constant (auto: by the player count)", 0.0, 100.0,
         by_players={2: 0.35, 3: 0.7, 4: 0.7}, kernel="exploration", option="Exploration", flag="--exploration"),
    # The UCB1 constant of the observer's own decisions at the root alone
    # (None: the exploration's). The root's choice is the decision, and a
    # root that settles on its early leader does not revise it with more
    # iterations (docs/benchmarks.md, convergence: the same seed at N and 2N
    # agrees far more often than two seeds at N); a wider root keeps the
    # near-equal decisions compared while the nodes below stay sharp. With 2
    # players 0.7 at the root (0.35 below) against the defaults at equal time,
    # 0.02 s a decision: H0 after 2,752 games, -8 Elo [-21, +5]; None stays.
    Knob("root_exploration", float, None, "the UCB1 constant at the root (auto: the exploration's)", 0.0, 100.0,
         kernel="root_exploration", to_kernel=lambda v: -1.0 if v is None else v, absent_means=None),
    # Progressive widening: a node considers its best `widen_base + widen_coef
    # * visits ** widen_exponent` by the prior (coef None: DEFAULT_WIDEN_COEF).
    # With 4 players half the widening was accepted together with the tail
    # after 3 (see rollout_tail_after); with 2, half the widening against the
    # full (SPRT at equal time, 0.02 s a decision, elo0=0 elo1=10: H1 after
    # 706 games, +56 Elo [+30, +82]). With 4 players a quarter against the
    # half at equal time lost (H0 after 524 games, -29 Elo [-59, +1]), and so
    # did the full widening (H0 after 1,124 games, -7 Elo [-28, +13]).
    Knob("widen_base", float, 2.0, "children considered at no visits", 0.0, 1e6, kernel="widen_base"),
    Knob("widen_coef", float, None, "children added with the visits' power", 0.0, 1e6,
         by_players={2: 0.5, 3: 1.0, 4: 0.5}, kernel="widen_coef"),
    Knob("widen_exponent", float, 0.5, "the power of the visits widening follows", 0.0, 2.0,
         kernel="widen_exponent"),
    # The widening's coefficient where another seat acts (None: widen_coef's).
    # A decision searched deeper meets more of the replies the widening admits
    # and its mean falls (docs/strength.md, exploration on the spread), so the
    # less searched look better than they are; replies admitted faster find
    # the opponents' best earlier, fewer replies let the tree search deeper. With 2
    # players 0.25 against None at equal time, 0.02 s a decision: +2 Elo
    # [-9, +14] after 3,586 games, SPRT undecided (docs/strength.md).
    Knob("reply_widen_coef", float, None, "the widening's coefficient where another seat acts (auto: widen_coef)",
         0.0, 1e6, kernel="reply_widen_coef", to_kernel=lambda v: -1.0 if v is None else v, absent_means=None),
    # The root's order puts the best decision of each kind (tile, leader,
    # withdrawal, catastrophe, swap) first, then the rest by the look-ahead.
    # With 2 players on against off at equal time, 0.02 s a decision: +7 Elo
    # [-8, +23] after 1,874 games, SPRT undecided (docs/strength.md).
    Knob("root_kinds", bool, False, "widen the root by each kind's best first", kernel="root_kinds",
         absent_means=False),
    # A leaf's reward: this share of the value after the rollout, the rest the
    # value where the tree stopped (read only in the action phase; 1: the
    # rollout's value alone). Less noise than a rollout, and its own bias.
    # None: by the player count. With 4 players 0.5 against 1.0: SPRT at equal
    # time, 0.02 s a decision, elo0=0 elo1=10: H1 after 1,180 games, +19 Elo
    # [+0, +39]; the 4-player win-chance maps are fitted on its self-play. With
    # 2 the same test stood at -17 Elo [-39, +5] after 937 games, undecided;
    # 0 read at a turn's start only, where the kernel then plays no rollout
    # (up to 3x the iterations), at -5 [-29, +20] after 762, undecided.
    Knob("leaf_mix", float, None, "the rollout's share of a leaf's reward", 0.0, 1.0, kernel="leaf_mix",
         by_players={2: 1.0, 3: 1.0, 4: 0.5}, absent_means=1.0),
    # Where leaf_mix reads the value where the tree stopped: "action", anywhere
    # in the action phase; "turn", only at the start of a turn (a seat about to
    # play both its actions), where the evaluation has no half-played turn to
    # miss, as a rollout to the start of a turn is read.
    Knob("leaf_mix_at", str, "action", "where leaf_mix reads the tree's value", choices=("action", "turn"),
         kernel="leaf_mix_turn", to_kernel=lambda v: v == "turn", absent_means="action"),
    # Decisions a rollout plays before the evaluation (when rollout_rounds is 0).
    Knob("rollout_depth", int, 3, "rollout decisions before the evaluation", 0, 1000, kernel="rollout_depth",
         option="RolloutDepth", option_range=(0, 64), flag="--rollout-depth"),
    # > 0: roll out until rounds * 2 * players action-phase decisions since the
    # root instead; None: 1 with 3 or 4 players, 0 with 2 (the kernel's rule, told by -1).
    # With 4 players at equal time, 0.02 s a decision, half a round lost (H0
    # after 980 games, -12 Elo) and so did 0 with rollout_to_turn (H0 after
    # 1,232 games, -8 Elo).
    Knob("rollout_rounds", float, None, "rounds a rollout plays to instead", 0.0, 1000.0,
         kernel="rollout_rounds", to_kernel=lambda v: -1.0 if v is None else v),
    # Play on past the rollout's end (at most 16 decisions) until no conflict
    # or choice is pending; the look-ahead plays out the conflicts it starts.
    Knob("rollout_settle", bool, True, "play a rollout on until no conflict is pending", kernel="rollout_settle"),
    # Play a depth rollout on to the start of a turn (a seat about to play both
    # its actions) before the evaluation, which has no term for a turn half
    # played (None: by the player count; 3 and 4 players roll out to a round's
    # horizon instead). With 2 players on against off: SPRT at equal time, 0.02 s
    # a decision, elo0=0 elo1=10: H1 after 2,396 games, +20 Elo [+6, +34]; at
    # 0.05 s off against on: H0 after 1,378 games, -20 Elo [-39, -2]. The
    # 2-player win-chance maps are fitted on its self-play.
    Knob("rollout_to_turn", bool, None, "play a rollout on to the start of a turn", kernel="rollout_to_turn",
         by_players={2: True, 3: False, 4: False}, absent_means=False),
    # A rounds rollout passes its actions after the first rollout_tail_after
    # (-1: none; None: DEFAULT_TAIL_AFTER); conflicts, choices epsilon-greedy.
    # With 4: the tail after 3 actions and half the widening, accepted together
    # (SPRT against the tail after 1 and the full widening, 1,000 iterations,
    # elo0=0 elo1=10: H1 after 876 games, +19 Elo); the tail after 1 before that
    # (SPRT at equal time, elo0=-10 elo1=0: H1 after 996 games, +10 Elo).
    # A tail after 5 against 3 with 4 players at equal time, 0.02 s a decision:
    # -1 Elo [-18, +15] after 1,728 games, undecided; 3 stays.
    # With 2 the tail does nothing (no rounds rollouts); 3 players are untested.
    Knob("rollout_tail_after", int, None, "rounds-rollout actions before it passes", -1, 1000,
         by_players={2: -1, 3: -1, 4: 3}, kernel="tail_after"),
    # Rollout policy: "greedy" (epsilon-greedy on the prior) or "uniform".
    Knob("rollout_policy", str, "greedy", "how a rollout decides", choices=("greedy", "uniform"),
         kernel="rollout_greedy", to_kernel=lambda v: v == "greedy"),
    # Chance of a uniformly random decision in an epsilon-greedy rollout.
    Knob("rollout_epsilon", float, 0.1, "chance of a random rollout decision", 0.0, 1.0, kernel="rollout_epsilon"),
    # Evaluation weights (ext/search/evaluation.pxd EvalParams; None: DEFAULT_WEIGHTS
    # by player count): concave colour utility, the weakest colour's bonus,
    Knob("tau", float, None, "the colour utility's concavity", 0.0, 1e6, True, by_players=_weight("tau"),
         kernel="tau"),
    Knob("min_bonus", float, None, "the weakest colour's bonus", by_players=_weight("min_bonus"),
         kernel="min_bonus"),
    # a leader's prospects (presence, temples beside it, supporters, monuments,
    # a treasure near a trader), a king's pull, a catastrophe in hand,
    Knob("leader", float, None, "a leader's presence", by_players=_weight("leader"), kernel="leader"),
    Knob("king", float, None, "a king's pull", by_players=_weight("king"), kernel="king"),
    Knob("temple", float, None, "a temple beside a leader", by_players=_weight("temple"), kernel="temple"),
    Knob("supporter", float, None, "a leader's supporter", by_players=_weight("supporter"), kernel="supporter"),
    Knob("monument", float, None, "a monument of a leader's colour", by_players=_weight("monument"),
         kernel="monument"),
    Knob("treasure_near", float, None, "a treasure near a trader", by_players=_weight("treasure_near"),
         kernel="treasure_near"),
    Knob("catastrophe", float, None, "a catastrophe in hand", by_players=_weight("catastrophe"),
         kernel="catastrophe"),
    # the opponents' value (opponents_max * best + the rest * mean) and the
    # logistic's scale on the margin,
    Knob("opponents_max", float, None, "the best opponent's share", 0.0, 1.0, by_players=_weight("opponents_max"),
         kernel="opponents_max"),
    Knob("eval_scale", float, None, "the logistic's scale", 0.0, 1e6, True, by_players=_weight("eval_scale"),
         kernel="scale"),
    # 1 centres the logistic on each seat's margin at the root (0: on zero),
    Knob("eval_centre", float, 1.0, "centring on the root's margins", kernel="centre"),
    # the end coming nearer, for a seat that leads at the root (margin units;
    # with 4 players and the learned value at equal time 0 and 8 lost to 4:
    # H0, -36 and -20 Elo, docs/strength.md),
    Knob("endgame", float, 4.0, "the end coming nearer for the leader", kernel="endgame"),
    # and the 2015 variants: a leader with its colour's building in its
    # kingdom, a king in the wonder's kingdom (set by reasoning, not tuned).
    Knob("building", float, 0.8, "a leader with its colour's building", kernel="building"),
    Knob("wonder", float, 1.5, "a king in the wonder's kingdom", kernel="wonder"),
    # "learned": the margin is the learned value's (search.learned_value, the
    # shipped weights for the player count; the weights above still give its
    # handcrafted input), "handcrafted": the weights' own. None: by players,
    # learned with 2 and 4 (SPRT at equal time against the handcrafted value,
    # elo0=0 elo1=10: H1 with 4 players after 416 games, +62 Elo), the
    # handcrafted value with 3 (untested). The 2-player weights refitted on an
    # SPRT's games beat the first fit by +67 Elo (H1, 650 games), refitted on
    # three SPRTs' games by +14 more (H1, 3,756 games); the 4-player refit
    # did not (+1 after 1,836 games, undecided).
    Knob("value", str, None, "the evaluation: handcrafted or learned", choices=("handcrafted", "learned"),
         by_players={2: "learned", 3: "handcrafted", 4: "learned"}, absent_means="handcrafted"),
    # The learned value's weights file (`tne-ai tune value --out`; a relative
    # path is the working directory's); None: the shipped weights for the
    # player count (search/data/value/). Read only when `value` is "learned".
    Knob("value_weights", str, None, "the learned value's weights file", absent_means=None,
         check_file=read_weights),
    # Final choice at the root: "visits" (most visited, ties by mean) or "mean".
    Knob("final_move", str, "visits", "the root's final choice", choices=("visits", "mean")),
    # How the root shares a bounded budget among the observer's decisions:
    # "ucb", UCB1 with the widening as at every node; "halving", sequential
    # halving (Karnin et al. 2013; Pepels et al. 2014 at an MCTS root): the
    # look-ahead's first widen_base + widen_coef * sqrt(budget) decisions
    # share each round's iterations evenly and the better half by mean goes
    # on; the last one standing is the decision (final_move aside). With 2
    # players at equal time, 0.02 s a decision: +6 Elo [-10, +22] after 1,736
    # games, SPRT undecided; at 0.05 s -3 [-44, +39] after 266 games, and at
    # 0.1 s an LLR of -2.68, no decision, after 1,431 games (seed 57200); with 4,
    # -11 [-40, +18] after 548 games.
    Knob("root_policy", str, "ucb", "how the root shares the budget", choices=("ucb", "halving"),
         absent_means="ucb"),
    # Under halving, give each root candidate's k-th visit the search's k-th
    # world (the same deal of the hidden tiles and the same random stream), so
    # that the candidates' means are compared on the same worlds and their
    # difference is less the luck of the draw; no effect under "ucb".
    # 2 players at equal time, 0.02 s a decision, halving with paired worlds
    # against the defaults: -5 Elo [-24, +15] after 1,186 games, undecided.
    Knob("paired_worlds", bool, False, "halving's candidates meet the same worlds", kernel="paired_worlds",
         absent_means=False),
    # Keep the subtree between the two actions of a turn when it is valid.
    Knob("reuse_tree", bool, True, "keep the tree within a turn", option="ReuseTree", flag="--reuse-tree"),
    # Weigh the other seats' possible hands by how likely their decisions
    # were (search.inference) instead of dealing them uniformly; the
    # temperature of the prior's softmax that models their play.
    Knob("inference", bool, False, "weigh the other hands by their play", absent_means=False),
    Knob("inference_temperature", float, 4.0, "the softmax temperature of the opponents' model", 0.0, 1e6, True,
         absent_means=4.0),
    # Memory of the tree in MiB (shared out among the workers: configure sets
    # it apart); at the limit it stops growing and iterations go on through
    # the nodes it has.
    Knob("tree_memory_mb", int, 1024, "MiB the tree may hold", 1, 1 << 20, option="TreeMemory"),
)
KNOB = {k.name: k for k in KNOBS}

# (low, high, low open?) of the knobs that have a range
FIELD_RANGES = {k.name: (k.low, k.high, k.low_open) for k in KNOBS if k.low is not None}
# rollout_tail_after and widen_coef left None, by the number of players (KNOBS says why)
DEFAULT_TAIL_AFTER = KNOB["rollout_tail_after"].by_players
DEFAULT_WIDEN_COEF = KNOB["widen_coef"].by_players


def _knob_fields(cls):
    """Give cls one field per knob (name, type, default), in KNOBS order, for @dataclass."""
    cls.__annotations__ = {k.name: (Optional[k.type] if k.default is None else k.type) for k in KNOBS}
    for k in KNOBS:
        setattr(cls, k.name, k.default)
    return cls


@dataclass(frozen=True)
@_knob_fields
class SearchParams:
    """Parameters of the ISMCTS search, one field per knob of KNOBS; docs/strength.md holds how each default was measured."""

    def __post_init__(self):
        for k in KNOBS:
            if k.choices and getattr(self, k.name) not in k.choices + ((None,) if k.default is None else ()):
                raise SearchError(f"{k.name} must be {' or '.join(map(repr, k.choices))}, "
                                  f"got {getattr(self, k.name)!r}")
        if self.rollout_depth < 0 or (self.rollout_rounds is not None and self.rollout_rounds < 0):
            raise SearchError(f"rollout_depth and rollout_rounds must be >= 0, got {self.rollout_depth}, {self.rollout_rounds}")
        if (isinstance(self.tree_memory_mb, bool) or not isinstance(self.tree_memory_mb, int)
                or self.tree_memory_mb < 1):
            raise SearchError(f"tree_memory_mb must be an int >= 1, got {self.tree_memory_mb!r}")
        if (self.eval_scale is not None and self.eval_scale <= 0) or any(
                getattr(self, name) is not None and getattr(self, name) < 0
                for name in ("exploration", "root_exploration")):
            raise SearchError("eval_scale must be > 0, exploration and root_exploration >= 0")

    @classmethod
    def load(cls, path: str) -> "SearchParams":
        """Return the params a params file holds (unnamed fields keep their defaults); SearchError names what is wrong."""
        return params_from_json(read_text_file(path, MAX_PARAMS_BYTES, "params file"), source=path)

    def save(self, path: str, comment: Optional[str] = None) -> None:
        """Write every field to a params file (JSON, the format load reads), with an optional comment."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(params_to_json(self, comment))

    def to_dict(self) -> dict:
        """Return {field: value} for every field."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def with_changes(self, **changes) -> "SearchParams":
        """Return a copy with some fields changed (unknown names raise SearchError)."""
        for k in changes:
            if k not in KNOB:
                raise SearchError(f"unknown search parameter {k!r}")
        return replace(self, **changes)

    def resolved(self, players: int) -> "SearchParams":
        """Return a copy whose fields left None (exploration, weights, rollout tail, widening) are the defaults for this many players."""
        if isinstance(players, bool) or players not in DEFAULT_WEIGHTS:
            raise SearchError(f"players must be 2, 3 or 4, got {players!r}")
        unset = {k.name: k.by_players[players] for k in KNOBS
                 if k.by_players is not None and getattr(self, k.name) is None}
        return replace(self, **unset) if unset else self

    def kernel_values(self, players: int) -> dict:
        """Return {kernel field: value} of every knob the kernel reads, for a game of `players`."""
        p = self.resolved(players)
        return {k.kernel: k.kernel_value(getattr(p, k.name)) for k in KNOBS if k.kernel is not None}

    def configure(self, tree, players: int, workers: int = 1) -> None:
        """Hand the kernel's share of the knobs for a game of `players` to an ext.search.tree.Tree (one of `workers` trees)."""
        values = self.kernel_values(players)
        tree.set_memory_limit(self.tree_memory_mb * MIB // workers)
        tree.configure(values)
        if self.resolved(players).value == "learned":
            from search.learned_value import load_weights
            tree.set_value_weights(load_weights(players, self.value_weights))
        else:
            tree.set_value_weights(None)

    def eval_weights(self, players: int) -> tuple:
        """Return the evaluation weights for a game of `players` in ext.search.evaluation.EVAL_FIELDS order."""
        from ext.search.evaluation import EVAL_FIELDS
        values = self.kernel_values(players)
        return tuple(values[name] for name in EVAL_FIELDS)


def with_absent_knobs(values: dict) -> dict:
    """Return a {field: value} mapping kept before some knobs existed, with those knobs at the values that played then."""
    return {**{k.name: k.absent_means for k in KNOBS if k.absent_means is not NO_ABSENT and k.name not in values},
            **values}


def field_kind(name: str) -> str:
    """Return a field's kind: "float", "int", "bool", "str", or with "?" ("int?") when None is a value too (KeyError if no knob has that name)."""
    return KNOB[name].kind


def check_value(name: str, value, source: str = "params") -> object:
    """Return a field's value checked for its type and range (an int for a float field becomes a float)."""
    if name not in KNOB:
        import difflib
        near = difflib.get_close_matches(name, list(KNOB), 1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise SearchError(f"{source}: unknown field {name!r}{hint}")
    knob = KNOB[name]
    kind = knob.kind
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool?" and value is None:
        return None
    if kind in ("bool", "bool?") and not isinstance(value, bool):
        raise SearchError(f"{source}: field {name!r} must be true or false, got {value!r}")
    if kind == "str?" and value is None:
        return None
    if knob.check_file is not None:
        if not isinstance(value, str) or not value or "\0" in value:
            raise SearchError(f"{source}: field {name!r} must name a file, got {value!r}")
        try:
            knob.check_file(value)
        except SearchError as e:
            raise SearchError(f"{source}: field {name!r}: {e}") from None
        return value
    if kind in ("str", "str?") and value not in knob.choices:
        raise SearchError(f"{source}: field {name!r} must be one of {', '.join(knob.choices)}, got {value!r}")
    if kind == "int?" and value is None:
        return None
    if kind in ("int", "int?") and (not number or not isinstance(value, int)):
        raise SearchError(f"{source}: field {name!r} must be an integer, got {value!r}")
    if kind in ("float", "float?"):
        if value is None and kind == "float?":
            return None
        if not number:
            raise SearchError(f"{source}: field {name!r} must be a number, got {value!r}")
        if not math.isfinite(value):
            raise SearchError(f"{source}: field {name!r} must be finite, got {value!r}")
        value = float(value)
    if knob.low is not None:
        lo, hi, lo_open = knob.low, knob.high, knob.low_open
        if value < lo or value > hi or (lo_open and value == lo):
            low = f"> {lo}" if lo_open else f">= {lo}"
            raise SearchError(f"{source}: field {name!r} = {value!r} is out of range (must be {low} and <= {hi})")
    return value


def params_from_dict(values: dict, base: SearchParams = SearchParams(), source: str = "params") -> SearchParams:
    """Return base with the fields of a {field: value} mapping, every name, type and range checked."""
    if not isinstance(values, dict):
        raise SearchError(f"{source}: \"params\" must be an object of field: value, got {type(values).__name__}")
    checked = {name: check_value(name, value, source) for name, value in values.items()}
    try:
        return replace(base, **checked)
    except SearchError as e:
        raise SearchError(f"{source}: {e}") from None


def _no_constant(text: str):
    raise ValueError(f"{text} is not a number JSON allows")


def params_from_json(text: str, base: SearchParams = SearchParams(), source: str = "params") -> SearchParams:
    """Return the SearchParams a params file's text holds; SearchError names what is wrong."""
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise SearchError(f"{source}: not a params file (bad JSON: {e})") from None
    if not isinstance(doc, dict):
        raise SearchError(f"{source}: not a params file (expected a JSON object)")
    if doc.get("format") != PARAMS_FORMAT:
        raise SearchError(f"{source}: not a params file (\"format\" must be {PARAMS_FORMAT!r}, "
                          f"got {doc.get('format')!r})")
    extra = sorted(set(doc) - {"format", "params", "comment"})
    if extra:
        raise SearchError(f"{source}: unknown key {extra[0]!r} (a params file holds format, params and comment)")
    if "params" not in doc:
        raise SearchError(f"{source}: no \"params\" object")
    return params_from_dict(doc["params"], base, source)


def params_to_json(params: SearchParams, comment: Optional[str] = None) -> str:
    """Return a params file's text holding every field of params."""
    doc = {"format": PARAMS_FORMAT}
    if comment:
        doc["comment"] = comment
    doc["params"] = params.to_dict()
    return json.dumps(doc, indent=2) + "\n"
