"""`tne-ai analyze`: search a position and rank its candidate decisions.

The search is given one seat's observation (engine.info.observation, R-INFO-1)
and never the full state, so the analysis of a seat cannot depend on tiles
that seat cannot see. For the seat to act, ISMCTS ranks its decisions (visits,
mean value, 95% bounds, principal variation). A seat that is not to act has
no decision to rank; its value of the position is estimated from its own
observation alone: worlds are dealt from what it knows (engine.info.determinize)
and in each the acting seat's search, given the observation the acting seat
would have in that world, reports every seat's value at the root. The mean
of those values over the worlds is the analysed seat's value, and the acting
seat's choices there are the replies it expects.
"""
from __future__ import annotations

import json
import math
import random
import sys
import time
from typing import Optional

import click

from engine.info import determinize, observation
from engine.position import format_position
from engine.render import render
from search.agent import Limits, SearchError
from search.ismcts import ISMCTS, SearchResult, worker_seed
from tne_ai.debug import InputError, Loaded, check_seat, load_input, load_sample, require_state

DEFAULT_ITERATIONS = 10_000
DEFAULT_SAMPLES = 8


class Progress:
    """A one-line progress report on stderr, redrawn in place, shown only on a terminal."""

    def __init__(self, enabled: Optional[bool] = None):
        stream = sys.stderr
        self.enabled = stream.isatty() if enabled is None else enabled
        self.stream = stream
        self.last = 0.0
        self.width = 0

    def show(self, text: str) -> None:
        """Redraw the line (at most ten times a second)."""
        now = time.monotonic()
        if not self.enabled or now - self.last < 0.1:
            return
        self.last = now
        self.width = max(self.width, len(text))
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()

    def clear(self) -> None:
        """Erase the line."""
        if self.enabled and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

    def search_callback(self, label: str, limits: Limits):
        """Return an ISMCTS progress callback that shows iterations, speed and the best so far."""
        if not self.enabled:
            return None

        def report(r: SearchResult) -> None:
            best = r.candidates[0] if r.candidates else None
            bar = ""
            if limits.iterations:
                done = min(1.0, r.iterations / limits.iterations)
                bar = "[" + "#" * int(done * 20) + "." * (20 - int(done * 20)) + "] "
            self.show(f"{label} {bar}{r.iterations:,} iterations, {r.iterations_per_second:,.0f}/s"
                      + (f", best {best.move} {best.mean:.3f}" if best else ""))
        return report


def _candidate_json(rank: int, c) -> dict:
    return {"rank": rank, "move": c.move, "action": c.action, "visits": c.visits,
            "availability": c.availability, "mean": c.mean, "low": c.low, "high": c.high,
            "pv": [c.move] + list(c.pv)}


def analyse_to_act(searcher: ISMCTS, obs: dict, seat: int, limits: Limits, seed: int,
                   progress: Progress) -> dict:
    """Search the decision of the seat to act from its observation; return the analysis."""
    result = searcher.search(obs, seat, limits, seed=seed,
                             progress=progress.search_callback(f"seat {seat}", limits))
    progress.clear()
    return {
        "seat": seat, "to_act": True, "hand": obs["hand"],
        "iterations": result.iterations, "seconds": result.seconds,
        "iterations_per_second": result.iterations_per_second,
        "nodes": result.nodes, "workers": result.workers,
        "value": result.root_value[seat], "root_value": list(result.root_value),
        "best": result.best_move,
        "candidates": [_candidate_json(i + 1, c) for i, c in enumerate(result.candidates)],
    }


def analyse_waiting(searcher: ISMCTS, obs: dict, seat: int, limits: Limits, seed: int,
                    samples: int, progress: Progress) -> dict:
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
                                 progress=progress.search_callback(
                                     f"seat {seat}, world {k + 1}/{samples}", share))
        values.append(result.root_value[seat])
        total = sum(c.visits for c in result.candidates) or 1
        for c in result.candidates:
            replies[c.move] = replies.get(c.move, 0.0) + c.visits / total / samples
        iterations += result.iterations
        seconds += result.seconds
        nodes += result.nodes
    progress.clear()
    mean = sum(values) / len(values)
    half = 0.0
    if len(values) > 1:
        var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
        half = 1.96 * math.sqrt(var / len(values))
    ranked = sorted(replies.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "seat": seat, "to_act": False, "hand": obs["hand"], "acting_seat": actor,
        "samples": samples, "iterations": iterations, "seconds": seconds,
        "iterations_per_second": iterations / seconds if seconds > 0 else 0.0,
        "nodes": nodes, "workers": searcher.workers,
        "value": mean, "low": max(0.0, mean - half), "high": min(1.0, mean + half),
        "sample_values": values,
        "replies": [{"move": m, "share": v} for m, v in ranked],
    }


def _letters(counts) -> str:
    return "".join("krbg"[c] * n for c, n in enumerate(counts)) or "-"


def format_analysis(a: dict, top: int) -> str:
    """Return one seat's analysis as text."""
    seat = a["seat"]
    speed = (f"{a['iterations']:,} iterations in {a['seconds']:.2f} s "
             f"({a['iterations_per_second']:,.0f}/s), {a['workers']} worker(s), {a['nodes']:,} nodes")
    out = []
    if a["to_act"]:
        out.append(f"seat {seat} to act, hand {_letters(a['hand'])}: {speed}")
        out.append(f"value for seat {seat}: {a['value']:.3f}   (root value per seat: "
                   + " ".join(f"{v:.3f}" for v in a["root_value"]) + ")")
        shown = a["candidates"] if top == 0 else a["candidates"][:top]
        out.append("")
        out.append(f"{'rank':>4}  {'decision':<16}{'visits':>8}{'avail':>8}{'value':>8}  "
                   f"{'95% bounds':<13}  pv")
        for c in shown:
            out.append(f"{c['rank']:>4}  {c['move']:<16}{c['visits']:>8,}{c['availability']:>8,}"
                       f"{c['mean']:>8.3f}  {c['low']:.3f}-{c['high']:.3f}  " + ", ".join(c["pv"]))
        hidden = len(a["candidates"]) - len(shown)
        if hidden > 0:
            out.append(f"      ... {hidden} more visited decision(s) (--top 0 lists all)")
        out.append(f"best {a['best']}")
    else:
        out.append(f"seat {seat} (seat {a['acting_seat']} to act), hand {_letters(a['hand'])}: "
                   f"{a['samples']} worlds dealt from seat {seat}'s knowledge, {speed}")
        out.append(f"value for seat {seat}: {a['value']:.3f}  95% bounds {a['low']:.3f}-{a['high']:.3f}")
        replies = a["replies"][:top or None][:5]
        if replies:
            out.append(f"expected from seat {a['acting_seat']}: "
                       + ", ".join(f"{r['move']} ({100 * r['share']:.0f}%)" for r in replies))
    return "\n".join(out)


def _limits(iterations, movetime, seconds) -> Limits:
    if movetime is not None and seconds is not None:
        raise click.UsageError("give --movetime (milliseconds) or --seconds, not both")
    secs = seconds if seconds is not None else (movetime / 1000.0 if movetime is not None else None)
    if iterations is None and secs is None:
        iterations = DEFAULT_ITERATIONS
    return Limits(iterations, secs)


@click.command("analyze", epilog="POSITION_OR_FILE: a position string (hidden part included), a file "
               "with one, a game record, or - for stdin; none: a built-in sample mid-game.")
@click.argument("position_or_file", required=False)
@click.option("--ply", type=click.IntRange(min=0), help="With a game record: the position after N decisions.")
@click.option("--seat", type=click.IntRange(min=0), help="Seat to analyse for (default: the seat to act).")
@click.option("--all-seats", is_flag=True, help="Analyse from every seat's point of view.")
@click.option("--iterations", type=click.IntRange(min=1),
              help=f"Search iterations per seat (default {DEFAULT_ITERATIONS:,} when no time is given).")
@click.option("--movetime", type=click.IntRange(min=1), help="Search time per seat, milliseconds.")
@click.option("--seconds", type=click.FloatRange(min=0, min_open=True), help="Search time per seat, seconds.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes searching in parallel (root parallelism).")
@click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=0, show_default=True,
              help="Search seed (an iteration-limited search is reproducible).")
@click.option("--samples", type=click.IntRange(1, 1000), default=DEFAULT_SAMPLES, show_default=True,
              help="Worlds dealt for a seat that is not to act.")
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True,
              help="Candidates listed (0: all); --json always lists all.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.option("--no-board", is_flag=True, help="Do not print the board.")
def analyze_command(position_or_file, ply, seat, all_seats, iterations, movetime, seconds, workers,
                    seed, samples, top, as_json, no_board):
    """Search a position and rank the candidate decisions of a seat."""
    limits = _limits(iterations, movetime, seconds)
    if position_or_file is None:
        loaded: Loaded = load_sample(ply)
    else:
        loaded = load_input(position_or_file, ply)
    state = require_state(loaded, "analyze")
    snap = loaded.snapshot
    if all_seats and seat is not None:
        raise click.UsageError("give --seat or --all-seats, not both")
    check_seat(seat, snap["players"])
    if state.is_terminal():
        raise InputError(f"the game is over ({snap['end_reason']}) in {loaded.source}: there is no "
                         "decision to analyse" + (" (try --ply N)" if loaded.kind == "record" else ""))
    actor = state.to_act
    seats = list(range(snap["players"])) if all_seats else [actor if seat is None else seat]
    progress = Progress()
    searcher = ISMCTS(workers=workers)
    analyses = []
    try:
        for s in seats:
            obs = observation(snap, s)       # the search sees this and nothing else
            if s == actor:
                analyses.append(analyse_to_act(searcher, obs, s, limits, seed, progress))
            else:
                analyses.append(analyse_waiting(searcher, obs, s, limits, seed, samples, progress))
    except SearchError as e:
        raise InputError(f"cannot search this position: {e}") from e
    finally:
        progress.clear()
        searcher.close()
    if as_json:
        doc = {
            "input": loaded.describe(), "ply": loaded.ply, "players": snap["players"],
            "board": snap["board"], "variants": list(snap.get("variants") or []),
            "phase": snap["phase"], "to_act": actor,
            "turn_owner": snap["turn_owner"], "position": format_position(snap),
            "limits": {"iterations": limits.iterations, "seconds": limits.seconds},
            "seed": seed, "workers": workers, "analyses": analyses,
        }
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(loaded.describe())
    if not no_board:
        click.echo(render(snap, seats[0] if len(seats) == 1 else None))
    for i, a in enumerate(analyses):
        if i:
            click.echo("")
        click.echo(format_analysis(a, top))
