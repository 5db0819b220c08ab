"""The Starlette application of `tne-ai serve` (docs/web.md).

HTTP:
    GET  /                          the page (static/index.html)
    GET  /static/...                the page's JS and CSS, only from the package's static folder
    GET  /favicon.ico               the pages' icon (static/favicon.svg), for browsers that ask before the page says
    POST /api/games                 start a game: JSON {players, board, variants, human, engines, teach}
    POST /api/games/load            continue a game from its full record (text body, at most 1 MB)
    GET  /api/games/{id}            the human's view (the same as a WebSocket `state` message)
    GET  /api/games/{id}/record     during play the human's seat record, after the end the full record
    WS   /api/games/{id}/ws         live play: JSON messages (docs/web.md)

A game belongs to the browser that created it: its id (secrets.token_urlsafe)
is the only key. Engine searches and hints run in a process pool.

Every handler is a module-level function that reaches the app's games and
pool through `request.app.state.server` (a Server, set by `create_app`); the
request helpers (bounded bodies, JSON errors) are tne_ai/web/http.py's, shared
with the Watch and Review pages (tne_ai/web/replay.py), whose routes this
app mounts.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections import OrderedDict, deque
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Optional

from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from search.levels import FULL_STRENGTH, LEVELS
from tne_ai.web import games as G
from tne_ai.web import replay
from tne_ai.web.http import STATIC, BadJSON, dumps, error, is_count, json_object, page, parse_json, record_text

MAX_MESSAGE_CHARS = 4_096             # one WebSocket message from the browser
MAX_PENDING = 64                      # messages waiting for one socket before it is closed as too slow
CLOSE_NO_GAME = 4404                  # WebSocket close codes: no such game (as HTTP 404)
CLOSE_TOO_SLOW = 4429                 # the page leaves more than MAX_PENDING messages unread
SAVED_SUFFIX = ".tne"                 # DATA_DIR/ID.tne: a saved game (never served)
MAX_SAVED = 10_000                    # games saved in the data folder before new ones are refused
log = logging.getLogger("tne_ai.web")


class ServerFull(Exception):
    """No room for one more game: every game in memory is in use, or the data folder holds its most."""


class Server:
    """The games and the engine pool of one app.

    At most `max_games` games are kept in memory: beyond, the least recently
    used idle one (no open socket, no search running) leaves memory (it stays
    saved); when none is idle a new game is refused (ServerFull, HTTP 503).
    At most `max_saved` games are saved in the data folder: beyond, a new game
    is refused, for a flood of new games must not fill the disk.
    """

    def __init__(self, workers: int = 2, executor: Optional[Executor] = None,
                 hint_iterations: int = G.HINT_ITERATIONS, data_dir=None,
                 review_workers: int = 1, review_executor: Optional[Executor] = None,
                 max_games: int = G.MAX_GAMES, max_saved: int = MAX_SAVED,
                 teach_iterations: int = G.TEACH_ITERATIONS):
        self.teach_iterations = teach_iterations
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.max_games = max_games
        self.max_saved = max_saved
        self.saved_count = 0                  # files in the data folder (counted again when it looks full)
        self.workers = workers
        self.executor = executor              # live games: engine moves and hints
        self.own_executor = executor is None
        # reviews have a pool of their own, so a live game's engine move never waits behind a review's jobs
        self.review_workers = review_workers
        self.review_executor = review_executor
        self.own_review_executor = review_executor is None
        self.hint_iterations = hint_iterations
        self.default_level = FULL_STRENGTH    # the engines' level of a game whose request names none
        self.games: "OrderedDict[str, G.Game]" = OrderedDict()

    def start(self) -> None:
        self.load_saved()
        if self.executor is None:
            self.executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=G.lower_priority)
        if self.review_executor is None:      # (its processes start with the first review)
            self.review_executor = ProcessPoolExecutor(self.review_workers,
                                                       mp_context=multiprocessing.get_context("spawn"),
                                                       initializer=G.lowest_priority)

    def stop(self) -> None:
        for game in self.games.values():
            for task in (game.task, game.hint_task, game.teach_task):
                if task is not None:
                    task.cancel()
        if self.own_executor and self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None
        if self.own_review_executor and self.review_executor is not None:
            self.review_executor.shutdown(wait=False, cancel_futures=True)
            self.review_executor = None

    @staticmethod
    def idle(game: G.Game) -> bool:
        """Return whether no page and no search uses a game (it may leave memory: it is saved)."""
        return not game.subscribers and all(t is None or t.done()
                                            for t in (game.task, game.hint_task, game.teach_task))

    def make_room(self) -> None:
        """Free a place in memory for one more game (the least recently used idle one leaves); ServerFull if none."""
        while len(self.games) >= self.max_games:
            old = next((g for g in self.games.values() if self.idle(g)), None)
            if old is None:
                raise ServerFull(f"the server is full: {len(self.games)} games are in play (at most "
                                 f"{self.max_games}, --max-games); try again when one ends")
            del self.games[old.id]

    def admit(self) -> None:
        """Check that one more game may start (ServerFull says why not), making room in memory for it."""
        if self.data_dir is not None and self.saved_count >= self.max_saved:
            self.saved_count = self.count_saved()         # files may have been removed since
            if self.saved_count >= self.max_saved:
                raise ServerFull(f"the server is full: its data folder holds {self.saved_count:,} saved games "
                                 f"(at most {self.max_saved:,}, --max-saved-games); no new game can start")
        self.make_room()

    def add(self, game: G.Game) -> G.Game:
        """Keep a game in memory (ServerFull when every game there is in use)."""
        if game.id not in self.games:
            self.make_room()
        self.games[game.id] = game
        self.games.move_to_end(game.id)
        return game

    def get(self, game_id: str) -> Optional[G.Game]:
        """Return a game by id, read from the data folder if it left memory; None if none; ServerFull if no room."""
        game = self.games.get(game_id)
        if game is not None:
            self.games.move_to_end(game_id)               # recently used: the last to leave memory
        elif self.data_dir is not None and G.GAME_ID_RE.fullmatch(game_id):
            path = self.data_dir / (game_id + SAVED_SUFFIX)     # a game pushed out of memory, or finished
            if path.is_file():
                game = self.read_saved(path)
                if game is not None:
                    self.add(game)
        return game

    def count_saved(self) -> int:
        """Return how many games the data folder holds."""
        if self.data_dir is None:
            return 0
        with contextlib.suppress(OSError):
            return sum(1 for _ in self.data_dir.glob("*" + SAVED_SUFFIX))
        return self.saved_count

    # --- saved games (--data-dir): the full record after every decision, never served over HTTP

    def save(self, game: G.Game) -> None:
        """Write the game's saved text to DATA_DIR/ID.tne atomically (a temporary file, then os.replace)."""
        if self.data_dir is None:
            return
        path = self.data_dir / (game.id + SAVED_SUFFIX)
        tmp = path.with_name(f".{game.id}.{os.getpid()}.tmp")
        try:
            new = not path.exists()
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(game.saved_text())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
            self.saved_count += new
        except OSError:
            log.exception("cannot save game %s in %s", game.id[:6], self.data_dir)
            with contextlib.suppress(OSError):
                tmp.unlink()

    def read_saved(self, path: Path) -> Optional[G.Game]:
        """Return the game saved in `path`, or None (logged) if the file is not one."""
        try:
            game = G.resume_game(path.read_text(encoding="utf-8"))
            if game.id + SAVED_SUFFIX != path.name:
                raise G.GameError(f"the file holds game {game.id[:6]}..., not its name's")
            return game
        except (OSError, UnicodeDecodeError, G.GameError, ValueError) as e:
            log.warning("skipping saved game %s: %s", path.name, e)
            return None

    def load_saved(self) -> None:
        """Load the unfinished saved games (the most recent max_games), so their URLs resume."""
        if self.data_dir is None:
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        paths = sorted(self.data_dir.glob("*" + SAVED_SUFFIX), key=lambda p: p.stat().st_mtime)
        self.saved_count = len(paths)
        for path in paths[-self.max_games:]:
            game = self.read_saved(path)
            if game is not None and not game.over:
                self.add(game)
        if self.games:
            log.info("resumed %d saved game(s) from %s", len(self.games), self.data_dir)

    # --- live updates

    @staticmethod
    def broadcast(game: G.Game, message: dict) -> None:
        for q in list(game.subscribers):
            q.put_nowait(message)

    def ensure_engines(self, game: G.Game) -> None:
        """Start the engine loop of a game if an engine is to act and none runs."""
        if game.engine_job() is None or (game.task is not None and not game.task.done()):
            return
        game.task = asyncio.get_running_loop().create_task(self.run_engines(game))

    async def run_engines(self, game: G.Game) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                job = game.engine_job()
                if job is None:
                    return
                seat, obs, iterations, seconds, seed, level = job
                version = game.version
                game.thinking = seat
                self.broadcast(game, {"type": "thinking", "seat": seat})
                try:
                    action = await loop.run_in_executor(self.executor, G.decide, obs, iterations, seconds, seed,
                                                        level)
                finally:
                    game.thinking = None
                if not game.engine_move(seat, action, version):
                    return                    # the position changed meanwhile (undo): a new loop runs
                self.save(game)
                self.broadcast(game, {"type": "event", "seat": seat, "move": game.last["move"],
                                      "squares": game.last["squares"]})
                self.broadcast(game, STATE)
        except asyncio.CancelledError:
            raise
        except Exception as e:                # a broken pool, an engine bug: say so, keep the server up
            log.exception("engine loop of game %s", game.id[:6])
            self.broadcast(game, {"type": "error", "message": f"engine failed: {e}"})

    def played(self, game: G.Game) -> None:
        """After a decision of the human's: save, send the new view, let the engines act."""
        self.save(game)
        self.broadcast(game, STATE)
        self.ensure_engines(game)

    async def run_teach(self, game: G.Game) -> None:
        """Value the human's decision being checked (teaching mode) in the pool; then warn or play it."""
        loop = asyncio.get_running_loop()
        job, version = game.teach_job(), game.version
        if job is None:
            return
        try:
            check = await loop.run_in_executor(self.executor, G.teach_check, *job, self.teach_iterations)
        except asyncio.CancelledError:
            raise
        except Exception as e:            # a broken pool: the decision is not played, the human may send it again
            log.exception("teaching check of game %s", game.id[:6])
            if version == game.version and game.checking == job[1]:
                game.checking = None
            self.broadcast(game, {"type": "error", "message": f"teaching check failed: {e}"})
            self.broadcast(game, STATE)
            return
        warned = game.checked(check, version)
        if warned is None:
            return                        # undone meanwhile
        if warned:
            self.broadcast(game, {"type": "teaching", **game.teaching()})
            self.broadcast(game, STATE)
        else:
            self.played(game)

    async def run_hint(self, game: G.Game, queue: "Outbox") -> None:
        loop = asyncio.get_running_loop()
        version = game.version
        try:
            out = await loop.run_in_executor(self.executor, G.hint, game.observation(),
                                             self.hint_iterations, G.worker_seed(game.seed, 99) ^ version)
        except Exception as e:
            queue.put_nowait({"type": "error", "message": f"hint failed: {e}"})
            return
        out["version"] = version
        queue.put_nowait(out)


def _engine_specs(data: dict, players: int, human: int, default_level: int = FULL_STRENGTH) -> dict:
    """Return {seat: EngineSeat} of a new-game request: its engines, or its level (else the server's) below 10."""
    others = [s for s in range(players) if s != human]
    level = data.get("level", default_level)
    G.level_seat(level)                   # a bad level is refused even beside engines
    if "level" in data and "engines" in data and level != FULL_STRENGTH:
        raise G.GameError(f"level {level} sets the engines' budget: give engines or a level below "
                          f"{FULL_STRENGTH}, not both")
    if "engines" not in data and level != FULL_STRENGTH:
        return {s: G.level_seat(level) for s in others}
    spec = data.get("engines", {"iterations": G.DEFAULT_ENGINE_ITERATIONS})
    if isinstance(spec, (dict, str)):
        one = G.engine_seat(spec)
        return {s: one for s in others}
    if isinstance(spec, list) and len(spec) == len(others):
        return {s: G.engine_seat(x) for s, x in zip(others, spec)}
    raise G.GameError(f"engines: one {{\"iterations\": N}} or {{\"movetime\": MS}} for all, "
                      f"or a list of {len(others)} (one per engine seat)")


# ---------------------------------------------------------------- the request handlers
# Every handler reaches the app's games through `request.app.state.server` (set by create_app).


def _server(conn: HTTPConnection) -> Server:
    return conn.app.state.server


def _game(conn: HTTPConnection) -> Optional[G.Game]:
    """Return the game named by the path's game_id, or None (ServerFull if it must be read back and cannot)."""
    return _server(conn).get(conn.path_params["game_id"])


def _started(request: Request, game: G.Game) -> Response:
    """Keep a new game (in memory, and saved) and answer 201 with its id and URL, or 503 when the server is full."""
    server = _server(request)
    try:
        server.admit()
        server.add(game)
    except ServerFull as e:
        return error(503, str(e))
    server.save(game)
    return JSONResponse({"game": game.id, "url": f"/?game={game.id}"}, status_code=201)


async def index(request: Request) -> Response:
    """GET /: the page."""
    return page("index.html")


async def favicon(request: Request) -> Response:
    """GET /favicon.ico: the pages' icon, an SVG (the pages link it; this answers the browsers that guess)."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


async def levels_view(request: Request) -> Response:
    """GET /api/levels: the levels (search.levels) and the level of a new game whose request names none."""
    return JSONResponse({"default": _server(request).default_level, "levels": [vars(lv) for lv in LEVELS]})


async def create_game(request: Request) -> Response:
    """POST /api/games: start a game from JSON {players, board, variants, human, engines, level}."""
    data, bad = await json_object(request, "a new-game request",
                                  ("players", "board", "variants", "human", "engines", "level", "teach"))
    if bad is not None:
        return bad
    try:
        players, human = data.get("players", 2), data.get("human", 0)
        if type(players) is not int or not 2 <= players <= 4:
            raise G.GameError(f"players must be 2, 3 or 4, got {players!r}")
        if type(human) is not int or not 0 <= human < players:
            raise G.GameError(f"human seat must be 0..{players - 1}, got {human!r}")
        game = G.new_game(players, data.get("board", "standard"), data.get("variants", []), human,
                          _engine_specs(data, players, human, _server(request).default_level),
                          teach=G.teach_setting(data.get("teach")))
    except G.GameError as e:
        return error(400, str(e))
    return _started(request, game)


async def load_game(request: Request) -> Response:
    """POST /api/games/load?seat=&iterations=|movetime=|level=&teach=: continue a game from its full record (the body)."""
    text, bad = await record_text(request)
    if bad is not None:
        return bad
    q = request.query_params
    try:
        seat = q.get("seat")
        if seat is not None and not is_count(seat):
            raise G.GameError(f"seat must be a number, got {seat[:20]!r}")
        limits = [k for k in ("iterations", "movetime", "level") if k in q]
        if len(limits) > 1:
            raise G.GameError(f"give one of iterations, movetime and level, not {' and '.join(limits)}")
        spec = None
        if limits:
            key = limits[0]
            if not is_count(q[key]):
                raise G.GameError(f"{key} must be a number")
            spec = G.engine_seat({key: int(q[key])})
        elif _server(request).default_level != FULL_STRENGTH:
            spec = G.level_seat(_server(request).default_level)
        game = G.load_game(text, None if seat is None else int(seat), spec)
        if "teach" in q:
            game.teach = G.teach_setting(q["teach"])
    except G.GameError as e:
        return error(400, str(e))
    return _started(request, game)


async def game_view(request: Request) -> Response:
    """GET /api/games/{id}: the human's view."""
    try:
        game = _game(request)
    except ServerFull as e:
        return error(503, str(e))
    if game is None:
        return error(404, "no such game")
    return JSONResponse(game.view())


async def game_record(request: Request) -> Response:
    """GET /api/games/{id}/record: during play the human's seat record, after the end the full record."""
    try:
        game = _game(request)
    except ServerFull as e:
        return error(503, str(e))
    if game is None:
        return error(404, "no such game")
    if game.over:
        text, name = game.record_text(), "tne-ai-game.txt"
    else:
        text, name = game.seat_record(), f"tne-ai-seat{game.human}.txt"
    return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="{name}"'})


class _StateMarker:
    """The place of a `state` message in an Outbox: the view is built (Game.view) when it is sent."""

    def __repr__(self) -> str:
        return "STATE"


STATE = _StateMarker()


class Outbox:
    """One socket's messages waiting to be sent: at most `limit`, and at most one state, the newest.

    A state message is queued as the STATE marker and built when it is sent, so
    a newer state replaces a pending one (it moves to the end, after the events
    it follows) and a page that asks for its view 10,000 times costs one view.
    Beyond `limit` other messages waiting the reader is too slow: `overflowed`
    is set and the socket is closed (CLOSE_TOO_SLOW) rather than queue without end.
    """

    def __init__(self, limit: int = MAX_PENDING):
        self.items: deque = deque()
        self.limit = limit
        self.peak = 0                     # the most messages ever waiting at once (tests read it)
        self.puts = 0                     # messages ever queued, coalesced or not
        self.ready = asyncio.Event()
        self.overflowed = asyncio.Event()

    def __len__(self) -> int:
        return len(self.items)

    def put_nowait(self, message) -> None:
        """Queue a message (a dict, or STATE; a dict of type state counts as STATE); past the limit, overflow."""
        self.puts += 1
        if message is STATE or (isinstance(message, dict) and message.get("type") == "state"):
            message = STATE
            with contextlib.suppress(ValueError):
                self.items.remove(STATE)
        if len(self.items) >= self.limit:
            self.overflowed.set()
            return
        self.items.append(message)
        self.peak = max(self.peak, len(self.items))
        self.ready.set()

    async def get(self):
        """Return the next message to send (waiting for one)."""
        while not self.items:
            self.ready.clear()
            await self.ready.wait()
        return self.items.popleft()


async def _send_queued(ws: WebSocket, outbox: Outbox, game: G.Game) -> None:
    """Send a socket's queued messages as they come (until cancelled); a state is the view at sending time."""
    while True:
        item = await outbox.get()
        await ws.send_text(dumps(game.view() if item is STATE else item))


async def _receive(ws: WebSocket, server: "Server", game: G.Game, outbox: Outbox) -> None:
    """Answer what the page sends until it goes away; a binary frame is answered with an error."""
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text is None:                  # a binary frame: nothing here is sent as bytes
            outbox.put_nowait({"type": "error", "message": "binary frames are not read: send each message "
                                                           "as JSON text"})
            continue
        try:
            replies = answer(server, game, text, outbox)
        except Exception as e:            # a bug, not bad input: say so and keep the socket and the game
            log.exception("answering a message of game %s", game.id[:6])
            replies = [{"type": "error", "message": f"the server failed on this message: {str(e)[:80]}"}]
        for msg in replies:
            outbox.put_nowait(msg)


async def serve_socket(ws: WebSocket, server: "Server", game: G.Game, limit: int = MAX_PENDING) -> None:
    """Play one accepted socket: its view at once, then answers and broadcasts until it closes.

    A reader that leaves more than `limit` messages unread is closed with
    CLOSE_TOO_SLOW; the game goes on and the page may reconnect.
    """
    outbox = Outbox(limit)
    game.subscribers.add(outbox)
    loop = asyncio.get_running_loop()
    sender = loop.create_task(_send_queued(ws, outbox, game))
    receiver = loop.create_task(_receive(ws, server, game, outbox))
    overflow = loop.create_task(outbox.overflowed.wait())
    outbox.put_nowait(STATE)
    server.ensure_engines(game)
    done: set = set()
    try:
        done, _ = await asyncio.wait({sender, receiver, overflow}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        game.subscribers.discard(outbox)
        for task in (sender, receiver, overflow):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task            # (a test client cancels a closed session's app: end quietly)
    if overflow in done:
        log.warning("closing a slow socket of game %s: more than %d messages unread", game.id[:6], limit)
        with contextlib.suppress(Exception):
            await ws.close(code=CLOSE_TOO_SLOW, reason=f"too slow: more than {limit} messages waiting unread")
    elif sender in done and not isinstance(sender.exception(), (WebSocketDisconnect, OSError, RuntimeError)):
        log.error("the sender of game %s failed", game.id[:6], exc_info=sender.exception())
        with contextlib.suppress(Exception):
            await ws.close(code=1011, reason="internal error")


async def game_socket(ws: WebSocket) -> None:
    """WS /api/games/{id}/ws: live play; every message is answered by `answer`, updates are broadcast."""
    server = _server(ws)
    await ws.accept()
    try:
        game = _game(ws)
    except ServerFull as e:               # 1013: try again later
        await ws.close(code=1013, reason=str(e)[:120])
        return
    if game is None:                      # accepted, then closed: the page reads the code (an HTTP 403 it cannot)
        await ws.close(code=CLOSE_NO_GAME, reason="no such game")
        return
    await serve_socket(ws, server, game)


def answer(server: Server, game: G.Game, text: str, queue: Outbox) -> list:
    """Answer one browser message; every problem is an error message and the game goes on."""
    if len(text) > MAX_MESSAGE_CHARS:
        return [{"type": "error", "message": f"message longer than {MAX_MESSAGE_CHARS} characters"}]
    try:
        msg = parse_json(text)
    except BadJSON as e:
        return [{"type": "error", "message": str(e)}]
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        return [{"type": "error", "message": "expected a JSON object with a \"type\""}]
    kind = msg["type"]
    try:
        if kind == "ping":
            t = msg.get("t")
            return [{"type": "pong", "t": t if isinstance(t, (int, float, str)) and len(str(t)) < 40 else None}]
        if kind == "state":
            return [STATE]
        if kind == "move":
            if game.play(msg.get("move")) is None:      # teaching mode: checked first, nothing applied yet
                game.teach_task = asyncio.get_running_loop().create_task(server.run_teach(game))
                server.broadcast(game, STATE)
                return []
            server.played(game)
            return []
        if kind == "teach_answer":
            if game.answer_teaching(msg.get("answer")) is None:
                server.broadcast(game, STATE)         # taken back: the same position, the warning gone
            else:
                server.played(game)
            return []
        if kind == "teach":
            game.set_teach(msg.get("on"), msg.get("threshold"))
            server.save(game)
            server.broadcast(game, STATE)
            return []
        if kind == "undo":
            if game.task is not None:
                game.task.cancel()
                game.task = None
            game.thinking = None
            game.undo()
            server.save(game)
            server.broadcast(game, STATE)
            server.ensure_engines(game)
            return []
        if kind == "hint":
            if game.over:
                raise G.GameError("the game is over")
            if game.hint_task is not None and not game.hint_task.done():
                raise G.GameError("a hint is already being searched")
            game.hint_task = asyncio.get_running_loop().create_task(server.run_hint(game, queue))
            return []
    except G.GameError as e:
        return [{"type": "error", "message": str(e)}]
    return [{"type": "error", "message": f"unknown message type {kind[:30]!r}: "
                                         f"expected move, teach_answer, teach, hint, undo, state or ping"}]


@contextlib.asynccontextmanager
async def lifespan(app: Starlette):
    """Start the app's Server (saved games, the engine pool) and stop it at shutdown."""
    server = app.state.server
    server.start()
    try:
        yield
    finally:
        app.state.replays.stop()
        server.stop()


ROUTES = [
    Route("/", index),
    Route("/favicon.ico", favicon),
    Route("/api/levels", levels_view),
    Route("/api/games", create_game, methods=["POST"]),
    Route("/api/games/load", load_game, methods=["POST"]),
    Route("/api/games/{game_id}", game_view),
    Route("/api/games/{game_id}/record", game_record),
    WebSocketRoute("/api/games/{game_id}/ws", game_socket),
    *replay.ROUTES,                   # the Watch and Review pages (tne_ai/web/replay.py)
    Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
]


def create_app(workers: int = 2, executor: Optional[Executor] = None,
               hint_iterations: int = G.HINT_ITERATIONS, data_dir=None,
               review_workers: int = 1, review_executor: Optional[Executor] = None,
               max_games: int = G.MAX_GAMES, max_saved: int = MAX_SAVED,
               teach_iterations: int = G.TEACH_ITERATIONS, default_level: int = FULL_STRENGTH) -> Starlette:
    """Return the web app; engine searches run in a spawn ProcessPoolExecutor of `workers` (or `executor`).

    Reviews run in a pool of their own, `review_workers` processes at the
    lowest CPU priority (or `review_executor`), at most replay.MAX_RUNNING_REVIEWS at once.

    With `data_dir` every game is saved there after every decision and the unfinished ones resume at start.
    At most `max_games` games are kept in memory and `max_saved` saved; beyond, a new game is a 503 (Server).
    Teaching checks search `teach_iterations` per search (tne_ai.teach).
    `default_level` (1..10) is the engines' level of a new or loaded game whose request names no level or limit.
    The app's state holds its Server (`server`) and its reviews and watched games (`replays`).
    """
    G.level_seat(default_level)           # GameError for no level
    app = Starlette(routes=ROUTES, lifespan=lifespan)
    app.state.server = Server(workers, executor, hint_iterations, data_dir, review_workers, review_executor,
                              max_games, max_saved, teach_iterations)
    app.state.server.default_level = default_level
    app.state.replays = replay.Replays()
    return app
