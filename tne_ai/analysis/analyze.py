"""`tne-ai analyze`: search a position from one seat's knowledge and rank its candidate decisions.

The search is given one seat's observation (engine.info, R-INFO-1) and never
the full state, so the analysis of a seat cannot depend on tiles that seat
cannot see. The input is whatever a player has (tne_ai.analysis.knowledge): a public
position plus `--hand`, a seat record (the protocol lines a seat was sent),
`startpos --hand ...`, or a full position or game record, which is cut to
the seat's share before anything is searched. The analysis itself is
search.analysis: the seat to act gets its decisions ranked; a seat that is
not to act gets its value from worlds dealt from its own knowledge.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import Optional

import click

from engine.errors import EngineError
from engine.info import unknown_own_swapped
from engine.position import format_position
from engine.render import legend, render
from engine.svg import board_svg, decision_squares
from engine.view import letters
from search.agent import Limits, SearchError
from search.analysis import DEFAULT_SAMPLES, analyse
from search.calibration import describe_chance
from search.ismcts import ISMCTS, SearchResult
from search.params import SearchParams
from tne_ai.inputs import (STARTPOS, InputError, check_agrees, check_seat, load_game, load_sample, parse_input,
                           read_source, variants_option, write_svg)
from tne_ai.analysis.knowledge import (KnowledgeError, is_seat_record, parse_hand, parse_seat_record, parse_swapped,
                              seat_observation, start_seat_observation)

DEFAULT_ITERATIONS = 10_000


class Progress:
    """A one-line progress report on stderr, redrawn in place, shown only on a terminal."""

    def __init__(self, enabled: Optional[bool] = None):
        stream = sys.stderr
        self.enabled = stream.isatty() if enabled is None else enabled
        self.stream = stream
        self.last = 0.0
        self.width = 0

    def show(self, text: str, force: bool = False) -> None:
        """Redraw the line (at most ten times a second unless forced)."""
        now = time.monotonic()
        if not self.enabled or (not force and now - self.last < 0.1):
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


# what the candidates table's columns are, printed under it
CANDIDATES_CAPTION = ("(visits: iterations that chose it; avail: iterations in which it was legal, as the "
                      "tiles dealt to the unseen hands differ; win%: seat {seat}'s chance of winning after it; "
                      "value: the search's mean reward, 95% bounds; pv: the line expected, sN the seat deciding)")


def pv_text(c: dict) -> str:
    """Return a candidate's principal variation with the seat deciding each step: 's0 tile r c3, s1 commit 2'."""
    seats = c.get("pv_seats") or []
    return ", ".join(f"s{seats[i]} {m}" if i < len(seats) else m for i, m in enumerate(c["pv"]))


def format_analysis(a: dict, top: int) -> str:
    """Return one seat's analysis as text."""
    seat = a["seat"]
    speed = (f"{a['iterations']:,} iterations in {a['seconds']:.2f} s "
             f"({a['iterations_per_second']:,.0f}/s), {a['workers']} worker(s), {a['nodes']:,} nodes")
    out = []
    if a["to_act"]:
        out.append(f"seat {seat} to act, hand {letters(a['hand'])}: {speed}")
        out.append(describe_chance(a["win_chance"], seat))
        out.append(f"search value for seat {seat}: {a['value']:.3f}   (root value per seat: "
                   + " ".join(f"{v:.3f}" for v in a["root_value"]) + "; the search's own scale, not a chance)")
        shown = a["candidates"] if top == 0 else a["candidates"][:top]
        out.append("")
        out.append(f"{'rank':>4}  {'decision':<16}{'visits':>8}{'avail':>8}{'win%':>6}{'value':>8}  "
                   f"{'95% bounds':<13}  pv")
        for c in shown:
            win = c.get("win_chance")
            out.append(f"{c['rank']:>4}  {c['move']:<16}{c['visits']:>8,}{c['availability']:>8,}"
                       + (f"{100 * win['win']:>6.1f}" if win else f"{'-':>6}")
                       + f"{c['mean']:>8.3f}  {c['low']:.3f}-{c['high']:.3f}  " + pv_text(c))
        hidden = len(a["candidates"]) - len(shown)
        if hidden > 0:
            out.append(f"      ... {hidden} more visited decision(s) (--top 0 lists all)")
        out.append(CANDIDATES_CAPTION.format(seat=seat))
        tied = a.get("equally_good") or [a["best"]]
        if len(tied) > 1:
            listed = [m for m in tied if m in {c["move"] for c in shown}] or [a["best"]]
            more = f" and {len(tied) - len(listed)} more (--top 0 lists all)" if len(tied) > len(listed) else ""
            out.append(f"equally good as far as the search can tell (their 95% intervals overlap the most "
                       f"visited one's): {', '.join(listed)}{more}")
        else:
            out.append(f"best {a['best']}")
    else:
        out.append(f"seat {seat} (seat {a['acting_seat']} to act), hand {letters(a['hand'])}: "
                   f"{a['samples']} worlds dealt from seat {seat}'s knowledge, {speed}")
        out.append(describe_chance(a["win_chance"], seat))
        out.append(f"search value for seat {seat}: {a['value']:.3f}  95% bounds {a['low']:.3f}-{a['high']:.3f} "
                   f"(the search's own scale, not a chance)")
        replies = a["replies"][:top or None][:5]
        if replies:
            out.append(f"expected from seat {a['acting_seat']}: "
                       + ", ".join(f"{r['move']} ({100 * r['share']:.0f}%)" for r in replies))
    return "\n".join(out)


def search_limits(iterations, movetime, seconds, default: int = DEFAULT_ITERATIONS) -> Limits:
    """Return the Limits of --iterations, --movetime and --seconds (`default` iterations when none is given)."""
    if movetime is not None and seconds is not None:
        raise click.UsageError("give --movetime (milliseconds) or --seconds, not both")
    secs = seconds if seconds is not None else (movetime / 1000.0 if movetime is not None else None)
    if iterations is None and secs is None:
        iterations = default
    return Limits(iterations, secs)


def limit_options(per: str, default: int):
    """Return a decorator adding --iterations, --movetime and --seconds (each `per` seat or decision)."""
    def add(f):
        f = click.option("--seconds", type=click.FloatRange(min=0, min_open=True),
                         help=f"Search time per {per}, seconds.")(f)
        f = click.option("--movetime", type=click.IntRange(min=1), help=f"Search time per {per}, milliseconds.")(f)
        return click.option("--iterations", type=click.IntRange(min=1),
                            help=f"Search iterations per {per} (default {default:,} when no time is given).")(f)
    return add


@dataclass
class Knowledge:
    """The seats to analyse, each with its observation, and where they came from."""

    observations: list          # one observation per analysed seat
    description: str            # one line naming the input and whose knowledge is analysed
    ply: Optional[int] = None   # decisions (game record) or events (seat record) replayed


def _as_known(seat_list: list) -> str:
    if len(seat_list) == 1:
        return f"as seat {seat_list[0]} knows it"
    return "as each seat knows it"


def read_knowledge(position_or_file, ply, seat, all_seats, hand, swapped, first,
                   players, board, seed, variants) -> Knowledge:
    """Return the observations to analyse from the command line's input (InputError on bad input)."""
    hand_counts = None if hand is None else _cli(parse_hand, hand, "--hand")
    swapped_counts = None if swapped is None else _cli(parse_swapped, swapped, "--swapped")
    if swapped_counts is not None and hand_counts is None:
        raise InputError("--swapped goes with --hand (a public position plus this seat's tiles)")
    if first is not None and not (position_or_file == STARTPOS and hand is not None):
        raise InputError("--first applies to startpos with --hand only")
    if position_or_file != STARTPOS and seed is not None:
        raise click.UsageError("--deal applies to startpos only: a position or record has its deal")
    if position_or_file == STARTPOS and hand_counts is not None:
        if ply is not None or seed is not None:
            raise InputError("startpos --hand is the start as one seat knows it: --ply and --deal do not apply")
        if swapped_counts is not None:
            raise InputError("--swapped: nobody has swapped at the start of a game")
        if all_seats:
            raise InputError("--all-seats needs every hand; startpos --hand gives only one seat's")
        n = players or 2
        first = 0 if first is None else first
        check_seat(first, n, "--first")
        me = check_seat(first if seat is None else seat, n)
        obs = _cli(start_seat_observation, n, board or "standard", me, first, hand_counts, variants or ())
        return Knowledge([obs], f"startpos: start of a new game, {n} players, {obs['board']} board, "
                                f"seat {first} first{_variants_text(obs)}, {_as_known([me])}")
    if position_or_file is None:
        loaded = load_sample(ply)
    elif position_or_file == STARTPOS:
        loaded = load_game(position_or_file, ply, players, board, seed, variants)
    else:
        text, source = read_source(position_or_file)
        if is_seat_record(text):
            return _seat_record_knowledge(text, source, ply, seat, all_seats, hand, players, board, variants)
        loaded = parse_input(text, source, ply)
        check_agrees(loaded.snapshot, players, board, variants)
    snap = loaded.snapshot
    check_seat(seat, snap["players"])
    if all_seats and seat is not None:
        raise click.UsageError("give --seat or --all-seats, not both")
    if loaded.state is not None and hand_counts is not None:
        raise InputError(f"--hand: {loaded.source} gives every hand already (its hidden part); "
                         "give --hand only with a public position")
    if loaded.state is None and all_seats:
        raise InputError(f"--all-seats needs every hand, and {loaded.source} gives only the public part")
    if snap["phase"] == "over":
        raise InputError(f"the game is over ({snap['end_reason']}) in {loaded.source}: there is no "
                         "decision to analyse" + (" (try --ply N)" if loaded.kind == "record" else ""))
    seats = list(range(snap["players"])) if all_seats else [snap["to_act"] if seat is None else seat]
    observations = [_cli(seat_observation, snap, s, hand_counts, swapped_counts) for s in seats]
    if loaded.kind == "record":
        where = f"{loaded.source}: game record, after decision {loaded.ply} of {loaded.plies}"
    elif loaded.kind == "start":
        where = loaded.describe()
    else:
        where = f"{loaded.source}: position"
    if loaded.kind != "start":
        where += _variants_text(snap)
    unknown = unknown_own_swapped(observations[0])
    if unknown:
        where += f", as seat {seats[0]} knows it, the colours of its {unknown} swapped tile(s) unknown"
    else:
        where += f", {_as_known(seats)}"
    return Knowledge(observations, where, loaded.ply)


def _seat_record_knowledge(text, source, ply, seat, all_seats, hand, players, board, variants) -> Knowledge:
    if hand is not None:
        raise InputError(f"--hand: {source} is a seat record, which gives the seat's tiles itself")
    if all_seats:
        raise InputError(f"--all-seats needs every hand, and {source} is one seat's record")
    record = _cli(parse_seat_record, text, source)
    if seat is not None and seat != record.seat:
        raise InputError(f"--seat {seat}: {source} is the record of seat {record.seat} "
                         f"(its newgame line), and holds only what that seat knows")
    obs = _cli(record.observation_after, ply)
    check_agrees(obs, players, board, variants, what=source)
    if obs["phase"] == "over":
        raise InputError(f"the game is over ({obs['end_reason']}) in {source}: there is no decision to analyse"
                         " (try --ply N)")
    n = len(record.events) if ply is None else ply
    return Knowledge([obs], f"{source}: seat record, after event {n} of {len(record.events)}"
                            f"{_variants_text(obs)}, {_as_known([record.seat])}", n)


def _variants_text(snap: dict) -> str:
    on = snap.get("variants") or []
    return f", variants {','.join(on)}" if on else ""


def _cli(fn, *args):
    """Call fn(*args); turn an engine error into a one-line InputError (exit status 2)."""
    try:
        return fn(*args)
    except KnowledgeError as e:
        text = str(e)
        if text.startswith(("hand", "swapped")):
            text = "--" + text          # the knowledge's fields are these options here
        raise InputError(text) from None
    except EngineError as e:
        raise InputError(f"bad input: {e}") from None


@click.command("analyze", epilog="POSITION_OR_FILE: a position string (public, with --hand; or whole, "
               "hidden part included), a file with one, a game record, a seat record (the protocol lines "
               "a seat was sent, or a referee --log-dir transcript), startpos, or - for stdin; none: a "
               "built-in sample mid-game. Only the analysed seat's knowledge is ever searched.")
@click.argument("position_or_file", required=False)
@click.option("--hand", metavar="LETTERS", help="The analysed seat's tiles, e.g. kkrbgg (either case), with a "
              "public position or startpos.")
@click.option("--swapped", metavar="K,R,B,G", help="With --hand: the tiles the seat has swapped away so far "
              "(default: their colours unknown, dealt with the other unseen tiles).")
@click.option("--ply", type=click.IntRange(min=0), help="With a game record: the position after N decisions; "
              "with a seat record: after N events.")
@click.option("--seat", type=click.IntRange(min=0), help="Seat to analyse for (default: the seat to act).")
@click.option("--all-seats", is_flag=True, help="Analyse from every seat's point of view (needs every hand).")
@click.option("--first", type=click.IntRange(min=0), help="With startpos --hand: the seat that begins (default 0).")
@click.option("--players", type=click.IntRange(2, 4), help="With startpos: players (default 2).")
@click.option("--board", type=click.Choice(["standard", "advanced"]), help="With startpos: the board.")
@click.option("--deal", "deal_seed", type=click.IntRange(0, 2 ** 63 - 1),
              help="With startpos and no --hand: the deal's seed (default 0).")
@variants_option("With startpos: the 2015 variants of the new game; with a position, it must agree.")
@limit_options("seat", DEFAULT_ITERATIONS)
@click.option("--workers", type=click.IntRange(1, 64),
              help="Processes searching in parallel (root parallelism; default 1). With --server: the "
                   "server's worker processes (default 2).")
@click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=0, show_default=True,
              help="Search seed (an iteration-limited search is reproducible).")
@click.option("--samples", type=click.IntRange(1, 1000), default=DEFAULT_SAMPLES, show_default=True,
              help="Worlds dealt for a seat that is not to act.")
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True,
              help="Candidates listed (0: all); --json always lists all.")
@click.option("--explain", is_flag=True, help="Also print the evaluation's terms per seat (what the engine counts).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.option("--no-board", is_flag=True, help="Do not print the board.")
@click.option("--svg", "svg_file", metavar="FILE", help="Also write the analysed seat's view as an SVG picture "
              "to FILE, the best decision's square(s) marked.")
@click.option("--params", "params_file", metavar="FILE",
              help="Search (and --explain) with a params file's SearchParams, as `tne-ai tune` writes them.")
@click.option("--server", is_flag=True, help="Run the analysis server instead: JSON queries on stdin, answers on "
              "stdout (docs/analysis.md; the same as `tne-ai analysis-server`).")
@click.pass_context
def analyze_command(ctx, position_or_file, hand, swapped, ply, seat, all_seats, first, players, board, deal_seed,
                    variants, iterations, movetime, seconds, workers, seed, samples, top, explain, as_json,
                    no_board, svg_file, params_file, server):
    """Search a position from one seat's knowledge and rank its candidate decisions."""
    if server:
        _serve(ctx, position_or_file, workers, iterations)
        return
    workers = workers or 1
    limits = search_limits(iterations, movetime, seconds)
    params = SearchParams()
    if params_file is not None:
        try:
            params = SearchParams.load(params_file)
        except SearchError as e:
            raise InputError(str(e)) from None
    known = read_knowledge(position_or_file, ply, seat, all_seats, hand, swapped, first,
                           players, board, deal_seed, variants)
    progress = Progress()
    searcher = ISMCTS(params, workers=workers)
    analyses = []
    try:
        for obs in known.observations:
            analyses.append(analyse(searcher, obs, limits, seed, samples, progress.search_callback))
            progress.clear()
    except SearchError as e:
        raise InputError(f"cannot search this position: {e}") from e
    finally:
        progress.clear()
        searcher.close()
    first_obs = known.observations[0]
    if svg_file is not None:
        _write_svg(svg_file, known, analyses[0])
    explanation = _explanation(first_obs, params) if explain else None
    if as_json:
        doc = {
            "input": known.description, "ply": known.ply, "players": first_obs["players"],
            "board": first_obs["board"], "variants": list(first_obs.get("variants") or []),
            "phase": first_obs["phase"], "to_act": first_obs["to_act"],
            "turn_owner": first_obs["turn_owner"], "position": format_position(first_obs),
            "limits": {"iterations": limits.iterations, "seconds": limits.seconds},
            "seed": seed, "workers": workers, "analyses": analyses,
        }
        if explanation is not None:
            doc["explain"] = explanation
        click.echo(json.dumps(doc, indent=2))
        return
    lines = [known.description]
    if not no_board:
        single = len(known.observations) == 1
        lines.append(render(first_obs, first_obs["seat"] if single else None).rstrip("\n"))
        lines.append(legend(first_obs.get("variants") or ()))
    for i, a in enumerate(analyses):
        if i or not no_board:
            lines.append("")
        lines.append(format_analysis(a, top))
    if explanation is not None:
        from search.explain import format_explanation
        lines.append("")
        lines.append(format_explanation(explanation))
    click.echo("\n".join(lines))


def _write_svg(path: str, known: Knowledge, a: dict) -> None:
    """Write the first analysed seat's view as SVG, the best decision's square(s) highlighted (if any)."""
    obs = known.observations[0]
    best = a.get("best") if a.get("to_act") else None
    marked = decision_squares(best) if best else ()
    title = f"seat {obs['seat']}" + (f": best {best}" if best else "")
    write_svg(path, board_svg(obs, obs["seat"], highlight=marked, title=title))


def _serve(ctx, position_or_file, workers, iterations) -> None:
    """Run the analysis server (tne_ai.analysis.server) for `analyze --server`."""
    from tne_ai.analysis import server as server
    if position_or_file is not None:
        raise click.UsageError("--server reads its queries from standard input: give no POSITION_OR_FILE")
    given = [name for name in ("hand", "swapped", "ply", "seat", "all_seats", "first", "players", "board",
                               "deal_seed", "variants", "movetime", "seconds", "explain", "as_json", "svg_file",
                               "params_file")
             if ctx.params.get(name) not in (None, False, ())]
    if given:
        raise click.UsageError(f"--server takes only --workers and --iterations (each query names the rest); "
                               f"got --{given[0].replace('_', '-').replace('as-json', 'json').replace('deal-seed', 'deal').replace('svg-file', 'svg').replace('params-file', 'params')}")
    ctx.invoke(server.analysis_server_command, workers=workers or server.DEFAULT_WORKERS,
               max_queued=server.DEFAULT_MAX_QUEUED,
               default_iterations=iterations or server.DEFAULT_ITERATIONS, log_level="warning")


def _explanation(obs: dict, params: SearchParams) -> dict:
    from search.explain import explain
    return _cli(explain, obs, obs["seat"], params)
