"""`tne-ai review RECORD`: where each seat lost value, decision by decision (search.review).

Every decision of the seats asked is searched from that seat's knowledge at
that moment; the text report lists each decision's best alternative, the
values, the loss, its 95% lower bound, its mark and the decisions as good as
the best (search.analysis.equally_good), then a summary per seat with its
accuracy (search.review.game_accuracy). `--json` prints search.review.review_record's plain data; `--jobs N`
shares the decisions among N processes (the result does not depend on N); a
progress bar is drawn on standard error when it is a terminal.
"""
from __future__ import annotations

import json

import click

from engine.errors import EngineError
from search.agent import Limits
from search.analysis import DEFAULT_SAMPLES
from search.review import MARKS, review_record
from tne_ai.analysis.analyze import Progress, limit_options, search_limits
from tne_ai.inputs import InputError, check_seat, read_source
from tne_ai.analysis.knowledge import is_seat_record

DEFAULT_ITERATIONS = 1_000
PLURAL = {"blunder": "blunders", "mistake": "mistakes", "inaccuracy": "inaccuracies"}


def _progress_bar(progress: Progress):
    if not progress.enabled:
        return None

    def show(done: int, total: int) -> None:
        filled = int(20 * done / total) if total else 20
        progress.show(f"review [{'#' * filled}{'.' * (20 - filled)}] {done}/{total} decisions",
                      force=done == total)
    return show


def format_review(doc: dict, source: str, all_rows: bool = True) -> str:
    """Return a review as text: one row per decision (or only the marked ones), then a summary per seat."""
    lim = doc["limits"]
    budget = (f"{lim['iterations']:,} iterations" if lim["iterations"] else f"{lim['seconds']:g} s")
    seats = " ".join(str(s) for s in doc["seats"])
    variants = f", variants {','.join(doc['variants'])}" if doc["variants"] else ""
    end = f" ({doc['end_reason']})" if doc["end_reason"] else " (unfinished)"
    out = [f"{source}: {doc['players']} players, {doc['board']} board{variants}, {doc['plies']} decisions{end}; "
           f"seat(s) {seats} reviewed at {budget} a decision, seed {doc['seed']}"]
    rows = doc["decisions"] if all_rows else [d for d in doc["decisions"] if d["mark"]]
    out.append("")
    chance = doc.get("loss_units", "win chance") == "win chance"
    out.append(f"{'ply':>4} {'seat':>4}  {'played':<16} {'best':<16} {'best':>6} {'played':>7} "
               f"{'loss':>6} {'low':>6}  mark")
    for d in rows:
        flag = "" if d["played_value_from"] == "search" else "*"
        best, played = (d["best_win"], d["played_win"]) if chance else (d["best_value"], d["played_value"])
        out.append(f"{d['ply']:>4} {d['seat']:>4}  {d['played']:<16} {d['best']:<16} {best:>6.3f} "
                   f"{played:>6.3f}{flag:1} {d['loss']:>6.3f} {d['loss_low']:>6.3f}  "
                   f"{d['mark'] or ''}{tie_note(d)}".rstrip())
    if not rows:
        out.append("   (no marked decision)")
    out.append("")
    for s in doc["summary"]:
        marks = ", ".join(f"{s['marks'][name]} {name if s['marks'][name] == 1 else PLURAL[name]}"
                          for name, _ in MARKS)
        accuracy = (f"accuracy {s['accuracy']:.1f}%" if s["accuracy"] is not None else "no accuracy "
                    "(no win-chance map for this game)")
        out.append(f"seat {s['seat']}: {accuracy}; {s['decisions']} decisions, the engine's choice "
                   f"{s['agreed']} times, one of its equals {s['equal']} times, mean loss {s['mean_loss']:.3f}; {marks}")
        if s["largest"]:
            out.append("  largest losses: " + "; ".join(
                f"ply {x['ply']} {x['played']} (best {x['best']}) {x['loss']:.3f}" for x in s["largest"]))
    units = ("best and played: the seat's chance of winning the game after each; loss: the drop in that chance"
             if chance else "best and played: search values (no win-chance map for this game); loss: their difference")
    out.append(units)
    if chance:
        out.append("accuracy: 100 when every decision is the engine's best or one of its equals; each decision "
                   "103.1668 * exp(-0.04354 * loss in points) - 3.1669, a seat the mean of its decisions' "
                   "arithmetic and harmonic means (docs/analysis.md)")
    out.append("equal: decisions the search cannot tell from the best (their 95% intervals overlap; --json "
               "equally_good lists them); playing one loses nothing")
    out.append("marks by loss: "
               + ", ".join(f"{name} >= {threshold:.2f}" for name, threshold in reversed(MARKS))
               + " (by low, the loss's 95% lower bound); * both values from equal searches just after each decision")
    return "\n".join(out)


def tie_note(d: dict) -> str:
    """Return a review row's tail saying when the engine's best was tied with others (the list is in --json)."""
    n = len(d.get("equally_good") or [d["best"]])
    if n < 2:
        return ""
    if d["played"] == d["best"]:
        return f"  best of {n} equal"
    if d["played"] in d["equally_good"]:
        return f"  equal to best ({n} equal)"
    return f"  best one of {n} equal"


@click.command("review", epilog="RECORD: a game record file (engine/record.py; tne-ai match --record-dir "
               "writes them) or - for stdin.")
@click.argument("record")
@click.option("--seat", "seats", type=click.IntRange(min=0), multiple=True,
              help="A seat to review (repeat for several; default every seat).")
@limit_options("decision", DEFAULT_ITERATIONS)
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes reviewing decisions in parallel (the result does not depend on it).")
@click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=0, show_default=True,
              help="Review seed (with an iteration limit the review is reproducible).")
@click.option("--samples", type=click.IntRange(1, 1000), default=DEFAULT_SAMPLES, show_default=True,
              help="Worlds dealt when a decision's value is taken while another seat acts.")
@click.option("--marked", is_flag=True, help="List only the marked decisions (the summary covers all).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
def review_command(record, seats, iterations, movetime, seconds, jobs, seed, samples, marked, as_json):
    """Review a game: each decision of a seat searched from its knowledge then, with the value it lost."""
    limits: Limits = search_limits(iterations, movetime, seconds, DEFAULT_ITERATIONS)
    text, source = read_source(record)
    if is_seat_record(text):
        raise InputError(f"{source} is a seat record (protocol lines); review reads a whole game record "
                         "(engine/record.py), whose every seat's knowledge it can rebuild")
    if not text.strip():
        raise InputError(f"{source}: empty: expected a game record")
    progress = Progress()
    try:
        doc = review_record(text, sorted(set(seats)) if seats else None, limits, seed, jobs, samples,
                            progress=_progress_bar(progress))
    except EngineError as e:
        message = str(e)
        if "out of range" in message and seats:
            message = "--seat " + message.split("seat ", 1)[1]
        raise InputError(f"bad game record ({source}): {message}" if "--seat" not in message else message) from None
    finally:
        progress.clear()
    if seats:
        check_seat(max(seats), doc["players"])
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(format_review(doc, source, not marked))
