"""Game records: a replayable text log of one game, one decision per line.

A record is a few header lines, then the decisions in action notation
(engine.actions.format_action), each followed by the draws it caused, then a
result line once the game is over::

    # tne-ai game record
    [players 2]
    [board standard]
    [seed 42]
    leader k f8
    tile r g9
    draw 1 kr
    ...
    result treasures 1 0

- Headers `[name value]` come before the first decision. `players` and
  `board` are required, and `seed` unless `[start <position string>]` gives
  the initial state (a full position, hidden part included; it then takes
  precedence over the seed). Other header names are kept but ignored.
- `draw <seat> <letters>`: after a decision that drew tiles, one line per
  seat that drew, in draw order (the turn owner first, then seat order), the
  tiles in the order they were drawn. Draws are found by diffing the hands and
  the bag of the snapshots before and after the decision.
- `result <end_reason> <rank per seat>` (rank 0 = winner, as State.result()).
- `#` starts a comment; blank lines are ignored.

Replaying checks every line: a record that stops anywhere (even before the
draw lines of its last decision) replays to the state reached so far. Any
error is a RecordError naming the line number.
"""
from __future__ import annotations

import re

from engine.actions import COLOURS, VARIANTS, format_action, parse_action
from engine.boards import BOARD_NAMES
from engine.errors import EngineError, RecordError
from engine.legality import why_illegal
from engine.position import format_position, parse_position

_HEADER_RE = re.compile(r"\[([a-z_][a-z0-9_]*)(?:\s+([^\]]*?))?\s*\]")
_SEAT_RE = re.compile(r"[0-3]")


def _letters(colours) -> str:
    return "".join(COLOURS[c] for c in colours)


def drawn_tiles(before: dict, after: dict) -> list:
    """Return the draws between two full snapshots as [(seat, [colour, ...]), ...] in draw order."""
    bag_b, bag_a = before["bag"], after["bag"]
    if len(bag_a) > len(bag_b) or bag_b[:len(bag_a)] != bag_a:
        raise RecordError("the bag changed other than by draws")
    drawn = bag_b[len(bag_a):][::-1]             # draws pop the last element
    players, actor = before["players"], before["to_act"]
    counts = {}
    for s in range(players):
        if s != actor:
            counts[s] = sum(after["hands"][s]) - sum(before["hands"][s])
            if counts[s] < 0:
                raise RecordError(f"seat {s} lost tiles without acting")
    if 0 <= actor < players:
        counts[actor] = len(drawn) - sum(counts.values())
    out, i = [], 0
    for k in range(players):
        s = (before["turn_owner"] + k) % players
        n = counts.get(s, 0)
        if n < 0:
            raise RecordError(f"the hands of seats other than {actor} grew by more than the bag shrank")
        if n:
            tiles = drawn[i:i + n]
            i += n
            gained = [after["hands"][s][c] - before["hands"][s][c] for c in range(4)]
            got = [tiles.count(c) for c in range(4)]
            if any(g < d if s == actor else g != d for g, d in zip(got, gained)):
                raise RecordError(f"seat {s}'s hand does not match the tiles drawn from the bag")
            out.append((s, tiles))
    if i != len(drawn):
        raise RecordError("tiles left the bag without reaching a hand")
    return out


def _draw_line(seat: int, tiles) -> str:
    return f"draw {seat} {_letters(tiles)}"


def _result_line(state) -> str:
    reason = state.snapshot()["end_reason"] or "-"
    return "result " + reason + " " + " ".join(str(r) for r in state.result())


class GameRecorder:
    """Wrap a state and log every decision applied through it, with its draws."""

    def __init__(self, state, seed=None, start=None, headers=None):
        """Start recording from `state` (a State of any implementation; it is not copied).

        `seed`: written as `[seed n]`; `start`: write `[start ...]` with the
        full initial position (default: only when no seed is given);
        `headers`: extra {name: value} header lines.
        """
        self.state = state
        self.seed = seed
        self.start = (seed is None) if start is None else bool(start)
        self.headers = dict(headers or {})
        for name, value in self.headers.items():
            if not re.fullmatch(r"[a-z_][a-z0-9_]*", str(name)) or name in ("players", "board", "variants", "seed", "start"):
                raise RecordError(f"bad extra header name {name!r}")
            if any(ch in str(value) for ch in "]#\n\r"):
                raise RecordError(f"header {name!r}: value may not contain ] # or a line break")
        self.initial = state.snapshot()
        self.actions = []
        self.lines = []

    @classmethod
    def of_lines(cls, initial_state, actions: list, lines: list, final_state, seed=None, start=None,
                 headers=None) -> "GameRecorder":
        """Return a recorder of `actions` already played and logged (record_lines of each), `final_state` after them."""
        rec = cls(initial_state, seed=seed, start=start, headers=headers)
        rec.actions = list(actions)
        rec.lines = list(lines)
        rec.state = final_state
        return rec

    def apply(self, action: int) -> None:
        """Apply one decision to the wrapped state and log it (IllegalActionError: nothing logged)."""
        before = self.state.snapshot()
        self.state.apply(action)
        after = self.state.snapshot()
        self.actions.append(action)
        self.lines += record_lines(action, before, after)

    def text(self) -> str:
        """Return the record so far, with a result line if the game is over."""
        snap = self.initial
        out = ["# tne-ai game record", f"[players {snap['players']}]", f"[board {snap['board']}]"]
        if snap.get("variants"):
            out.append(f"[variants {','.join(snap['variants'])}]")
        if self.seed is not None:
            out.append(f"[seed {self.seed}]")
        if self.start:
            out.append(f"[start {format_position(snap, hidden=True)}]")
        out += [f"[{k} {v}]" for k, v in self.headers.items()]
        out += self.lines
        if self.state.is_terminal():
            out.append(_result_line(self.state))
        return "\n".join(out) + "\n"


def record_lines(action: int, before: dict, after: dict) -> list:
    """Return the record's lines of one decision: its notation, then the tiles drawn (snapshots before and after)."""
    return [format_action(action)] + [_draw_line(seat, tiles) for seat, tiles in drawn_tiles(before, after)]


def write_record(initial_state, actions, seed=None, start=None, headers=None) -> str:
    """Return the record of `actions` played from (a clone of) `initial_state`."""
    rec = GameRecorder(initial_state.clone(), seed=seed, start=start, headers=headers)
    for i, a in enumerate(actions):
        try:
            rec.apply(a)
        except EngineError as e:
            raise RecordError(f"action {i} ({a!r}) cannot be recorded: {e}") from e
    return rec.text()


def _lines(text: str):
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            yield n, line


def _header(n: int, line: str):
    m = _HEADER_RE.fullmatch(line)
    if not m:
        raise RecordError(f"line {n}: bad header {line!r}: expected [name value]")
    return m.group(1), (m.group(2) or "").strip()


def _int_header(n: int, name: str, value: str, lo: int, hi: int) -> int:
    if not re.fullmatch(r"[0-9]{1,20}", value) or not lo <= int(value) <= hi:
        raise RecordError(f"line {n}: header [{name}] must be an integer {lo}..{hi}, got {value!r}")
    return int(value)


def _initial_state(headers: dict, new_game, from_snapshot):
    for name in ("players", "board"):
        if name not in headers:
            raise RecordError(f"line 1: missing header [{name} ...]")
    (n_p, players), (n_b, board) = headers["players"], headers["board"]
    players = _int_header(n_p, "players", players, 2, 4)
    if board not in BOARD_NAMES:
        raise RecordError(f"line {n_b}: header [board] must be one of {', '.join(BOARD_NAMES)}, got {board!r}")
    variants = []
    if "variants" in headers:
        n_v, text = headers["variants"]
        variants = [v for v in text.replace(",", " ").split()]
        if not variants or any(v not in VARIANTS for v in variants) or len(set(variants)) != len(variants):
            raise RecordError(f"line {n_v}: header [variants] must list distinct names among "
                              f"{', '.join(VARIANTS)}, got {text!r}")
        variants = [v for v in VARIANTS if v in variants]
    if "start" in headers:
        n, text = headers["start"]
        if from_snapshot is None:
            raise RecordError(f"line {n}: [start] needs a from_snapshot function to replay")
        try:
            snap = parse_position(text)
        except EngineError as e:
            raise RecordError(f"line {n}: bad [start] position: {e}") from e
        if snap["hands"] is None:
            raise RecordError(f"line {n}: the [start] position lacks its hidden part (' | hands bag swapped')")
        if snap["players"] != players or snap["board"] != board:
            raise RecordError(f"line {n}: the [start] position is {snap['players']} players on the "
                              f"{snap['board']} board, the headers say {players} on {board}")
        if snap["variants"] != variants:
            raise RecordError(f"line {n}: the [start] position has variants {','.join(snap['variants']) or 'none'}, "
                              f"the headers say {','.join(variants) or 'none'}")
        try:
            return from_snapshot(snap)
        except ValueError as e:                 # EngineError is a ValueError

            raise RecordError(f"line {n}: the [start] position is not a valid state: {e}") from e
    if "seed" not in headers:
        raise RecordError("line 1: missing header [seed ...] (or [start ...])")
    n_s, seed = headers["seed"]
    seed = _int_header(n_s, "seed", seed, 0, 2 ** 64 - 1)
    try:
        if variants:
            return new_game(players=players, seed=seed, board=board, variants=variants)
        return new_game(players=players, seed=seed, board=board)
    except ValueError as e:                     # EngineError is a ValueError

        raise RecordError(f"line {n_b}: cannot start a game with these headers: {e}") from e


def replay_record(text: str, new_game, from_snapshot=None):
    """Replay a record, checking every line; return (state, [action ints])."""
    if not isinstance(text, str):
        raise RecordError(f"a record must be a string, got {type(text).__name__}")
    headers, body = {}, []
    for n, line in _lines(text):
        if line.startswith("["):
            if body:
                raise RecordError(f"line {n}: header after the first decision (line {body[0][0]})")
            name, value = _header(n, line)
            if name in headers:
                raise RecordError(f"line {n}: header [{name}] repeated (first on line {headers[name][0]})")
            headers[name] = (n, value)
        else:
            body.append((n, line))
    state = _initial_state(headers, new_game, from_snapshot)
    actions = []
    pending, source = [], 0      # draw lines still expected, and the line that drew them
    result_line = 0
    for n, line in body:
        if result_line:
            raise RecordError(f"line {n}: text after the result line (line {result_line})")
        verb = line.split()[0].lower()
        if verb == "draw":
            words = line.split()
            if len(words) != 3 or not _SEAT_RE.fullmatch(words[1]) or not all(ch in COLOURS for ch in words[2].lower()):
                raise RecordError(f"line {n}: bad draw line {line!r}: expected 'draw <seat> <tiles>', e.g. draw 1 kr")
            if not pending:
                what = f"line {source} drew nothing more" if source else "no decision has been made yet"
                raise RecordError(f"line {n}: unexpected draw line: {what}")
            expected = pending.pop(0)
            if line.lower().split() != expected.split():
                raise RecordError(f"line {n}: draw mismatch: the record says {line!r}, "
                                  f"the game drew {expected!r} after line {source}")
            continue
        if pending:
            raise RecordError(f"line {n}: expected {pending[0]!r} (the draws of line {source}) before {line!r}")
        if verb == "result":
            result_line = n
            if not state.is_terminal():
                raise RecordError(f"line {n}: result line but the game is not over")
            actual = _result_line(state)
            if line.lower().split() != actual.split():
                raise RecordError(f"line {n}: result mismatch: the record says {line!r}, the game says {actual!r}")
            continue
        try:
            action = parse_action(line)
        except EngineError as e:
            raise RecordError(f"line {n}: cannot parse {line!r}: {e}") from e
        before = state.snapshot()
        try:
            state.apply(action)
        except EngineError as e:
            try:        # the engine's words (engine.legality), whichever implementation replays
                reason = why_illegal(before, action) or str(e)
            except EngineError:
                reason = str(e)
            raise RecordError(f"line {n}: illegal action {line!r} "
                              f"(seat {before['to_act']} to act, phase {before['phase']}): {reason}") from e
        try:
            draws = drawn_tiles(before, state.snapshot())
        except RecordError as e:
            raise RecordError(f"line {n}: {e}") from e
        actions.append(action)
        pending = [_draw_line(s, t) for s, t in draws]
        source = n
    return state, actions


def record_start(text: str, new_game, from_snapshot=None):
    """Return the state a record starts from: its header lines replayed without decisions."""
    head = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and not line.startswith("["):
            break
        head.append(raw)
    state, _ = replay_record("\n".join(head) + "\n", new_game, from_snapshot)
    return state
