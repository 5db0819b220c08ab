"""Review of a finished game: every decision of a seat searched from that seat's knowledge then.

For each decision the seat made, the search is given the seat's observation
just before it (engine.info, R-INFO-1: the board, the public counts and its
own tiles, never the true hidden tiles) and reports:

- the engine's best decision and its value (the most visited candidate's
  mean reward for the seat, 0..1);
- the value of the decision played: its own mean when the search visited it
  at least PLAYED_MIN_VISITS times, otherwise a second search of the same
  size from the seat's knowledge just after it (ranking its next decision
  when it is still to act, else the mean over worlds dealt from what it
  knows, search.analysis.analyse_waiting); the value after includes the
  tiles the decision drew for it, which it then knows;
- the loss: best value less played value, never below 0, and 0 when the
  decision played is the engine's best;
- a mark by the loss (MARKS): `inaccuracy` from 0.05, `mistake` from 0.10,
  `blunder` from 0.20 (a loss of 0.10 is ten points of win chance).

Decisions are searched independently with seeds derived from the review's
seed and the decision's number (ply), so the result is the same however many
processes (`jobs`) share the work. Everything returned is plain data.
"""
from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
import random
from typing import Callable, Iterable, Optional

import engine
from engine.actions import format_action
from engine.info import determinize, observation
from engine.record import record_start, replay_record
from search.agent import Limits, SearchError
from search.analysis import DEFAULT_SAMPLES, analyse
from search.arena.backends import exit_with_parent
from search.ismcts import ISMCTS, worker_seed
from search.params import SearchParams

PLAYED_MIN_VISITS = 10
# (mark, smallest loss), largest first
MARKS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))
LARGEST_SHOWN = 5


def mark_for(loss: float) -> Optional[str]:
    """Return the mark a loss earns (blunder, mistake, inaccuracy) or None."""
    for name, threshold in MARKS:
        if loss >= threshold - 1e-12:
            return name
    return None


def record_decisions(text: str, seats: Optional[Iterable[int]] = None) -> tuple:
    """Return (header facts, decision items) of a full game record, for the seats asked (default all).

    An item is (ply, seat, observation before, action played, observation of
    the same seat after); the observations hold only what that seat knew.
    """
    final, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
    state = record_start(text, engine.new_game, engine.State.from_snapshot)
    players = state.players
    wanted = set(range(players)) if seats is None else set(seats)
    for s in wanted:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < players:
            raise SearchError(f"seat {s!r} is out of range: this game has seats 0..{players - 1}")
    items = []
    snap = state.snapshot()
    for ply, action in enumerate(actions):
        actor = snap["to_act"]
        state.apply(action)
        after = state.snapshot()
        if actor in wanted:
            items.append((ply, actor, observation(snap, actor), action, observation(after, actor)))
        snap = after
    facts = {"players": players, "board": snap["board"], "variants": list(snap.get("variants") or []),
             "plies": len(actions), "end_reason": final.snapshot()["end_reason"],
             "result": final.result() if final.is_terminal() else None}
    return facts, items


def _played_value(searcher: ISMCTS, after: dict, seat: int, limits: Limits, seed: int, samples: int) -> float:
    """Return the seat's value just after its decision, from what it knows then."""
    if after["phase"] == "over":
        world = engine.State.from_snapshot(determinize(after, seat, random.Random(seed)))
        ranks = world.result()
        best = min(ranks)
        winners = ranks.count(best)
        return 1.0 / winners if ranks[seat] == best else 0.0
    a = analyse(searcher, after, limits, seed, samples)
    return a["candidates"][0]["mean"] if a["to_act"] else a["value"]


def review_decision(searcher: ISMCTS, item: tuple, limits: Limits, seed: int,
                    samples: int = DEFAULT_SAMPLES) -> dict:
    """Search one decision from its seat's knowledge; return best, played, values, loss and mark."""
    ply, seat, before, action, after = item
    s = worker_seed(seed, ply)
    result = searcher.search(before, seat, limits, seed=s)
    best = result.candidates[0]
    played = next((c for c in result.candidates if c.action == action), None)
    if action == best.action:
        played_value, source = best.mean, "search"
    elif played is not None and played.visits >= PLAYED_MIN_VISITS:
        played_value, source = played.mean, "search"
    else:
        played_value, source = _played_value(searcher, after, seat, limits, worker_seed(s, 1), samples), "after"
    loss = 0.0 if action == best.action else max(0.0, best.mean - played_value)
    return {
        "ply": ply, "seat": seat, "played": format_action(action), "played_action": action,
        "best": best.move, "best_action": best.action, "best_value": best.mean,
        "played_value": played_value, "played_value_from": source,
        "played_visits": 0 if played is None else played.visits,
        "loss": loss, "mark": mark_for(loss), "candidates": len(result.candidates),
        "iterations": result.iterations, "seconds": result.seconds,
    }


def summarise(decisions: list, players: int) -> list:
    """Return per seat: decisions reviewed, mean loss, marks counted, the largest losses with their ply."""
    out = []
    for seat in range(players):
        mine = [d for d in decisions if d["seat"] == seat]
        if not mine:
            continue
        largest = sorted(mine, key=lambda d: (-d["loss"], d["ply"]))[:LARGEST_SHOWN]
        out.append({
            "seat": seat, "decisions": len(mine),
            "mean_loss": sum(d["loss"] for d in mine) / len(mine),
            "agreed": sum(d["played_action"] == d["best_action"] for d in mine),
            "marks": {name: sum(d["mark"] == name for d in mine) for name, _ in MARKS},
            "largest": [{"ply": d["ply"], "played": d["played"], "best": d["best"], "loss": d["loss"],
                         "mark": d["mark"]} for d in largest if d["loss"] > 0],
        })
    return out


# ---------------------------------------------------------------- running

_WORKER = {}


def _worker_init(parent: int, params: SearchParams, limits: Limits, seed: int, samples: int) -> None:
    exit_with_parent(parent)
    _WORKER.update(searcher=ISMCTS(params), limits=limits, seed=seed, samples=samples)


def _worker_review(item: tuple) -> dict:
    w = _WORKER
    return review_decision(w["searcher"], item, w["limits"], w["seed"], w["samples"])


def review_items(items: list, limits: Limits = Limits(iterations=1000), seed: int = 0, jobs: int = 1,
                 samples: int = DEFAULT_SAMPLES, params: SearchParams = SearchParams(),
                 progress: Optional[Callable[[int, int], None]] = None) -> list:
    """Review decision items (record_decisions) in `jobs` processes; return the reviews in ply order."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise SearchError(f"jobs must be a positive int, got {jobs!r}")
    if limits.iterations is None and limits.seconds is None:
        raise SearchError("give the review an iteration or a time limit")
    out = []
    if jobs == 1 or len(items) <= 1:
        searcher = ISMCTS(params)
        for item in items:
            out.append(review_decision(searcher, item, limits, seed, samples))
            if progress is not None:
                progress(len(out), len(items))
        return out
    # an executor, not a Pool: a worker that cannot start breaks it with an error instead of a hang
    with ProcessPoolExecutor(min(jobs, len(items)), mp_context=mp.get_context("spawn"),
                             initializer=_worker_init, initargs=(os.getpid(), params, limits, seed, samples)) as pool:
        try:
            for review in pool.map(_worker_review, items):
                out.append(review)
                if progress is not None:
                    progress(len(out), len(items))
        except BrokenProcessPool as e:
            raise SearchError(f"a review process died: {e}") from None
    return out


def review_record(text: str, seats: Optional[Iterable[int]] = None, limits: Limits = Limits(iterations=1000),
                  seed: int = 0, jobs: int = 1, samples: int = DEFAULT_SAMPLES,
                  params: SearchParams = SearchParams(),
                  progress: Optional[Callable[[int, int], None]] = None) -> dict:
    """Review every decision of `seats` (default all) in a full game record; return plain data.

    The result holds the game's facts, the limits and seed, `decisions` (one
    review per decision, in ply order, see review_decision), `summary` (per
    seat, see summarise) and `thresholds` (the marks' smallest losses).
    """
    facts, items = record_decisions(text, seats)
    decisions = review_items(items, limits, seed, jobs, samples, params, progress)
    return {
        **facts,
        "seats": sorted({it[1] for it in items}) if seats is None else sorted(set(seats)),
        "limits": {"iterations": limits.iterations, "seconds": limits.seconds},
        "seed": seed, "samples": samples,
        "thresholds": {name: threshold for name, threshold in MARKS},
        "decisions": decisions,
        "summary": summarise(decisions, facts["players"]),
    }
