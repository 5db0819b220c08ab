"""Win chance: the map from what a search knows at a root to the chance that a seat wins the game.

The search's value of a position is a logistic of the seat's margin centred
on the root (ext.search.evaluation), which steers the search well and says
little to a person: a seat far behind can read 0.7. This module turns it
into a probability. A fitted map (search/tuning/calibrate.py, `tne-ai tune
calibrate`) ships per player count and board as package data
(search/data/calibration/<players>p-<board>.json); it reads the search's
value together with public facts of the position (R-INFO-1: every score,
the treasures taken and left, the bag's size, and the handcrafted
evaluation of the position itself, not centred on a root) and gives

- with 2 players, the chance that the seat wins (a tie for first counts half);
- with 3-4 players, the chance of each rank (first, second, ...), from
  cumulative logistic maps P(rank <= k), made monotone.

Inference is plain Python (no numpy). A map records the search defaults and
iterations it was fitted for (`fingerprint`); tests/test_calibration.py fails
when the shipped maps were fitted for other defaults than today's.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import random
from dataclasses import dataclass
from typing import Optional

from engine.state import strength_vector
from search.agent import SearchError

DATA_DIR = os.path.join(os.path.dirname(__file__), "data", "calibration")
FEATURES = ("bias", "value_logit", "lead", "lead_late", "late", "ahead_of_last", "value_logit_late",
            "eval_logit", "eval_logit_late")
# a value this close to 0 or 1 is clipped before its logit (the search never reports exact certainty)
VALUE_CLIP = 1e-4
# tiles in the bag before the deal of the six-tile hands (R-SETUP): the game's progress is the bag's share used
BAG_TILES = 153


def defaults_fingerprint(players: int, params=None) -> str:
    """Return a short hash of the search's defaults for a player count (its evaluation weights too), which a fitted map must match."""
    from ext.search import evaluation
    from search.params import KNOB, NO_ABSENT, SearchParams
    params = params if params is not None else SearchParams()
    # the values the search plays with for this count, so that a default set by the count
    # (the widening, the exploration, the value) changes the maps of that count only
    resolved = params.resolved(players)
    # a knob at the value that played before it existed leaves the search as it was
    played = {k: v for k, v in resolved.to_dict().items() if not (KNOB[k].absent_means is not NO_ABSENT
                                                                  and v == KNOB[k].absent_means)}
    text = json.dumps({"params": played, "weights": list(params.eval_weights(players)),
                       "eval": list(evaluation.EVAL_FIELDS)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _logit(v: float) -> float:
    v = min(1.0 - VALUE_CLIP, max(VALUE_CLIP, float(v)))
    return math.log(v / (1.0 - v))


def position_facts(obs: dict) -> dict:
    """Return the public facts of an observation (or snapshot) that the map reads.

    `eval` is every seat's reward by the handcrafted evaluation at the
    default weights, not centred on any root (ext.search.evaluation.evaluate_of);
    it reads only public facts, so any world dealt from the observation gives it.
    """
    import engine
    from engine.info import determinize, is_observation
    from ext.search import evaluation
    from search.params import SearchParams
    bag = obs["bag_size"] if "bag_size" in obs else len(obs["bag"])
    snap = determinize(obs, obs["seat"], random.Random(0)) if is_observation(obs) else obs
    state = engine.State.from_snapshot(snap)
    rewards = evaluation.evaluate_of(state, SearchParams().eval_weights(state.players))
    return {"scores": [list(s) for s in obs["scores"]], "treasures_taken": list(obs["treasures_taken"]),
            "treasures_left": len(obs["treasures"]), "bag": bag, "eval": [float(r) for r in rewards]}


def features(facts: dict, seat: int, value: float) -> list:
    """Return the map's inputs (FEATURES) for a seat, its root value and the position's public facts."""
    players = len(facts["scores"])
    weakest = [strength_vector(facts["scores"][s], facts["treasures_taken"][s])[0] for s in range(players)]
    others = [weakest[s] for s in range(players) if s != seat]
    lead = (weakest[seat] - max(others)) / 10.0
    ahead_of_last = (weakest[seat] - min(others)) / 10.0 if players > 2 else 0.0
    late = min(1.0, max(0.0, 1.0 - facts["bag"] / (BAG_TILES - 6 * players)))
    late = max(late, min(1.0, (10 - facts["treasures_left"]) / 8.0))
    z = _logit(value)
    e = _logit(facts["eval"][seat])
    return [1.0, z, lead, lead * late, late, ahead_of_last, z * late, e, e * late]


def _logistic(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@dataclass
class CalibrationMap:
    """A fitted map for one player count and board: one logistic per cumulative rank."""

    players: int
    board: str
    coefficients: list           # [k][feature]: P(rank <= k) = logistic(coefficients[k] . features)
    iterations: int              # the search budget of the self-play it was fitted on
    fingerprint: str             # defaults_fingerprint(players) when it was fitted
    fitted: dict                 # how it was fitted and what it measured (games, seed, ECE, Brier, ...)

    def rank_chances(self, facts: dict, seat: int, value: float) -> list:
        """Return the seat's chance of each rank (first first), summing to 1."""
        x = features(facts, seat, value)
        cumulative, top = [], 0.0
        for w in self.coefficients:
            top = max(top, _logistic(sum(a * b for a, b in zip(w, x))))
            cumulative.append(top)
        cumulative.append(1.0)
        return [cumulative[0]] + [cumulative[k] - cumulative[k - 1] for k in range(1, self.players)]

    def win_chance(self, facts: dict, seat: int, value: float) -> float:
        """Return the seat's chance of winning the game (first place; a shared first counts half with 2)."""
        return self.rank_chances(facts, seat, value)[0]

    def to_dict(self) -> dict:
        """Return the map as plain data (the package data's format)."""
        return {"players": self.players, "board": self.board, "features": list(FEATURES),
                "coefficients": self.coefficients, "iterations": self.iterations,
                "fingerprint": self.fingerprint, "fitted": self.fitted}

    @classmethod
    def from_dict(cls, d: dict, source: str = "calibration map") -> "CalibrationMap":
        """Return a map from plain data; raise SearchError naming what is wrong."""
        try:
            players, board = int(d["players"]), str(d["board"])
            if list(d["features"]) != list(FEATURES):
                raise SearchError(f"{source}: features {d['features']} are not this version's {list(FEATURES)}")
            coefficients = [[float(a) for a in w] for w in d["coefficients"]]
            if len(coefficients) != players - 1 or any(len(w) != len(FEATURES) for w in coefficients):
                raise SearchError(f"{source}: coefficients must be {players - 1} rows of {len(FEATURES)}")
            if not all(math.isfinite(a) for w in coefficients for a in w):
                raise SearchError(f"{source}: a coefficient is not a finite number")
            return cls(players, board, coefficients, int(d["iterations"]), str(d["fingerprint"]),
                       dict(d.get("fitted", {})))
        except (KeyError, TypeError, ValueError) as e:
            raise SearchError(f"{source}: not a calibration map ({type(e).__name__}: {e})") from None

    def save(self, path: str) -> None:
        """Write the map as JSON."""
        with open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=1)
            f.write("\n")


def map_path(players: int, board: str) -> str:
    """Return the shipped map's path for a player count and board."""
    return os.path.join(DATA_DIR, f"{players}p-{board}.json")


_CACHE: dict = {}


def load_map(players: int, board: str, path: Optional[str] = None) -> Optional[CalibrationMap]:
    """Return the shipped map for a player count and board (or the map at `path`); None when none ships."""
    path = path or map_path(players, board)
    if path not in _CACHE:
        try:
            with open(path) as f:
                data = json.load(f)
        except FileNotFoundError:
            if path != map_path(players, board):
                raise SearchError(f"no calibration map at {path}") from None
            _CACHE[path] = None
            return None
        except (OSError, ValueError) as e:
            raise SearchError(f"cannot read the calibration map {path}: {e}") from None
        _CACHE[path] = CalibrationMap.from_dict(data, path)
    return _CACHE[path]


def win_chance(obs: dict, seat: int, value: float, low: Optional[float] = None,
               high: Optional[float] = None, facts: Optional[dict] = None) -> Optional[dict]:
    """Return the seat's calibrated chances from its root value (and its interval) in a position; None if no map.

    The result: {"win": p, "low": ..., "high": ..., "ranks": [...]} ("ranks"
    with 3-4 players); low and high are the map at the value's 95% bounds,
    the interval the search supports. `facts`: position_facts(obs), when the
    caller has it already (several values of one position).
    """
    cal = load_map(int(obs["players"]), str(obs["board"]))
    if cal is None:
        return None
    facts = facts if facts is not None else position_facts(obs)
    ranks = cal.rank_chances(facts, seat, value)
    out = {"win": ranks[0]}
    lo = cal.win_chance(facts, seat, low if low is not None else value)
    hi = cal.win_chance(facts, seat, high if high is not None else value)
    out["low"], out["high"] = min(lo, hi, ranks[0]), max(lo, hi, ranks[0])
    if cal.players > 2:
        out["ranks"] = ranks
    return out


def describe_chance(chance: Optional[dict], seat: int) -> str:
    """Return one line saying what a win chance means, e.g. 'seat 1 wins 8% of games from here (5%-12%)'."""
    if chance is None:
        return f"seat {seat}: no win chance (no calibration map for this player count and board)"
    text = (f"seat {seat} wins {100 * chance['win']:.0f}% of games from here "
            f"({100 * chance['low']:.0f}%-{100 * chance['high']:.0f}%)")
    if "ranks" in chance:
        text += "; by rank " + " / ".join(f"{100 * p:.0f}%" for p in chance["ranks"])
    return text
