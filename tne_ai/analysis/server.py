"""`tne-ai analysis-server`: analysis queries as JSON lines, answered by a pool of worker processes.

This is the program interface to the analysis, modelled on KataGo's analysis
engine: a GUI, a review tool or a batch script writes one JSON query per line
on standard input and reads one JSON answer per analysed turn on standard
output, each carrying the query's `id`. Many queries can be in flight at
once; they are searched concurrently by a bounded pool of worker processes,
can be cancelled by id, and a bad line only ever gets an error answer.
docs/analysis.md is the specification (fields, answers, actions, errors).

Every search is given one seat's observation, never a full state (R-INFO-1):
a position, a game record, a start or a seat record is turned into that
seat's knowledge here (tne_ai.analysis.knowledge) before anything is queued, and the
workers run search.analysis.analyse on it (and, for a query with
`includeReview`, search.review.review_decision on the decision played; the
query's last answer sums up each seat's accuracy, search.review.summarise).

How it runs:

- the main thread reads standard input in bounded pieces, parses each line
  and checks the query's fields (answering any error at once), answers the
  actions (`ping`, `query_version`, `terminate`, `terminate_all`) itself and
  hands each good query on; it never waits for a worker or for a game to be
  read, so a health check is answered at once whatever runs;
- a preparer thread reads each query's game (replaying a record can take a
  while) into the turns to analyse, in arrival order, and queues them, or
  answers the error found in the game;
- a collector thread hands queued turns to idle workers (highest `priority`
  first, then in arrival order) and writes their answers as they finish;
- each worker process keeps one ISMCTS and searches one turn at a time; a
  watcher thread in it stops the running search when the turn is cancelled,
  and ends the worker if the server goes away.

A turn's seed is the query's seed plus the turn number, and every turn is
searched alone in one process, so an iteration-limited answer does not
depend on the pool size, the other queries or the order they finish in.
"""
from __future__ import annotations

import collections
import heapq
import itertools
import json
import logging
import math
import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import re
import signal
import sys
import threading
import traceback
from dataclasses import dataclass, field
from typing import Optional

import click

import engine
from engine.actions import VARIANTS, format_action, parse_variants
from engine.boards import BOARD_NAMES
from engine.errors import EngineError
from engine.info import observation
from engine.position import parse_position
from engine.record import record_start, replay_record
from engine.view import SeatView
from search.agent import Limits
from search.analysis import DEFAULT_SAMPLES, analyse
from search.ismcts import ISMCTS
from search.review import review_decision, summarise
from search.twins import TwinError, refuse_twin
from tne_ai import __version__
from tne_ai.analysis.knowledge import (KnowledgeError, parse_hand, parse_seat_record, parse_swapped, seat_observation,
                              start_seat_observation)

log = logging.getLogger("tne_ai.analysis.server")

SERVER_NAME = "tne-ai"
DEFAULT_WORKERS = 2
DEFAULT_MAX_QUEUED = 1000           # turns waiting for a worker
DEFAULT_ITERATIONS = 10_000         # a query that names no limit
MAX_LINE_BYTES = 1 << 20            # a longer line is refused whole (and read in bounded pieces)
MAX_PREPARING_BYTES = 64 << 20      # query lines waiting for the preparer thread
MAX_ID_CHARS = 256
MAX_ITERATIONS = 1_000_000_000
MAX_MS = 1_000_000_000
MAX_SECONDS = 1_000_000.0
MAX_SEED = (1 << 63) - 1
MAX_SAMPLES = 1000
MAX_CANDIDATES = 100_000
MAX_PRIORITY = (1 << 31) - 1
ECHO_CHARS = 60
_MASK64 = (1 << 64) - 1

SOURCES = ("position", "startpos", "record", "seatRecord")
QUERY_FIELDS = ("id",) + SOURCES + ("seat", "hand", "swapped", "analyzeTurns", "iterations", "movetime",
                                    "seconds", "seed", "samples", "candidates", "priority", "includeExplain",
                                    "includeReview")
STARTPOS_FIELDS = ("players", "board", "variants", "first", "seed")
ACTIONS = {
    "ping": ("id", "action"),
    "query_version": ("id", "action"),
    "terminate": ("id", "action", "terminateId"),
    "terminate_all": ("id", "action"),
}
_UNPRINTABLE = re.compile(rb"[^\x20-\x7e\t]")


# ---------------------------------------------------------------- reading a query


class QueryError(Exception):
    """A line that cannot be served: answered {"id", "error", "field"}."""

    def __init__(self, field_name: Optional[str], text: str, query_id: Optional[str] = None):
        super().__init__(text)
        self.field = field_name
        self.text = _one_line(text)
        self.id = query_id


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _echo(value) -> str:
    """A JSON value as a short piece of an error message."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "..."


def _field_echo(name: str) -> str:
    """A field name as given, cut short and ASCII, for the `field` of an error."""
    text = name.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "..."


def _readable_id(obj) -> Optional[str]:
    """The query's id if the object has a usable one."""
    if isinstance(obj, dict):
        v = obj.get("id")
        if isinstance(v, str) and 1 <= len(v) <= MAX_ID_CHARS and v.isascii() and v.isprintable():
            return v
    return None


def _best_effort_id(raw: bytes) -> Optional[str]:
    """The id of a line refused before it was parsed (not ASCII), if it still reads as JSON."""
    try:
        return _readable_id(json.loads(raw.decode("utf-8", "replace")))
    except (ValueError, RecursionError):
        return None


def _json_kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(type(v), type(v).__name__)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_line(raw: bytes) -> Optional[dict]:
    """Return the JSON object of one input line (None for a blank line); QueryError if it is not one."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if len(raw) > MAX_LINE_BYTES:
        raise QueryError("line", f"line longer than {MAX_LINE_BYTES} bytes")
    bad = _UNPRINTABLE.search(raw)
    if bad:
        raise QueryError("line", f"byte 0x{raw[bad.start()]:02x} at column {bad.start() + 1} is not printable "
                                 f"ASCII (write other characters as JSON escapes)", _best_effort_id(raw))
    text = raw.decode("ascii")
    if not text.strip():
        return None
    repeated = []

    def pairs(items):
        obj = {}
        for k, v in items:
            if k in obj:
                repeated.append(k)
            obj[k] = v
        return obj

    try:
        obj = json.loads(text, object_pairs_hook=pairs, parse_constant=_no_constant)
    except RecursionError:
        raise QueryError("line", "not JSON: nested too deeply") from None
    except ValueError as e:
        raise QueryError("line", f"not JSON: {e}") from None
    if not isinstance(obj, dict):
        raise QueryError("line", f"expected a JSON object, got {_json_kind(obj)}")
    if repeated:
        raise QueryError(_field_echo(repeated[0]), f"field {_echo(repeated[0])} is given twice", _readable_id(obj))
    return obj


def _check_fields(obj: dict, allowed: tuple, prefix: str = "", what: str = "a query") -> None:
    for k in obj:
        if k not in allowed:
            raise QueryError(_field_echo(prefix + k), f"unknown field {_echo(prefix + k)} in {what}; expected "
                             f"some of {', '.join(prefix + a for a in allowed)}")


def _int(obj: dict, name: str, lo: int, hi: int, default=None, label: Optional[str] = None):
    if name not in obj:
        return default
    v = obj[name]
    label = label or name
    if type(v) is not int or not lo <= v <= hi:
        raise QueryError(label, f"{label}: expected an integer {lo}..{hi}, got {_echo(v)}")
    return v


def _str(obj: dict, name: str, label: Optional[str] = None) -> Optional[str]:
    if name not in obj:
        return None
    v = obj[name]
    label = label or name
    if not isinstance(v, str):
        raise QueryError(label, f"{label}: expected a string, got {_echo(v)}")
    return v


def _bool(obj: dict, name: str, default: bool) -> bool:
    if name not in obj:
        return default
    v = obj[name]
    if not isinstance(v, bool):
        raise QueryError(name, f"{name}: expected true or false, got {_echo(v)}")
    return v


@dataclass
class Turn:
    """One analysed turn of a query: its number, the analysed seat's observation, what was played there."""

    number: int
    obs: dict
    played: Optional[str] = None
    review: Optional[tuple] = None      # with includeReview: the decision played, as search.review reviews it


@dataclass
class Query:
    """An analysis query whose fields are checked; prepare() reads its game into the turns to analyse."""

    id: str
    source: str                 # which of SOURCES names the game
    game: object                # its value: a string, or the startpos object
    seat: Optional[int]
    hand: Optional[list]
    swapped: Optional[list]
    wanted: Optional[list]      # analyzeTurns as given
    iterations: Optional[int]
    seconds: Optional[float]
    seed: int
    samples: int
    candidates: int
    priority: int
    explain: bool
    review: bool = False
    turns: Optional[list] = None
    size: int = 0               # bytes of the line, while the query waits to be prepared

    @property
    def turn_count(self) -> int:
        return len(self.wanted) if self.wanted is not None else 1


@dataclass
class Action:
    """A checked action line."""

    id: str
    action: str
    terminate_id: Optional[str] = None


def read_request(obj: dict, default_iterations: int = DEFAULT_ITERATIONS):
    """Return the Query or Action of a parsed line; QueryError naming the field if it is not a good one."""
    qid = _readable_id(obj)
    try:
        return _read_request(obj, qid, default_iterations)
    except QueryError as e:
        e.id = qid
        raise
    except KnowledgeError as e:
        raise QueryError("internal", f"unexpected error reading the query: {e}", qid) from None


def _read_request(obj: dict, qid: Optional[str], default_iterations: int):
    if "id" not in obj:
        raise QueryError("id", "id: missing: every query and action needs an id (a string)")
    if qid is None:
        raise QueryError("id", f"id: expected a string of 1..{MAX_ID_CHARS} printable ASCII characters, "
                               f"got {_echo(obj['id'])}")
    if "action" in obj:
        name = obj["action"]
        if not isinstance(name, str) or name not in ACTIONS:
            raise QueryError("action", f"action: expected one of {', '.join(ACTIONS)}, got {_echo(name)}")
        _check_fields(obj, ACTIONS[name], what=f"action {name}")
        target = None
        if name == "terminate":
            if "terminateId" not in obj:
                raise QueryError("terminateId", "terminateId: missing: the id of the query to terminate")
            target = _str(obj, "terminateId")
        return Action(qid, name, target)
    for k in ("agent", "engine"):           # not fields: a twin named there gets why it cannot be
        if isinstance(obj.get(k), str):
            try:
                refuse_twin(obj[k], "the analysis server")
            except TwinError as e:
                raise QueryError(k, str(e)) from None
    _check_fields(obj, QUERY_FIELDS)
    given = [s for s in SOURCES if s in obj]
    if len(given) != 1:
        raise QueryError(given[1] if given else "position",
                         f"give exactly one of {', '.join(SOURCES)}"
                         + (f", not {' and '.join(given)}" if given else ""))
    source = given[0]
    iterations = _int(obj, "iterations", 1, MAX_ITERATIONS)
    seconds = None
    if "movetime" in obj and "seconds" in obj:
        raise QueryError("seconds", "give movetime (milliseconds) or seconds, not both")
    if "movetime" in obj:
        seconds = _int(obj, "movetime", 1, MAX_MS) / 1000.0
    if "seconds" in obj:
        v = obj["seconds"]
        if (type(v) not in (int, float) or not math.isfinite(v) or not 0 < v <= MAX_SECONDS):
            raise QueryError("seconds", f"seconds: expected a number above 0 and at most {MAX_SECONDS:g}, "
                                        f"got {_echo(v)}")
        seconds = float(v)
    if iterations is None and seconds is None:
        iterations = default_iterations
    seed = _int(obj, "seed", 0, MAX_SEED, 0)
    samples = _int(obj, "samples", 1, MAX_SAMPLES, DEFAULT_SAMPLES)
    candidates = _int(obj, "candidates", 0, MAX_CANDIDATES, 0)
    priority = _int(obj, "priority", -MAX_PRIORITY - 1, MAX_PRIORITY, 0)
    explain = _bool(obj, "includeExplain", False)
    review = _bool(obj, "includeReview", False)
    if review and source != "record":
        raise QueryError("includeReview", f"includeReview applies to a record (every seat's knowledge is needed "
                                          f"to rebuild the deciding seat's), not to {source}")
    if review and "analyzeTurns" not in obj:
        raise QueryError("includeReview", "includeReview needs analyzeTurns: the turns whose decisions to review "
                                          "(0 to the record's decisions less one)")
    seat = _int(obj, "seat", 0, 3)
    hand_text = _str(obj, "hand")
    swapped_text = _str(obj, "swapped")
    hand = None if hand_text is None else _knowledge(parse_hand, "hand", hand_text)
    swapped = None if swapped_text is None else _knowledge(parse_swapped, "swapped", swapped_text)
    if swapped is not None and hand is None:
        raise QueryError("swapped", "swapped goes with hand (a public position plus this seat's tiles)")
    wanted = None
    if "analyzeTurns" in obj:
        if source not in ("record", "seatRecord"):
            raise QueryError("analyzeTurns", f"analyzeTurns applies to a record or a seatRecord, not to {source}")
        wanted = _turn_list(obj["analyzeTurns"])
    if source == "startpos":
        game = obj["startpos"]
        if not isinstance(game, dict):
            raise QueryError("startpos", f"startpos: expected an object such as {{\"players\": 2}}, "
                                         f"got {_echo(game)}")
    else:
        game = _str(obj, source)
    if hand is not None and source == "record":
        raise QueryError("hand", "hand: a game record gives every hand already; give a hand only with "
                                 "a public position or startpos")
    if hand is not None and source == "seatRecord":
        raise QueryError("hand", "hand: a seat record gives the seat's tiles itself")
    return Query(qid, source, game, seat, hand, swapped, wanted, iterations, seconds, seed, samples, candidates,
                 priority, explain, review)


def prepare(query: Query) -> list:
    """Read a query's game into its turns (each with the analysed seat's observation); QueryError if unfit.

    This is the costly part of reading a query (a record is replayed), done
    off the thread that reads the input.
    """
    try:
        if query.source == "position":
            return [_position_turn(query.game, query.seat, query.hand, query.swapped)]
        if query.source == "startpos":
            return [_startpos_turn(query.game, query.seat, query.hand, query.swapped)]
        if query.source == "record":
            return _record_turns(query.game, query.seat, query.wanted, query.review)
        return _seat_record_turns(query.game, query.seat, query.wanted)
    except QueryError as e:
        e.id = query.id
        raise


def _knowledge(fn, field_name: str, *args):
    """Call a tne_ai.analysis.knowledge function; a KnowledgeError becomes a QueryError naming the field."""
    try:
        return fn(*args)
    except KnowledgeError as e:
        raise QueryError(_field_of(str(e), field_name), str(e)) from None
    except EngineError as e:
        raise QueryError(field_name, f"{field_name}: {e}") from None


def _field_of(text: str, default: str) -> str:
    """The query field a knowledge error message starts with (`hand ...`, `swapped: ...`, `seat 3 ...`)."""
    m = re.match(r"(hand|swapped|seat)\b(?! record)", text)
    return m.group(1) if m else default


def _turn_list(v) -> list:
    if not isinstance(v, list) or not v:
        raise QueryError("analyzeTurns", f"analyzeTurns: expected a non-empty array of turn numbers, got {_echo(v)}")
    seen = set()
    for t in v:
        if type(t) is not int or t < 0:
            raise QueryError("analyzeTurns", f"analyzeTurns: expected turn numbers 0 or more, got {_echo(t)}")
        if t in seen:
            raise QueryError("analyzeTurns", f"analyzeTurns: turn {t} is listed twice")
        seen.add(t)
    return list(v)


def _live(obs: dict, field_name: str, where: str) -> dict:
    if obs["phase"] == "over":
        raise QueryError(field_name, f"{field_name}: the game is over ({obs.get('end_reason')}) {where}: "
                                     f"there is no decision to analyse")
    return obs


def _position_turn(text: str, seat, hand, swapped) -> Turn:
    try:
        snap = parse_position(text)
        if snap["hands"] is not None:
            snap = engine.State.from_snapshot(snap).snapshot()      # the rules must accept the whole of it
    except EngineError as e:
        raise QueryError("position", f"position: {e}") from None
    _live(snap, "position", "in this position")
    obs = _knowledge(seat_observation, "position", snap, seat, hand, swapped)
    return Turn(0, obs)


def _startpos_turn(sp: dict, seat, hand, swapped) -> Turn:
    _check_fields(sp, STARTPOS_FIELDS, "startpos.", "startpos")
    players = _int(sp, "players", 2, 4, 2, "startpos.players")
    board = _str(sp, "board", "startpos.board") or "standard"
    if board not in BOARD_NAMES:
        raise QueryError("startpos.board", f"startpos.board: expected one of {', '.join(BOARD_NAMES)}, "
                                           f"got {_echo(board)}")
    variants = ()
    if "variants" in sp:
        v = sp["variants"]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise QueryError("startpos.variants", f"startpos.variants: expected an array of names, some of "
                                                  f"{', '.join(VARIANTS)}, got {_echo(v)}")
        try:
            variants = parse_variants(",".join(v)) if v else ()
        except EngineError as e:
            raise QueryError("startpos.variants", f"startpos.variants: {e}") from None
    if seat is not None and seat >= players:
        raise QueryError("seat", f"seat {seat} is out of range: this game has seats 0..{players - 1}")
    if hand is not None:
        if "seed" in sp:
            raise QueryError("startpos.seed", "startpos.seed deals every hand; with hand the start is one "
                                              "seat's knowledge: leave startpos.seed out")
        if swapped is not None:
            raise QueryError("swapped", "swapped: nobody has swapped at the start of a game")
        first = _int(sp, "first", 0, players - 1, 0, "startpos.first")
        me = first if seat is None else seat
        obs = _knowledge(start_seat_observation, "hand", players, board, me, first, hand, variants)
        return Turn(0, obs)
    if "first" in sp:
        raise QueryError("startpos.first", "startpos.first goes with hand: a full deal (startpos.seed) "
                                           "decides who begins")
    deal = _int(sp, "seed", 0, MAX_SEED, 0, "startpos.seed")
    snap = engine.new_game(players, deal, board, variants).snapshot()
    return Turn(0, observation(snap, snap["to_act"] if seat is None else seat))


def _record_turns(text: str, seat, wanted, review: bool = False) -> list:
    try:
        final, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
        state = record_start(text, engine.new_game, engine.State.from_snapshot)
    except EngineError as e:
        raise QueryError("record", f"record: {e}") from None
    n = len(actions)
    players = final.snapshot()["players"]
    if seat is not None and seat >= players:
        raise QueryError("seat", f"seat {seat} is out of range: this game has seats 0..{players - 1}")
    wanted = [n] if wanted is None else wanted
    for t in wanted:
        if t > n:
            raise QueryError("analyzeTurns", f"analyzeTurns: turn {t} is out of range: the record holds "
                                             f"decisions 0..{n}")
    at = {}
    done = 0
    for t in sorted(wanted):
        while done < t:
            state.apply(actions[done])
            done += 1
        snap = state.snapshot()
        what = "analyzeTurns" if len(wanted) > 1 or t != n else "record"
        _live(snap, what, f"after decision {t}")
        me = snap["to_act"] if seat is None else seat
        item = None
        if review and t < n and snap["to_act"] == me:
            # the decision played, as search.review.record_decisions gives it: the seat's knowledge before and after
            after = state.clone()
            after.apply(actions[t])
            item = (t, me, observation(snap, me), actions[t], observation(after.snapshot(), me))
        at[t] = Turn(t, observation(snap, me), format_action(actions[t]) if t < n else None, item)
    return [at[t] for t in wanted]


def _seat_record_turns(text: str, seat, wanted) -> list:
    record = _knowledge(parse_seat_record, "seatRecord", text, "seatRecord")
    if seat is not None and seat != record.seat:
        raise QueryError("seat", f"seat {seat}: the seat record is seat {record.seat}'s (its newgame line) "
                                 f"and holds only what that seat knows")
    n = len(record.events)
    wanted = [n] if wanted is None else wanted
    for t in wanted:
        if t > n:
            raise QueryError("analyzeTurns", f"analyzeTurns: turn {t} is out of range: the seat record holds "
                                             f"events 0..{n}")
    view = SeatView(record.start)
    at, done = {}, 0
    try:
        for t in sorted(wanted):
            while done < t:
                view.apply(record.events[done])
                done += 1
            if view.pending_draw:
                raise QueryError("analyzeTurns", f"analyzeTurns: after event {t} seat {record.seat} is due a "
                                                 f"'draw' event: name the turn after it")
            obs = view.observation()
            _live(obs, "analyzeTurns" if len(wanted) > 1 or t != n else "seatRecord", f"after event {t}")
            at[t] = Turn(t, obs, " ".join(record.events[t].split()) if t < n else None)
    except EngineError as e:
        raise QueryError("seatRecord", f"seatRecord: event {done + 1}: {e}") from None
    return [at[t] for t in wanted]


# ---------------------------------------------------------------- the worker processes


class _Cancelled(Exception):
    """The running turn was cancelled."""


class _Box:
    """What the worker's main thread and its watcher thread share."""

    def __init__(self):
        self.current: Optional[int] = None      # serial of the running turn
        self.cancel: Optional[int] = None       # serial the server last asked to stop
        self.stop = threading.Event()           # the running turn's stop token (set once it is cancelled)


class _Searcher(ISMCTS):
    """An ISMCTS whose searches share their turn's stop token, and that refuses to start one once the turn is cancelled.

    A cancelled analysis of several searches (a waiting seat's worlds) stops
    the one running and starts no other.
    """

    def __init__(self, box: _Box):
        super().__init__()
        self.box = box

    def cancelled(self) -> bool:
        return self.box.current is not None and self.box.cancel == self.box.current

    def search(self, *args, **kwargs):
        if self.cancelled():
            raise _Cancelled()
        kwargs.setdefault("stop_token", self.box.stop)
        return super().search(*args, **kwargs)


def _watch(ctrl, box: _Box) -> None:
    """Stop the running search when the server cancels its turn; end the process when the server is gone."""
    while True:
        try:
            serial = ctrl.recv()
        except (EOFError, OSError):
            os._exit(0)                 # the server closed the pipe or died: nobody wants our answers
        box.cancel = serial
        if box.current == serial:
            box.stop.set()              # a turn that starts later sees box.cancel instead


def _worker_main(conn, ctrl) -> None:
    """A worker process: search the turns the server sends, one at a time, and send back the answers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # Ctrl-C reaches the whole group: the server decides
    os.dup2(2, 1)                                       # nothing a worker prints may reach the answers
    box = _Box()
    searcher = _Searcher(box)
    threading.Thread(target=_watch, args=(ctrl, box), daemon=True, name="watcher").start()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        serial = task[0]
        box.stop = threading.Event()    # before current: a cancel seen for this serial sets this token
        box.current = serial
        try:
            reply = _run_task(searcher, task)
        except _Cancelled:
            reply = ("cancelled", serial)
        except EngineError as e:
            reply = ("error", serial, str(e), task[-1])
        except Exception as e:         # a bug: this turn gets an error answer, the worker carries on
            log.error("turn %s: internal error\n%s", serial, traceback.format_exc())
            reply = ("error", serial, f"internal error: {type(e).__name__}: {e}", "internal")
        if box.cancel == serial and reply[0] != "cancelled":
            reply = ("cancelled", serial)
        box.current = None
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


def _run_task(searcher: _Searcher, task: tuple) -> tuple:
    serial, obs, iterations, seconds, seed, samples, candidates, explain, item, review_seed, _source = task
    try:
        a = analyse(searcher, obs, Limits(iterations, seconds), seed, samples)
    finally:
        searcher.forget()           # the tree is not kept: every turn is searched afresh
    review = None
    if item is not None:
        try:
            # the query's own seed, as `tne-ai review --seed` uses it (it derives each ply's from it)
            review = review_decision(searcher, item, Limits(iterations, seconds), review_seed, samples)
        finally:
            searcher.forget()
    if candidates:
        for key in ("candidates", "replies"):
            if key in a:
                a[key] = a[key][:candidates]
    extra = None
    if explain:
        from search.explain import explain as explain_position
        extra = explain_position(obs, obs["seat"])
    return ("ok", serial, a, extra, review)


class _Worker:
    """The server's handle on one worker process."""

    def __init__(self, ctx, index: int):
        self.index = index
        self.conn, child = ctx.Pipe()
        ctrl_child, self.ctrl = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=_worker_main, args=(child, ctrl_child), daemon=True,
                                   name=f"tne-analysis-worker-{index}")
        self.process.start()
        child.close()
        ctrl_child.close()
        self.task: Optional[_Task] = None

    def send(self, payload) -> bool:
        try:
            self.conn.send(payload)
            return True
        except (OSError, ValueError):
            return False

    def cancel(self, serial: int) -> None:
        try:
            self.ctrl.send(serial)
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        for c in (self.conn, self.ctrl):
            try:
                c.close()
            except OSError:
                pass


# ---------------------------------------------------------------- the server


@dataclass
class _Active:
    """A query in flight: waiting to be prepared, then how many of its turns are answered, queued, running."""

    query: Query
    answered: int = 0
    queued: int = 0
    running: dict = field(default_factory=dict)      # serial -> _Worker
    cancelled: bool = False
    reviews: list = field(default_factory=list)      # with includeReview: the turns' reviews answered so far

    @property
    def total(self) -> int:
        return self.query.turn_count


@dataclass
class _Task:
    serial: int
    active: _Active
    turn: Turn


class _Output:
    """JSON lines to a binary stream, one at a time, flushed each; a closed pipe is remembered, not fatal."""

    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()
        self.broken = False

    def write(self, obj: dict) -> None:
        line = json.dumps(obj, separators=(",", ":"), allow_nan=False)
        with self.lock:
            if self.broken:
                return
            try:
                self.stream.write(line.encode("ascii") + b"\n")
                self.stream.flush()
            except (OSError, ValueError):
                self.broken = True


class AnalysisServer:
    """The queues, the worker pool and the bookkeeping of the queries in flight."""

    def __init__(self, workers: int, write: _Output, max_queued: int = DEFAULT_MAX_QUEUED,
                 default_iterations: int = DEFAULT_ITERATIONS):
        self.out = write
        self.max_queued = max_queued
        self.default_iterations = default_iterations
        self.lock = threading.RLock()
        self.idle = threading.Condition(self.lock)          # a query closed
        self.to_prepare = collections.deque()               # _Active, in arrival order
        self.preparing_turns = 0                            # turns of the queries in to_prepare
        self.preparing_bytes = 0
        self.wake_preparer = threading.Condition(self.lock)
        self.heap: list = []                # (-priority, serial, _Task)
        self.active: dict = {}              # query id -> _Active
        self.serials = itertools.count(1)
        self.closing = False
        self.ctx = mp.get_context("spawn")
        self.workers = [_Worker(self.ctx, i) for i in range(workers)]
        self.collector = threading.Thread(target=self._collect, daemon=True, name="collector")
        self.preparer = threading.Thread(target=self._prepare_loop, daemon=True, name="preparer")
        self.collector.start()
        self.preparer.start()

    # ------------------------------------------------------------ input (the reading thread)

    def handle_line(self, raw: bytes) -> None:
        """Serve one input line: answer an action, accept a query, or answer an error; never wait for a worker."""
        qid = None
        try:
            obj = parse_line(raw)
            if obj is None:
                return
            qid = _readable_id(obj)
            request = read_request(obj, self.default_iterations)
            if isinstance(request, Action):
                self._action(request)
            else:
                request.size = len(raw)
                self.accept(request)
        except QueryError as e:
            self.out.write({"id": e.id if e.id is not None else qid, "error": e.text, "field": e.field})
        except Exception as e:          # a bug: this line gets an error answer, the server carries on
            log.error("internal error on a line\n%s", traceback.format_exc())
            self.out.write({"id": qid, "error": _one_line(f"internal error: {type(e).__name__}: {e}"),
                            "field": "internal"})

    def accept(self, query: Query) -> None:
        """Take a query whose fields are checked: its game is read by the preparer thread.

        QueryError when its id is in use or its turns do not fit in the queue.
        """
        with self.lock:
            if query.id in self.active:
                raise QueryError("id", f"id {_echo(query.id)} is in use by a query not yet answered; "
                                       f"wait for its last answer or terminate it", query.id)
            waiting = len(self.heap) + self.preparing_turns
            if waiting + query.turn_count > self.max_queued:
                raise QueryError("queue", f"queue full: {waiting} turn(s) wait for a worker and this query adds "
                                          f"{query.turn_count} (--max-queued {self.max_queued}); retry later",
                                 query.id)
            if self.preparing_bytes + query.size > MAX_PREPARING_BYTES and self.to_prepare:
                raise QueryError("queue", f"queue full: {self.preparing_bytes} bytes of queries wait to be read; "
                                          f"retry later", query.id)
            active = _Active(query)
            self.active[query.id] = active
            self.to_prepare.append(active)
            self.preparing_turns += query.turn_count
            self.preparing_bytes += query.size
            self.wake_preparer.notify()

    def _action(self, act: Action) -> None:
        if act.action == "ping":
            with self.lock:
                running = sum(1 for w in self.workers if w.task is not None)
                self.out.write({"id": act.id, "action": "ping", "ok": True, "workers": len(self.workers),
                                "running": running, "queued": len(self.heap), "preparing": self.preparing_turns})
        elif act.action == "query_version":
            self.out.write({"id": act.id, "action": "query_version", "name": SERVER_NAME, "version": __version__})
        elif act.action == "terminate":
            with self.lock:
                target = self.active.get(act.terminate_id)
                found = target is not None and not target.cancelled
                self.out.write({"id": act.id, "action": "terminate", "terminateId": act.terminate_id,
                                "found": found})
                if found:
                    self._cancel(target)
        else:
            with self.lock:
                targets = [a for a in self.active.values() if not a.cancelled]
                self.out.write({"id": act.id, "action": "terminate_all", "terminated": len(targets)})
                for a in targets:
                    self._cancel(a)

    # ------------------------------------------------------------ the preparer thread

    def _prepare_loop(self) -> None:
        """Read each accepted query's game into turns, in arrival order, and queue them."""
        while True:
            with self.lock:
                while not self.to_prepare and not self.closing:
                    self.wake_preparer.wait(0.5)
                if self.closing:
                    return
                active = self.to_prepare[0]
            turns, error = None, None
            if not active.cancelled:
                try:
                    turns = prepare(active.query)
                except QueryError as e:
                    error = {"id": active.query.id, "error": e.text, "field": e.field}
                except Exception as e:      # a bug: this query gets an error answer, the server carries on
                    log.error("internal error reading query %r\n%s", active.query.id, traceback.format_exc())
                    error = {"id": active.query.id, "error": _one_line(f"internal error: {type(e).__name__}: {e}"),
                             "field": "internal"}
            with self.lock:
                self.to_prepare.popleft()
                self.preparing_turns -= active.query.turn_count
                self.preparing_bytes -= active.query.size
                if active.cancelled:
                    continue                # its last answer went out when it was terminated
                if error is not None:
                    self.out.write(error)
                    self._forget(active)
                    continue
                self._queue(active, turns)

    def _queue(self, active: _Active, turns: list) -> None:
        q = active.query
        q.turns, q.game = turns, None
        for turn in turns:
            serial = next(self.serials)
            heapq.heappush(self.heap, (-q.priority, serial, _Task(serial, active, turn)))
            active.queued += 1
        self._dispatch()

    # ------------------------------------------------------------ bookkeeping (under the lock)

    def _cancel(self, active: _Active) -> None:
        active.cancelled = True
        if active.queued:
            self.heap = [e for e in self.heap if e[2].active is not active]
            heapq.heapify(self.heap)
            active.queued = 0
        for serial, w in active.running.items():
            w.cancel(serial)
        if not active.running:
            self._close_cancelled(active)
        self._dispatch()

    def _close_cancelled(self, active: _Active) -> None:
        q = active.query
        self.out.write({"id": q.id, "isCancelled": True, "isFinal": True, "turnsAnswered": active.answered,
                        "turnsCancelled": active.total - active.answered})
        self._forget(active)

    def _forget(self, active: _Active) -> None:
        if self.active.get(active.query.id) is active:
            del self.active[active.query.id]
        self.idle.notify_all()

    def _dispatch(self) -> None:
        """Hand queued turns to idle workers, highest priority first."""
        if self.closing:
            return
        for w in self.workers:
            if not self.heap:
                return
            if w.task is not None:
                continue
            _, serial, task = heapq.heappop(self.heap)
            q = task.active.query
            task.active.queued -= 1
            task.active.running[serial] = w
            w.task = task
            seed = (q.seed + task.turn.number) & _MASK64
            w.send((serial, task.turn.obs, q.iterations, q.seconds, seed, q.samples, q.candidates, q.explain,
                    task.turn.review, q.seed, q.source))
            # a failed send means the worker died: the collector sees its pipe close and answers the turn

    def _finished(self, w: _Worker, reply: tuple) -> None:
        if self.closing:
            return                          # shutting down: nothing more is answered
        task = w.task
        if task is None or reply[1] != task.serial:
            log.error("worker %d answered turn %s, not the one it was given", w.index, reply[1])
            return
        w.task = None
        active = task.active
        del active.running[task.serial]
        if active.cancelled:
            if not active.running:
                self._close_cancelled(active)
            return
        active.answered += 1
        left = active.total - active.answered
        head = {"id": active.query.id, "turnNumber": task.turn.number}
        kind = reply[0]
        answer = None
        if kind == "ok":
            obs = task.turn.obs
            answer = dict(head, seat=obs["seat"], toAct=obs["to_act"])
            if task.turn.played is not None:
                answer["played"] = task.turn.played
            answer.update(turnsLeft=left, isFinal=left == 0, analysis=reply[2])
            if reply[3] is not None:
                answer["explain"] = reply[3]
            if reply[4] is not None:
                answer["review"] = reply[4]
                active.reviews.append(reply[4])
        elif kind == "error":
            answer = dict(head, error=_one_line(reply[2]), field=reply[3])
        else:
            answer = dict(head, error=f"internal error: unexpected worker reply {kind!r}", field="internal")
        if "error" in answer:
            answer.update(turnsLeft=left, isFinal=left == 0)
        if left == 0 and active.query.review:
            # every seat's accuracy over the decisions reviewed, as `tne-ai review` sums them up
            answer["reviewSummary"] = summarise(sorted(active.reviews, key=lambda d: d["ply"]),
                                                int(task.turn.obs["players"]))
        try:
            self.out.write(answer)
        except (TypeError, ValueError) as e:
            log.error("turn %s of %r: the answer is not JSON: %s", task.turn.number, active.query.id, e)
            self.out.write(dict(head, error=_one_line(f"internal error: the analysis is not JSON: {e}"),
                                field="internal", turnsLeft=left, isFinal=left == 0))
        if left == 0:
            self._forget(active)

    def _worker_died(self, w: _Worker) -> None:
        code = w.process.exitcode
        log.error("worker %d died (exit code %s); starting another", w.index, code)
        w.close()
        task = w.task
        if task is not None:
            self._finished(w, ("error", task.serial, f"internal error: the worker process died (exit code {code}) "
                                                     f"while analysing this turn", "internal"))
        i = self.workers.index(w)
        self.workers[i] = _Worker(self.ctx, w.index) if not self.closing else w
        self._dispatch()

    # ------------------------------------------------------------ the collector thread

    def _collect(self) -> None:
        while not self.closing:
            with self.lock:
                conns = {w.conn: w for w in self.workers if not w.conn.closed}
            try:
                ready = mpc.wait(list(conns), timeout=0.2)
            except (OSError, ValueError):
                continue
            for conn in ready:
                w = conns[conn]
                try:
                    reply = conn.recv()
                except (EOFError, OSError):
                    with self.lock:
                        if not self.closing and w in self.workers:
                            self._worker_died(w)
                    continue
                except Exception:
                    log.error("unreadable reply from worker %d\n%s", w.index, traceback.format_exc())
                    continue
                with self.lock:
                    try:
                        self._finished(w, reply)
                    except Exception:
                        log.error("internal error on an answer\n%s", traceback.format_exc())
                    self._dispatch()

    # ------------------------------------------------------------ the end

    def drain(self) -> None:
        """Wait until every query has had its last answer."""
        with self.lock:
            while self.active and not self.out.broken:
                self.idle.wait(0.2)

    def close(self, timeout: float = 2.0) -> None:
        """Stop the threads and the workers (running turns are cancelled)."""
        with self.lock:
            self.closing = True
            self.heap = []
            self.wake_preparer.notify_all()
            for w in self.workers:
                if w.task is not None:
                    w.cancel(w.task.serial)
        self.collector.join(timeout)
        self.preparer.join(timeout)
        for w in self.workers:
            w.send(None)
        for w in self.workers:
            w.process.join(timeout)
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(1.0)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            w.close()


class _Terminated(BaseException):
    """SIGTERM arrived."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def run_server(workers: int = DEFAULT_WORKERS, stdin=None, stdout=None, *, max_queued: int = DEFAULT_MAX_QUEUED,
               default_iterations: int = DEFAULT_ITERATIONS) -> int:
    """Serve analysis queries from `stdin` to `stdout` (binary streams; default the process's) until end of input.

    workers: worker processes (each searches one turn at a time); max_queued:
    the most turns waiting for a worker; default_iterations: the iterations
    of a query that names no limit. At the end of input every query still in
    flight is answered first. Returns the exit status: 0, or 130 after
    Ctrl-C, 143 after SIGTERM (workers stopped either way).
    """
    from tne_ai.protocol.codec import read_lines
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout.buffer if stdout is None else stdout
    out = _Output(stdout)
    main_thread = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _on_sigterm) if main_thread else None
    server = None
    status = 0
    try:
        server = AnalysisServer(workers, out, max_queued, default_iterations)
        log.info("analysis server: %d worker(s), max %d queued turn(s)", workers, max_queued)
        read = getattr(stdin, "read1", None) or stdin.read
        for raw in read_lines(read, MAX_LINE_BYTES):
            server.handle_line(raw)
            if out.broken:
                break
        else:
            server.drain()
    except KeyboardInterrupt:
        status = 130
    except _Terminated:
        status = 143
    finally:
        if server is not None:
            try:
                server.close()
            except (KeyboardInterrupt, _Terminated):
                for w in server.workers:
                    if w.process.is_alive():
                        w.process.kill()
        if main_thread:
            signal.signal(signal.SIGTERM, old)
    return status


@click.command("analysis-server", epilog="Queries, answers and actions: docs/analysis.md.")
@click.option("--workers", type=click.IntRange(1, 64), default=DEFAULT_WORKERS, show_default=True,
              help="Worker processes; each searches one turn at a time.")
@click.option("--max-queued", type=click.IntRange(1, 10_000_000), default=DEFAULT_MAX_QUEUED, show_default=True,
              help="The most turns waiting for a worker; a query beyond it gets a 'queue' error.")
@click.option("--iterations", "default_iterations", type=click.IntRange(1, MAX_ITERATIONS),
              default=DEFAULT_ITERATIONS, show_default=True,
              help="Iterations of a query that names no limit (iterations, movetime or seconds).")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning",
              show_default=True, help="What to log on stderr.")
def analysis_server_command(workers, max_queued, default_iterations, log_level):
    """Answer analysis queries, JSON lines on stdin, with JSON lines on stdout (docs/analysis.md)."""
    logging.basicConfig(stream=sys.stderr, level=log_level.upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    status = run_server(workers, max_queued=max_queued, default_iterations=default_iterations)
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        # nobody reads our output any more: keep the interpreter's last flush quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(status)
