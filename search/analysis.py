"""Analysis of a position from one seat's knowledge: plain data for the CLI, the server and review.

Every function here takes an observation (engine.info.observation, R-INFO-1):
the public position plus the analysing seat's own tiles. Nothing here ever
sees another seat's hand or the bag, so an analysis cannot depend on them.

- The seat to act: ISMCTS ranks its decisions (visits, mean value, 95%
  bounds, principal variation); `equally_good` lists the best and the
  decisions the search cannot tell from it (equally_good: their 95%
  intervals overlap), the one rule of a tie for the CLI, the web, the
  hints and the review.
- A seat that is not to act has no decision to rank; its value is estimated
  from its own observation alone: worlds are dealt from what it knows
  (engine.info.determinize) and in each the acting seat's search, given the
  observation the acting seat would have in that world, reports every
  seat's value at the root. The mean over the worlds is the analysed seat's
  value, and the acting seat's choices there are the replies it expects.

Every value comes with its win chance (search.calibration): the chance
that the seat wins the game from here, with the interval the search
supports, and with 3-4 players its chance of each rank; None where no map
ships for the player count and board.

Results are plain dicts (JSON-serialisable), the same for every caller.
"""
from __future__ import annotations

import math
import random
from typing import Callable, Optional

from engine.info import determinize, observation
from search.agent import Limits, SearchError
from search.calibration import position_facts, win_chance
from search.ismcts import ISMCTS, SearchResult, worker_seed

DEFAULT_SAMPLES = 8
# a candidate searched fewer times has too rough a 95% interval to be called the best's equal
TIE_MIN_VISITS = 10

# progress(label, limits) -> an ISMCTS progress callback or None
ProgressFactory = Callable[[str, Limits], Optional[Callable[[SearchResult], None]]]


def _no_progress(label: str, limits: Limits):
    return None


def candidate_json(rank: int, c, obs: Optional[dict] = None, seat: int = 0, facts: Optional[dict] = None) -> dict:
    """Return one search candidate as plain data (with its win chance when `obs`, the root's, is given)."""
    out = {"rank": rank, "move": c.move, "action": c.action, "visits": c.visits,
           "availability": c.availability, "mean": c.mean, "low": c.low, "high": c.high,
           "pv": [c.move] + list(c.pv), "pv_seats": [seat] + list(c.pv_seats)}
    if obs is not None:
        out["win_chance"] = win_chance(obs, seat, c.mean, c.low, c.high, facts)
    return out


def equally_good(candidates: list, best: Optional[dict] = None) -> list:
    """Return the candidates the search cannot tell from the best: their 95% intervals overlap the best one's.

    `candidates` are candidate_json dicts in the caller's order, `best` the
    one the others are compared with (default the first). The best is
    always in the list; another needs TIE_MIN_VISITS visits, for fewer give
    a 95% interval too rough to call it an equal.
    """
    if not candidates:
        return []
    best = candidates[0] if best is None else best
    return [c for c in candidates
            if c is best or c["move"] == best["move"]
            or (c["visits"] >= TIE_MIN_VISITS and c["high"] >= best["low"] and best["high"] >= c["low"])]


def analyse_to_act(searcher: ISMCTS, obs: dict, seat: int, limits: Limits, seed: int,
                   progress: ProgressFactory = _no_progress) -> dict:
    """Search the decision of the seat to act from its observation; return the analysis."""
    result = searcher.search(obs, seat, limits, seed=seed, progress=progress(f"seat {seat}", limits))
    best = next(c for c in result.candidates if c.action == result.best)
    facts = position_facts(obs)
    candidates = [candidate_json(i + 1, c, obs, seat, facts) for i, c in enumerate(result.candidates)]
    top = next(c for c in candidates if c["action"] == result.best)
    return {
        "seat": seat, "to_act": True, "hand": list(obs["hand"]),
        "iterations": result.iterations, "seconds": result.seconds,
        "iterations_per_second": result.iterations_per_second,
        "nodes": result.nodes, "workers": result.workers,
        "value": result.root_value[seat], "root_value": list(result.root_value),
        "win_chance": win_chance(obs, seat, best.mean, best.low, best.high, facts),
        "best": result.best_move,
        "equally_good": [c["move"] for c in equally_good(candidates, top)],
        "candidates": candidates,
    }


def analyse_waiting(searcher: ISMCTS, obs: dict, seat: int, limits: Limits, seed: int,
                    samples: int = DEFAULT_SAMPLES, progress: ProgressFactory = _no_progress) -> dict:
    """Estimate a seat's value of a position where another seat is to act, from its observation only."""
    actor = obs["to_act"]
    share = Limits(None if limits.iterations is None else max(1, limits.iterations // samples),
                   None if limits.seconds is None else limits.seconds / samples)
    values, replies = [], {}
    iterations, seconds, nodes = 0, 0.0, 0
    for k in range(samples):
        s = worker_seed(seed, k)
        # a world dealt from this seat's knowledge; the actor's view of it is all the search gets
        world = determinize(obs, seat, random.Random(s))
        result = searcher.search(observation(world, actor), actor, share, seed=s,
                                 progress=progress(f"seat {seat}, world {k + 1}/{samples}", share))
        values.append(result.root_value[seat])
        total = sum(c.visits for c in result.candidates) or 1
        for c in result.candidates:
            replies[c.move] = replies.get(c.move, 0.0) + c.visits / total / samples
        iterations += result.iterations
        seconds += result.seconds
        nodes += result.nodes
    mean = sum(values) / len(values)
    half = 0.0
    if len(values) > 1:
        var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
        half = 1.96 * math.sqrt(var / len(values))
    ranked = sorted(replies.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "seat": seat, "to_act": False, "hand": list(obs["hand"]), "acting_seat": actor,
        "samples": samples, "iterations": iterations, "seconds": seconds,
        "iterations_per_second": iterations / seconds if seconds > 0 else 0.0,
        "nodes": nodes, "workers": searcher.workers,
        "value": mean, "low": max(0.0, mean - half), "high": min(1.0, mean + half),
        "win_chance": win_chance(obs, seat, mean, max(0.0, mean - half), min(1.0, mean + half)),
        "sample_values": values,
        "replies": [{"move": m, "share": v} for m, v in ranked],
    }


def analyse(searcher: ISMCTS, obs: dict, limits: Limits, seed: int = 0,
            samples: int = DEFAULT_SAMPLES, progress: ProgressFactory = _no_progress) -> dict:
    """Analyse a position for the observing seat: rank its decisions, or estimate its value while it waits."""
    if obs["phase"] == "over":
        raise SearchError("the game is over: there is no decision to analyse")
    seat = obs["seat"]
    if obs["to_act"] == seat:
        return analyse_to_act(searcher, obs, seat, limits, seed, progress)
    return analyse_waiting(searcher, obs, seat, limits, seed, samples, progress)
