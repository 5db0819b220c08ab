"""Game sessions of `tne-ai serve`: the true state on the server, the human's view for the browser.

A `Game` holds the true engine State (every hand, the bag) and never lets it
out: every message for the browser is built by `Game.view()` from
`engine.info.observation(snapshot, human)` alone (R-INFO-1: the board,
leaders, monuments, every score, treasures taken, catastrophes left, hand
sizes and the bag's size are public; the human's own hand and swapped tiles
are theirs), plus the human's own legal decisions, the move list as the
human's seat saw it (engine.view.events_for_seat: another seat's swap is
`swap n`, draws only the human's own), what the human is asked to decide in
words (tne_ai.prompts, as `tne-ai play` says it) and the board SVG drawn from
the same observation.

An undo shuffles the tiles still in the bag again from a secret seed
(`Game.reshuffle_bag`: tne_ai.undo, `secrets.randbits`, never stored or sent): a player
who swaps, reads the tiles drawn and undoes cannot know the next draws. The
bag only loses tiles from its end, so the tiles left at the undo point are
the first ones of the initial bag: shuffling those in the initial position
keeps every decision and draw before the undo point, and the game's record
stays one replayable record (a `[start]` position instead of the seed). The
other seats' hands are not dealt again: they chose their decisions, which
the player saw, from those hands, and the record replays them.

Teaching mode (`Game.teach`, a threshold, None when off): a decision of the
human is first valued from their observation in the pool (`teach_check`,
tne_ai.teach, the review's valuation) while nothing is applied (`checking`);
when its loss's lower bound reaches the threshold it waits (`pending`) for
the human's answer: play it anyway, take it back, or play the engine's best.
Nothing the decision would draw is drawn before that.

Engine seats decide by ISMCTS from their own observation in a process pool
(`decide`, run with `loop.run_in_executor`), so the event loop never waits
for a search. Every change of position bumps `Game.version`; a search whose
position was undone meanwhile is thrown away.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import secrets
from dataclasses import dataclass
from typing import Optional

import engine
from engine import actions as A
from engine.boards import BOARD_NAMES, COLS
from engine.errors import EngineError, NotationError
from engine.info import observation
from engine.legality import conflict_bases, why_illegal
from engine.position import format_position, public_snapshot
from engine.record import GameRecorder, record_lines, record_start, replay_record
from engine.svg import SEAT_SYMBOLS, board_svg as draw_board
from engine.view import events_for_seat, letters
from search.agent import Limits
from search.analysis import analyse, equally_good
from search.ismcts import ISMCTS, worker_seed
from search.levels import FULL_STRENGTH, LEVELS_RANGE, level_decision, level_of
from search.twins import TwinError, refuse_twin
from tne_ai.prompts import conflict_outcome, decision_prompt
from tne_ai.teach import ANSWERS, DEFAULT_THRESHOLD, TEACH_ITERATIONS, check_decision, parse_threshold, warning_text
from tne_ai.undo import reshuffled_start
from tne_ai.protocol.client import newgame_line, position_line

MAX_ITERATIONS = 200_000
MAX_MOVETIME_MS = 60_000
HINT_ITERATIONS = 2_000
DEFAULT_ENGINE_ITERATIONS = 1000     # an engine seat given no limit (level 10)
HINT_CANDIDATES = 5
MAX_GAMES = 200                      # games kept in memory per server (the least recently used idle one goes first)
_SQUARE_RE = re.compile(r"\b([a-p](?:1[01]|[1-9]))\b")


class GameError(ValueError):
    """A request about a game that cannot be done (the message says why; the game goes on)."""


# ---------------------------------------------------------------- the worker side (process pool)

_SEARCHER: Optional[ISMCTS] = None


def _searcher() -> ISMCTS:
    global _SEARCHER
    if _SEARCHER is None:
        _SEARCHER = ISMCTS()
    return _SEARCHER


def lower_priority() -> None:
    """A worker's initializer: searches run at a lower CPU priority (nice +10) than the server's event loop,
    so pages, pings and moves are answered at once even with every worker searching."""
    with contextlib.suppress(AttributeError, OSError):
        os.nice(10)


def lowest_priority() -> None:
    """A review worker's initializer: reviews run at the lowest CPU priority (nice +19), below live
    games' searches (nice +10), so on shared cores a live engine move goes first."""
    with contextlib.suppress(AttributeError, OSError):
        os.nice(19)


def decide(obs: dict, iterations: Optional[int], seconds: Optional[float], seed: int,
           level: int = FULL_STRENGTH) -> int:
    """Return an engine seat's decision, searched from its own observation, at a level (runs in a worker process)."""
    searcher = _searcher()
    searcher.forget()
    result = searcher.search(obs, obs["seat"], Limits(iterations, seconds), seed=seed)
    if level < FULL_STRENGTH:
        return level_decision(level_of(level), result, obs, obs["seat"], seed)
    return result.best


def hint(obs: dict, iterations: int, seed: int) -> dict:
    """Return the analysis of the human's position from their observation only (runs in a worker)."""
    searcher = _searcher()
    searcher.forget()
    result = analyse(searcher, obs, Limits(iterations), seed=seed, samples=4)
    out = {"type": "hint", "to_act": result["to_act"], "value": result["value"],
           "win_chance": result["win_chance"], "iterations": result["iterations"]}
    if result["to_act"]:
        # the decisions the search looked at most, shown best first: by value (the win chance follows it),
        # for a lower value listed above a higher one reads as a mistake
        searched = sorted(result["candidates"][:HINT_CANDIDATES], key=lambda c: (-c["mean"], -c["visits"]))
        out["candidates"] = [{"move": c["move"], "value": round(c["mean"], 4), "visits": c["visits"],
                              "low": round(c["low"], 4), "high": round(c["high"], 4),
                              "win_chance": c["win_chance"],
                              "pv": c["pv"][:6]} for c in searched]
        out["equal_best"] = [c["move"] for c in equally_good(searched)]
    else:
        out["candidates"], out["equal_best"] = [], []
        out["replies"] = [{"move": r["move"], "share": round(r["share"], 4)}
                          for r in result["replies"][:HINT_CANDIDATES]]
    return out


def teach_check(obs: dict, action: int, ply: int, seed: int, threshold: float, iterations: int) -> dict:
    """Return the teaching check of the human's decision from their observation (runs in a worker)."""
    searcher = _searcher()
    searcher.forget()
    return check_decision(searcher, obs, action, ply, seed, threshold, iterations)


def teach_setting(value) -> Optional[float]:
    """Return a game's teaching threshold from a request's `teach` (null/false: off, true: the default, a number)."""
    if value is None or value is False:
        return None
    if value is True:
        return DEFAULT_THRESHOLD
    if not isinstance(value, (int, float, str)):
        raise GameError("teach: false, true or a threshold between 0 and 1 (win chance)")
    try:
        return parse_threshold(value)
    except ValueError as e:
        raise GameError(str(e)) from None


# ---------------------------------------------------------------- helpers


@dataclass(frozen=True)
class EngineSeat:
    """How one engine seat searches: iterations or milliseconds per decision, or a level below 10 (search.levels)."""

    iterations: Optional[int] = None
    movetime: Optional[int] = None            # milliseconds
    level: int = FULL_STRENGTH                # below 10: the level's own budget and decision

    def limits(self) -> tuple:
        return self.iterations, (self.movetime / 1000 if self.movetime else None)

    def label(self) -> str:
        if self.level < FULL_STRENGTH:
            return f"ismcts level {self.level}"
        if self.movetime:
            return f"ismcts {self.movetime} ms"
        return f"ismcts {self.iterations} iterations"


def level_seat(level) -> EngineSeat:
    """Return the EngineSeat of a level 1..10 (10: the default 1000 iterations); GameError if it is no level."""
    lo, hi = LEVELS_RANGE
    if type(level) is not int or not lo <= level <= hi:
        raise GameError(f"level must be an integer {lo}..{hi} ({lo} weakest, {hi} full strength), got {level!r}")
    lv = level_of(level)
    if lv.level == FULL_STRENGTH:
        return EngineSeat(iterations=DEFAULT_ENGINE_ITERATIONS)
    return EngineSeat(iterations=lv.iterations, level=lv.level)


def engine_seat(spec) -> EngineSeat:
    """Return an EngineSeat from {"iterations": n}, {"movetime": ms} or {"level": n} (GameError if bad)."""
    for name in ([spec] if isinstance(spec, str) else [spec.get("agent"), spec.get("engine")]
                 if isinstance(spec, dict) else []):
        if isinstance(name, str):
            try:
                refuse_twin(name, "tne-ai serve")
            except TwinError as e:
                raise GameError(str(e)) from None
    if not isinstance(spec, dict):
        raise GameError("an engine is {\"iterations\": N} or {\"movetime\": MS}")
    if "level" in spec:
        if set(spec) != {"level"}:
            raise GameError("a level sets the engine's budget: give an engine a level, or iterations or "
                            "movetime, not both")
        return level_seat(spec["level"])
    it, mt = spec.get("iterations"), spec.get("movetime")
    if set(spec) - {"iterations", "movetime"}:
        raise GameError(f"unknown engine field(s): {', '.join(sorted(set(spec) - {'iterations', 'movetime'}))}")
    if (it is None) == (mt is None):
        raise GameError("give an engine either iterations or movetime (milliseconds)")
    value, hi, name = (it, MAX_ITERATIONS, "iterations") if it is not None else (mt, MAX_MOVETIME_MS, "movetime")
    if type(value) is not int or not 1 <= value <= hi:
        raise GameError(f"engine {name} must be an integer 1..{hi}, got {value!r}")
    return EngineSeat(iterations=it) if it is not None else EngineSeat(movetime=mt)


def _is_count(text) -> bool:
    """Return whether a header value is a plain decimal count (ASCII digits: str.isdigit also takes '²')."""
    return isinstance(text, str) and re.fullmatch(r"[0-9]{1,20}", text) is not None


def action_squares(action: int) -> list:
    """Return the squares (names) a decision touches: its square, a monument's 2x2 block, else none."""
    text = A.format_action(action)
    names = _SQUARE_RE.findall(text.split(" ", 1)[1]) if " " in text else []
    if A.kind(action) == "monument" and names:
        sq = A.parse_square(names[0])
        names = [A.square_name(sq + d) for d in (0, 1, COLS, COLS + 1)]
    return names


def square_of(move: str) -> Optional[str]:
    m = _SQUARE_RE.search(move.split(" ", 1)[1]) if " " in move else None
    return m.group(1) if m else None


def board_svg(obs: dict, last=None, highlight=(), selectable=(), title=None) -> str:
    """Draw the board the human sees (engine.svg, from their observation only; last: a decision's notation).

    The hand is left out of the picture: the page shows it once, as the tiles it clicks (#hand).
    """
    return draw_board(obs, seat=None, last=last, highlight=tuple(highlight), selectable=tuple(selectable),
                      title=title)


def seats_view(obs: dict, you: int, labels: dict) -> list:
    """Return the public facts of every seat in an observation (a view's `seats`; labels: seat -> player name)."""
    return [{
        "seat": s, "you": s == you, "dynasty": SEAT_SYMBOLS[s],
        "player": "you" if s == you else labels.get(s, f"seat {s}"),
        "scores": dict(zip(A.COLOURS, obs["scores"][s])),
        "treasures": obs["treasures_taken"][s],
        "catastrophes_left": obs["catastrophes_left"][s],
        "hand_size": obs["hand_sizes"][s],
        "swapped_count": obs["swapped_sizes"][s],
        "leaders_in_supply": [A.COLOURS[c] for c, sq in enumerate(obs["leaders"][s]) if sq < 0],
    } for s in range(obs["players"])]


def conflict_view(obs: dict) -> Optional[dict]:
    """Return the conflict being fought in an observation, in the words a view uses, or None."""
    cf = obs["conflict"]
    if cf is None or obs["phase"] not in ("revolt_attack", "revolt_defend", "war_attack", "war_defend"):
        return None
    base_a, base_d = conflict_bases(obs)
    return {
        "kind": cf["kind"], "colour": A.COLOURS[cf["colour"]],
        "attacker": cf["attacker"], "defender": cf["defender"],
        "attacker_leader": A.square_name(cf["attacker_leader"]),
        "defender_leader": A.square_name(cf["defender_leader"]),
        "attacker_base": base_a, "defender_base": base_d,
        "attacker_commit": cf["attacker_commit"] if cf["attacker_commit"] is not None and cf["attacker_commit"] >= 0 else None,
        "tile_colour": A.COLOURS[A.RED if cf["kind"] == "revolt" else cf["colour"]],
    }


# ---------------------------------------------------------------- a game


class Game:
    """One game: one human seat in a browser, the others engines. The true state never leaves."""

    def __init__(self, initial, human: int, engines: dict, seed: int, actions=(), start_header=False,
                 reshuffles: int = 0, teach: Optional[float] = None):
        if not 0 <= human < initial.players:
            raise GameError(f"seat {human} does not exist in a game of {initial.players} players")
        self.id = secrets.token_urlsafe(24)
        self.initial = initial.clone()
        self.human = human
        self.engines = dict(engines)          # seat -> EngineSeat
        self.seed = seed                      # never sent during play: it deals every hand
        self.start_header = start_header      # the record starts from a [start] position, not from the seed
        self.reshuffles = reshuffles          # undos that shuffled the bag again: the start is still a new deal's
        self.version = 0
        self.thinking: Optional[int] = None
        self.subscribers: set = set()         # an Outbox (tne_ai/web/app.py) per open WebSocket
        self.task: Optional[asyncio.Task] = None
        self.hint_task: Optional[asyncio.Task] = None
        self.teach = teach                    # teaching mode's threshold, None when off
        self.teach_task: Optional[asyncio.Task] = None
        self._rebuild(list(actions))

    # --- the true state (server only)

    def _rebuild(self, actions: list) -> None:
        self.checking: Optional[int] = None   # the human's decision being valued by teaching mode
        self.pending: Optional[dict] = None   # its check (tne_ai.teach) when it waits for the human's answer
        self.state = self.initial.clone()
        self.actions, self.events, self.moves = [], [], []
        self.record_lines: list = []          # the full record's decision lines, kept as the game goes (saved_text)
        self.last: Optional[dict] = None
        for a in actions:
            self._apply(a)

    def _apply(self, action: int) -> None:
        before = self.state.snapshot()
        self.state.apply(action)
        after = self.state.snapshot()
        seat = before["to_act"]
        evs = events_for_seat(before, action, after, self.human)
        self.actions.append(action)
        self.record_lines += record_lines(action, before, after)
        self.events.extend(evs)
        drew = "".join(e.split()[1] for e in evs[1:] if len(e.split()) > 1)
        entry = {"n": len(self.actions), "seat": seat, "move": evs[0]}
        if drew:
            entry["drew"] = drew
        # a defender's commitment resolves a revolt or war: say how, in the words `tne-ai play` uses (all public)
        outcome = conflict_outcome(before, action, after, self.human)
        if outcome:
            entry["outcome"] = outcome
        self.moves.append(entry)
        self.last = {"seat": seat, "move": evs[0],
                     "squares": action_squares(action) if evs[0] == A.format_action(action) else []}
        if outcome:
            self.last["outcome"] = outcome
        self.version += 1

    def record_text(self) -> str:
        """The full game record (every hand's draws): for a finished game only."""
        heads = {"human": str(self.human)}
        if self.reshuffles:
            heads["reshuffled"] = str(self.reshuffles)
        return self._record(heads)

    def saved_text(self) -> str:
        """The text saved on the server (--data-dir) after every decision: the full record plus this
        game's settings (id, human seat, each engine). Never sent to the browser."""
        heads = {"game": self.id, "human": str(self.human)}
        for s, e in sorted(self.engines.items()):
            heads[f"engine_{s}"] = (f"level {e.level}" if e.level < FULL_STRENGTH else
                                    f"movetime {e.movetime}" if e.movetime else f"iterations {e.iterations}")
        if self.start_header:
            heads["engine_seed"] = str(self.seed)
        if self.reshuffles:
            heads["reshuffled"] = str(self.reshuffles)
        if self.teach is not None:
            heads["teach"] = f"{self.teach:g}"
        return self._record(heads)

    def _record(self, heads: dict) -> str:
        """The record with these headers, from the lines kept as the game went (never replayed from the start)."""
        return GameRecorder.of_lines(self.initial, self.actions, self.record_lines, self.state,
                                     seed=None if self.start_header else self.seed, headers=heads).text()

    def seat_record(self) -> str:
        """The protocol lines the human's seat was sent (tne_ai.analysis.knowledge.parse_seat_record reads them)."""
        init = observation(self.initial.snapshot(), self.human)
        lines = ["# tne-ai seat record: what seat %d was told (no other seat's tiles)" % self.human,
                 newgame_line(init["players"], init["board"], self.human, init.get("variants") or ())]
        if self.start_header and not self.reshuffles:     # a reshuffled deal still starts from startpos
            lines.append(position_line(fen=format_position(public_snapshot(init)), hand=letters(init["hand"]),
                                       swapped=init["own_swapped"], moves=self.events))
        else:
            lines.append(position_line(first=init["to_act"], hand=letters(init["hand"]), moves=self.events))
        return "\n".join(lines) + "\n"

    @property
    def over(self) -> bool:
        return self.state.is_terminal()

    # --- the human's view: built from their observation only

    def observation(self) -> dict:
        return observation(self.state.snapshot(), self.human)

    def legal(self) -> list:
        if self.over or self.state.to_act != self.human:
            return []
        return [A.format_action(a) for a in self.state.legal_actions()]

    def view(self) -> dict:
        """Return the `state` message: everything the human's seat may know, and nothing else."""
        obs = self.observation()
        human = self.human
        legal = self.legal()
        to_act = obs["to_act"]
        seats = seats_view(obs, human, {s: e.label() for s, e in self.engines.items()})
        selectable = sorted({sq for m in legal for sq in [square_of(m)] if sq})
        view = {
            "type": "state", "game": self.id, "version": self.version, "ply": len(self.actions), "seat": human,
            "players": obs["players"], "board": obs["board"], "variants": list(obs.get("variants") or []),
            "phase": obs["phase"], "to_act": to_act, "your_turn": bool(legal),
            "turn_owner": obs["turn_owner"], "actions_left": obs["actions_left"],
            "thinking": self.thinking,
            "hand": letters(obs["hand"]),
            "own_swapped": letters(obs["own_swapped"]),
            "bag_size": obs["bag_size"], "seats": seats,
            "legal": legal,
            "prompt": decision_prompt(obs, human, self.state.legal_actions()) if legal else "",
            "moves": list(self.moves),
            "last": self.last,
            "conflict": None, "over": None,
            "can_undo": self.undo_point() is not None,
            "teach": {"on": self.teach is not None, "threshold": self.teach},
            "checking": None if self.checking is None else A.format_action(self.checking),
            "teaching": self.teaching(),
        }
        view["conflict"] = conflict_view(obs)
        if self.over:
            view["over"] = {"end_reason": obs["end_reason"], "ranks": self.state.result()}
        last = self.last["move"] if self.last and self.last["squares"] else None
        title, best = f"seat {human}'s view", ()
        if self.pending:                      # a teaching warning: the decision ringed, the engine's best marked
            last, best = self.pending["move"], action_squares(self.pending["best_action"])
            title += f" · yours: {last} (ringed) · the engine's: {self.pending['best']} (dashed square)"
        view["svg"] = board_svg(obs, last=last, selectable=() if self.pending else selectable, highlight=best,
                                title=title)
        return view

    # --- the human's decisions

    def undo_point(self) -> Optional[int]:
        """Return how many decisions to keep to go back before the human's previous decision, or None."""
        for i in range(len(self.actions) - 1, -1, -1):
            if self.moves[i]["seat"] == self.human:
                return i
        return None

    def teaching(self) -> Optional[dict]:
        """Return the teaching warning waiting for the human's answer, as the page shows it, or None."""
        c = self.pending
        if c is None:
            return None
        return {"move": c["move"], "best": c["best"], "best_squares": action_squares(c["best_action"]),
                "loss": c["loss"], "loss_low": c["loss_low"], "loss_high": c["loss_high"], "units": c["units"],
                "played_win": c["played_win"], "best_win": c["best_win"], "threshold": c["threshold"],
                "iterations": c["iterations"], "text": warning_text(c, "–"), "answers": dict(ANSWERS)}

    def set_teach(self, on, threshold=None) -> None:
        """Switch teaching mode on (at `threshold`, else the game's or the default) or off (GameError if bad)."""
        if not isinstance(on, bool):
            raise GameError("teach: \"on\" must be true or false")
        if not on:
            self.teach = None
            return
        self.teach = teach_setting(threshold if threshold is not None else (self.teach or True))

    def teach_job(self) -> Optional[tuple]:
        """Return the arguments of teach_check for the decision being checked, else None."""
        if self.checking is None:
            return None
        return (self.observation(), self.checking, len(self.actions), worker_seed(self.seed, 2000),
                self.teach or DEFAULT_THRESHOLD)

    def checked(self, check: dict, version: int) -> Optional[bool]:
        """Take a teaching check's result: None if the position or decision changed meanwhile (dropped),
        True if it warns (the decision waits for an answer), False if the decision was played."""
        if version != self.version or self.checking != check["action"]:
            return None
        self.checking = None
        if check["warn"] and self.teach is not None:      # (switched off meanwhile: no warning)
            self.pending = check
            return True
        self._apply(check["action"])
        return False

    def answer_teaching(self, answer) -> Optional[int]:
        """Answer the teaching warning: play (it anyway), back (take it back) or best; return the decision played."""
        if self.pending is None:
            raise GameError("nothing to answer: no teaching warning is waiting")
        if answer not in ANSWERS:
            raise GameError(f"a teaching answer is play ({ANSWERS['play']}), back ({ANSWERS['back']}) or best "
                            f"({ANSWERS['best']}), got {str(answer)[:20]!r}")
        check, self.pending = self.pending, None
        if answer == "back":
            return None
        action = check["action"] if answer == "play" else check["best_action"]
        self._apply(action)
        return action

    def decision(self, text) -> int:
        """Return the human's decision in notation, if legal now (GameError says why not); nothing is applied."""
        if not isinstance(text, str) or not text.strip() or len(text) > 64:
            raise GameError("a move is a decision in notation, e.g. \"tile r f7\"")
        if self.over:
            raise GameError("the game is over")
        if self.state.to_act != self.human:
            raise GameError(f"it is not your turn: seat {self.state.to_act} is to act")
        if self.checking is not None:
            raise GameError(f"teaching mode is still checking {A.format_action(self.checking)}: wait for it")
        if self.pending is not None:
            raise GameError(f"answer the teaching warning about {self.pending['move']} first: play it anyway, "
                            f"take it back or play the engine's best")
        try:
            action = A.parse_action(text.strip().lower())
        except (NotationError, EngineError) as e:
            raise GameError(f"cannot read {text.strip()[:40]!r}: {e}") from None
        if action not in self.state.legal_actions():
            reason = why_illegal(self.observation(), action)
            raise GameError(f"{A.format_action(action)!r} is not legal now: {reason}")
        return action

    def play(self, text) -> Optional[int]:
        """Apply the human's decision in notation (GameError says why it cannot be); with teaching mode on and
        a choice to make, only mark it for checking (`checking`) and return None."""
        action = self.decision(text)
        if self.teach is not None and len(self.state.legal_actions()) > 1:
            self.checking = action
            return None
        self._apply(action)
        return action

    def undo(self) -> None:
        """Go back to just before the human's previous decision (engine decisions after it are searched again)."""
        k = self.undo_point()
        if k is None:
            raise GameError("nothing to undo: you have made no decision yet")
        self._rebuild(self.actions[:k])
        self.reshuffle_bag()
        self.version += 1

    def reshuffle_bag(self) -> None:
        """Shuffle the tiles left in the bag again from a secret seed, keeping every decision and draw so far.

        The player may have seen tiles drawn after this point (a swap, then an
        undo): without this the next draws, theirs and the engines', would be
        the tiles they saw (tne_ai.undo.reshuffled_start, shared with `tne-ai play`).
        """
        kept = list(self.actions)
        self.initial = reshuffled_start(self.initial, kept, self.human)
        self.start_header = True              # the seed no longer deals this game: the record carries [start]
        self.reshuffles += 1
        self._rebuild(kept)

    def engine_job(self) -> Optional[tuple]:
        """Return (seat, observation, iterations, seconds, seed, level) when an engine is to act, else None."""
        if self.over:
            return None
        seat = self.state.to_act
        if seat == self.human:
            return None
        it, secs = self.engines[seat].limits()
        seed = worker_seed(self.seed, seat) ^ (len(self.actions) * 1_000_003)
        return seat, observation(self.state.snapshot(), seat), it, secs, seed & ((1 << 63) - 1), \
            self.engines[seat].level

    def engine_move(self, seat: int, action: int, version: int) -> bool:
        """Apply an engine's decision if the position is still the one it searched; return whether applied."""
        if version != self.version or self.over or self.state.to_act != seat:
            return False
        if action not in self.state.legal_actions():
            raise EngineError(f"engine at seat {seat} chose an illegal decision {action!r}")
        self._apply(action)
        return True


def new_game(players=2, board="standard", variants=(), human=0, engines=None, seed=None, teach=None) -> Game:
    """Start a game: `engines` maps every other seat to an EngineSeat (default 1000 iterations); `teach`: a
    teaching threshold, or None (off)."""
    if type(players) is not int or not 2 <= players <= 4:
        raise GameError(f"players must be 2, 3 or 4, got {players!r}")
    if board not in BOARD_NAMES:
        raise GameError(f"board must be one of {', '.join(BOARD_NAMES)}, got {board!r}")
    if not isinstance(variants, (list, tuple)) or any(v not in A.VARIANTS for v in variants) \
            or len(set(variants)) != len(variants):
        raise GameError(f"variants: a list of distinct names among {', '.join(A.VARIANTS)}")
    if type(human) is not int or not 0 <= human < players:
        raise GameError(f"human seat must be 0..{players - 1}, got {human!r}")
    engines = dict(engines or {})
    for s in range(players):
        if s != human:
            engines.setdefault(s, EngineSeat(iterations=DEFAULT_ENGINE_ITERATIONS))
    if seed is None:
        seed = random.SystemRandom().randrange(2 ** 62)
    state = engine.new_game(players, seed, board, [v for v in A.VARIANTS if v in variants])
    return Game(state, human, engines, seed, teach=teach)


def record_headers(text: str) -> dict:
    """Return a record's header lines as {name: value} (text as written; engine.record checks the ones it reads)."""
    return dict(re.findall(r"^\s*\[([a-z_]+)\s+([^\]]*)\]", text, re.M))


def record_human(text: str) -> Optional[int]:
    """Return the seat a record's `[human N]` header names (the web game's player), or None."""
    value = record_headers(text).get("human")
    return int(value) if _is_count(value) else None


def load_game(text: str, human: Optional[int] = None, engine_spec: Optional[EngineSeat] = None) -> Game:
    """Continue a game from its full record (engine.record); GameError with the reason if it is not one."""
    try:
        state, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
        initial = record_start(text, engine.new_game, engine.State.from_snapshot)
    except (EngineError, ValueError) as e:
        raise GameError(f"not a game record: {e}") from None
    heads = record_headers(text)
    if human is None:
        human = record_human(text)
        human = 0 if human is None else human
    if not 0 <= human < state.players:
        raise GameError(f"seat {human} does not exist in this {state.players}-player game")
    spec = engine_spec or EngineSeat(iterations=DEFAULT_ENGINE_ITERATIONS)
    seed = int(heads["seed"]) if "start" not in heads and _is_count(heads.get("seed")) else \
        random.SystemRandom().randrange(2 ** 62)
    reshuffles = int(heads["reshuffled"]) if "start" in heads and _is_count(heads.get("reshuffled")) else 0
    return Game(initial, human, {s: spec for s in range(state.players) if s != human}, seed,
                actions=actions, start_header="start" in heads, reshuffles=reshuffles)


GAME_ID_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")


def resume_game(text: str) -> Game:
    """Return the game saved by Game.saved_text (same id, seat, engines, seed); GameError if it is not one."""
    heads = dict(re.findall(r"^\s*\[([a-z_0-9]+)\s+([^\]]*)\]", text, re.M))
    game_id = heads.get("game", "")
    if not GAME_ID_RE.fullmatch(game_id):
        raise GameError("no [game ID] header")
    game = load_game(text)
    for s in list(game.engines):
        spec = heads.get(f"engine_{s}", "").split()
        if len(spec) != 2 or not _is_count(spec[1]):
            raise GameError(f"no [engine_{s} iterations|movetime|level N] header")
        game.engines[s] = engine_seat({spec[0]: int(spec[1])})
    if game.start_header:
        if not _is_count(heads.get("engine_seed")):
            raise GameError("no [engine_seed N] header")
        game.seed = int(heads["engine_seed"])
    if "teach" in heads:
        game.teach = teach_setting(heads["teach"])
    game.id = game_id
    return game
