"""What one seat knows, read from what a player or a program has at hand (R-INFO-1).

A player analysing their own game knows the board, every public count and
their own tiles, never the others' hands or the bag. This module turns each
form of that knowledge into one observation (engine.info), the only thing the
search is ever given:

- a full position (hidden part included), cut to one seat's share;
- a public position (the string `position fen` takes) plus the seat's hand
  and the tiles it swapped away;
- the start of a game plus the seat's six tiles;
- a *seat record*: the protocol lines a seat is sent (`newgame ...` and
  `position startpos|fen ... moves ...`, docs/protocol.md), as written by
  hand or copied from the referee's `--log-dir` transcript (whose lines
  `<time> > <line>` are read as the lines sent).

Every error is a KnowledgeError naming the field or line that was wrong.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Optional

import engine
from engine.errors import EngineError
from engine.info import determinize, observation
from engine.position import is_public, parse_position
from engine.view import SeatView, letters, observation_from_public, parse_letters, start_observation


class KnowledgeError(EngineError):
    """Input that cannot be one seat's knowledge of a game; the message names what was wrong."""


# A referee transcript line: monotonic time, a mark, the line (`>` sent to the engine).
_LOG_LINE = re.compile(r"^\d+(?:\.\d+)?\s+([<>!#])\s?(.*)$")
# Protocol commands a seat record may hold that say nothing of the game.
_IGNORED = ("tne", "isready", "setoption", "go", "stop", "legalmoves", "perft", "show", "eval",
            "protocol", "quit")


def parse_hand(text: str, what: str = "hand") -> list:
    """Return [k, r, b, g] counts of a hand written in letters such as 'kkrbgg' (or 'KKRBGG', as boards print)."""
    try:
        return parse_letters(text.lower(), what)
    except EngineError as e:
        if text.strip() and text.strip() != "-":
            raise KnowledgeError(f"{what} {text!r}: expected letters k, r, b, g (either case) or '-'") from None
        raise KnowledgeError(str(e)) from None


def parse_swapped(text: str, what: str = "swapped") -> list:
    """Return [k, r, b, g] counts written k,r,b,g (or as letters)."""
    t = text.strip()
    if "," not in t:
        return parse_hand(t, what)
    parts = t.split(",")
    if len(parts) != 4 or not all(p.strip().isdigit() and len(p.strip()) <= 3 for p in parts):
        raise KnowledgeError(f"{what} {text!r}: expected four counts k,r,b,g such as 0,1,0,2")
    return [int(p) for p in parts]


def tile_counts(value, what: str) -> list:
    """Return [k, r, b, g] counts given as such a list or as letters; KnowledgeError naming `what` if malformed."""
    if isinstance(value, str):
        return parse_hand(value, what)
    if (not isinstance(value, (list, tuple)) or len(value) != 4
            or any(isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 153 for n in value)):
        raise KnowledgeError(f"{what} {value!r}: expected four tile counts [k, r, b, g] or letters such as kkrbgg")
    return list(value)


def default_seat(snap: dict, seat: Optional[int], what: str = "seat") -> int:
    """Return `seat`, or the seat to act when none is given; KnowledgeError if it does not exist."""
    players = snap["players"]
    if seat is None:
        if snap["to_act"] < 0:
            raise KnowledgeError(f"the game is over and no {what} was given")
        return snap["to_act"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise KnowledgeError(f"{what} {seat!r} is out of range: this game has seats 0..{players - 1}")
    return seat


def checked_observation(obs: dict) -> dict:
    """Return `obs` after checking that the rules accept the worlds a search will deal from it."""
    try:
        engine.State.from_snapshot(determinize(obs, obs["seat"], random.Random(0)))
    except EngineError as e:
        raise KnowledgeError(f"no game is consistent with this knowledge: {e}") from None
    return obs


def seat_observation(snap: dict, seat: Optional[int] = None, hand=None, swapped=None) -> dict:
    """Return what `seat` (default: the seat to act) knows of a full or public snapshot.

    A full snapshot is cut to the seat's share and takes no `hand`; a public
    one needs the seat's `hand` ([k, r, b, g]) and takes its `swapped` tiles:
    when not given, the seat does not know the colours of the tiles it swapped
    (if any), and they are dealt with the rest of the unseen tiles.
    """
    seat = default_seat(snap, seat)
    hand = None if hand is None else tile_counts(hand, "hand")
    swapped = None if swapped is None else tile_counts(swapped, "swapped")
    if not is_public(snap):
        if hand is not None or swapped is not None:
            raise KnowledgeError("hand: the position gives every hand already (its hidden part); "
                                 "give a hand only with a public position")
        try:
            return observation(snap, seat)
        except EngineError as e:
            raise KnowledgeError(str(e)) from None
    if hand is None:
        raise KnowledgeError(f"hand: a public position needs the hand of seat {seat} "
                             f"(it holds {snap['hand_sizes'][seat]} tiles)")
    try:
        obs = observation_from_public(snap, seat, hand, swapped)
    except EngineError as e:
        raise KnowledgeError(_field_message(str(e), seat, hand)) from None
    return checked_observation(obs)


def _field_message(text: str, seat: int, hand) -> str:
    """Name the command-line field behind an observation error about the seat's own tiles."""
    if "position field 'hands'" in text:
        return f"hand {letters(hand)} of seat {seat}: " + text.split(": ", 1)[1]
    if "position field 'swapped'" in text:
        return "swapped: " + text.split(": ", 1)[1]
    return text


def start_seat_observation(players: int, board: str, seat: int, first: int, hand,
                           variants=()) -> dict:
    """Return what `seat` knows at the start of a game: `first` to act, its six tiles `hand`."""
    hand = tile_counts(hand, "hand")
    try:
        return start_observation(players, board, seat, first, hand, variants)
    except EngineError as e:
        raise KnowledgeError(str(e).replace("a starting hand", f"hand {letters(hand)}: a starting hand")) from None


# ---------------------------------------------------------------- seat records


@dataclass
class SeatRecord:
    """A game as one seat was told it: where it starts and the events that followed."""

    seat: int
    start: dict                  # the seat's observation at the start of the record
    events: list                 # the events after it (decisions, `swap n`, `draw letters`)
    players: int
    board: str
    variants: tuple

    def observation_after(self, n: Optional[int] = None) -> dict:
        """Return the seat's observation after the first `n` events (default: all)."""
        n = len(self.events) if n is None else n
        if not 0 <= n <= len(self.events):
            raise KnowledgeError(f"ply {n} is out of range: the seat record holds events 0..{len(self.events)}")
        view = SeatView(self.start)
        try:
            view.apply_all(self.events[:n])
        except EngineError as e:
            raise KnowledgeError(f"seat record: {e}") from None
        if view.pending_draw:
            raise KnowledgeError(f"seat record: event {n} drew {view.pending_draw} tile(s) for seat "
                                 f"{self.seat} and no 'draw' event follows it")
        return view.observation()

    def decisions(self) -> list:
        """Return (event index, observation before it) for every decision event, in order."""
        view = SeatView(self.start)
        out = []
        for i, ev in enumerate(self.events):
            if not (ev.startswith("draw ") or ev == "draw"):
                out.append((i, view.observation()))
            try:
                view.apply(ev)
            except EngineError as e:
                raise KnowledgeError(f"seat record: event {i + 1} ({ev!r}): {e}") from None
        return out


def is_seat_record(text: str) -> bool:
    """Return whether a text reads as protocol lines (a seat record) rather than a position or game record."""
    for raw in text.splitlines():
        line = _sent_line(raw)
        if line is None:
            continue
        word = line.split()[0]
        if word in ("position", "newgame"):
            return True
        if word not in _IGNORED:
            return False
    return False


def _sent_line(raw: str) -> Optional[str]:
    """Return the protocol line a seat record's text line holds, or None for a comment, blank or reply."""
    line = raw.strip()
    m = _LOG_LINE.match(line)
    if m:
        if m.group(1) != ">":
            return None                 # a reply, stderr or a referee note of the transcript
        line = m.group(2).strip()
    if not line or line.startswith("#"):
        return None
    return line


def parse_seat_record(text: str, source: str = "seat record") -> SeatRecord:
    """Read the protocol lines a seat was sent into a SeatRecord (the last `position` counts)."""
    from tne_ai.protocol.codec import ProtocolError, decode_line, parse_text
    game = {"players": 2, "board": "standard", "seat": 0, "variants": ()}
    position = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = _sent_line(raw)
        if line is None:
            continue
        try:
            decoded = decode_line(line.encode("ascii", "replace"))
            cmd = parse_text(decoded) if decoded else None
        except ProtocolError as e:
            raise KnowledgeError(f"{source} line {number}: {e.text}") from None
        if cmd is None or cmd.name in _IGNORED:
            continue
        if cmd.name == "newgame":
            game, position = dict(cmd.args), None
        elif cmd.name == "position":
            position = (number, cmd.args, dict(game))
    if position is None:
        raise KnowledgeError(f"{source}: no 'position' line: a seat record holds the protocol lines "
                             f"'newgame ...' and 'position startpos|fen ... moves ...' a seat was sent")
    number, args, game = position
    seat = game["seat"]
    try:
        if args.get("startpos"):
            start = start_observation(game["players"], game["board"], seat, args["first"], args["hand"],
                                      game["variants"])
            players, board, variants = game["players"], game["board"], tuple(game["variants"])
        else:
            snap = parse_position(args["fen"])
            players, board, variants = snap["players"], snap["board"], tuple(snap.get("variants") or ())
            if seat >= players:
                raise KnowledgeError(f"newgame seat {seat} does not exist in a position of {players} players")
            start = seat_observation(snap, seat, args["hand"], args["swapped"])
    except EngineError as e:
        raise KnowledgeError(f"{source} line {number}: {e}") from None
    record = SeatRecord(seat, start, list(args["moves"]), players, board, variants)
    record.observation_after()          # every event must follow the ones before it
    return record
