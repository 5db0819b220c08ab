"""`tne-ai bot`: one seat of a game over stdin/stdout, speaking docs/protocol.md.

`BotSession` is the dispatcher: `handle(line)` decodes a line
(tne_ai.protocol.codec), runs the command and writes the replies through one
locked writer. A `go` searches in a background thread, so `isready`, `stop`,
`quit` and the read-only commands are served while it runs. For searching,
the session holds only its own seat's view (engine.view.SeatView); a whole
position, when one is given, is kept on the side for `perft` and
`legalmoves` alone. A refused line gets one `error` reply and changes
nothing: every command checks everything before it touches the state.

`tne-ai bot --agent greedy|random` answers `go` with a baseline's decision
(search.baselines) instead of the search, from the same seat's view, so any
engine can be tested against the baselines through the referee.
"""
from __future__ import annotations

import logging
import math
import os
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import click

from engine.actions import PASS, format_action, parse_action
from engine.errors import EngineError
from engine.info import determinize, observation
from engine.position import format_position, is_public, parse_position
from engine.render import render
from engine.state import State, perft
from engine.view import SeatView, is_swap, letters, observation_from_public, start_observation
from search.agent import Limits, SearchError
from search.baselines import GreedyAgent, RandomAgent, stall_step
from search.calibration import load_map, position_facts, win_chance
from search.explain import explain
from search.ismcts import ISMCTS, NoIterations, world_from_observation
from search.levels import FULL_STRENGTH, level_decision, level_of
from search.params import SearchParams
from search.twins import TwinError, refuse_twin
from tne_ai import __version__
from tne_ai.inputs import InputError
from tne_ai.protocol.codec import (ENGINE_NAME, OPTIONS, Command, ProtocolError, decode_line, default_options,
                                   echo, error_reply, find_option, format_json, format_text, id_reply, one_line,
                                   parse_json, parse_text, read_lines)

log = logging.getLogger("tne_ai.protocol.bot")

DEFAULT_ITERATIONS = 1000       # a go with no limit
SLICE_ITERATIONS = 2048         # an iteration-limited search runs in slices of this many (same result
                                # whatever InfoInterval is, so a seed stays reproducible) ...
SLICE_GROWTH = 16               # ... or of the iterations (time) so far / 16: each slice ends by reading
                                # the whole tree's statistics, which grows with the tree
MIN_SLICE_SECONDS = 0.002       # less time than this left: not worth building another world
IDLE_SLICE_SECONDS = 1.0        # the slice of an infinite search when no info reports are asked for
LATE_START_SECONDS = 0.005      # first guess of the time from the search deadline to the written bestmove
LATE_MAX_SECONDS = 0.05
LATE_DECAY = 0.9                # the guess follows the worst recent lateness, forgetting it slowly
OWN_DECISIONS_PER_BAG_TILE = 1.0  # a turn draws about two tiles and holds about two decisions
MIN_DECISIONS_LEFT = 4
RESERVE_SHARE = 0.05            # of the own clock, never spent
INC_SHARE = 0.75                # of the increment, spent on top of the clock share
_MASK64 = (1 << 64) - 1
_SLICE_SEED_STEP = 0x9E3779B97F4A7C15
# option -> the SearchParams field it sets (a params file gives these options their starting values)
PARAM_OPTIONS = {o.name: o.field for o in OPTIONS if o.field is not None}
AGENTS = ("ismcts", "greedy", "random")     # what answers `go`: the search or a baseline
BASELINES = {"greedy": GreedyAgent, "random": RandomAgent}


def clock_budget_ms(clock_ms: int, inc_ms: int, bag_size: int, players: int, overhead_ms: int) -> float:
    """Return the milliseconds to spend on one decision on a clock: a share of it, a reserve kept."""
    decisions_left = max(MIN_DECISIONS_LEFT, math.ceil(bag_size * OWN_DECISIONS_PER_BAG_TILE / players))
    usable = clock_ms - RESERVE_SHARE * clock_ms - overhead_ms
    if usable <= 0:
        return 0.0
    return min(usable / decisions_left + INC_SHARE * inc_ms, usable)


@dataclass
class GameSettings:
    """What `newgame` set: the players, the board and this engine's seat."""

    players: int = 2
    board: str = "standard"
    seat: int = 0
    variants: tuple = ()


@dataclass
class SeatPosition:
    """The game as this seat knows it: how it was given, and the view it built."""

    base: tuple                     # the start or position string with this seat's tiles
    events: list                    # the events given after it
    view: SeatView
    full: Optional[State]           # the whole state, only when given whole (perft, legalmoves)


@dataclass
class SearchJob:
    """One running `go`."""

    observation: dict
    seat: int
    limit: Optional[int]            # iterations; None: until the deadline, or until stop when there is none
    seed: int
    reuse: Optional[list]
    received: float                 # perf_counter() when the go line arrived
    deadline: Optional[float]       # perf_counter() by which the search must end
    stop: threading.Event = field(default_factory=threading.Event)
    silent: bool = False            # quit: end without a bestmove
    thread: Optional[threading.Thread] = None
    result: object = None           # the last slice's SearchResult (statistics of the whole tree)
    iterations: int = 0             # run so far by this go
    passes: int = 0                 # passes in a row before this decision (the greedy baseline's stall rules)
    idle: int = 0                   # action-phase decisions in a row that placed no tile
    level: int = 10                 # the Level option when the go arrived (search.levels)


class BotSession:
    """The protocol dispatcher for one engine process: feed it lines, it writes the replies."""

    def __init__(self, write_lines: Callable[[list], None], options: Optional[dict] = None,
                 json_mode: bool = False, agent: str = "ismcts", params: Optional[SearchParams] = None):
        """Start with the default options, changed by `options` ({name: text or typed value}); `agent` answers go.

        `params` (a params file's SearchParams) is what the search runs with;
        the options that set one of its fields (PARAM_OPTIONS: Exploration,
        RolloutDepth, ReuseTree, TreeMemory) start at its values, and
        `options` or a later setoption still change them.
        """
        try:
            refuse_twin(agent, "tne-ai bot")
        except TwinError as e:
            raise ProtocolError("bad-argument", str(e)) from None
        if agent not in AGENTS:
            raise ProtocolError("bad-argument", f"unknown agent {agent!r}; expected one of {', '.join(AGENTS)}")
        self.agent = agent
        self._write_lines = write_lines
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()           # a search ending against commands that check for one
        self.json_mode = json_mode
        self.options = default_options()
        self.base_params = params if params is not None else SearchParams()
        self.options.update(params_options(self.base_params))
        for name, value in (options or {}).items():
            spec = find_option(name)
            self.options[spec.name] = spec.coerce(value)
        self.closed = False
        self._game = GameSettings()
        self._position: Optional[SeatPosition] = None
        self._since: Optional[list] = None      # own-turn decisions since the last search (tree reuse)
        self._go_count = 0
        self._job: Optional[SearchJob] = None
        self._late = LATE_START_SECONDS
        self._searcher = self._new_searcher()

    # ------------------------------------------------------------ the outside

    def handle(self, line, received: Optional[float] = None) -> bool:
        """Serve one input line (bytes or str); return False once the session has quit."""
        if received is None:
            received = time.perf_counter()
        if self.closed:
            return False
        try:
            text = decode_line(line)
            if text is None:
                return True
            cmd = parse_json(text) if self.json_mode else parse_text(text)
            return getattr(self, "_cmd_" + cmd.name)(cmd, received)
        except ProtocolError as e:
            self._emit(error_reply(e))
        except Exception as e:              # a bug: say so on the line and on stderr, and live on
            log.exception("internal error on line %r", echo(line))
            self._emit(error_reply(ProtocolError("internal", f"{type(e).__name__}: {e}")))
        return True

    @property
    def searching(self) -> bool:
        return self._job is not None

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait for a running search to end; return whether none runs any more."""
        job = self._job
        if job is not None and job.thread is not None:
            job.thread.join(timeout)
        return self._job is None

    def close(self) -> None:
        """End any search without a bestmove and release the worker processes."""
        job = self._job
        if job is not None:
            job.silent = True
            self._stop_and_join(job)
        self._searcher.close()
        self.closed = True

    def finish(self) -> None:
        """End of input: let a bounded search end and answer (an infinite one is stopped, with its bestmove), then close."""
        job = self._job
        if job is not None:
            if job.limit is None and job.deadline is None:
                self._stop_and_join(job)
            elif job.thread is not None:
                job.thread.join()
        self.close()

    def fingerprint(self) -> tuple:
        """Return everything a command may change, to compare before and after a refused line."""
        pos = self._position
        if pos is None:
            where = None
        else:
            obs = pos.view.observation()
            where = (pos.base, tuple(pos.events), format_position(obs), tuple(obs["hand"]),
                     tuple(obs["own_swapped"]), None if pos.full is None else pos.full.position(hidden=True))
        # the kept tree is the searcher's private affair; its identity and size tell whether it moved
        tree = getattr(self._searcher, "_tree", None)
        return (self.json_mode, tuple(sorted(self.options.items())), self._game, where,
                None if self._since is None else tuple(self._since), self._go_count,
                id(self._searcher), id(tree), None if tree is None else tree.node_count, self.closed)

    # ------------------------------------------------------------ output

    def _emit(self, *replies) -> None:
        lines = []
        for reply in replies:
            lines += format_json(reply) if self.json_mode else format_text(reply)
        with self._write_lock:
            self._write_lines(lines)

    # ------------------------------------------------------------ commands

    def _cmd_tne(self, cmd: Command, received: float) -> bool:
        reply = id_reply(__version__, self.options)
        if self.agent != "ismcts":
            reply["name"] = f"{ENGINE_NAME} {self.agent}"
        self._emit(reply, {"type": "tneok"})
        return True

    def _cmd_isready(self, cmd: Command, received: float) -> bool:
        self._emit({"type": "readyok"})
        return True

    def _cmd_setoption(self, cmd: Command, received: float) -> bool:
        self._require_idle()
        spec = find_option(cmd.args["name"])
        value = spec.coerce(cmd.args["value"])
        if self.options[spec.name] == value:
            return True
        searched_with = self._params()
        self.options[spec.name] = value
        if spec.name == "Workers" or self._params() != searched_with:
            self._searcher.close()
            self._searcher = self._new_searcher()
            self._since = None
        return True

    def _cmd_newgame(self, cmd: Command, received: float) -> bool:
        self._require_idle()
        self._game = GameSettings(cmd.args["players"], cmd.args["board"], cmd.args["seat"], cmd.args["variants"])
        self._position = None
        self._since = None
        self._go_count = 0
        self._searcher.forget()
        return True

    def _cmd_position(self, cmd: Command, received: float) -> bool:
        self._require_idle()
        args = cmd.args
        base = self._base_key(args)
        cur = self._position
        events = args["moves"]
        if cur is not None and cur.base == base and events[:len(cur.events)] == cur.events:
            view, full, since = SeatView(cur.view.observation()), cur.full, self._since
            new, offset = events[len(cur.events):], len(cur.events)
        else:
            view, full = self._start_view(args)
            since, new, offset = None, events, 0
        full, since = self._apply_events(view, full, since, new, offset)
        if full is not None and observation(full.snapshot(), view.seat) != view.observation():
            log.info("the whole position no longer agrees with this seat's events; keeping only the view")
            full = None
        self._position = SeatPosition(base, list(events), view, full)
        self._since = since
        return True

    def _cmd_go(self, cmd: Command, received: float) -> bool:
        self._require_idle()
        pos = self._require_position()
        obs = pos.view.observation()
        seat = pos.view.seat
        args = cmd.args
        if obs["phase"] == "over":
            raise ProtocolError("game-over", "the game is over: there is no decision to search")
        if obs["to_act"] != seat:
            raise ProtocolError("not-to-act", f"seat {obs['to_act']} is to act, not this engine's seat {seat}")
        for key in ("clocks", "incs"):
            for s in args[key]:
                if s >= obs["players"]:
                    raise ProtocolError("bad-argument", f"go: seat {s} in {key} but the game has "
                                                        f"{obs['players']} players")
        if args["clocks"] and seat not in args["clocks"]:
            raise ProtocolError("bad-argument", f"go: clock{seat} (this engine's clock) is missing")
        overhead_ms = self.options["MoveOverhead"]
        budget_ms = None
        if "movetime" in args:
            budget_ms = args["movetime"] - overhead_ms
        if seat in args["clocks"]:
            share = clock_budget_ms(args["clocks"][seat], args["incs"].get(seat, 0), obs["bag_size"],
                                    obs["players"], overhead_ms)
            budget_ms = share if budget_ms is None else min(budget_ms, share)
        iterations = args.get("iterations")
        if iterations is None and budget_ms is None and not args["infinite"]:
            iterations = DEFAULT_ITERATIONS
        if self.options["Level"] < FULL_STRENGTH:     # a level searches at most its own budget
            cap = level_of(self.options["Level"]).iterations
            iterations = cap if iterations is None else min(iterations, cap)
        deadline = None
        if budget_ms is not None:
            deadline = max(received, received + budget_ms / 1000 - self._late)
        seed = args.get("seed", self.options["Seed"] + self._go_count) & _MASK64
        reuse = list(self._since) if self._since is not None and self.options["ReuseTree"] else None
        job = SearchJob(obs, seat, iterations, seed, reuse, received, deadline)
        job.passes, job.idle = stall_counts(pos.events)
        job.level = self.options["Level"]
        job.thread = threading.Thread(target=self._search_main, args=(job,), name="tne-search", daemon=True)
        with self._lock:
            self._job = job
            self._go_count += 1
        job.thread.start()
        return True

    def _cmd_stop(self, cmd: Command, received: float) -> bool:
        job = self._job
        if job is None:
            raise ProtocolError("not-searching", "no search is running")
        self._stop_and_join(job)
        return True

    def _cmd_legalmoves(self, cmd: Command, received: float) -> bool:
        pos = self._require_position()
        obs = pos.view.observation()
        if obs["phase"] == "over":
            raise ProtocolError("game-over", "the game is over: nobody has a decision")
        if pos.full is not None:
            moves = pos.full.legal_moves()
        elif obs["to_act"] == pos.view.seat:
            # this seat's own decisions are the same in every world dealt from its view
            moves = State.from_snapshot(determinize(obs, pos.view.seat, random.Random(0))).legal_moves()
        else:
            raise ProtocolError("hidden-unknown", f"seat {obs['to_act']} is to act; its decisions depend on "
                                                  f"tiles this seat cannot see")
        self._emit({"type": "legalmoves", "moves": moves})
        return True

    def _cmd_perft(self, cmd: Command, received: float) -> bool:
        self._require_idle()
        pos = self._require_position()
        if pos.full is None:
            raise ProtocolError("hidden-unknown", "perft needs every hand and the bag: give the position "
                                                  "whole (position fen with the hidden part)")
        start = time.perf_counter()
        nodes = perft(pos.full.clone(), cmd.args["depth"])
        ms = int((time.perf_counter() - start) * 1000)
        self._emit({"type": "perft", "depth": cmd.args["depth"], "nodes": nodes, "time": ms})
        return True

    def _cmd_show(self, cmd: Command, received: float) -> bool:
        pos = self._require_position()
        obs = pos.view.observation()
        self._emit({"type": "show", "board": render(obs, pos.view.seat).rstrip("\n"),
                    "position": format_position(obs), "hand": letters(obs["hand"]),
                    "swapped": ",".join(str(n) for n in obs["own_swapped"])})
        return True

    def _cmd_eval(self, cmd: Command, received: float) -> bool:
        # read-only like show, so served during a search: the position cannot change while one runs
        pos = self._require_position()
        try:
            data = explain(pos.view.observation(), pos.view.seat, self._params())
        except EngineError as e:
            raise ProtocolError("bad-position", one_line(e)) from None
        self._emit({"type": "eval", **data})
        return True

    def _cmd_protocol(self, cmd: Command, received: float) -> bool:
        self.json_mode = cmd.args["mode"] == "json"
        return True

    def _cmd_quit(self, cmd: Command, received: float) -> bool:
        self.close()
        return False

    # ------------------------------------------------------------ helpers

    def _require_idle(self) -> None:
        if self._job is not None:
            raise ProtocolError("busy", "a search is running: send stop first")

    def _require_position(self) -> SeatPosition:
        if self._position is None:
            raise ProtocolError("no-position", "no position is set: send position first")
        return self._position

    def _params(self) -> SearchParams:
        # the kernel always may keep its tree; ReuseTree decides whether the session offers one
        changes = {field_name: self.options[name] for name, field_name in PARAM_OPTIONS.items()}
        return self.base_params.with_changes(**{**changes, "reuse_tree": True})

    def _new_searcher(self) -> ISMCTS:
        # a baseline searches nothing: one worker is enough for eval and the fallback
        searcher = ISMCTS(self._params(), self.options["Workers"] if self.agent == "ismcts" else 1)
        if searcher.workers > 1:
            # start the worker processes now (that takes a while), not in the first timed search
            obs = start_observation(2, "standard", 0, 0, [2, 1, 1, 2])
            searcher.search(obs, 0, Limits(iterations=searcher.workers), seed=0)
        return searcher

    def _base_key(self, args: dict) -> tuple:
        g = self._game
        if args.get("startpos"):
            return ("startpos", g.players, g.board, g.variants, g.seat, args["first"], tuple(args["hand"]))
        return ("fen", args["fen"], None if args["hand"] is None else tuple(args["hand"]),
                None if args["swapped"] is None else tuple(args["swapped"]), g.seat)

    def _start_view(self, args: dict):
        """Return the view (and whole state, if given) a position's start describes."""
        g = self._game
        try:
            if args.get("startpos"):
                return SeatView(start_observation(g.players, g.board, g.seat, args["first"], args["hand"],
                                                  g.variants)), None
            snap = parse_position(args["fen"])
            if g.seat >= snap["players"]:
                raise ProtocolError("bad-position", f"this engine plays seat {g.seat} but the position has "
                                                    f"{snap['players']} players")
            if not is_public(snap):
                if args["hand"] is not None or args["swapped"] is not None:
                    raise ProtocolError("bad-argument", "position fen: the position string has its hidden "
                                                        "part, so hand and swapped come from it")
                full = State.from_snapshot(snap)
                return SeatView(observation(snap, g.seat)), full
            if args["hand"] is None:
                raise ProtocolError("bad-argument", "position fen: a position string without its hidden "
                                                    "part needs this seat's hand")
            obs = observation_from_public(snap, g.seat, args["hand"], args["swapped"] or [0, 0, 0, 0])
            # the rules must accept the worlds the search will deal from this view
            State.from_snapshot(determinize(obs, g.seat, random.Random(0)))
            return SeatView(obs), None
        except EngineError as e:
            raise ProtocolError("bad-position", one_line(e)) from None

    def _apply_events(self, view: SeatView, full: Optional[State], since: Optional[list],
                      events: list, offset: int):
        """Apply events to a fresh view; return the whole state and the reusable decisions after them."""
        seat = view.seat
        for i, ev in enumerate(events):
            before = view.obs
            try:
                view.apply(ev)
            except (EngineError, ValueError) as e:  # ValueError: int() of a huge count deeper down
                raise ProtocolError("bad-event", f"event {offset + i + 1} ({echo(ev)!r}): {one_line(e)}") from None
            if ev == "draw" or ev.startswith("draw "):
                since = None                # the tree's worlds did not know these tiles
                continue
            try:
                action = parse_action(ev)
            except (EngineError, ValueError):
                action = None               # another seat's `swap n`: its tiles are hidden
            if full is not None:
                try:
                    if action is None:
                        raise EngineError("a hidden swap")
                    nxt = full.clone()
                    nxt.apply(action)
                    full = nxt
                except EngineError:
                    full = None
            if since is not None:
                after = view.obs
                same_turn = (not view.pending_draw and before["turn_owner"] == after["turn_owner"] == seat
                             and after["phase"] != "over")
                if action is None or is_swap(action) or action == PASS or not same_turn:
                    since = None
                else:
                    since = since + [action]
        if view.pending_draw:
            raise ProtocolError("bad-event", f"the last decision drew {view.pending_draw} tile(s) for seat "
                                             f"{seat}: a 'draw' event must follow it")
        return full, since

    # ------------------------------------------------------------ searching

    def _stop_and_join(self, job: SearchJob) -> None:
        # job.stop is every slice's stop token: a stop that lands before a slice
        # begins, or between two, is seen by it; one during a slice stops its tree
        job.stop.set()
        self._searcher.stop()
        if job.thread is not None:
            job.thread.join()

    def _search_main(self, job: SearchJob) -> None:
        if self.agent != "ismcts":
            self._baseline_main(job)
            return
        try:
            self._run_search(job)
        except Exception:
            log.exception("search failed; answering with what it found so far")
        result = job.result
        replies = []
        if result is not None:
            replies.append(self._info_reply(job, result, job.iterations))
            best, move = result.best, result.best_move
            if job.level < FULL_STRENGTH:
                best = level_decision(level_of(job.level), result, job.observation, job.seat, job.seed)
                move = format_action(best)
        else:
            best, move = self._fallback(job)
        replies.append({"type": "bestmove", "move": move, "action": best})
        with self._lock:
            self._job = None
            if result is None:
                self._searcher.forget()     # the kept tree may not be this position's
                self._since = None
            else:
                self._since = []
            if not job.silent:
                self._emit(*replies)
        if job.deadline is not None and not job.stop.is_set():
            late = time.perf_counter() - job.deadline
            self._late = min(LATE_MAX_SECONDS, max(late, LATE_DECAY * self._late))

    def _baseline_main(self, job: SearchJob) -> None:
        """Answer a go with the baseline's decision (no info: it searches nothing)."""
        try:
            agent = BASELINES[self.agent](job.seed)
            agent.new_game(job.seat, job.observation)
            if isinstance(agent, GreedyAgent):
                agent.passes, agent.idle = job.passes, job.idle
            best = agent.choose()
        except Exception:
            log.exception("the %s baseline failed; answering the first legal decision", self.agent)
            best = world_from_observation(job.observation, job.seat, job.seed).legal_actions()[0]
        with self._lock:
            self._job = None
            self._since = None
            if not job.silent:
                self._emit({"type": "bestmove", "move": format_action(best), "action": best})

    def _run_search(self, job: SearchJob) -> None:
        """Search in slices, reporting between them; keep the last result and the iterations on the job."""
        searcher = self._searcher
        interval = self.options["InfoInterval"] / 1000
        if searcher.workers > 1:
            # the workers' trees live in other processes: one call, reports only at the end
            seconds = None if job.deadline is None else max(job.deadline - time.perf_counter(), 1e-3)
            if job.limit is None and seconds is None:
                seconds = 1e9       # infinite: until stop
            job.result = searcher.search(job.observation, job.seat, Limits(job.limit, seconds), seed=job.seed,
                                         stop_token=job.stop)
            job.iterations = job.result.iterations
            return
        reuse = job.reuse
        last_report = job.received
        k = 0
        while not job.stop.is_set():
            its = seconds = None
            if job.limit is not None:
                its = min(max(SLICE_ITERATIONS, job.iterations // SLICE_GROWTH), job.limit - job.iterations)
                if its <= 0:
                    return
            if job.deadline is not None:
                seconds = job.deadline - time.perf_counter()
                if seconds <= 0 or (seconds < MIN_SLICE_SECONDS and job.iterations > 0):
                    return
            if its is None:
                step = interval if interval > 0 else IDLE_SLICE_SECONDS
                step = max(step, (time.perf_counter() - job.received) / SLICE_GROWTH)
                seconds = step if seconds is None else min(seconds, step)
            seed = (job.seed + k * _SLICE_SEED_STEP) & _MASK64
            try:
                r = searcher.search(job.observation, job.seat, Limits(its, seconds), seed=seed, reuse=reuse,
                                    stop_token=job.stop)
            except NoIterations:
                if job.stop.is_set() or (job.deadline is not None and time.perf_counter() >= job.deadline):
                    return          # stopped, or out of time, before the slice's first iteration
                # a slice whose time ran out before its first iteration (a loaded machine):
                # the search is not over, so the next slice goes on (each is longer)
                continue
            reuse, k = [], k + 1
            job.iterations += r.iterations
            job.result = r
            now = time.perf_counter()
            finished = ((job.limit is not None and job.iterations >= job.limit)
                        or (job.deadline is not None and now >= job.deadline))
            # the last slice's report would repeat the final one that follows it
            if interval > 0 and now - last_report >= interval and not job.stop.is_set() and not finished:
                last_report = now
                if not job.silent:
                    self._emit(self._info_reply(job, r, job.iterations))

    def _info_reply(self, job: SearchJob, result, iterations: int) -> dict:
        elapsed = time.perf_counter() - job.received
        cands = [{"move": c.move, "action": c.action, "visits": c.visits, "avail": c.availability,
                  "mean": c.mean, "low": c.low, "high": c.high, "pv": [c.move] + list(c.pv)}
                 for c in result.candidates[:self.options["Candidates"]]]
        # the searching seat's chance from its best decision's mean (what the map was fitted on), the others' from the root
        best = result.candidates[0]
        obs = job.observation
        facts = position_facts(obs) if load_map(obs["players"], obs["board"]) is not None else None
        chances = [win_chance(job.observation, s, best.mean if s == job.seat else v, facts=facts)
                   for s, v in enumerate(result.root_value)]
        reply = {"type": "info", "iterations": iterations,
                 "nps": int(iterations / elapsed) if elapsed > 0 else 0, "nodes": result.nodes,
                 "time": int(elapsed * 1000), "value": list(result.root_value)}
        if None not in chances:
            reply["win"] = [c["win"] for c in chances]
        reply["candidates"] = cands
        if result.tree_full:
            reply["treefull"] = result.tree_bytes
        return reply

    def _fallback(self, job: SearchJob):
        """Return (action, move) when no iteration ran: the best decision by the one-step look-ahead."""
        try:
            # a fresh one-iteration search expands the root's first decision in look-ahead order
            r = ISMCTS(self._params()).search(job.observation, job.seat, Limits(iterations=1), seed=job.seed)
            return r.best, r.best_move
        except Exception:
            log.exception("look-ahead failed; answering the first legal decision")
            a = world_from_observation(job.observation, job.seat, job.seed).legal_actions()[0]
            return a, format_action(a)


def stall_counts(events: list) -> tuple:
    """Return the greedy's stall counts after the events (search.baselines.stall_step; draws skipped)."""
    passes = idle = 0
    for ev in events:
        if ev == "draw" or ev.startswith("draw "):
            continue
        try:
            action = parse_action(ev)
        except (EngineError, ValueError):
            action = None           # another seat's hidden swap
        passes, idle = stall_step(passes, idle, action)
    return passes, idle


# ---------------------------------------------------------------- the process


class _StdoutLines:
    """Write lines to a binary stream, flushing each; remember a closed pipe instead of dying."""

    def __init__(self, stream):
        self.stream = stream
        self.broken = False

    def __call__(self, lines: list) -> None:
        if self.broken:
            return
        try:
            for line in lines:
                self.stream.write(line.encode("ascii") + b"\n")
                self.stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.broken = True


def serve(session: BotSession, stream, sink: Optional[_StdoutLines] = None) -> None:
    """Feed a session the lines of a binary stream until quit, end of input or a closed output."""
    read = getattr(stream, "read1", None) or stream.read
    try:
        for raw in read_lines(read):
            if not session.handle(raw, time.perf_counter()) or (sink is not None and sink.broken):
                break
        else:
            # end of input: a piped script's last `go` still gets its bestmove
            session.finish()
    except KeyboardInterrupt:
        pass
    finally:
        session.close()


# command-line flag (its click parameter name) -> option it sets
CLI_OPTIONS = {o.flag[2:].replace("-", "_"): o.name for o in OPTIONS if o.flag is not None}


def params_options(params: SearchParams) -> dict:
    """Return {option name: value} of the options a SearchParams sets; ProtocolError bad-argument if one does not fit."""
    out = {}
    for name, field_name in PARAM_OPTIONS.items():
        value = getattr(params, field_name)
        try:
            out[name] = find_option(name).coerce(value)
        except ProtocolError as e:
            raise ProtocolError("bad-argument", f"{field_name} = {value!r} does not fit the bot's option "
                                                f"{name}: {e.text}") from None
    return out


def options_from_cli(params: dict) -> dict:
    """Return {option name: value} for the flags the command line gave."""
    return {name: params[key] for key, name in CLI_OPTIONS.items() if params.get(key) is not None}


def option_flags(command):
    """Give a click command a flag for every option that has one (OptionSpec.flag), in the options' order."""
    for o in reversed(OPTIONS):
        if o.flag is None:
            continue
        text = f"Option {o.name}: {o.help}."
        if o.type == "check":
            command = click.option(f"{o.flag}/--no-{o.flag[2:]}", default=None, help=text)(command)
        else:
            command = click.option(o.flag, type=int if o.type == "spin" else float, help=text)(command)
    return command


def _agent_name(ctx, param, value):
    try:
        refuse_twin(value, "tne-ai bot")
    except TwinError as e:
        raise click.BadParameter(str(e)) from None
    if value not in AGENTS:
        raise click.BadParameter(f"{value!r} is not one of {', '.join(AGENTS)}")
    return value


@click.command("bot")
@click.option("--agent", default="ismcts", show_default=True, callback=_agent_name,
              metavar="[" + "|".join(AGENTS) + "]",
              help="What answers go: the search, or the greedy or random baseline (search/baselines.py); "
                   "a baseline ignores the search options and the time limits.")
@click.option("--json", "json_mode", is_flag=True, help="Speak JSON lines from the start (as after `protocol json`).")
@option_flags
@click.option("--params", "params_file", metavar="FILE",
              help="Search with a params file's SearchParams (tne-ai tune writes them); its "
                   f"{', '.join(PARAM_OPTIONS.values())} become the options' starting values, which "
                   "--exploration and the like, or a setoption, then override.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning",
              show_default=True, help="What to log on stderr.")
def bot_command(agent, json_mode, params_file, log_level, **flags):
    """Play one seat over stdin/stdout (docs/protocol.md); replies on stdout, logs on stderr."""
    logging.basicConfig(stream=sys.stderr, level=log_level.upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    params = None
    if params_file is not None:
        try:
            params = SearchParams.load(params_file)
            params_options(params)
        except SearchError as e:
            raise InputError(str(e)) from None
        except ProtocolError as e:
            raise InputError(f"{params_file}: {e.text}") from None
    sink = _StdoutLines(sys.stdout.buffer)
    try:
        session = BotSession(sink, options_from_cli(flags), json_mode, agent, params)
    except ProtocolError as e:
        raise click.UsageError(e.text) from None
    serve(session, sys.stdin.buffer, sink)
    if sink.broken:
        # nobody reads our output any more: keep the interpreter's last flush quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
