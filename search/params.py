"""Every knob of the search in one place (SearchParams), one comment per field, and the params file that stores them.

A params file is JSON: {"format": "tne-ai params 1", "params": {field: value}}.
`SearchParams.load(path)` reads one (fields it does not name keep their
defaults) and `params.save(path)` writes every field; `tne-ai bot --params`,
`tne-ai analyze --params` and the tuners (search.tune, search.texel) use them.
"""
from __future__ import annotations

import json
import math
import os
import typing
from dataclasses import dataclass, fields, replace
from typing import Optional

from search.agent import SearchError


MIB = 1 << 20
PARAMS_FORMAT = "tne-ai params 1"
MAX_PARAMS_BYTES = 1 << 20

# (low, high, low open?) a params file's value must lie in, where the search
# would misbehave outside (a division by zero, a probability over 1, a C int
# overflow); fields not listed take any finite value of their type.
FIELD_RANGES = {
    "exploration": (0.0, 100.0, False),
    "widen_base": (0.0, 1e6, False),
    "widen_coef": (0.0, 1e6, False),
    "widen_exponent": (0.0, 2.0, False),
    "rollout_depth": (0, 1000, False),
    "rollout_tail_after": (-1, 1000, False),
    "rollout_rounds": (0.0, 1000.0, False),
    "rollout_epsilon": (0.0, 1.0, False),
    "tau": (0.0, 1e6, True),
    "opponents_max": (0.0, 1.0, False),
    "eval_scale": (0.0, 1e6, True),
    "tree_memory_mb": (1, 1 << 20, False),
}


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
WEIGHT_FIELDS = ("tau", "min_bonus", "leader", "king", "temple", "supporter", "monument",
                 "treasure_near", "catastrophe", "opponents_max", "eval_scale")
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
# rollout_tail_after and widen_coef left None, by the number of players.
# With 4: the tail after 3 actions and half the widening, accepted together
# (SPRT against the tail after 1 and the full widening, 1,000 iterations,
# elo0=0 elo1=10: H1 after 876 games, +19 Elo); the tail after 1 before that
# (SPRT at equal time, elo0=-10 elo1=0: H1 after 996 games, +10 Elo).
# With 2 the tail does nothing (no rounds rollouts); 3 players are untested.
DEFAULT_TAIL_AFTER = {2: -1, 3: -1, 4: 3}
DEFAULT_WIDEN_COEF = {2: 1.0, 3: 1.0, 4: 0.5}


@dataclass(frozen=True)
class SearchParams:
    """Parameters of the ISMCTS search; docs/strength.md holds how each default was measured."""

    # UCB1 exploration constant c on rewards in [0, 1].
    exploration: float = 0.7
    # Progressive widening: a node considers its best `widen_base + widen_coef
    # * visits ** widen_exponent` by the prior (coef None: DEFAULT_WIDEN_COEF).
    widen_base: float = 2.0
    widen_coef: Optional[float] = None
    widen_exponent: float = 0.5
    # Decisions a rollout plays before the evaluation (when rollout_rounds is 0).
    rollout_depth: int = 3
    # > 0: roll out until rounds * 2 * players action-phase decisions since the
    # root instead; None: 1 with 3 or 4 players, 0 with 2.
    rollout_rounds: Optional[float] = None
    # Play on past the rollout's end (at most 16 decisions) until no conflict
    # or choice is pending; the look-ahead plays out the conflicts it starts.
    rollout_settle: bool = True
    # A rounds rollout passes its actions after the first rollout_tail_after
    # (-1: none; None: DEFAULT_TAIL_AFTER); conflicts, choices epsilon-greedy.
    rollout_tail_after: Optional[int] = None
    # Rollout policy: "greedy" (epsilon-greedy on the prior) or "uniform".
    rollout_policy: str = "greedy"
    # Chance of a uniformly random decision in an epsilon-greedy rollout.
    rollout_epsilon: float = 0.1
    # Evaluation weights (ext/heuristics.pxd EvalParams; None: DEFAULT_WEIGHTS
    # by player count): concave colour utility, the weakest colour's bonus,
    tau: Optional[float] = None
    min_bonus: Optional[float] = None
    # a leader's prospects (presence, temples beside it, supporters, monuments,
    # a treasure near a trader), a king's pull, a catastrophe in hand,
    leader: Optional[float] = None
    king: Optional[float] = None
    temple: Optional[float] = None
    supporter: Optional[float] = None
    monument: Optional[float] = None
    treasure_near: Optional[float] = None
    catastrophe: Optional[float] = None
    # the opponents' value (opponents_max * best + the rest * mean) and the
    # logistic's scale on the margin,
    opponents_max: Optional[float] = None
    eval_scale: Optional[float] = None
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
        if (self.eval_scale is not None and self.eval_scale <= 0) or self.exploration < 0:
            raise SearchError("eval_scale must be > 0 and exploration >= 0")

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
        names = {f.name for f in fields(self)}
        for k in changes:
            if k not in names:
                raise SearchError(f"unknown search parameter {k!r}")
        return replace(self, **changes)

    def resolved(self, players: int) -> "SearchParams":
        """Return a copy whose fields left None (weights, rollout tail, widening) are the defaults for this many players."""
        if isinstance(players, bool) or players not in DEFAULT_WEIGHTS:
            raise SearchError(f"players must be 2, 3 or 4, got {players!r}")
        unset = {n: DEFAULT_WEIGHTS[players][n] for n in WEIGHT_FIELDS if getattr(self, n) is None}
        if self.rollout_tail_after is None:
            unset["rollout_tail_after"] = DEFAULT_TAIL_AFTER[players]
        if self.widen_coef is None:
            unset["widen_coef"] = DEFAULT_WIDEN_COEF[players]
        return replace(self, **unset) if unset else self

    def configure(self, tree, players: int, workers: int = 1) -> None:
        """Hand the kernel's share of the knobs for a game of `players` to an ext.mcts.Tree (one of `workers` trees)."""
        p = self.resolved(players)
        tree.set_memory_limit(p.tree_memory_mb * MIB // workers)
        tree.configure(p.exploration, p.widen_base, p.widen_coef, p.widen_exponent,
                       p.rollout_depth, p.rollout_epsilon, p.rollout_policy == "greedy",
                       p.eval_weights(players), p.rollout_settle,
                       -1.0 if p.rollout_rounds is None else p.rollout_rounds,
                       p.rollout_tail_after)

    def eval_weights(self, players: int) -> tuple:
        """Return the evaluation weights for a game of `players` in ext.heuristics.EVAL_FIELDS order."""
        p = self.resolved(players)
        return (p.tau, p.min_bonus, p.leader, p.king, p.temple, p.supporter,
                p.monument, p.treasure_near, p.catastrophe, p.opponents_max,
                p.eval_scale, p.eval_centre, p.endgame, p.building, p.wonder)


def _field_kind(name: str) -> str:
    """Return a field's kind: "float", "int", "bool", "str", "int?" or "float?" (or None)."""
    hint = typing.get_type_hints(SearchParams)[name]
    if hint == Optional[int]:
        return "int?"
    if hint is bool:
        return "bool"
    if hint is int:
        return "int"
    if hint is str:
        return "str"
    if hint is float:
        return "float"
    return "float?"


def check_value(name: str, value, source: str = "params") -> object:
    """Return a field's value checked for its type and range (an int for a float field becomes a float)."""
    names = [f.name for f in fields(SearchParams)]
    if name not in names:
        import difflib
        near = difflib.get_close_matches(name, names, 1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise SearchError(f"{source}: unknown field {name!r}{hint}")
    kind = _field_kind(name)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool" and not isinstance(value, bool):
        raise SearchError(f"{source}: field {name!r} must be true or false, got {value!r}")
    if kind == "str":
        choices = {"rollout_policy": ("greedy", "uniform"), "final_move": ("visits", "mean")}[name]
        if value not in choices:
            raise SearchError(f"{source}: field {name!r} must be one of {', '.join(choices)}, got {value!r}")
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
    if name in FIELD_RANGES:
        lo, hi, lo_open = FIELD_RANGES[name]
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
