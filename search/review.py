"""Review of a finished game: every decision of a seat searched from that seat's knowledge then.

For each decision the seat made, the search is given the seat's observation
just before it (engine.info, R-INFO-1: the board, the public counts and its
own tiles, never the true hidden tiles) and reports:

- the engine's best decision (the most visited candidate);
- when the decision played is not the engine's best, the value of each of
  the two, like with like: one world is dealt from the seat's knowledge
  before the decision, each decision is applied to it (any tiles it draws
  come from that world's bag, the same for both) and the seat's observation
  after it is valued by a search of the review's size (ranking its next
  decision when it is still to act, else the mean over worlds dealt from
  what it knows, search.analysis.analyse_waiting), both with one seed
  (common random numbers). `best_value` and `played_value` are these
  search values, `best_win` and `played_win` the win chances they give
  (search.calibration: the seat's chance of winning the game from there);
  comparing the best candidate's root mean (the largest of several noisy
  means) with the played decision's would count noise as loss;
- when the decision played is the engine's best: no further search, both
  values are its root mean and the loss is 0;
- the loss: the drop in win chance, best_win less played_win, never below
  0, with a 95% interval (`loss_low`, `loss_high`: the difference plus or
  minus the two chances' 95% half-widths added in quadrature, each from its
  search's own bound; never below 0). Where no calibration map ships (a
  board or player count without one) the loss is in search values and
  `loss_units` says so;
- a mark by the interval's lower bound (MARKS), so only a loss the noise
  does not explain is marked: `inaccuracy` from 0.05, `mistake` from 0.10,
  `blunder` from 0.20 (a loss of 0.10 is ten points of win chance);
- `equally_good`: the engine's best and the decisions its root search
  cannot tell from it (search.analysis.equally_good: 95% intervals that
  overlap the best one's). A decision played that is one of them is
  treated like the best: no further search, its loss is 0 (the search
  cannot say it lost anything);
- `accuracy`: 0..100 from the loss (decision_accuracy, Lichess's curve);
  None where the loss is not in win chance.

Accuracy. A decision's accuracy is Lichess's curve of the drop in win
chance d, in percentage points (d = 100 * loss):

    accuracy(d) = 103.1668 * exp(-0.04354 * d) - 3.1669, clipped to 0..100

so 100 is a decision the search cannot fault (d = 0, where the curve's
99.9999 is taken as 100), 5 points of win chance lost gives 79.8, 10 gives 63.6, 20 gives
40.0, 50 gives 8.5, and from 80 on it is 0. A seat's game accuracy
(game_accuracy) is the mean of two means of its decisions' accuracies: the
arithmetic mean, and the harmonic mean (each accuracy counted as at least
1), which a few bad decisions pull down much more than many good ones pull
up, as a game is lost by its worst decisions. 100 means every decision was the engine's best, or one the
search cannot tell from it. Lichess also weights its arithmetic mean by the
game's volatility; that is left out here, so every decision counts alike.
Where no calibration map ships (`loss_units` "search value") the loss is
not a drop in win chance, the curve does not apply and the accuracy is
None, with the reason (ACCURACY_NO_MAP).

A decision costs one search of the review's size, three when the decision
played is neither the engine's best nor one of its equals (`searches`).

A decision tried in place of the one played (the web review's "Learn from
your mistakes", try_decision) is valued the same way, with the seed the
review used for the played and best decisions, so the three compare like with
like and the played and best values are the review's own.

Decisions are searched independently with seeds derived from the review's
seed and the decision's number (ply), so the result is the same however many
processes (`jobs`) share the work. Everything returned is plain data.
"""
from __future__ import annotations

import math
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
from search.analysis import DEFAULT_SAMPLES, analyse, candidate_json, equally_good
from search.calibration import load_map, win_chance
from search.arena.backends import exit_with_parent
from search.ismcts import ISMCTS, worker_seed
from search.params import SearchParams

# (mark, smallest loss), largest first
MARKS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))
LARGEST_SHOWN = 5
# Lichess's accuracy curve of the drop in win chance, in percentage points
ACCURACY_SCALE, ACCURACY_DECAY, ACCURACY_OFFSET = 103.1668, 0.04354, 3.1669
ACCURACY_NO_MAP = ("no accuracy: no win-chance map ships for this player count and board, so the loss is in "
                   "search values, not a drop in win chance")


def decision_accuracy(loss: float) -> float:
    """Return a decision's accuracy, 0..100, from its loss in win chance (0..1): Lichess's curve, see above."""
    drop = 100.0 * max(0.0, loss)
    if drop == 0.0:
        return 100.0        # the curve's 99.9999 there is the rounding of its constants
    return min(100.0, max(0.0, ACCURACY_SCALE * math.exp(-ACCURACY_DECAY * drop) - ACCURACY_OFFSET))


def game_accuracy(accuracies: list) -> Optional[float]:
    """Return a seat's game accuracy: the mean of the arithmetic and harmonic means of its decisions' accuracies."""
    if not accuracies:
        return None
    arithmetic = sum(accuracies) / len(accuracies)
    harmonic = len(accuracies) / sum(1.0 / max(1.0, a) for a in accuracies)
    return (arithmetic + harmonic) / 2


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


def _chance(obs: dict, seat: int, value: float, low: float, high: float) -> tuple:
    """Return (win chance, low, high) of a search value in a position (search.calibration); the value itself without a map."""
    c = win_chance(obs, seat, value, low, high)
    return (c["win"], c["low"], c["high"]) if c is not None else (value, low, high)


def _value_after(searcher: ISMCTS, after: dict, seat: int, limits: Limits, seed: int, samples: int) -> tuple:
    """Return ((value, low, high), (win chance, low, high)): the seat's value just after a decision, from what it knows then."""
    if after["phase"] == "over":
        world = engine.State.from_snapshot(determinize(after, seat, random.Random(seed)))
        ranks = world.result()
        best = min(ranks)
        value = 1.0 / ranks.count(best) if ranks[seat] == best else 0.0
        return (value, value, value), (value, value, value)
    a = analyse(searcher, after, limits, seed, samples)
    top = a["candidates"][0] if a["to_act"] else a
    value = (top["mean"] if a["to_act"] else top["value"]), top["low"], top["high"]
    c = top["win_chance"]          # the analysis has it already
    return value, ((c["win"], c["low"], c["high"]) if c is not None else value)


def decision_value(searcher: ISMCTS, before: dict, action: int, seat: int, limits: Limits, seed: int,
                   samples: int = DEFAULT_SAMPLES) -> tuple:
    """Return ((value, low, high), (win chance, low, high)) of one decision from the seat's knowledge before it.

    A world is dealt from that knowledge with `seed` (the tiles the decision
    may draw come from its bag), the decision is applied, and the seat's
    observation after it is valued by a search of `limits` (_value_after).
    Two decisions valued with the same seed share the world and the search
    seed (common random numbers), so their difference carries less noise.
    """
    world = engine.State.from_snapshot(determinize(before, seat, random.Random(seed)))
    world.apply(action)
    return _value_after(searcher, observation(world.snapshot(), seat), seat, limits, worker_seed(seed, 1), samples)


def review_decision(searcher: ISMCTS, item: tuple, limits: Limits, seed: int,
                    samples: int = DEFAULT_SAMPLES) -> dict:
    """Search one decision from its seat's knowledge; return best, played, values, loss and mark."""
    ply, seat, before, action, after = item
    s = worker_seed(seed, ply)
    result = searcher.search(before, seat, limits, seed=s)
    best = result.candidates[0]
    played = next((c for c in result.candidates if c.action == action), None)
    tied = equally_good([candidate_json(i + 1, c) for i, c in enumerate(result.candidates)])
    if action == best.action or any(c["action"] == action for c in tied):
        # the engine's best or one the search cannot tell from it: nothing is lost
        best_value, played_value = best.mean, played.mean
        best_win = _chance(before, seat, best.mean, best.low, best.high)[0]
        played_win = _chance(before, seat, played.mean, played.low, played.high)[0]
        raw, low, high, source, searches = 0.0, 0.0, 0.0, "search", 1
    else:
        # like with like: both decisions valued by equal searches from one dealt world, one seed
        w = worker_seed(s, 1)
        (best_value, _, _), (best_win, b_low, b_high) = decision_value(
            searcher, before, best.action, seat, limits, w, samples)
        (played_value, _, _), (played_win, p_low, p_high) = decision_value(
            searcher, before, action, seat, limits, w, samples)
        raw = best_win - played_win
        half = math.hypot(max(best_win - b_low, b_high - best_win), max(played_win - p_low, p_high - played_win))
        low, high, source, searches = raw - half, raw + half, "after", 3
    loss = max(0.0, raw)
    mapped = load_map(int(before["players"]), str(before["board"])) is not None
    return {
        "ply": ply, "seat": seat, "played": format_action(action), "played_action": action,
        "best": best.move, "best_action": best.action, "best_value": best_value,
        "played_value": played_value, "played_value_from": source,
        "best_win": best_win, "played_win": played_win,
        "played_visits": 0 if played is None else played.visits,
        "search_value": best.mean,
        "loss": loss, "loss_low": max(0.0, low), "loss_high": max(0.0, high),
        "mark": mark_for(max(0.0, low)),
        "accuracy": decision_accuracy(loss) if mapped else None,
        "equally_good": [c["move"] for c in tied],
        "candidates": len(result.candidates),
        "iterations": result.iterations, "seconds": result.seconds, "searches": searches,
    }


def summarise(decisions: list, players: int) -> list:
    """Return per seat: decisions reviewed, accuracy, mean loss, marks counted, the largest losses with their ply."""
    out = []
    for seat in range(players):
        mine = [d for d in decisions if d["seat"] == seat]
        if not mine:
            continue
        largest = sorted(mine, key=lambda d: (-d["loss"], d["ply"]))[:LARGEST_SHOWN]
        accuracies = [d["accuracy"] for d in mine]
        known = None not in accuracies
        out.append({
            "seat": seat, "decisions": len(mine),
            "accuracy": game_accuracy(accuracies) if known else None,
            **({} if known else {"accuracy_note": ACCURACY_NO_MAP}),
            "mean_loss": sum(d["loss"] for d in mine) / len(mine),
            "agreed": sum(d["played_action"] == d["best_action"] for d in mine),
            "equal": sum(d["played_action"] != d["best_action"] and d["played"] in d["equally_good"] for d in mine),
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
        "loss_units": loss_units(facts["players"], facts["board"]),
        "decisions": decisions,
        "summary": summarise(decisions, facts["players"]),
    }


# ---------------------------------------------------------------- trying another decision


def valuation_seed(seed: int, ply: int) -> int:
    """Return the seed review_decision values the best and played decisions of `ply` with, in a review of `seed`."""
    return worker_seed(worker_seed(seed, ply), 1)


def loss_units(players: int, board: str) -> str:
    """Return what a review's values and losses are on a board: "win chance" where a calibration map ships, else "search value"."""
    return "win chance" if load_map(players, board) is not None else "search value"


def _interval(chance: tuple) -> dict:
    win, low, high = chance
    return {"win": win, "low": low, "high": high}


def try_decision(searcher: ISMCTS, item: tuple, tried: int, best: int, limits: Limits, seed: int,
                 samples: int = DEFAULT_SAMPLES) -> dict:
    """Value a decision tried in place of the one played, like review_decision values the played one.

    `item` is the decision's (record_decisions), `best` the review's best
    decision there, `limits` and `seed` the review's. The tried, played and
    best decisions are each valued by decision_value from the seat's
    knowledge before the decision (never the true hidden tiles), with the
    seed the review used for the played and the best (valuation_seed): common
    random numbers, and the played and best values are the review's own.
    `gain` is the tried decision's win chance less the played one's, with a
    95% interval as the review's loss has (the two half-widths in
    quadrature); the verdict is `better` when the interval lies above 0,
    `worse` when below, `played` for the decision played itself, else `same`
    (about as good: the search cannot tell them apart). `loss` is the tried decision's loss against the best, as the
    review would count it, and `mark` the mark it would earn. `units` says
    what the numbers are (loss_units): win chances, or search values where
    no calibration map ships.
    """
    ply, seat, before, played, _ = item
    w = valuation_seed(seed, ply)
    values = {}
    for action in dict.fromkeys((tried, played, best)):
        searcher.forget()
        values[action] = decision_value(searcher, before, action, seat, limits, w, samples)[1]
    t, p, b = values[tried], values[played], values[best]

    def half(c: tuple) -> float:
        return max(c[0] - c[1], c[2] - c[0])

    gain = t[0] - p[0]
    g_half = math.hypot(half(t), half(p)) if tried != played else 0.0
    loss, l_half = b[0] - t[0], (math.hypot(half(b), half(t)) if tried != best else 0.0)
    verdict = ("played" if tried == played else "better" if gain - g_half > 0
               else "worse" if gain + g_half < 0 else "same")
    return {
        "ply": ply, "seat": seat, "tried": format_action(tried), "played": format_action(played),
        "best": format_action(best), "is_played": tried == played, "is_best": tried == best,
        "tried_win": _interval(t), "played_win": _interval(p), "best_win": _interval(b),
        "gain": gain, "gain_low": gain - g_half, "gain_high": gain + g_half, "verdict": verdict,
        "loss": max(0.0, loss), "loss_low": max(0.0, loss - l_half), "loss_high": max(0.0, loss + l_half),
        "mark": mark_for(max(0.0, loss - l_half)),
        "searches": len(values), "iterations": limits.iterations, "seed": seed,
        "units": loss_units(before["players"], before["board"]),
    }
