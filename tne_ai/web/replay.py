"""The Watch and Review pages of `tne-ai serve` (docs/web.md, "Watch" and "Review").

HTTP and WebSocket (`ROUTES`, mounted by tne_ai/web/app.py):
    GET  /review                         the review page (static/review.html)
    GET  /watch                          the watch page (static/watch.html)
    POST /api/review?seats=0,1&iterations=300&seed=0
                                         body: a full game record (at most 1 MB) -> 201 {"review": ID}
    GET  /api/review/{id}                progress {status, done, total}; once done the whole review
    GET  /api/review/{id}/board/{ply}    the board after `ply` decisions (SVG, the decision just played ringed,
                                         the engine's best instead, once reviewed, marked and named)
    GET  /api/review/{id}/puzzles?seat=S the plies of seat S's mistakes and blunders: the puzzles
    GET  /api/review/{id}/puzzle/{ply}   the position before puzzle `ply`, as its seat saw it
    POST /api/review/{id}/puzzle/{ply}   JSON {seat, move}: the move valued in place of the one played
    POST /api/watch                      JSON {players, board, variants, iterations, max_decisions}
                                         -> 201 {"watch": ID}: engines against engines
    POST /api/watch/load                 body: a full game record -> 201 {"watch": ID}: the record replayed
    GET  /api/watch/{id}/record          the full record, once the game is over (or for a replayed record)
    WS   /ws/watch/{id}                  the decisions as they come: {"type": "decision", ...}, then "end"

Review: the record is replayed in the request (a record that does not replay
is refused with the reason), then every decision is searched from its seat's
knowledge (search.review.review_decision) as one job per decision in the
app's review pool (`server.review_executor`: its own processes at the lowest
CPU priority, so live games' engine moves never wait behind a review), at
most MAX_RUNNING_REVIEWS reviews at once (the others wait their turn), off
the event loop; the page polls the progress. A review pushed out by newer
ones (MAX_REVIEWS are kept) is cancelled with its jobs still waiting. The
snapshots of every ply stay on the server under the review's unguessable id
and the boards are drawn on demand. The uploaded record is the user's own
finished game: its boards are full boards (still drawn without hands).

Learn from your mistakes: once a review is done, a reviewed seat's decisions
marked mistake or blunder are puzzles (PUZZLE_MARKS). A puzzle is the
position before the decision as that seat saw it (engine.info.observation,
drawn and described as the play page's view), and a decision tried there is
valued by search.review.try_decision in the review pool (`try_one`), like the
review valued the decision played, one try at a time per review.

Watch: the server computes the decisions as fast as the review pool allows
(never the live games' pool, so a human's engine move waits for no watched
game) and streams each one; the page paces what it shows (speed, pause), for live
games and replayed records alike. A live game's frames carry the public
board only (engine.position.public_snapshot: no hands, no bag) and the
public notation of each decision (another seat's swap is `swap n`, no draw
lines); the full record is offered only once the game is over.

The handlers are module-level functions: they keep the reviews and watched
games in `request.app.state.replays` (a Replays) and run their searches in
the review pool of `request.app.state.server` (its `review_executor`, set
by the app's create_app). This module never
imports the app.
"""
from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections import OrderedDict
from typing import Optional

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

import engine
from engine import actions as A
from engine.boards import BOARD_NAMES
from engine.errors import EngineError, NotationError
from engine.info import observation
from engine.legality import why_illegal
from engine.position import public_snapshot
from engine.record import GameRecorder, record_start, replay_record
from engine.svg import board_svg, decision_squares
from engine.view import events_for_seat, letters
from search.agent import Limits, SearchError
from search.ismcts import ISMCTS, worker_seed
from search.review import MARKS, record_decisions, review_decision, summarise, try_decision
from tne_ai.prompts import decision_prompt
from tne_ai.web.games import (board_svg as seat_board_svg, conflict_view, decide, record_human, seats_view,
                               square_of)
from tne_ai.web.http import dumps, error, is_count, json_object, page, record_text

REVIEW_ITERATIONS = 300
MAX_REVIEW_ITERATIONS = 5_000
WATCH_ITERATIONS = 100
MAX_WATCH_ITERATIONS = 20_000
MAX_REVIEWS = 20
MAX_RUNNING_REVIEWS = 2               # reviews searched at once; later ones wait for a slot
MAX_WATCHES = 20
PUZZLE_MARKS = ("mistake", "blunder")  # the marks a seat's decisions are replayed as puzzles for


class ReplayError(ValueError):
    """A request that cannot be done (the message says why)."""


class NotDone(ReplayError):
    """The review is still running: its marks, so its puzzles, are not known yet (HTTP 409)."""


class NotAPuzzle(ReplayError):
    """A ply that is not a puzzle of the review (HTTP 404)."""


# ---------------------------------------------------------------- the worker side

_SEARCHER = None


def review_one(item: tuple, iterations: int, seed: int) -> dict:
    """Review one decision item (search.review.record_decisions) in a worker process."""
    global _SEARCHER
    if _SEARCHER is None:
        _SEARCHER = ISMCTS()
    _SEARCHER.forget()
    return review_decision(_SEARCHER, item, Limits(iterations=iterations), seed)


def try_one(item: tuple, action: int, best: int, iterations: int, seed: int) -> dict:
    """Value a decision tried in place of a reviewed one (search.review.try_decision) in a worker process."""
    global _SEARCHER
    if _SEARCHER is None:
        _SEARCHER = ISMCTS()
    return try_decision(_SEARCHER, item, action, best, Limits(iterations=iterations), seed)


# ---------------------------------------------------------------- helpers


def _svg(snap: dict, last=None, title=None, highlight=()) -> str:
    return board_svg(snap, last=last, title=title, highlight=highlight)


def _replay(text: str) -> tuple:
    """Return (initial state, actions, final state) of a full record, or ReplayError with the reason."""
    try:
        final, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
        initial = record_start(text, engine.new_game, engine.State.from_snapshot)
    except (EngineError, ValueError) as e:
        raise ReplayError(f"not a game record: {e}") from None
    return initial, actions, final


def _int_param(q, name: str, default: int, lo: int, hi: int) -> int:
    if name not in q:
        return default
    v = q[name]
    if not is_count(v) or not lo <= int(v) <= hi:
        raise ReplayError(f"{name} must be an integer {lo}..{hi}, got {v[:20]!r}")
    return int(v)


# ---------------------------------------------------------------- a review


class Review:
    def __init__(self, text: str, seats: Optional[list], iterations: int, seed: int):
        initial, actions, final = _replay(text)
        try:
            self.facts, self.items = record_decisions(text, seats)
        except (SearchError, EngineError, ValueError) as e:
            raise ReplayError(str(e)) from None
        self.id = secrets.token_urlsafe(24)
        self.iterations, self.seed = iterations, seed
        self.seats = sorted({it[1] for it in self.items}) if seats is None else sorted(set(seats))
        state = initial.clone()
        self.snaps = [state.snapshot()]
        self.plies = []                       # per decision: seat and notation
        for a in actions:
            seat = state.to_act
            state.apply(a)
            self.snaps.append(state.snapshot())
            self.plies.append({"ply": len(self.plies), "seat": seat, "move": A.format_action(a)})
        self.decisions: list = []
        self.done = 0
        self.error: Optional[str] = None
        self.task: Optional[asyncio.Task] = None
        self.queued = True                    # waiting for one of the MAX_RUNNING_REVIEWS slots
        self.jobs: list = []                  # its concurrent futures in the review pool
        self.cancelled = False
        self.trying = None                    # the future of the one puzzle try being valued, if any
        self.human = record_human(text)       # the player's seat of a web game's record: whose mistakes to learn from

    def best_instead(self, ply: int) -> Optional[str]:
        """Return the engine's best decision where decision `ply` was played, if reviewed and better than the one played."""
        d = next((d for d in self.decisions if d["ply"] == ply), None)
        if d is None or d["best"] == d["played"] or d["played"] in d.get("equally_good", ()):
            return None         # the decision played is the best, or one the search cannot tell from it
        return d["best"]

    def board(self, ply: int) -> str:
        """The board after `ply` decisions (ply `ply` as `tne-ai review` counts): the decision played from it ringed, the engine's best instead marked."""
        played = self.plies[ply]["move"] if ply < len(self.plies) else None
        title = f"ply {ply}: after {ply} of {len(self.plies)} decisions" if ply else "ply 0: the start"
        best = self.best_instead(ply) if played is not None else None
        squares = decision_squares(best) if best is not None else ()
        if best is not None:
            title += f" \u00b7 engine's best instead: {best}" + (" (dashed square)" if squares else "")
        return _svg(self.snaps[ply], last=played, title=title, highlight=squares)

    def status(self) -> dict:
        total = len(self.items)
        out = {"review": self.id, "status": "error" if self.error else ("done" if self.done == total else "running"),
               "done": self.done, "total": total, "plies": len(self.plies), "players": self.facts["players"],
               "moves": self.plies, "seats": self.seats, "iterations": self.iterations,
               "queued": self.queued and not self.error, "human": self.human}
        if self.error:
            out["error"] = self.error
        if out["status"] == "done":
            decisions = sorted(self.decisions, key=lambda d: d["ply"])
            out.update(board=self.facts["board"], end_reason=self.facts["end_reason"], result=self.facts["result"],
                       decisions=decisions, summary=summarise(decisions, self.facts["players"]),
                       thresholds={name: t for name, t in MARKS})
        return out

    async def run(self, executor, slots: asyncio.Semaphore) -> None:
        """Search every decision in `executor` once a slot of `slots` is free (cancel() stops it)."""
        try:
            async with slots:
                self.queued = False
                self.jobs = [executor.submit(review_one, item, self.iterations, self.seed) for item in self.items]
                for fut in asyncio.as_completed([asyncio.wrap_future(job) for job in self.jobs]):
                    self.decisions.append(await fut)
                    self.done += 1
        except asyncio.CancelledError:
            self.cancel_jobs()
            raise
        except Exception as e:
            self.cancel_jobs()
            self.error = f"the review failed: {e}"

    def cancel_jobs(self) -> None:
        """Cancel the jobs still waiting in the pool (a job a worker has begun ends with its one decision)."""
        for job in [*self.jobs, *([self.trying] if self.trying is not None else [])]:
            job.cancel()

    # --- Learn from your mistakes: a seat's mistakes and blunders as puzzles

    def finished(self) -> bool:
        return not self.error and self.done == len(self.items)

    def puzzles(self, seat: int) -> list:
        """Return the decisions of `seat` marked mistake or blunder, in ply order (ReplayError if none can be)."""
        if not self.finished():
            raise NotDone("the review is not done: puzzles come from its marks")
        if seat not in self.seats:
            raise ReplayError(f"seat {seat} was not reviewed: this review has seats "
                              f"{', '.join(map(str, self.seats))}")
        return sorted((d for d in self.decisions if d["seat"] == seat and d["mark"] in PUZZLE_MARKS),
                      key=lambda d: d["ply"])

    def puzzle(self, ply: int) -> dict:
        """Return the review of decision `ply` if it is a puzzle (ReplayError, with the reason, if not)."""
        if not self.finished():
            raise NotDone("the review is not done: puzzles come from its marks")
        d = next((d for d in self.decisions if d["ply"] == ply), None)
        if d is None:
            raise NotAPuzzle(f"ply {ply} is not a puzzle: no decision of a reviewed seat was made there")
        if d["mark"] not in PUZZLE_MARKS:
            raise NotAPuzzle(f"ply {ply} is not a puzzle: seat {d['seat']}'s decision there is marked "
                              f"{d['mark'] or 'nothing'}, not mistake or blunder")
        return d

    def puzzle_view(self, ply: int) -> dict:
        """Return the position before puzzle `ply` as its seat saw it: its own tiles and public facts only."""
        d = self.puzzle(ply)
        seat = d["seat"]
        obs = observation(self.snaps[ply], seat)
        legal = engine.State.from_snapshot(self.snaps[ply]).legal_actions()
        moves = [A.format_action(a) for a in legal]
        selectable = sorted({sq for m in moves for sq in [square_of(m)] if sq})
        return {"review": self.id, "ply": ply, "seat": seat, "mark": d["mark"],
                "players": obs["players"], "phase": obs["phase"], "to_act": obs["to_act"],
                "actions_left": obs["actions_left"], "hand": letters(obs["hand"]),
                "own_swapped": letters(obs["own_swapped"]), "bag_size": obs["bag_size"],
                "seats": seats_view(obs, seat, {}), "conflict": conflict_view(obs),
                "legal": moves, "prompt": decision_prompt(obs, seat, legal),
                "svg": seat_board_svg(obs, selectable=selectable,
                                      title=f"ply {ply}: seat {seat}'s view, seat {seat} to decide")}

    def parse_try(self, ply: int, data: dict) -> tuple:
        """Return (item, action) of a try {seat, move} at puzzle `ply` (ReplayError says what is wrong)."""
        d = self.puzzle(ply)
        seat, move = data.get("seat"), data.get("move")
        if type(seat) is not int:
            raise ReplayError(f"seat: the number of the seat whose puzzle this is, got {str(seat)[:20]!r}")
        if seat != d["seat"]:
            raise ReplayError(f"ply {ply} is a puzzle of seat {d['seat']}, not of seat {seat}")
        if not isinstance(move, str) or not move.strip() or len(move) > 64:
            raise ReplayError("move: a decision in notation, e.g. \"tile r f7\"")
        try:
            action = A.parse_action(move.strip().lower())
        except (NotationError, EngineError) as e:
            raise ReplayError(f"cannot read {move.strip()[:40]!r}: {e}") from None
        if action not in engine.State.from_snapshot(self.snaps[ply]).legal_actions():
            reason = why_illegal(observation(self.snaps[ply], seat), action)
            raise ReplayError(f"{A.format_action(action)!r} is not legal at ply {ply}: {reason}")
        item = next(it for it in self.items if it[0] == ply)
        return item, action

    def try_board(self, ply: int, result: dict) -> str:
        """Draw the puzzle's position as its seat saw it: the decision tried ringed, the engine's best marked."""
        obs = observation(self.snaps[ply], result["seat"])
        return seat_board_svg(obs, last=result["tried"], highlight=decision_squares(result["best"]),
                              title=f"ply {ply}: tried {result['tried']} \u00b7 engine's best: {result['best']}")

    def cancel(self) -> None:
        """Stop the review: its task and its jobs (it was pushed out by newer reviews, or the server stops)."""
        self.cancelled = True
        if self.task is not None:
            self.task.cancel()
        self.cancel_jobs()


# ---------------------------------------------------------------- a watched game


class Watch:
    """Engines against engines (live), or a record replayed: frames streamed to every open socket."""

    def __init__(self, state, iterations: int, max_decisions: Optional[int], seed: int,
                 actions: Optional[list] = None, record: Optional[str] = None):
        self.id = secrets.token_urlsafe(24)
        self.state = state
        self.initial = state.clone()
        self.iterations = iterations
        self.max_decisions = max_decisions
        self.seed = seed
        self.live = actions is None
        self.actions: list = []
        self.frames: list = []
        self.finished = False
        self.error: Optional[str] = None
        self.record: Optional[str] = record
        self.changed = asyncio.Event()
        self.task: Optional[asyncio.Task] = None
        self.frames.append(self._frame(None, None, None))
        for a in actions or ():
            self._apply(a)
        if not self.live:
            self._finish()

    def _frame(self, seat, move, last) -> dict:
        snap = self.state.snapshot()
        shown = snap if not self.live else public_snapshot(snap)
        return {"type": "decision", "ply": len(self.actions), "seat": seat, "move": move, "last": last,
                "to_act": snap["to_act"], "over": self.state.is_terminal(),
                "svg": _svg(shown, last=last, title=("start" if seat is None else f"{len(self.actions)}. seat {seat}: {move}"))}

    def _apply(self, action: int) -> None:
        before = self.state.snapshot()
        self.state.apply(action)
        self.actions.append(action)
        move = events_for_seat(before, action, self.state.snapshot(), -1)[0] if self.live \
            else A.format_action(action)
        last = A.format_action(action) if move == A.format_action(action) else None
        self.frames.append(self._frame(before["to_act"], move, last))

    def _finish(self) -> None:
        self.finished = True
        if self.record is None and self.state.is_terminal():
            rec = GameRecorder(self.initial.clone(), seed=self.seed)
            for a in self.actions:
                rec.apply(a)
            self.record = rec.text()
        self.changed.set()

    def end_message(self) -> dict:
        over = self.state.is_terminal()
        snap = self.state.snapshot()
        out = {"type": "end", "plies": len(self.actions), "over": over, "error": self.error,
               "end_reason": snap["end_reason"] if over else None,
               "ranks": self.state.result() if over else None,
               "scores": snap["scores"] if over else None,
               "record": f"/api/watch/{self.id}/record" if self.record is not None else None}
        if over:                          # the game is over: every tile may be shown now
            out["svg"] = _svg(snap, last=self.frames[-1].get("last"), title="final position")
        return out

    def cancel(self) -> None:
        """Stop the engines of a live watched game."""
        if self.task is not None:
            self.task.cancel()

    def start(self, executor) -> None:
        if self.live and self.task is None and not self.finished:
            self.task = asyncio.get_running_loop().create_task(self.run(executor))

    async def run(self, executor) -> None:
        loop = asyncio.get_running_loop()
        try:
            while not self.state.is_terminal() and (self.max_decisions is None
                                                    or len(self.actions) < self.max_decisions):
                seat = self.state.to_act
                obs = observation(self.state.snapshot(), seat)
                seed = (worker_seed(self.seed, seat) ^ (len(self.actions) * 1_000_003)) & ((1 << 63) - 1)
                action = await loop.run_in_executor(executor, decide, obs, self.iterations, None, seed)
                if action not in self.state.legal_actions():
                    raise EngineError(f"seat {seat} chose an illegal decision {action!r}")
                self._apply(action)
                self.changed.set()
                self.changed = asyncio.Event()
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self.error = f"engine failed: {e}"
        self._finish()


# ---------------------------------------------------------------- routes


class Replays:
    """The reviews and watched games of one app (the oldest go first beyond MAX_REVIEWS, MAX_WATCHES)."""

    def __init__(self):
        self.reviews: "OrderedDict[str, Review]" = OrderedDict()
        self.watches: "OrderedDict[str, Watch]" = OrderedDict()
        self._slots: Optional[asyncio.Semaphore] = None
        self._slots_loop = None

    def review_slots(self) -> asyncio.Semaphore:
        """Return the semaphore of the MAX_RUNNING_REVIEWS reviews searched at once (one per event loop)."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots_loop is not loop:
            self._slots, self._slots_loop = asyncio.Semaphore(MAX_RUNNING_REVIEWS), loop
        return self._slots

    @staticmethod
    def keep(store: OrderedDict, item, limit: int) -> None:
        """Add a review or watched game to its store, cancelling the oldest one beyond `limit` (its jobs too)."""
        store[item.id] = item
        while len(store) > limit:
            _, old = store.popitem(last=False)
            old.cancel()

    def stop(self) -> None:
        """Cancel every review and watched game (the server stops)."""
        for item in [*self.reviews.values(), *self.watches.values()]:
            item.cancel()


def _replays(conn: HTTPConnection) -> Replays:
    return conn.app.state.replays


def _review_executor(conn: HTTPConnection):
    """Return the app's pool for reviews (its Server's review_executor), apart from live games'."""
    return conn.app.state.server.review_executor


async def review_page(request: Request) -> Response:
    """GET /review: the review page."""
    return page("review.html")


async def watch_page(request: Request) -> Response:
    """GET /watch: the watch page."""
    return page("watch.html")


async def review_create(request: Request) -> Response:
    """POST /api/review?seats=&iterations=&seed=: review a full record (the body), one job per decision."""
    text, bad = await record_text(request)
    if bad is not None:
        return bad
    try:
        q = request.query_params
        iterations = _int_param(q, "iterations", REVIEW_ITERATIONS, 1, MAX_REVIEW_ITERATIONS)
        seed = _int_param(q, "seed", 0, 0, 2 ** 31)
        seats = None
        if q.get("seats"):
            parts = q["seats"].split(",")
            if not all(is_count(p.strip()) for p in parts) or len(parts) > 4:
                raise ReplayError(f"seats: seat numbers separated by commas, got {q['seats'][:20]!r}")
            seats = sorted({int(p) for p in parts})
        review = Review(text, seats, iterations, seed)
    except ReplayError as e:
        return error(400, str(e))
    replays = _replays(request)
    replays.keep(replays.reviews, review, MAX_REVIEWS)
    review.task = asyncio.get_running_loop().create_task(review.run(_review_executor(request),
                                                                    replays.review_slots()))
    return JSONResponse({"review": review.id, "total": len(review.items), "plies": len(review.plies)},
                        status_code=201)


async def review_get(request: Request) -> Response:
    """GET /api/review/{id}: the review's progress, once done the whole review."""
    review = _replays(request).reviews.get(request.path_params["review_id"])
    if review is None:
        return error(404, "no such review")
    return JSONResponse(review.status())


async def review_board(request: Request) -> Response:
    """GET /api/review/{id}/board/{ply}: the board after `ply` decisions (SVG)."""
    review = _replays(request).reviews.get(request.path_params["review_id"])
    if review is None:
        return error(404, "no such review")
    ply = request.path_params["ply"]
    if not 0 <= ply <= len(review.plies):
        return error(404, f"no ply {ply}: this game has plies 0..{len(review.plies)}")
    return Response(review.board(ply), media_type="image/svg+xml")


def _the_review(request: Request):
    return _replays(request).reviews.get(request.path_params["review_id"])


def _status(e: ReplayError, default: int) -> int:
    """Return the HTTP status of a refused puzzle request: 409 not done yet, 404 not a puzzle, else `default`."""
    return 409 if isinstance(e, NotDone) else 404 if isinstance(e, NotAPuzzle) else default


async def puzzles_list(request: Request) -> Response:
    """GET /api/review/{id}/puzzles?seat=S: the plies of seat S's mistakes and blunders, the puzzles."""
    review = _the_review(request)
    if review is None:
        return error(404, "no such review")
    seat = request.query_params.get("seat")
    if seat is None or not is_count(seat):
        return error(400, f"seat: the seat whose mistakes to replay, a number, got {str(seat)[:20]!r}")
    try:
        found = review.puzzles(int(seat))
    except ReplayError as e:
        return error(_status(e, 400), str(e))
    return JSONResponse({"review": review.id, "seat": int(seat), "total": len(found),
                         "puzzles": [{"ply": d["ply"], "mark": d["mark"]} for d in found]})


async def puzzle_get(request: Request) -> Response:
    """GET /api/review/{id}/puzzle/{ply}: the position before puzzle `ply`, as its seat saw it."""
    review = _the_review(request)
    if review is None:
        return error(404, "no such review")
    try:
        return JSONResponse(review.puzzle_view(request.path_params["ply"]))
    except ReplayError as e:
        return error(_status(e, 404), str(e))


async def puzzle_try(request: Request) -> Response:
    """POST /api/review/{id}/puzzle/{ply}: value JSON {seat, move} in place of the decision played."""
    review = _the_review(request)
    if review is None:
        return error(404, "no such review")
    data, bad = await json_object(request, "a try", ("seat", "move"))
    if bad is not None:
        return bad
    ply = request.path_params["ply"]
    try:
        item, action = review.parse_try(ply, data)
    except ReplayError as e:
        return error(_status(e, 400), str(e))
    if review.trying is not None:
        return error(409, "a try of this review is being valued: wait for its answer")
    best = next(d for d in review.decisions if d["ply"] == ply)["best_action"]
    try:
        review.trying = _review_executor(request).submit(try_one, item, action, best, review.iterations, review.seed)
        result = await asyncio.wrap_future(review.trying)
    except asyncio.CancelledError:
        if review.cancelled:              # the review was pushed out by newer ones meanwhile
            return error(404, "the review was removed (newer reviews pushed it out): review the record again")
        raise
    except Exception as e:                # a broken pool: say so, never a 500
        return error(503, f"the try could not be valued: {str(e)[:120]}")
    finally:
        review.trying = None
    return JSONResponse({**result, "review": review.id, "svg": review.try_board(ply, result)})


async def watch_create(request: Request) -> Response:
    """POST /api/watch: engines against engines, from JSON {players, board, variants, iterations, max_decisions}."""
    data, bad = await json_object(request, "a watch request",
                                  ("players", "board", "variants", "iterations", "max_decisions"))
    if bad is not None:
        return bad
    players, board = data.get("players", 2), data.get("board", "standard")
    variants = data.get("variants", [])
    iterations, cap = data.get("iterations", WATCH_ITERATIONS), data.get("max_decisions")
    if type(players) is not int or not 2 <= players <= 4:
        return error(400, f"players must be 2, 3 or 4, got {players!r}")
    if board not in BOARD_NAMES:
        return error(400, f"board must be one of {', '.join(BOARD_NAMES)}, got {board!r}")
    if not isinstance(variants, list) or any(v not in A.VARIANTS for v in variants) \
            or len(set(variants)) != len(variants):
        return error(400, f"variants: a list of distinct names among {', '.join(A.VARIANTS)}")
    if type(iterations) is not int or not 1 <= iterations <= MAX_WATCH_ITERATIONS:
        return error(400, f"iterations must be an integer 1..{MAX_WATCH_ITERATIONS}, got {iterations!r}")
    if cap is not None and (type(cap) is not int or cap < 0):
        return error(400, f"max_decisions must be a non-negative integer, got {cap!r}")
    seed = random.SystemRandom().randrange(2 ** 62)
    state = engine.new_game(players, seed, board, [v for v in A.VARIANTS if v in variants])
    watch = Watch(state, iterations, cap, seed)
    replays = _replays(request)
    replays.keep(replays.watches, watch, MAX_WATCHES)
    return JSONResponse({"watch": watch.id, "url": f"/watch?id={watch.id}"}, status_code=201)


async def watch_load(request: Request) -> Response:
    """POST /api/watch/load: a full record (the body) replayed on the watch page."""
    text, bad = await record_text(request)
    if bad is not None:
        return bad
    try:
        initial, actions, _ = _replay(text)
    except ReplayError as e:
        return error(400, str(e))
    watch = Watch(initial.clone(), 0, None, 0, actions=actions, record=text)
    replays = _replays(request)
    replays.keep(replays.watches, watch, MAX_WATCHES)
    return JSONResponse({"watch": watch.id, "url": f"/watch?id={watch.id}", "plies": len(actions)},
                        status_code=201)


async def watch_record(request: Request) -> Response:
    """GET /api/watch/{id}/record: the full record, once the game is over (or of a replayed record)."""
    watch = _replays(request).watches.get(request.path_params["watch_id"])
    if watch is None:
        return error(404, "no such game")
    if watch.record is None:
        return error(409, "the game is not over: its record would show every hand")
    return PlainTextResponse(watch.record,
                             headers={"Content-Disposition": 'attachment; filename="tne-ai-watch.txt"'})


async def _drain(ws: WebSocket) -> None:
    """Read (and drop) what the page sends, text or binary, until the socket closes: it notices the page going away."""
    with contextlib.suppress(Exception):
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass


async def watch_socket(ws: WebSocket) -> None:
    """WS /ws/watch/{id}: every frame so far, then each new one as it comes, then the end message."""
    watch = _replays(ws).watches.get(ws.path_params["watch_id"])
    await ws.accept()
    if watch is None:                     # accepted, then closed: the page reads the code (an HTTP 403 it cannot)
        await ws.close(code=4404, reason="no such game")
        return
    watch.start(_review_executor(ws))       # never the live games' pool: a human's engine move waits for no watch
    read_task = asyncio.get_running_loop().create_task(_drain(ws))
    sent = 0
    try:
        while True:
            changed = watch.changed
            while sent < len(watch.frames):
                await ws.send_text(dumps(watch.frames[sent]))
                sent += 1
            if watch.finished:
                await ws.send_text(dumps(watch.end_message()))
                break
            waiter = asyncio.ensure_future(changed.wait())
            done, _ = await asyncio.wait({waiter, read_task}, return_when=asyncio.FIRST_COMPLETED)
            if read_task in done:
                waiter.cancel()
                return
    except WebSocketDisconnect:
        return
    finally:
        read_task.cancel()
    with contextlib.suppress(Exception):
        await ws.close()


ROUTES = [
    Route("/review", review_page),
    Route("/watch", watch_page),
    Route("/api/review", review_create, methods=["POST"]),
    Route("/api/review/{review_id}", review_get),
    Route("/api/review/{review_id}/board/{ply:int}", review_board),
    Route("/api/review/{review_id}/puzzles", puzzles_list),
    Route("/api/review/{review_id}/puzzle/{ply:int}", puzzle_get),
    Route("/api/review/{review_id}/puzzle/{ply:int}", puzzle_try, methods=["POST"]),
    Route("/api/watch", watch_create, methods=["POST"]),
    Route("/api/watch/load", watch_load, methods=["POST"]),
    Route("/api/watch/{watch_id}/record", watch_record),
    WebSocketRoute("/ws/watch/{watch_id}", watch_socket),
]
