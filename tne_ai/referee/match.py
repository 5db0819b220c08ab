"""`tne-ai match`: a referee that plays games between engines speaking the protocol (docs/protocol.md).

The referee holds the true game (engine.state) and runs one engine process
per seat per game, since each seat may know different things. An engine is
only ever told its own seat's share: `position startpos first F hand H moves
<events>`, the events coming from engine.view.events_for_seat (every
decision, another seat's swap only as `swap n`, only its own draws); never a
position string, never another seat's tiles.

It enforces the time control (`go` with per-seat `clockN`/`incN`, or
`movetime`, or `iterations`, plus a small grace margin), and an engine that
crashes, hangs, fails the handshake, answers an error, or sends an illegal or
garbled move loses that game: it ranks last, the other seats are ranked on
the scores so far (search.arena.runner's forfeit rule), the reason goes into the
game record, its processes are killed, and the match goes on with fresh
processes. Seats are rotated over paired deals and the match is summarised
exactly as search.arena.runner.run_match does (win shares with Wilson intervals,
mean rank, Elo for two engines).

Each engine is a tne_ai.protocol.client.Engine (process group, pipe threads,
transcript, deadlines); this module keeps the game, the clocks and the
mapping of the client's exceptions to forfeit kinds.

With `--variants` (the 2015 variants, docs/engine.md) every game is played
with them: each engine gets `newgame ... variants english,wonder seat S`
(the `variants` word only when some are on, so the base game's traffic is
unchanged; an engine that does not know them fails the handshake), the
records carry `[variants ...]` and the results name them.

    tne-ai match --engine "name=a cmd='tne-ai bot' option.Workers=1" \\
                 --engine "name=b cmd='tne-ai bot' option.Exploration=1.0" \\
                 --games 20 --tc 10+0.1 --record-dir games/
"""
from __future__ import annotations

import collections
import dataclasses
import os
import re
import shlex
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import click

import engine
from engine.actions import VARIANTS
from engine.legality import why_illegal
from engine.record import GameRecorder
from engine.view import events_for_seat, letters
from engine.state import variant_bits
from search.arena.runner import (MAX_DECISIONS, GameResult, MatchResult, default_lineup, derive_seed,
                          game_result, match_settings, match_settings_check, plan_seats, record_name, resumed_games,
                          summarise, write_atomically)
from search.arena.backends import BACKENDS, Backend, BackendError, JobLost, RayBackend, make_backend
from search.arena.sprt import Sprt, SprtSpec
from tne_ai.protocol.client import (QUIT_WAIT, ClientError, Engine, EngineStartError, EngineTerminated, EngineTimeout,
                           GoLimits, ProtocolErrorReply, WaitCancelled, kill_all,
                           newgame_line)  # noqa: F401 (newgame_line: part of this module's API)
from tne_ai.inputs import variants_option

POLL = 0.25                  # seconds between checks for an interrupted match while waiting
NAME_RE = re.compile(r"[A-Za-z0-9_.+-]+")
KEYS = "name, cmd, dir, iterations, movetime, option.NAME"
# How an engine can lose a game by forfeit (GameResult.forfeit["kind"]).
FORFEIT_KINDS = ("handshake", "crash", "time", "illegal", "garbled", "error")


class EngineFailure(Exception):
    """An engine broke the protocol or the rules: it forfeits the game."""

    def __init__(self, kind: str, reason: str, seat: Optional[int] = None):
        """Record the kind (one of FORFEIT_KINDS), the reason and, once known, the seat."""
        super().__init__(reason)
        self.kind, self.reason, self.seat = kind, reason, seat


class Cancelled(Exception):
    """The match was interrupted while this game was being played."""


class EngineStartFailed(Exception):
    """An engine failed a handshake before it had completed one in this match: it cannot play, stop the match."""

    def __init__(self, failure: EngineFailure, name: str, game_no: Optional[int]):
        """Wrap the handshake failure of engine `name` in game `game_no` (numbered from 1)."""
        super().__init__(failure.reason)
        self.kind, self.reason, self.seat = failure.kind, failure.reason, failure.seat
        self.name, self.game_no = name, game_no


class MatchAborted(Exception):
    """An engine could not start, failed its first handshake or rejected an option: the match was stopped.

    `name`, `game_no`, `seat`, `reason` say which engine and why; `result`
    summarises the games finished before (their records are saved).
    """

    def __init__(self, failure: EngineStartFailed, result: MatchResult):
        where = f"game {failure.game_no}, " if failure.game_no is not None else ""
        super().__init__(f"engine {failure.name!r} ({where}seat {failure.seat}): {failure.reason}")
        self.name, self.game_no, self.seat, self.reason = failure.name, failure.game_no, failure.seat, failure.reason
        self.result = result


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped a match; `result` summarises the games finished before."""

    def __init__(self, result: MatchResult):
        super().__init__("match interrupted")
        self.result = result


# ---------------------------------------------------------------- configuration

@dataclass(frozen=True)
class EngineSpec:
    """How to run one engine: its name, command line, working directory and options."""

    name: str
    cmd: str
    argv: tuple
    options: tuple = ()          # ((name, value), ...) sent as setoption, in order
    cwd: Optional[str] = None
    iterations: Optional[int] = None     # this engine's own `go iterations`, over the match's
    movetime_ms: Optional[int] = None    # this engine's own `go movetime`, over the match's

    def limits_text(self) -> str:
        """Return the engine's own limits as text (empty when it has none)."""
        parts = [f"iterations {self.iterations}"] if self.iterations is not None else []
        parts += [f"movetime {self.movetime_ms}"] if self.movetime_ms is not None else []
        return ", ".join(parts)


def _default_name(argv) -> str:
    """Return a name for an engine from its command: the program (or the script a python runs)."""
    prog = os.path.basename(argv[0])
    if prog.startswith("python") and len(argv) > 1 and not argv[1].startswith("-"):
        prog = os.path.basename(argv[1])
    prog = re.sub(r"\.py$", "", prog)
    return "".join(ch if NAME_RE.fullmatch(ch) else "_" for ch in prog) or "engine"


def parse_engine(text: str) -> EngineSpec:
    """Parse `name=N cmd='prog args' dir=D iterations=N movetime=MS option.X=Y ...` (shell quoting) into an EngineSpec; ValueError if bad."""
    try:
        tokens = shlex.split(text)
    except ValueError as e:
        raise ValueError(f"engine {text!r}: {e}") from None
    fields, options = {}, []
    for tok in tokens:
        key, eq, value = tok.partition("=")
        if not eq:
            raise ValueError(f"engine {text!r}: {tok!r} is not key=value (keys: {KEYS})")
        if key.startswith("option."):
            opt = key[len("option."):]
            if not opt or any(ch.isspace() for ch in opt):
                raise ValueError(f"engine {text!r}: bad option name in {tok!r}")
            options.append((opt, value))
        elif key in ("name", "cmd", "dir", "iterations", "movetime"):
            if key in fields:
                raise ValueError(f"engine {text!r}: {key}= given twice")
            fields[key] = value
        else:
            raise ValueError(f"engine {text!r}: unknown key {key!r} (keys: {KEYS})")
    if not fields.get("cmd", "").strip():
        raise ValueError(f"engine {text!r}: cmd= is required, e.g. cmd='tne-ai bot'")
    try:
        argv = tuple(shlex.split(fields["cmd"]))
    except ValueError as e:
        raise ValueError(f"engine {text!r}: cmd {fields['cmd']!r}: {e}") from None
    name = fields.get("name", "")
    if "name" in fields and not NAME_RE.fullmatch(name):
        raise ValueError(f"engine {text!r}: name {name!r} may use only letters, digits and _ . + -")
    limits = {}
    for key in ("iterations", "movetime"):
        if key in fields:
            if not fields[key].isdigit() or int(fields[key]) <= 0:
                raise ValueError(f"engine {text!r}: {key}={fields[key]!r} is not a positive whole number")
            limits[key] = int(fields[key])
    return EngineSpec(name=name or _default_name(argv), cmd=fields["cmd"], argv=argv,
                      options=tuple(options), cwd=fields.get("dir"), iterations=limits.get("iterations"),
                      movetime_ms=limits.get("movetime"))


def unique_names(specs: list) -> list:
    """Return the specs with repeated names made distinct (-2, -3, ...)."""
    seen, out = collections.Counter(), []
    for sp in specs:
        seen[sp.name] += 1
        name = sp.name if seen[sp.name] == 1 else f"{sp.name}-{seen[sp.name]}"
        while name in {o.name for o in out}:
            name += "_"
        out.append(sp if name == sp.name else dataclasses.replace(sp, name=name))
    return out


def parse_tc(text: str) -> tuple:
    """Parse a time control `base+inc` (seconds, e.g. `60+0.5`, or `60`) into (base_ms, inc_ms)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:\+\s*(\d+(?:\.\d*)?|\.\d+)\s*)?", text or "")
    if not m:
        raise ValueError(f"time control {text!r}: expected base+increment in seconds, e.g. 60+0.5")
    base, inc = round(float(m.group(1)) * 1000), round(float(m.group(2) or 0) * 1000)
    if base <= 0:
        raise ValueError(f"time control {text!r}: the base time must be positive")
    return base, inc


@dataclass(frozen=True)
class Control:
    """The limits of a match: time control, per-move limits, grace and the referee's own timeouts."""

    base_ms: Optional[int] = None        # --tc: each seat's clock for the game
    inc_ms: int = 0                      # --tc: added after each of the seat's decisions
    movetime_ms: Optional[int] = None    # --movetime: per decision
    iterations: Optional[int] = None     # --iterations: per decision (no time limit by itself)
    grace_ms: int = 200                  # a reply this late past its limit still counts
    move_timeout_ms: int = 60_000        # a reply with no time limit is a hang after this long
    handshake_ms: int = 30_000           # from start to `readyok`, not on the clock

    def __post_init__(self):
        if self.base_ms is not None and self.movetime_ms is not None:
            raise ValueError("give a time control (--tc) or a time per move (--movetime), not both")
        for name in ("base_ms", "movetime_ms", "iterations"):
            v = getattr(self, name)
            if v is not None and v <= 0:
                raise ValueError(f"{name} must be positive, got {v}")
        for name in ("inc_ms", "grace_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        for name in ("move_timeout_ms", "handshake_ms"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")

    def describe(self) -> str:
        """Return the limits as text, e.g. `tc 60+0.5` or `iterations 500`."""
        parts = []
        if self.base_ms is not None:
            parts.append(f"tc {self.base_ms / 1000:g}+{self.inc_ms / 1000:g}")
        if self.movetime_ms is not None:
            parts.append(f"movetime {self.movetime_ms}")
        if self.iterations is not None:
            parts.append(f"iterations {self.iterations}")
        return ", ".join(parts) or "engine default"

    def for_engine(self, spec: "EngineSpec") -> "Control":
        """Return the limits an engine plays under: its own iterations and movetime over the match's; ValueError if they clash."""
        if spec.iterations is None and spec.movetime_ms is None:
            return self
        try:
            return dataclasses.replace(
                self, iterations=spec.iterations if spec.iterations is not None else self.iterations,
                movetime_ms=spec.movetime_ms if spec.movetime_ms is not None else self.movetime_ms)
        except ValueError as e:
            raise ValueError(f"engine {spec.name!r}: {e}") from None

    def limits(self, clocks: Optional[list]) -> GoLimits:
        """Return the limits of the next search given every seat's clock (ms, or None without a time control)."""
        return GoLimits(iterations=self.iterations, movetime=self.movetime_ms,
                      clocks=[max(0, round(ms)) for ms in clocks] if clocks is not None else None,
                      incs=[self.inc_ms] * len(clocks) if clocks is not None else None)

    def go(self, clocks: Optional[list]) -> str:
        """Return the `go` command for the current clocks."""
        return self.limits(clocks).command()

    def allowance_ms(self, clock: Optional[float]) -> float:
        """Return how long a reply may take, grace included, given the mover's clock."""
        if clock is not None:
            return clock + self.grace_ms
        if self.movetime_ms is not None:
            return self.movetime_ms + self.grace_ms
        return self.move_timeout_ms

    def late_reason(self, clock: Optional[float]) -> str:
        """Return why a reply that took too long loses."""
        if clock is not None:
            return (f"lost on time: no bestmove within the {max(0, round(clock))} ms left on its clock "
                    f"(+{self.grace_ms} ms grace)")
        if self.movetime_ms is not None:
            return f"lost on time: no bestmove within movetime {self.movetime_ms} ms (+{self.grace_ms} ms grace)"
        return f"hung: no bestmove within {self.move_timeout_ms / 1000:g} s"


def describe_limits(control: Control, specs: list) -> str:
    """Return the match's limits and each engine's own, e.g. `iterations 50; a: iterations 500`."""
    own = {sp.name: sp.limits_text() for sp in specs if sp.limits_text()}
    return "; ".join([control.describe()] + [f"{name}: {text}" for name, text in own.items()])


# ---------------------------------------------------------------- ending engines

def close_engines(engines: list, graceful: bool) -> None:
    """End every engine of a game (None: never started): `quit` and a short wait if graceful, then kill and reap."""
    live = [eng for eng in engines if eng is not None]
    if graceful:
        for eng in live:
            eng.quit()
    deadline = time.monotonic() + (QUIT_WAIT if graceful else 0.0)
    for eng in live:
        eng.close(wait=max(0.0, deadline - time.monotonic()), graceful=graceful)


# ---------------------------------------------------------------- one game

def normal_variants(variants) -> tuple:
    """Return variant names (a list, a tuple or `a,b` text) in engine order; ValueError naming a bad or repeated one."""
    names = [v for v in variants.replace(",", " ").split()] if isinstance(variants, str) else list(variants)
    variant_bits(names, ValueError)
    if len(set(names)) != len(names):
        raise ValueError(f"a variant is named twice in {','.join(map(str, names))}")
    return tuple(v for v in VARIANTS if v in names)


def _failure(e: ClientError, seat: int) -> Exception:
    """Return what a client error during the game means: the forfeit (EngineFailure) or a cancelled match."""
    if isinstance(e, WaitCancelled):
        return Cancelled()
    if isinstance(e, ProtocolErrorReply):
        return EngineFailure("error", f"answered {e.line[:200]!r}", seat)
    if isinstance(e, EngineTerminated):
        return EngineFailure("crash", str(e), seat)
    return EngineFailure("garbled", str(e), seat)       # GarbledReply: a bad line or a bestmove that is no move


def _handshake(engines: list, specs: list, start: Callable, players: int, board: str, seeds: list,
               deadline: float, variants=(), ready: Optional[Callable] = None) -> None:
    """Start every seat's engine (`start(seat)`) into `engines`, bring each to `readyok`; EngineFailure if one fails."""
    for s in range(len(specs)):
        try:
            engines[s] = start(s)
        except EngineStartError as e:
            raise EngineFailure("handshake", str(e), s) from None
    for s, eng in enumerate(engines):
        try:
            eng.handshake(timeout=max(0.0, deadline - time.monotonic()))
            eng.configure(specs[s].options, check=False, sync=False)
            # An engine with a Seed option gets one derived from the match seed, so a seeded
            # match is reproducible and repeated deals are not played identically.
            seed_option = eng.find_option("seed")
            if seed_option is not None and "seed" not in {name.lower() for name, _ in specs[s].options}:
                eng.configure([(seed_option.name, seeds[s])], check=False, sync=False)
            eng.new_game(players, board, s, variants)
            eng.is_ready(timeout=max(0.0, deadline - time.monotonic()))
            if ready is not None:
                ready(s)
        except EngineTimeout as e:
            raise EngineFailure("handshake", f"failed the handshake: no {e.expected} within the handshake timeout",
                                s) from None
        except ProtocolErrorReply as e:
            raise EngineFailure("handshake", f"failed the handshake: answered {e.line[:200]!r}", s) from None
        except WaitCancelled:
            raise Cancelled() from None
        except ClientError as e:
            raise EngineFailure("handshake", f"failed the handshake: {e}", s) from None


def play_engine_game(specs: list, deal: int, players: int = 2, board: str = "standard",
                     control: Control = Control(), seeds: Optional[list] = None,
                     names: Optional[list] = None, game_no: Optional[int] = None,
                     log_dir: Optional[str] = None, max_decisions: int = MAX_DECISIONS,
                     cancel: Optional[threading.Event] = None, variants=(),
                     started: Optional[set] = None) -> GameResult:
    """Play one game of the deal `deal`, specs[s] in seat s, each engine told only its seat's share; return the GameResult.

    As in search.arena.runner.play_game, a forfeit ends the game (the loser ranks
    last) and a game still running after `max_decisions` decisions is ranked
    on the scores so far, end reason "cap". GameResult.forfeit also holds the
    `kind` (FORFEIT_KINDS); think_time is the wall time of each seat's replies.
    `variants`: the 2015 variants of the game (names), told to every engine.
    `started`: when given, the names of the engines that have completed a
    handshake in this match; each seat's name is added at its `readyok`, and a
    handshake failure of an engine not in it raises EngineStartFailed (the
    engine cannot play at all) instead of being a forfeit.
    """
    if len(specs) != players:
        raise ValueError(f"{len(specs)} engines for {players} players")
    variants = normal_variants(variants)
    names = list(names) if names is not None else [sp.name for sp in specs]
    seeds = list(seeds) if seeds is not None else [derive_seed(deal, "engine", s) for s in range(players)]
    state = engine.new_game(players, deal, board, variants)
    headers = {"event": "tne-ai match", "control": describe_limits(control, specs)}
    if game_no is not None:
        headers["game"] = str(game_no)
    headers.update({f"seat{s}": nm for s, nm in enumerate(names)})
    rec = GameRecorder(state, seed=deal, headers=headers)
    start = state.snapshot()
    first = start["to_act"]
    hands = [letters(start["hands"][s]) for s in range(players)]
    events = [[] for _ in range(players)]
    clocks = [float(control.base_ms)] * players if control.base_ms is not None else None
    controls = [control.for_engine(sp) for sp in specs]
    think, calls = [0.0] * players, [0] * players
    decisions, forfeit = 0, None
    if log_dir:
        os.makedirs(log_dir, exist_ok=True)
    tag = f"game{game_no:04d}-" if game_no is not None else ""

    def start_engine(s: int) -> Engine:
        # strict=False: a malformed `info` or `option` line is no reason to forfeit a game
        return Engine(specs[s].cmd, cwd=specs[s].cwd, label=f"seat {s} ({names[s]})", cancel=cancel, strict=False,
                      transcript=os.path.join(log_dir, f"{tag}seat{s}-{names[s]}.log") if log_dir else None)

    engines: list = [None] * players
    graceful = False
    try:
        try:
            try:
                _handshake(engines, specs, start_engine, players, board, seeds,
                           time.monotonic() + control.handshake_ms / 1000, variants,
                           ready=(lambda s: started.add(names[s])) if started is not None else None)
            except EngineFailure as e:
                if started is not None and names[e.seat] not in started:
                    if cancel is not None and cancel.is_set():
                        raise Cancelled() from None
                    if engines[e.seat] is not None:
                        engines[e.seat].note(f"match stopped: {e.reason}")
                    raise EngineStartFailed(e, names[e.seat], game_no) from None
                raise
            while not state.is_terminal() and decisions < max_decisions:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                seat = state.to_act
                eng = engines[seat]
                clock = clocks[seat] if clocks is not None else None
                eng.set_position(first=first, hand=hands[seat], moves=events[seat])
                t0 = time.monotonic()
                try:
                    reply = eng.play(controls[seat].limits(clocks),
                                     timeout=controls[seat].allowance_ms(clock) / 1000)
                except EngineTimeout:
                    think[seat] += time.monotonic() - t0
                    calls[seat] += 1
                    raise EngineFailure("time", controls[seat].late_reason(clock), seat) from None
                except ClientError as e:
                    raise _failure(e, seat) from None
                think[seat] += reply.elapsed
                calls[seat] += 1
                if clocks is not None:
                    # inside the grace margin the clock stops at zero rather than going negative
                    clocks[seat] = max(0.0, clocks[seat] - 1000 * reply.elapsed) + control.inc_ms
                action, text = reply.action, reply.move
                if action not in state.legal_actions():
                    raise EngineFailure("illegal", f"illegal move {text!r} (seat {seat} to act, phase "
                                        f"{state.phase}): {why_illegal(state.snapshot(), action) or 'not legal'}", seat)
                before = state.snapshot()
                rec.apply(action)
                after = state.snapshot()
                for s in range(players):
                    events[s].extend(events_for_seat(before, action, after, s))
                decisions += 1
            graceful = True
        except EngineFailure as e:
            if cancel is not None and cancel.is_set():
                raise Cancelled() from None
            forfeit = {"seat": e.seat, "reason": e.reason, "kind": e.kind}
            if engines[e.seat] is not None:
                engines[e.seat].note(f"forfeit: {e.reason}")
                engines[e.seat].kill()
            graceful = True
    finally:
        close_engines(engines, graceful)
    return game_result(state, deal, board, names, decisions, forfeit, think, calls, rec.text(),
                       rank_comment=True)


# ---------------------------------------------------------------- a match

@dataclass
class PlannedGame:
    """One game of a match: its number, deal, the engine name in each seat and their seeds."""

    index: int
    deal: int
    seat_names: list
    seeds: list = field(default_factory=list)


def plan_match(lineup: list, games: int, seed: int) -> list:
    """Return the games of a match with seats rotated over paired deals, as search.arena.runner.run_match plans them."""
    return [PlannedGame(index=i, deal=deal, seat_names=names, seeds=seeds)
            for i, (deal, names, seeds) in enumerate(plan_seats(lineup, games, seed))]


def run_engine_match(engines: list, games: int, players: int = 2, seed: int = 0, board: str = "standard",
                     control: Control = Control(), record_dir: Optional[str] = None,
                     progress: Optional[Callable] = None, lineup: Optional[list] = None, jobs: int = 1,
                     max_decisions: int = MAX_DECISIONS, log_dir: Optional[str] = None,
                     variants=(), backend: Optional[Backend] = None, sprt=None, resume: bool = False,
                     settings: Optional[dict] = None) -> MatchResult:
    """Play `games` games between engines (EngineSpecs) with seats rotated; return the MatchResult.

    The plan is search.arena.runner.run_match's: game i deals from (seed, i // players)
    and seats lineup slot k at seat (k + i) % players. `progress(i, result)`
    is called as each game finishes (in finishing order when `jobs` > 1).
    `jobs` games run at once, each with its own engine processes; the results
    do not depend on `jobs`. On Ctrl-C every engine is killed and
    MatchInterrupted carries the games finished so far. An engine that fails
    a handshake (cannot start, exits, answers `error`, e.g. to an option, or
    times out) before it has completed one in this match stops the match:
    every engine is killed and MatchAborted is raised; later failures are
    forfeits of their game. `variants`: the 2015
    variants every game is played with (engine.actions.VARIANTS names).

    `backend`: where games run, a search.arena.backends backend (default: this
    process, or `jobs` threads); with a RayBackend each game is a Ray task
    that starts its engines on the worker's machine (commands, `dir=` and
    `log_dir` are paths there), and an engine's handshake failure stops the
    match only if no game of that engine has finished yet. `sprt`: a
    search.arena.sprt SprtSpec or Sprt testing the lineup's first engine; the
    match stops at its decision and the games still running are cancelled.

    `resume` (with `record_dir`): the games already recorded there are read
    back instead of played (search.arena.runner.run_match's rule); record_dir's
    match.json keeps the match's settings, the engines' specs and the limits
    among them, with `settings` added, and a resume with other ones is
    refused (ValueError).
    """
    variants = normal_variants(variants)
    by_name = {sp.name: sp for sp in engines}
    if len(by_name) != len(engines):
        raise ValueError("two engines share a name: give each a distinct name=")
    if not 2 <= players <= 4:
        raise ValueError(f"players must be 2..4, got {players}")
    if games < 0 or jobs < 1:
        raise ValueError("games must be >= 0 and jobs >= 1")
    lineup = list(lineup) if lineup is not None else default_lineup(list(by_name), players)
    if len(lineup) != players:
        raise ValueError(f"the lineup has {len(lineup)} slots for {players} players")
    for nm in lineup:
        if nm not in by_name:
            raise ValueError(f"the lineup names unknown engine {nm!r} (engines: {', '.join(by_name)})")
    for sp in engines:
        control.for_engine(sp)                      # fail before any engine runs on clashing limits
    if resume and not record_dir:
        raise ValueError("resume needs the record directory of the match to resume")
    if record_dir:
        os.makedirs(record_dir, exist_ok=True)
        match_settings_check(record_dir, match_settings(
            players, board, seed, lineup, variants, control=dataclasses.asdict(control),
            max_decisions=max_decisions, engines={sp.name: dataclasses.asdict(sp) for sp in engines},
            **(settings or {})), resume)
    cancel = threading.Event()
    plan = plan_match(lineup, games, seed)
    lost: list = []
    tester = Sprt(sprt, lineup[0], players) if isinstance(sprt, SprtSpec) else sprt
    done = (resumed_games(record_dir, [(pg.index, pg.seat_names, pg.deal) for pg in plan], players, board,
                          variants, tester, progress, first=1, kinds=FORFEIT_KINDS) if resume else {})
    todo = [] if tester is not None and tester.decision is not None else \
        [pg for pg in plan if pg.index not in done]
    started: set = set()          # engines that have completed a handshake in this match
    backend = backend if backend is not None else make_backend("process", jobs, threads=True)
    remote = isinstance(backend, RayBackend)

    def play(pg: PlannedGame) -> GameResult:
        return play_engine_game([by_name[nm] for nm in pg.seat_names], pg.deal, players, board, control,
                                seeds=pg.seeds, names=pg.seat_names, game_no=pg.index + 1, log_dir=log_dir,
                                max_decisions=max_decisions, cancel=cancel, variants=variants,
                                started=started)

    def finish(pg: PlannedGame, g: GameResult) -> None:
        done[pg.index] = g
        if record_dir:
            # numbered from 1 here, as the referee's logs and progress lines are
            write_atomically(os.path.join(record_dir, record_name(pg.index + 1, pg.seat_names)), g.record)
        if tester is not None:
            tester.add(pg.index, g.names, g.ranks)
        if progress is not None:
            progress(pg.index, g)

    def check_start(pg: PlannedGame, g: GameResult) -> None:
        # A Ray task cannot see which engines other games have started: its handshake failures come
        # back as forfeits, and one by an engine with no finished game yet stops the match here.
        f = g.forfeit
        if f is not None and f.get("kind") == "handshake" and g.names[f["seat"]] not in started:
            raise EngineStartFailed(EngineFailure("handshake", f["reason"], f["seat"]), g.names[f["seat"]],
                                    pg.index + 1)
        started.update(nm for s, nm in enumerate(g.names) if f is None or s != f["seat"])

    # Ctrl-C and SIGTERM only raise a flag: a KeyboardInterrupt raised inside
    # concurrent.futures' or a queue's lock handling can leave a lock held and
    # hang the shutdown, so the interrupt is raised here, at a safe point.
    interrupted = threading.Event()

    def on_signal(signum, frame):
        interrupted.set()
        cancel.set()

    def poll() -> None:
        if interrupted.is_set():
            raise KeyboardInterrupt()

    def stop() -> None:
        cancel.set()
        backend.cancel()
        kill_all()

    restore = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            restore[sig] = signal.signal(sig, on_signal)
    try:
        with backend:
            try:
                jobs_ = [(by_name, pg, players, board, control, log_dir, max_decisions, variants) for pg in todo]
                outcomes = backend.stream(_play_remote, jobs_, poll) if remote else \
                    backend.stream(play, todo, poll)
                for i, g in outcomes:
                    pg = todo[i]
                    if isinstance(g, Cancelled):
                        if interrupted.is_set():
                            raise KeyboardInterrupt()
                        continue
                    if isinstance(g, JobLost):
                        lost.append((pg.index + 1, str(g)))
                        continue
                    if isinstance(g, BaseException):
                        raise g
                    if remote:
                        check_start(pg, g)
                    finish(pg, g)
                    poll()
                    if tester is not None and tester.decision is not None:
                        stop()
                        break
            except BaseException:
                stop()
                raise
    except EngineStartFailed as e:
        raise MatchAborted(e, _summary(done, lineup, players, board, seed, variants, tester, lost)) from None
    except KeyboardInterrupt:
        raise MatchInterrupted(_summary(done, lineup, players, board, seed, variants, tester, lost)) from None
    finally:
        for sig, handler in restore.items():
            signal.signal(sig, handler)
    return _summary(done, lineup, players, board, seed, variants, tester, lost)


def _summary(done: dict, lineup, players, board, seed, variants, tester, lost) -> MatchResult:
    """Return the MatchResult of the games finished so far, with the SPRT and the lost games."""
    res = summarise([done[i] for i in sorted(done)], lineup, players, board, seed, variants)
    res.sprt, res.lost = tester, sorted(lost)
    return res


def _play_remote(job: tuple) -> GameResult:
    """Play one planned game in a backend's worker (a Ray task): every handshake failure is a forfeit there."""
    by_name, pg, players, board, control, log_dir, max_decisions, variants = job
    return play_engine_game([by_name[nm] for nm in pg.seat_names], pg.deal, players, board, control,
                            seeds=pg.seeds, names=pg.seat_names, game_no=pg.index + 1, log_dir=log_dir,
                            max_decisions=max_decisions, variants=variants)


def results_text(res: MatchResult, control: Control, engines: tuple = ()) -> str:
    """Return the results table (search.arena.runner's) with the limits and the end reasons."""
    ends = collections.Counter(g.end_reason for g in res.games)
    kinds = collections.Counter(g.forfeit["kind"] for g in res.games if g.forfeit)
    lines = [res.table(), f"limits: {describe_limits(control, engines)}"]
    if ends:
        lines.append("end reasons: " + ", ".join(f"{k} {n}" for k, n in sorted(ends.items())))
    if kinds:
        lines.append("forfeits: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    return "\n".join(lines)


# ---------------------------------------------------------------- command line

def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt()


@click.command("match", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--engine", "engine_texts", multiple=True, required=True, metavar="SPEC",
              help="An engine: \"name=N cmd='tne-ai bot' option.Workers=1\" (shell quoting; cmd required; "
                   "option.X=Y is sent as setoption; dir= sets its working directory). Repeat per engine.")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Seats per game.")
@click.option("--board", type=click.Choice(["standard", "advanced"]), default="standard", show_default=True)
@variants_option("The 2015 variants every game is played with (default none); each engine is told them in "
                 "`newgame`.")
@click.option("--games", type=click.IntRange(0), default=None,
              help="Games to play (default: one deal under every rotation, i.e. --players games).")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Seed of the deals.")
@click.option("--lineup", default=None, metavar="A,B,...",
              help="Engine name per seat slot (default: all engines if they fill the seats, else the first "
                   "against the second).")
@click.option("--tc", default=None, metavar="BASE+INC",
              help="Time control: seconds per game per seat plus seconds added per decision, e.g. 60+0.5.")
@click.option("--movetime", type=click.IntRange(1), default=None, metavar="MS", help="Milliseconds per decision.")
@click.option("--iterations", type=click.IntRange(1), default=None, metavar="N", help="Search iterations per decision.")
@click.option("--grace", type=click.IntRange(0), default=200, show_default=True, metavar="MS",
              help="How late past its limit a reply still counts.")
@click.option("--move-timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              metavar="S", help="With neither --tc nor --movetime: a reply later than this is a hang and loses.")
@click.option("--handshake-timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              metavar="S", help="Time from start to readyok (not on the clock).")
@click.option("--max-decisions", type=click.IntRange(1), default=MAX_DECISIONS, show_default=True,
              help="Stop a game this long and rank it on the scores so far (end reason cap).")
@click.option("--record-dir", type=click.Path(file_okay=False), default=None, help="Save every game record here.")
@click.option("--resume", is_flag=True,
              help="With --record-dir: read back the games already recorded there and play only the rest.")
@click.option("--log-dir", type=click.Path(file_okay=False), default=None,
              help="Save every engine's transcript (lines sent, received, its stderr) here.")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Games played at once (with --backend ray: the CPUs of a local Ray instance started here).")
@click.option("--backend", type=click.Choice(BACKENDS), default="process", show_default=True,
              help="Where games run: here (--jobs threads) or as Ray tasks (pip install -e '.[cluster]'; docs/cluster.md).")
@click.option("--ray-address", default=None, metavar="HOST:PORT",
              help="With --backend ray: the cluster to join (default: start or join a local Ray instance).")
@click.option("--sprt", "sprt_text", default=None, metavar="SPEC",
              help="Stop as soon as an SPRT of the first engine decides: 'elo0=0 elo1=5 alpha=0.05 beta=0.05' "
                   "(logistic Elo; docs/match.md).")
@click.option("--quiet", "-q", is_flag=True, help="No progress line per finished game.")
def match_command(engine_texts, players, board, variants, games, seed, lineup, tc, movetime, iterations, grace,
                  move_timeout, handshake_timeout, max_decisions, record_dir, resume, log_dir, jobs, backend,
                  ray_address, sprt_text, quiet):
    """Referee games between engines that speak the protocol (docs/protocol.md, docs/match.md).

    Prints one line per finished game to stderr and the results table
    (win shares with 95% intervals, mean ranks, Elo for two engines) to stdout.
    """
    try:
        specs = unique_names([parse_engine(t) for t in engine_texts])
        base = inc = None
        if tc is not None:
            base, inc = parse_tc(tc)
        control = Control(base_ms=base, inc_ms=inc or 0, movetime_ms=movetime, iterations=iterations,
                          grace_ms=grace, move_timeout_ms=round(move_timeout * 1000),
                          handshake_ms=round(handshake_timeout * 1000))
        slots = [x.strip() for x in lineup.split(",")] if lineup else None
        order = slots if slots is not None else default_lineup([sp.name for sp in specs], players)
        for sp in specs:
            control.for_engine(sp)
        tester = Sprt(SprtSpec.parse(sprt_text), order[0], players) if sprt_text is not None else None
        if ray_address is not None and backend != "ray":
            raise ValueError("--ray-address needs --backend ray")
        if resume and record_dir is None:
            raise ValueError("--resume needs the --record-dir of the match to resume")
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    n_games = players if games is None else games
    t0 = time.monotonic()

    def progress(i: int, g: GameResult) -> None:
        if quiet:
            return
        who = " ".join(f"{nm}:{r}" for nm, r in zip(g.names, g.ranks))
        extra = ""
        if g.forfeit:
            f = g.forfeit
            extra = f"; forfeit seat {f['seat']} ({g.names[f['seat']]}): {f['reason']}"
        llr = f" {tester.status()}" if tester is not None else ""
        when = "resumed" if g.resumed else f"{time.monotonic() - t0:.0f}s"
        click.echo(f"game {i + 1}/{n_games} ranks {who} ({g.end_reason}, {g.decisions} decisions, "
                   f"{when}){llr}{extra}", err=True)

    old = None
    if threading.current_thread() is threading.main_thread():
        old = signal.signal(signal.SIGTERM, _raise_interrupt)   # clean up on kill as on Ctrl-C
    try:
        runner = make_backend(backend, jobs, ray_address, threads=True)
    except RuntimeError as e:                   # Ray is not installed
        raise click.UsageError(str(e)) from None
    try:
        res = run_engine_match(specs, n_games, players, seed, board, control, record_dir=record_dir,
                               progress=progress, lineup=slots, jobs=jobs, max_decisions=max_decisions,
                               log_dir=log_dir, variants=variants or (), backend=runner, sprt=tester,
                               resume=resume)
    except MatchInterrupted as e:
        click.echo(f"interrupted after {len(e.result.games)} of {n_games} games; engines stopped", err=True)
        if e.result.games:
            click.echo(results_text(e.result, control, specs))
        sys.exit(130)
    except MatchAborted as e:
        click.echo(f"Error: {e}; match stopped after {len(e.result.games)} of {n_games} games, "
                   f"engines stopped", err=True)
        sys.exit(1)
    except BackendError as e:
        click.echo(f"Error: {e}", err=True)
        sys.exit(1)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)
    click.echo(results_text(res, control, specs))
