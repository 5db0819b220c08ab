"""Pure-Python reference implementation of Tigris & Euphrates (base game and 2015 variants).

This module is the oracle the fast Cython engine (`engine.State`) is tested
against, decision by decision and draw by draw. It favours being obviously
correct over being fast: the position is held in plain lists, dicts and sets,
and every region/kingdom is recomputed by flood fill whenever it is needed.

Rules implemented (ids from `docs/rules.md`): R-COMP-*, R-SETUP-1,
R-KING-*, R-TURN-*, R-LEAD-*, R-TILE-*, R-CAT-*, R-SWAP-1, R-REV-*, R-WAR-*,
R-MON-*, R-TRE-*, R-END-*, R-VAR-ADV-BOARD (the board is read from its file;
nothing about it is assumed) and the 2015 edition's switchable variants
(`new_game(..., variants=...)`, names from `engine.actions.VARIANTS`):
R-VAR-ENGLISH (`english`: commit 0 or the exact count), R-VAR-BLD-1..5
(`buildings`: the four civilization buildings) and R-VAR-WONDER-1..4
(`wonder`: the single wonder and its end-of-turn point).

How the rules become atomic decisions (phases, who acts, the order of every
step, the PRNG, the snapshot schema and the API) follows `docs/engine.md`
to the letter (its section "Variants" for the 2015 rules). Readings of
points that page leaves open:

- Committed tiles leave the committer's hand at the moment of the `commit`
  decision (they lie face up on the table): `hands -= n`, `discarded += n`
  and the seat's `committed` flag is set right away, so a `revolt_defend` /
  `war_defend` snapshot already shows the attacker's tiles as discarded.
- `pass` goes straight to the end of the turn: `actions_left` is not changed
  (it is reset to 2 when the next turn starts). So in phase `wonder_point`
  `actions_left` is 0 after two actions, or 1-2 after a `pass`; `placed` is
  -1 there and the `committed` flags are still set (cleared at the next turn).
- When the game ends (bag empty on a draw, or too few treasures at the end of
  a turn) only `phase = "over"`, `to_act = -1` and `end_reason` change; every
  other field keeps the value it had at that moment.
- At setup, seat 0 draws its 6 tiles, then seat 1 its 6, and so on.
- After `monument m sq` the wonder check still runs but never finds a cross
  (the placed tile is face down now), so play goes on to the treasure check.
- `new_game` accepts `variants` in any order and with repeats; a snapshot
  is canonical, so `from_snapshot` refuses them out of VARIANTS order or
  repeated (as it refuses unsorted treasures), and `snapshot()` writes them
  once each, in that order.
  A snapshot without all three of `variants`, `buildings` and `wonder` is a
  base-game snapshot; one with only some of them is rejected.
- `from_snapshot` refuses (PositionError "inconsistent position: ...") every
  position `check_consistency` rejects, so it agrees with the Cython engine on
  accept/refuse: a pending phase that is not pending, a conflict that does not
  fit its phase, a commitment the attacker's hand could not hold, counters
  that do not add up, a game not over without a legal decision.

Action ints and their notation come from `engine.actions`.
"""
from __future__ import annotations

import operator

from engine.actions import (
    BLUE,
    BUILDING_BASE,
    COLOURS,
    COMMIT_BASE,
    GREEN,
    LEADER_BASE,
    MONUMENT_BASE,
    MONUMENTS,
    NO_BUILDING,
    NO_MONUMENT,
    NO_WONDER,
    PASS,
    RED,
    TILE_BASE,
    TREASURE_BASE,
    VARIANTS,
    WAR_BASE,
    WITHDRAW_BASE,
    WONDER_BASE,
    WONDER_POINT_BASE,
    CAT_BASE,
    BLACK,
    format_action,
    kind,
    swap_action,
    swap_counts,
)
from engine.boards import BOARD_NAMES, COLS, ROWS, SQUARES, load_board, neighbours
from engine.errors import ConsistencyError, EngineError, IllegalActionError, PositionError, shown
from engine.position import MAX_SCORE

__all__ = ["State", "new_game", "PHASES"]

# ---------------------------------------------------------------- constants

MASK64 = (1 << 64) - 1
TILE_TOTALS = (30, 57, 36, 30)          # black, red, blue, green (R-COMP-1)
TOTAL_TILES = 153
HAND_SIZE = 6
CATASTROPHES_PER_SEAT = 2

# cell values of the snapshot's `cells` list
EMPTY = 0
FACE_UP = 1          # 1 + colour
FACE_DOWN = 5        # 5 + colour (under a monument)
CATASTROPHE = 9
WONDER = 10          # one of the five squares of the wonder (R-VAR-WONDER-1)
TEMPLE = FACE_UP + RED  # a face-up red tile

PHASES = (
    "action",
    "revolt_attack",
    "revolt_defend",
    "war_choice",
    "war_attack",
    "war_defend",
    "monument",
    "treasure",
    "over",
    "building",       # variant buildings (R-VAR-BLD-2)
    "wonder",         # variant wonder (R-VAR-WONDER-1)
    "wonder_point",   # variant wonder (R-VAR-WONDER-4)
)
# the variant a variant-only phase needs
PHASE_VARIANT = {"building": "buildings", "wonder": "wonder", "wonder_point": "wonder"}
CONFLICT_PHASES = ("revolt_attack", "revolt_defend", "war_attack", "war_defend")
END_REASONS = (None, "treasures", "bag")
CONFLICT_KEYS = (
    "kind",
    "colour",
    "attacker",
    "defender",
    "attacker_leader",
    "defender_leader",
    "attacker_commit",
)
SNAPSHOT_KEYS = (
    "players",
    "board",
    "variants",
    "cells",
    "buildings",
    "wonder",
    "treasures",
    "leaders",
    "monuments",
    "hands",
    "bag",
    "swapped",
    "discarded",
    "scores",
    "treasures_taken",
    "catastrophes_left",
    "turn_owner",
    "actions_left",
    "phase",
    "to_act",
    "placed",
    "unification",
    "conflict",
    "committed",
    "end_reason",
)

# the variant fields: a snapshot holds all three or (base game) none of them
VARIANT_KEYS = ("variants", "buildings", "wonder")

NEIGHBOURS = tuple(tuple(neighbours(sq)) for sq in range(SQUARES))


def _board(name):
    """Load a board by name (R-COMP-4, R-VAR-ADV-BOARD)."""
    return load_board(name)


def _is_tile(value):
    """Return whether a cell value is a tile, face up or face down."""
    return FACE_UP <= value < CATASTROPHE


def _face_up_colour(value):
    """Return the colour of a face-up tile cell value, else None."""
    if FACE_UP <= value < FACE_DOWN:
        return value - FACE_UP
    return None


def _tile_colour(value):
    """Return the colour of a tile cell value (face up or down), else None."""
    if FACE_UP <= value < FACE_DOWN:
        return value - FACE_UP
    if FACE_DOWN <= value < CATASTROPHE:
        return value - FACE_DOWN
    return None


def _tile_totals(cells, hands, bag, swapped, discarded):
    """Per colour: tiles on the board + in hands + bag + swapped + discarded."""
    totals = list(discarded)
    for value in cells:
        colour = _tile_colour(value)
        if colour is not None:
            totals[colour] += 1
    for c in bag:
        totals[c] += 1
    for row in list(hands) + list(swapped):
        for c in range(4):
            totals[c] += row[c]
    return totals


def _block(top_left):
    """Return the four squares of the 2x2 block with this top-left square."""
    return (top_left, top_left + 1, top_left + COLS, top_left + COLS + 1)


def _is_top_left(sq):
    """Return whether sq can be the top-left square of a 2x2 block."""
    row, col = divmod(sq, COLS)
    return row < ROWS - 1 and col < COLS - 1


def _plus(centre):
    """Return the five squares of the cross centred on centre, or None if it has no four neighbours."""
    if len(NEIGHBOURS[centre]) != 4:
        return None
    return (centre,) + NEIGHBOURS[centre]


def _run(cells, sq, horizontal):
    """Return the run through sq (R-VAR-BLD-2): the maximal straight line of squares,
    horizontal or vertical, holding the same face-up tile as sq (a list of squares)."""
    value = cells[sq]
    row, col = divmod(sq, COLS)
    out = [sq]
    for step in (-1, 1):
        r, c = row, col
        while True:
            if horizontal:
                c += step
            else:
                r += step
            if not (0 <= r < ROWS and 0 <= c < COLS) or cells[r * COLS + c] != value:
                break
            out.append(r * COLS + c)
    return sorted(out)


def _variant_names(variants, field):
    """Return the variant names on, once each in VARIANTS order; raise PositionError naming a bad one."""
    if isinstance(variants, (str, bytes)):
        _fail(field, f"expected an iterable of variant names, got the string {variants!r}")
    try:
        names = list(variants)
    except TypeError:
        _fail(field, f"expected an iterable of variant names, got {type(variants).__name__} {variants!r}")
    for name in names:
        if not isinstance(name, str):
            _fail(field, f"variant names are strings, got {type(name).__name__} {name!r}")
        if name not in VARIANTS:
            _fail(field, f"unknown variant {name!r}; expected any of {', '.join(VARIANTS)}")
    return tuple(v for v in VARIANTS if v in names)


class SplitMix64:
    """The splitmix64 generator of docs/engine.md (all arithmetic mod 2^64)."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


# ---------------------------------------------------------------- setup


def new_game(players=2, seed=0, board="standard", variants=()):
    """Return the initial state of a game (R-SETUP-1, docs/engine.md 'Setup').

    `variants`: any iterable of names from engine.actions.VARIANTS (repeats
    are harmless); they change no setup step and no random draw.
    """
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise PositionError(f"players: expected an int 2..4, got {players!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise PositionError(f"seed: expected an int, got {seed!r}")
    if board not in BOARD_NAMES:
        raise PositionError(f"board: expected one of {', '.join(BOARD_NAMES)}, got {board!r}")
    names = _variant_names(variants, "variants")
    b = _board(board)
    s = State()
    s._players = players
    s._board_name = board
    s._board = b
    s.variants = names
    s.buildings = [-1, -1, -1, -1]
    s.wonder = -1
    # 1. a face-up red tile and a treasure on every temple square
    s.cells = [EMPTY] * SQUARES
    for sq in b.temples:
        s.cells[sq] = TEMPLE
    s.treasures = set(b.temples)
    # 2. the bag, shuffled by Fisher-Yates with splitmix64
    rng = SplitMix64(seed)
    bag = [BLACK] * 30 + [RED] * (57 - len(b.temples)) + [BLUE] * 36 + [GREEN] * 30
    for i in range(len(bag) - 1, 0, -1):
        j = rng.next() % (i + 1)
        bag[i], bag[j] = bag[j], bag[i]
    s.bag = bag
    # 3. the first player
    first = rng.next() % players
    # 4. every seat draws 6, seat by seat, each draw popping the end of the bag
    s.hands = [[0, 0, 0, 0] for _ in range(players)]
    for seat in range(players):
        for _ in range(HAND_SIZE):
            s.hands[seat][s.bag.pop()] += 1
    s.leaders = [[-1, -1, -1, -1] for _ in range(players)]
    s.monuments = [-1] * len(MONUMENTS)
    s.swapped = [[0, 0, 0, 0] for _ in range(players)]
    s.discarded = [0, 0, 0, 0]
    s.points = [[0, 0, 0, 0] for _ in range(players)]
    s.treasures_taken = [0] * players
    s.catastrophes_left = [CATASTROPHES_PER_SEAT] * players
    # 5. the first turn
    s._turn_owner = first
    s._to_act = first
    s.actions_left = 2
    s._phase = "action"
    s.placed = -1
    s.unification = -1
    s.conflict = None
    s.committed = [False] * players
    s.end_reason = None
    return s


# ---------------------------------------------------------------- snapshot validation


def _fail(field, message):
    raise PositionError(f"{field}: {message}")


def _int(value, field, lo=None, hi=None):
    """Return value if it is an int (not a bool) in lo..hi, else raise."""
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(field, f"expected an int, got {type(value).__name__} {shown(value)}")
    if lo is not None and value < lo:
        _fail(field, f"{shown(value)} is below the minimum {lo}")
    if hi is not None and value > hi:
        _fail(field, f"{shown(value)} is above the maximum {hi}")
    return value


def _list(value, field, length=None):
    """Return value as a list if it is a list/tuple of the given length."""
    if not isinstance(value, (list, tuple)):
        _fail(field, f"expected a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        _fail(field, f"expected {length} entries, got {len(value)}")
    return list(value)


def _int_list(value, field, length=None, lo=None, hi=None):
    items = _list(value, field, length)
    return [_int(v, f"{field}[{i}]", lo, hi) for i, v in enumerate(items)]


def _int_table(value, field, rows, cols, lo=None, hi=None):
    items = _list(value, field, rows)
    return [_int_list(row, f"{field}[{i}]", cols, lo, hi) for i, row in enumerate(items)]


# ---------------------------------------------------------------- the state


class State:
    """A full game position (every hand and the bag order included).

    The fields mirror the snapshot schema (`points` is the snapshot's
    `scores`, `treasures` a set). Treat them as read-only from outside: change
    a position through apply(), or build one with from_snapshot().
    """

    # ------------------------------------------------------------ construction

    def __init__(self):
        """Make an empty shell; use new_game() or State.from_snapshot()."""
        self._players = 0
        self._board_name = ""
        self._board = None
        self.variants = ()          # the variant names on, in VARIANTS order
        self.cells = []
        self.buildings = [-1, -1, -1, -1]   # square of building k r b g, or -1 (supply)
        self.wonder = -1                    # centre square of the wonder, or -1
        self.treasures = set()
        self.leaders = []
        self.monuments = []
        self.hands = []
        self.bag = []
        self.swapped = []
        self.discarded = []
        self.points = []
        self.treasures_taken = []
        self.catastrophes_left = []
        self._turn_owner = 0
        self.actions_left = 0
        self._phase = "over"
        self._to_act = -1
        self.placed = -1
        self.unification = -1
        self.conflict = None
        self.committed = []
        self.end_reason = None
        self._legal_cache = None

    @classmethod
    def from_snapshot(cls, snap):
        """Build a state from a snapshot dict; raise PositionError naming the field."""
        if not isinstance(snap, dict):
            raise PositionError(f"snapshot: expected a dict, got {type(snap).__name__}")
        base_game = not any(key in snap for key in VARIANT_KEYS)  # an older snapshot
        for key in SNAPSHOT_KEYS:
            if key not in snap and not (base_game and key in VARIANT_KEYS):
                _fail(key, "missing")
        for key in snap:
            if key not in SNAPSHOT_KEYS:
                _fail(str(key), "unknown field")
        s = cls()
        players = s._players = _int(snap["players"], "players", 2, 4)
        board = snap["board"]
        if board not in BOARD_NAMES:
            _fail("board", f"expected one of {', '.join(BOARD_NAMES)}, got {board!r}")
        s._board_name = board
        s._board = _board(board)
        s.cells = _int_list(snap["cells"], "cells", SQUARES, 0, WONDER)
        if base_game:
            s.variants, s.buildings, s.wonder = (), [-1, -1, -1, -1], -1
        else:
            variants = snap["variants"]
            if not isinstance(variants, (list, tuple)):
                _fail("variants", f"expected a list, got {type(variants).__name__}")
            s.variants = _variant_names(variants, "variants")
            if list(variants) != list(s.variants):     # a snapshot is canonical, like its sorted treasures
                _fail("variants", f"expected distinct names in the order {', '.join(VARIANTS)}, "
                                  f"got {list(variants)!r}")
            s.buildings = _int_list(snap["buildings"], "buildings", 4, -1, SQUARES - 1)
            s.wonder = _int(snap["wonder"], "wonder", -1, SQUARES - 1)
        _validate_variant_fields(s)
        treasures = _int_list(snap["treasures"], "treasures", None, 0, SQUARES - 1)
        if treasures != sorted(set(treasures)):
            _fail("treasures", "must be sorted and without repeats")
        s.treasures = set(treasures)
        s.leaders = _int_table(snap["leaders"], "leaders", players, 4, -1, SQUARES - 1)
        s.monuments = _int_list(snap["monuments"], "monuments", len(MONUMENTS), -1, SQUARES - 1)
        s.hands = _int_table(snap["hands"], "hands", players, 4, 0, HAND_SIZE)
        for seat, hand in enumerate(s.hands):
            if sum(hand) > HAND_SIZE:
                _fail(f"hands[{seat}]", f"holds {sum(hand)} tiles, more than {HAND_SIZE}")
        s.bag = _int_list(snap["bag"], "bag", None, 0, 3)
        s.swapped = _int_table(snap["swapped"], "swapped", players, 4, 0, TOTAL_TILES)
        s.discarded = _int_list(snap["discarded"], "discarded", 4, 0, TOTAL_TILES)
        s.points = _int_table(snap["scores"], "scores", players, 4, 0, MAX_SCORE)
        s.treasures_taken = _int_list(snap["treasures_taken"], "treasures_taken", players, 0, 20)
        s.catastrophes_left = _int_list(
            snap["catastrophes_left"], "catastrophes_left", players, 0, CATASTROPHES_PER_SEAT
        )
        s._turn_owner = _int(snap["turn_owner"], "turn_owner", 0, players - 1)
        s.actions_left = _int(snap["actions_left"], "actions_left", 0, 2)
        phase = snap["phase"]
        if phase not in PHASES:
            _fail("phase", f"unknown phase {phase!r}")
        if phase in PHASE_VARIANT and PHASE_VARIANT[phase] not in s.variants:
            _fail("phase", f"phase {phase!r} needs the variant {PHASE_VARIANT[phase]!r}, which is off")
        s._phase = phase
        s._to_act = _int(snap["to_act"], "to_act", -1, players - 1)
        s.placed = _int(snap["placed"], "placed", -1, SQUARES - 1)
        s.unification = _int(snap["unification"], "unification", -1, SQUARES - 1)
        committed = _list(snap["committed"], "committed", players)
        for i, flag in enumerate(committed):
            if not isinstance(flag, bool):
                _fail(f"committed[{i}]", f"expected a bool, got {flag!r}")
        s.committed = committed
        end_reason = snap["end_reason"]
        if end_reason not in END_REASONS:
            _fail("end_reason", f"expected null, 'treasures' or 'bag', got {end_reason!r}")
        s.end_reason = end_reason
        s.conflict = _validate_conflict(snap["conflict"], players)
        # tile conservation (per colour, hence also the total of 153)
        totals = _tile_totals(s.cells, s.hands, s.bag, s.swapped, s.discarded)
        for c in range(4):
            total = totals[c]
            if total != TILE_TOTALS[c]:
                _fail(
                    "tiles",
                    f"{COLOURS[c]} tiles in cells+hands+bag+swapped+discarded number {total},"
                    f" expected {TILE_TOTALS[c]} (of {TOTAL_TILES})",
                )
        # the fields that say who acts and what is pending must agree
        if (phase == "over") != (s._to_act == -1):
            _fail("to_act", f"{s._to_act} does not fit phase {phase!r}")
        if (phase == "over") != (end_reason is not None):
            _fail("end_reason", f"{end_reason!r} does not fit phase {phase!r}")
        if phase in CONFLICT_PHASES:
            if s.conflict is None:
                _fail("conflict", f"phase {phase!r} needs a conflict")
            want = "revolt" if phase.startswith("revolt") else "war"
            if s.conflict["kind"] != want:
                _fail("conflict", f"kind {s.conflict['kind']!r} does not fit phase {phase!r}")
            if phase.endswith("attack") != (s.conflict["attacker_commit"] == -1):
                _fail("conflict", f"attacker_commit {s.conflict['attacker_commit']} does not fit phase {phase!r}")
        elif s.conflict is not None:
            _fail("conflict", f"phase {phase!r} has no conflict")
        # every invariant of a reachable position, and a decision to make (like the core)
        problems = s._consistency_problems()
        if problems:
            raise PositionError(f"inconsistent position: {problems[0]}")
        return s

    def snapshot(self):
        """Return the canonical state dict (a fresh, JSON-serialisable copy)."""
        return {
            "players": self._players,
            "board": self._board_name,
            "variants": list(self.variants),
            "cells": list(self.cells),
            "buildings": list(self.buildings),
            "wonder": self.wonder,
            "treasures": sorted(self.treasures),
            "leaders": [list(row) for row in self.leaders],
            "monuments": list(self.monuments),
            "hands": [list(row) for row in self.hands],
            "bag": list(self.bag),
            "swapped": [list(row) for row in self.swapped],
            "discarded": list(self.discarded),
            "scores": [list(row) for row in self.points],
            "treasures_taken": list(self.treasures_taken),
            "catastrophes_left": list(self.catastrophes_left),
            "turn_owner": self._turn_owner,
            "actions_left": self.actions_left,
            "phase": self._phase,
            "to_act": self._to_act,
            "placed": self.placed,
            "unification": self.unification,
            "conflict": None if self.conflict is None else dict(self.conflict),
            "committed": list(self.committed),
            "end_reason": self.end_reason,
        }

    def clone(self):
        """Return an independent copy of this state."""
        s = State()
        s._players = self._players
        s._board_name = self._board_name
        s._board = self._board
        s.variants = self.variants
        s.cells = list(self.cells)
        s.buildings = list(self.buildings)
        s.wonder = self.wonder
        s.treasures = set(self.treasures)
        s.leaders = [list(row) for row in self.leaders]
        s.monuments = list(self.monuments)
        s.hands = [list(row) for row in self.hands]
        s.bag = list(self.bag)
        s.swapped = [list(row) for row in self.swapped]
        s.discarded = list(self.discarded)
        s.points = [list(row) for row in self.points]
        s.treasures_taken = list(self.treasures_taken)
        s.catastrophes_left = list(self.catastrophes_left)
        s._turn_owner = self._turn_owner
        s.actions_left = self.actions_left
        s._phase = self._phase
        s._to_act = self._to_act
        s.placed = self.placed
        s.unification = self.unification
        s.conflict = None if self.conflict is None else dict(self.conflict)
        s.committed = list(self.committed)
        s.end_reason = self.end_reason
        return s

    def __repr__(self):
        return (
            f"<reference.State {self._board_name} {self._players}p phase={self._phase}"
            f" turn_owner={self._turn_owner} to_act={self._to_act}>"
        )

    # ------------------------------------------------------------ properties

    @property
    def players(self):
        return self._players

    @property
    def board_name(self):
        return self._board_name

    @property
    def to_act(self):
        return self._to_act

    @property
    def turn_owner(self):
        return self._turn_owner

    @property
    def phase(self):
        return self._phase

    def is_terminal(self):
        return self._phase == "over"

    # ------------------------------------------------------------ board geometry

    def _leader_squares(self):
        """Return {square: (seat, colour)} for every leader on the board."""
        out = {}
        for seat in range(self._players):
            for c in range(4):
                sq = self.leaders[seat][c]
                if sq != -1:
                    out[sq] = (seat, c)
        return out

    def _connectors(self, leader_at):
        """Return the set of squares that connect (R-KING-1): tiles (face up or down),
        the wonder's squares (R-VAR-WONDER-2) and leaders."""
        tiles = {sq for sq, value in enumerate(self.cells) if _is_tile(value) or value == WONDER}
        return tiles | set(leader_at)

    @staticmethod
    def _flood(start, connectors):
        """Flood fill: the set of squares of `connectors` edge-connected to start."""
        if start not in connectors:
            return set()
        seen = {start}
        todo = [start]
        while todo:
            sq = todo.pop()
            for n in NEIGHBOURS[sq]:
                if n in connectors and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen

    def _group(self, start, leader_at, blocked=-1):
        """The group (region or kingdom) containing start: a set of squares.

        `blocked` is a square treated as empty (the unification tile when
        supporters are counted). Returns an empty set if start connects nothing.
        """
        connectors = self._connectors(leader_at)
        connectors.discard(blocked)
        return self._flood(start, connectors)

    def _components(self, leader_at):
        """Label every connected tile/leader square (one flood fill per group).

        Returns ({square: label}, [group per label], {labels of kingdoms}).
        """
        connectors = self._connectors(leader_at)
        label = {}
        groups = []
        kingdoms = set()
        for start in sorted(connectors):
            if start in label:
                continue
            number = len(groups)
            group = {start}
            label[start] = number
            todo = [start]
            while todo:
                sq = todo.pop()
                for n in NEIGHBOURS[sq]:
                    if n in connectors and n not in label:
                        label[n] = number
                        group.add(n)
                        todo.append(n)
            if any(q in leader_at for q in group):
                kingdoms.add(number)
            groups.append(group)
        return label, groups, kingdoms

    @staticmethod
    def _adjacent_kingdoms(sq, label, kingdoms):
        """Return the labels of the distinct kingdoms among the groups next to sq."""
        return {label[n] for n in NEIGHBOURS[sq] if n in label and label[n] in kingdoms}

    def _temples_next_to(self, sq):
        """Return the number of face-up red tiles edge-adjacent to sq."""
        return sum(1 for n in NEIGHBOURS[sq] if self.cells[n] == TEMPLE)

    def _leaders_in(self, group, leader_at):
        """Return [(seat, colour, square)] of the leaders in a group."""
        return sorted((leader_at[q][0], leader_at[q][1], q) for q in group if q in leader_at)

    # ------------------------------------------------------------ legal actions

    def legal_actions(self):
        """Return the sorted list of legal action ints for the seat to act."""
        if self._legal_cache is None:
            self._legal_cache = sorted(set(self._compute_legal()))
        return list(self._legal_cache)

    def _compute_legal(self):
        phase = self._phase
        if phase == "action":
            return self._legal_main()
        if phase in CONFLICT_PHASES:
            colour = self._conflict_tile_colour()
            n = self.hands[self._to_act][colour]
            if "english" not in self.variants:
                return [COMMIT_BASE + i for i in range(n + 1)]
            # R-VAR-ENGLISH: nothing, or exactly enough to win (attacker) / to tie (defender)
            attacker_base, defender_base = self._conflict_bases()
            if phase.endswith("attack"):
                need = defender_base - attacker_base + 1
            else:
                need = attacker_base + self.conflict["attacker_commit"] - defender_base
            return [COMMIT_BASE] + ([COMMIT_BASE + need] if 1 <= need <= n else [])
        if phase == "war_choice":
            return [WAR_BASE + c for c in self._war_colours()]
        if phase == "monument":
            return self._monument_options() + [NO_MONUMENT]
        if phase == "treasure":
            pending = self._pending_treasure()
            if pending is None:
                raise ConsistencyError("phase 'treasure' but no kingdom holds two treasures and a trader")
            _owner, candidates, _to_take = pending
            return [TREASURE_BASE + sq for sq in candidates]
        if phase == "building":
            return self._building_options() + [NO_BUILDING]
        if phase == "wonder":
            return self._wonder_options() + [NO_WONDER]
        if phase == "wonder_point":
            return [WONDER_POINT_BASE + c for c in range(4)]
        return []  # over

    def _legal_main(self):
        """Every legal action of the turn owner in phase `action`."""
        seat = self._turn_owner
        hand = self.hands[seat]
        board = self._board
        out = []
        leader_at = self._leader_squares()

        # tile c sq (R-TILE-1, R-TILE-2)
        all_leaders_components = self._components(leader_at)
        label, _groups, kingdoms = all_leaders_components
        for sq in range(SQUARES):
            if self.cells[sq] != EMPTY or sq in leader_at:
                continue
            if len(self._adjacent_kingdoms(sq, label, kingdoms)) > 2:
                continue
            for c in range(4):
                if hand[c] > 0 and (c == BLUE) == board.is_river(sq):
                    out.append(TILE_BASE + c * SQUARES + sq)

        # leader c sq (R-LEAD-1..3): empty land next to a face-up temple, judged
        # with the leader lifted; its neighbours touch at most one kingdom
        targets = [
            sq
            for sq in range(SQUARES)
            if self.cells[sq] == EMPTY and not board.is_river(sq) and self._temples_next_to(sq) > 0
        ]
        for c in range(4):
            current = self.leaders[seat][c]
            others = {q: who for q, who in leader_at.items() if q != current}
            if current == -1:
                label, _groups, kingdoms = all_leaders_components  # nothing is lifted
            else:
                label, _groups, kingdoms = self._components(others)
            for sq in targets:
                if sq == current or sq in others:
                    continue
                if len(self._adjacent_kingdoms(sq, label, kingdoms)) > 1:
                    continue
                out.append(LEADER_BASE + c * SQUARES + sq)
            # withdraw c
            if current != -1:
                out.append(WITHDRAW_BASE + c)

        # cat sq (R-CAT-1): empty or a face-up tile; not the wonder (cell 10 is
        # neither), nor a tile under a building (R-VAR-BLD-5)
        if self.catastrophes_left[seat] > 0:
            for sq in range(SQUARES):
                value = self.cells[sq]
                if sq in leader_at or sq in self.treasures or sq in self.buildings:
                    continue
                if value == EMPTY or _face_up_colour(value) is not None:
                    out.append(CAT_BASE + sq)

        # swap: every sub-multiset of 1..6 tiles of the hand (R-SWAP-1)
        for k in range(hand[0] + 1):
            for r in range(hand[1] + 1):
                for b in range(hand[2] + 1):
                    for g in range(hand[3] + 1):
                        if 1 <= k + r + b + g <= HAND_SIZE:
                            out.append(swap_action((k, r, b, g)))

        out.append(PASS)
        return out

    def _conflict_tile_colour(self):
        """The colour of tiles committed in the current conflict (red in a revolt)."""
        if self.conflict["kind"] == "revolt":
            return RED
        return self.conflict["colour"]

    def _conflict_bases(self):
        """(attacker, defender) base strengths of the pending conflict (R-REV-2, R-WAR-3)."""
        conflict = self.conflict
        a_sq, d_sq = conflict["attacker_leader"], conflict["defender_leader"]
        if conflict["kind"] == "revolt":
            return self._temples_next_to(a_sq), self._temples_next_to(d_sq)
        leader_at = self._leader_squares()
        c = conflict["colour"]
        return len(self._supporters(a_sq, c, leader_at)), len(self._supporters(d_sq, c, leader_at))

    def _war_colours(self):
        """Colours with two leaders in the group of the unification tile, ascending."""
        if self.unification == -1:
            return []
        leader_at = self._leader_squares()
        group = self._group(self.unification, leader_at)
        counts = [0, 0, 0, 0]
        for _seat, c, _sq in self._leaders_in(group, leader_at):
            counts[c] += 1
        return [c for c in range(4) if counts[c] >= 2]

    def _monument_options(self):
        """Monument actions for the placed tile (R-MON-1), in any order."""
        sq = self.placed
        if sq == -1:
            return []
        value = self.cells[sq]
        colour = _face_up_colour(value)
        if colour is None:
            return []
        row, col = divmod(sq, COLS)
        out = []
        for top in (row - 1, row):
            for left in (col - 1, col):
                if 0 <= top <= ROWS - 2 and 0 <= left <= COLS - 2:
                    top_left = top * COLS + left
                    if all(self.cells[q] == value for q in _block(top_left)):
                        for m, pair in enumerate(MONUMENTS):
                            if colour in pair and self.monuments[m] == -1:
                                out.append(MONUMENT_BASE + m * SQUARES + top_left)
        return out

    def _building_options(self):
        """Building actions for the placed tile (R-VAR-BLD-2, docs/engine.md 'Building check'), ascending."""
        sq = self.placed
        if "buildings" not in self.variants or sq == -1:
            return []
        c = _face_up_colour(self.cells[sq])
        if c is None:
            return []
        # the new lines: the runs through the placed square of 3+ tiles
        length = {}  # target square -> length of the longest new line holding it
        for horizontal in (True, False):
            line = _run(self.cells, sq, horizontal)
            if len(line) >= 3:
                for q in line:
                    length[q] = max(length.get(q, 0), len(line))
        where = self.buildings[c]
        if where == -1:
            old = 0  # from the supply: every target
        else:
            old = max(len(_run(self.cells, where, True)), len(_run(self.cells, where, False)))
        return sorted(BUILDING_BASE + c * SQUARES + q for q, n in length.items() if n > old)

    def _wonder_options(self):
        """Wonder actions for the placed tile (R-VAR-WONDER-1, docs/engine.md 'Wonder check'), ascending."""
        sq = self.placed
        if "wonder" not in self.variants or self.wonder != -1 or sq == -1:
            return []
        value = self.cells[sq]
        if _face_up_colour(value) is None:
            return []
        out = []
        for centre in sorted((sq,) + NEIGHBOURS[sq]):
            plus = _plus(centre)
            if plus is not None and all(self.cells[q] == value for q in plus):
                out.append(WONDER_BASE + centre)
        return out

    def _king_with_wonder(self):
        """R-VAR-WONDER-4: is the turn owner's king on the board in the wonder's group?"""
        king = self.leaders[self._turn_owner][BLACK]
        if self.wonder == -1 or king == -1:
            return False
        return self.wonder in self._group(king, self._leader_squares())

    def _pending_treasure(self):
        """First trader (by seat) whose kingdom holds >= 2 treasures (R-TRE-1).

        Returns (owner, candidates, to_take) or None.
        """
        leader_at = self._leader_squares()
        for seat in range(self._players):
            sq = self.leaders[seat][GREEN]
            if sq == -1:
                continue
            here = sorted(self._group(sq, leader_at) & self.treasures)
            if len(here) >= 2:
                special = [q for q in here if q in self._board.special]
                candidates = special if special else here
                return seat, candidates, len(here) - 1
        return None

    # ------------------------------------------------------------ applying

    def apply(self, action):
        """Apply one legal action; raise IllegalActionError (state unchanged) otherwise."""
        if isinstance(action, bool):
            raise IllegalActionError(f"illegal action {action!r}: not an action int")
        try:
            action = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"illegal action {shown(action)}: not an action int") from None
        if action not in self.legal_actions():
            try:
                text = format_action(action)
            except EngineError:
                text = "out of range"
            raise IllegalActionError(
                f"illegal action {shown(action)} ({text}) in phase {self._phase!r}, seat to act {self._to_act}"
            )
        self._legal_cache = None
        k = kind(action)
        if k == "tile":
            c, sq = divmod(action - TILE_BASE, SQUARES)
            self._do_tile(c, sq)
        elif k == "leader":
            c, sq = divmod(action - LEADER_BASE, SQUARES)
            self._do_leader(c, sq)
        elif k == "withdraw":
            self.leaders[self._turn_owner][action - WITHDRAW_BASE] = -1
            self._treasure_check()
        elif k == "cat":
            self._do_catastrophe(action - CAT_BASE)
        elif k == "swap":
            self._do_swap(swap_counts(action))
        elif k == "pass":
            self._end_turn()
        elif k == "commit":
            self._do_commit(action - COMMIT_BASE)
        elif k == "war":
            self._start_war(action - WAR_BASE)
        elif k == "monument":
            m, top_left = divmod(action - MONUMENT_BASE, SQUARES)
            self._do_monument(m, top_left)
        elif k == "nomonument":
            self._wonder_check()
        elif k == "building":
            c, sq = divmod(action - BUILDING_BASE, SQUARES)
            self.buildings[c] = sq  # from the supply, or moved from its square
            self._monument_check()
        elif k == "nobuilding":
            self._monument_check()
        elif k == "wonder":
            self._do_wonder(action - WONDER_BASE)
        elif k == "nowonder":
            self._treasure_check()
        elif k == "wonderpoint":
            self.points[self._turn_owner][action - WONDER_POINT_BASE] += 1
            self._finish_turn()
        elif k == "treasure":
            sq = action - TREASURE_BASE
            self.treasures.remove(sq)
            self.treasures_taken[self._to_act] += 1
            self._treasure_check()
        else:  # pragma: no cover - legal_actions never offers anything else
            raise AssertionError(k)

    # tile ----------------------------------------------------------------

    def _do_tile(self, c, sq):
        """Place a tile (R-TILE-1..4), then wars or scoring, building, monument, wonder, treasures."""
        seat = self._turn_owner
        leader_at = self._leader_squares()
        label, _groups, kingdom_labels = self._components(leader_at)
        kingdoms = self._adjacent_kingdoms(sq, label, kingdom_labels)
        self.cells[sq] = FACE_UP + c
        self.hands[seat][c] -= 1
        self.placed = sq
        if len(kingdoms) == 2:
            self.unification = sq  # R-TILE-3: no score, the war loop follows
            self._war_loop()
            return
        group = self._group(sq, leader_at)
        by_colour = {colour: owner for owner, colour, _q in self._leaders_in(group, leader_at)}
        # R-VAR-BLD-3: 2 instead of 1 with building c in the placed tile's group
        worth = 2 if self.buildings[c] in group else 1
        if c in by_colour:
            self.points[by_colour[c]][c] += worth
        elif BLACK in by_colour:
            self.points[by_colour[BLACK]][c] += worth
        self._building_check()

    # leader ----------------------------------------------------------------

    def _do_leader(self, c, sq):
        """Place or move a leader (R-LEAD-1..4); a revolt may follow."""
        seat = self._turn_owner
        self.leaders[seat][c] = sq  # lifted from its old square (if any) and placed
        leader_at = self._leader_squares()
        group = self._group(sq, leader_at)
        rivals = [
            (owner, q)
            for owner, colour, q in self._leaders_in(group, leader_at)
            if colour == c and owner != seat
        ]
        if rivals:
            defender, defender_sq = rivals[0]
            self.conflict = {
                "kind": "revolt",
                "colour": c,
                "attacker": seat,
                "defender": defender,
                "attacker_leader": sq,
                "defender_leader": defender_sq,
                "attacker_commit": -1,
            }
            self._phase = "revolt_attack"
            self._to_act = seat
            return
        self._treasure_check()

    # catastrophe -------------------------------------------------------------

    def _do_catastrophe(self, sq):
        """Play a catastrophe (R-CAT-1, R-CAT-2), then R-LEAD-5 and treasures."""
        seat = self._turn_owner
        colour = _face_up_colour(self.cells[sq])
        if colour is not None:
            self.discarded[colour] += 1
        self.cells[sq] = CATASTROPHE
        self.catastrophes_left[seat] -= 1
        self._remove_unsupported_leaders()
        self._treasure_check()

    # swap ----------------------------------------------------------------

    def _do_swap(self, counts):
        """Swap tiles (R-SWAP-1): discard face down, then draw one by one."""
        seat = self._turn_owner
        for c in range(4):
            self.hands[seat][c] -= counts[c]
            self.swapped[seat][c] += counts[c]
        for _ in range(sum(counts)):
            if not self._draw(seat):
                return  # the bag ran out: the game is over
        self._end_action()

    def _draw(self, seat):
        """Draw one tile for seat; on an empty bag end the game and return False."""
        if not self.bag:
            self._game_over("bag")
            return False
        self.hands[seat][self.bag.pop()] += 1
        return True

    # conflicts -------------------------------------------------------------

    def _do_commit(self, n):
        """A commitment in a revolt or war; the defender's resolves the conflict."""
        conflict = self.conflict
        colour = self._conflict_tile_colour()
        seat = self._to_act
        self.hands[seat][colour] -= n
        self.discarded[colour] += n
        if n > 0:
            self.committed[seat] = True
        if conflict["attacker_commit"] == -1:
            conflict["attacker_commit"] = n
            self._phase = "revolt_defend" if conflict["kind"] == "revolt" else "war_defend"
            self._to_act = conflict["defender"]
            return
        if conflict["kind"] == "revolt":
            self._resolve_revolt(conflict["attacker_commit"], n)
        else:
            self._resolve_war(conflict["attacker_commit"], n)

    def _resolve_revolt(self, attacker_commit, defender_commit):
        """R-REV-2..4: temples next to each leader + commitments; tie to the defender."""
        conflict = self.conflict
        c = conflict["colour"]
        attack = self._temples_next_to(conflict["attacker_leader"]) + attacker_commit
        defence = self._temples_next_to(conflict["defender_leader"]) + defender_commit
        if attack > defence:
            winner, loser = conflict["attacker"], conflict["defender"]
        else:
            winner, loser = conflict["defender"], conflict["attacker"]
        self.leaders[loser][c] = -1
        self.points[winner][RED] += 1
        self.conflict = None
        self._treasure_check()

    def _supporters(self, leader_sq, c, leader_at):
        """R-WAR-3: face-up tiles of colour c in the leader's side of the unification."""
        side = self._group(leader_sq, leader_at, blocked=self.unification)
        return {q for q in side if self.cells[q] == FACE_UP + c}

    def _war_loop(self):
        """R-WAR-1, R-WAR-6: resolve wars until the unified kingdom holds no pair."""
        colours = self._war_colours()
        if not colours:
            self.unification = -1
            self._building_check()
        elif len(colours) > 1:
            self.conflict = None
            self._phase = "war_choice"
            self._to_act = self._turn_owner
        else:
            self._start_war(colours[0])

    def _start_war(self, c):
        """R-WAR-2: pick attacker and defender of the war of colour c."""
        leader_at = self._leader_squares()
        group = self._group(self.unification, leader_at)
        owners = {owner: q for owner, colour, q in self._leaders_in(group, leader_at) if colour == c}
        attacker = None
        for k in range(self._players):
            s = (self._turn_owner + k) % self._players
            if s in owners:
                attacker = s
                break
        defender = [s for s in owners if s != attacker][0]
        self.conflict = {
            "kind": "war",
            "colour": c,
            "attacker": attacker,
            "defender": defender,
            "attacker_leader": owners[attacker],
            "defender_leader": owners[defender],
            "attacker_commit": -1,
        }
        self._phase = "war_attack"
        self._to_act = attacker

    def _resolve_war(self, attacker_commit, defender_commit):
        """R-WAR-3..5: supporters + commitments; the loser's side is cleared."""
        conflict = self.conflict
        c = conflict["colour"]
        leader_at = self._leader_squares()
        attacker_side = self._supporters(conflict["attacker_leader"], c, leader_at)
        defender_side = self._supporters(conflict["defender_leader"], c, leader_at)
        attack = len(attacker_side) + attacker_commit
        defence = len(defender_side) + defender_commit
        if attack > defence:
            winner, loser, loser_side = conflict["attacker"], conflict["defender"], defender_side
        else:
            winner, loser, loser_side = conflict["defender"], conflict["attacker"], attacker_side
        self.leaders[loser][c] = -1
        leader_at = self._leader_squares()  # without the losing leader
        removed = 0
        for q in sorted(loser_side):
            if c == RED and (q in self.treasures or any(n in leader_at for n in NEIGHBOURS[q])):
                continue  # R-WAR-5: such temples stay and score nothing
            if q == self.buildings[c]:
                continue  # R-VAR-BLD-5: the tile under the building stays and scores nothing
            self.cells[q] = EMPTY
            self.discarded[c] += 1
            removed += 1
        self.points[winner][c] += 1 + removed
        self.conflict = None
        self._remove_unsupported_leaders()
        self._war_loop()

    # monument ----------------------------------------------------------------

    def _offer(self, options, phase):
        """Ask the turn owner to choose in `phase` if there are options; return whether it was asked."""
        if options:
            self._phase = phase
            self._to_act = self._turn_owner
        return bool(options)

    def _building_check(self):
        """R-VAR-BLD-2: offer the placed tile's building, else go to the monument check."""
        if not self._offer(self._building_options(), "building"):
            self._monument_check()

    def _monument_check(self):
        """R-MON-1: offer a monument for the placed tile, else go to the wonder check."""
        if not self._offer(self._monument_options(), "monument"):
            self._wonder_check()

    def _do_monument(self, m, top_left):
        """Build monument m on the block: its tiles turn face down (R-MON-1..3, R-VAR-BLD-5)."""
        block = _block(top_left)
        for q in block:
            self.cells[q] = FACE_DOWN + (self.cells[q] - FACE_UP)
        self.monuments[m] = top_left
        self._buildings_off(block)
        self._remove_unsupported_leaders()
        self._wonder_check()  # finds nothing: the placed tile is face down now

    def _wonder_check(self):
        """R-VAR-WONDER-1: offer the wonder for the placed tile, else go to the treasures."""
        if not self._offer(self._wonder_options(), "wonder"):
            self._treasure_check()

    def _do_wonder(self, centre):
        """Build the wonder (R-VAR-WONDER-1..3): the five tiles leave, treasures stay."""
        plus = _plus(centre)
        c = _face_up_colour(self.cells[centre])
        for q in plus:
            self.cells[q] = WONDER
        self.discarded[c] += len(plus)
        self.wonder = centre
        self._buildings_off(plus)
        self._remove_unsupported_leaders()
        self._treasure_check()

    def _buildings_off(self, squares):
        """R-VAR-BLD-5: a building whose tile is turned face down or removed returns to supply."""
        for c in range(4):
            if self.buildings[c] in squares:
                self.buildings[c] = -1

    # treasure ----------------------------------------------------------------

    def _treasure_check(self):
        """R-TRE-1: traders take treasures until each kingdom holds at most one."""
        while True:
            pending = self._pending_treasure()
            if pending is None:
                self._end_action()
                return
            owner, candidates, to_take = pending
            if to_take >= len(candidates):
                for q in candidates:
                    self.treasures.remove(q)
                    self.treasures_taken[owner] += 1
                continue
            self._phase = "treasure"
            self._to_act = owner
            return

    # leaders without temples ---------------------------------------------------

    def _remove_unsupported_leaders(self):
        """R-LEAD-5: every leader with no adjacent face-up temple returns to supply."""
        for seat in range(self._players):
            for c in range(4):
                sq = self.leaders[seat][c]
                if sq != -1 and self._temples_next_to(sq) == 0:
                    self.leaders[seat][c] = -1

    # end of action, turn, game -------------------------------------------------

    def _end_action(self):
        self.placed = -1
        self.actions_left -= 1
        if self.actions_left <= 0:
            self._end_turn()
        else:
            self._phase = "action"
            self._to_act = self._turn_owner

    def _end_turn(self):
        """R-TURN-3: monument points, the wonder point, then the rest of the end of turn."""
        owner = self._turn_owner
        leader_at = self._leader_squares()
        for c in range(4):
            sq = self.leaders[owner][c]
            if sq == -1:
                continue
            group = self._group(sq, leader_at)
            for m, top_left in enumerate(self.monuments):
                if top_left != -1 and top_left in group and c in MONUMENTS[m]:
                    self.points[owner][c] += 1
        if self._king_with_wonder():  # R-VAR-WONDER-4: the owner picks the colour
            self._phase = "wonder_point"
            self._to_act = owner
            return
        self._finish_turn()

    def _finish_turn(self):
        """R-TURN-3 after the points: refills, end check, next seat."""
        owner = self._turn_owner
        refill = [owner] + [
            (owner + k) % self._players
            for k in range(1, self._players)
            if self.committed[(owner + k) % self._players]
        ]
        for seat in refill:
            while sum(self.hands[seat]) < HAND_SIZE:
                if not self._draw(seat):
                    return  # the bag ran out: the game is over
        if len(self.treasures) <= 2:
            self._game_over("treasures")
            return
        self._turn_owner = (owner + 1) % self._players
        self.actions_left = 2
        self.committed = [False] * self._players
        self._phase = "action"
        self._to_act = self._turn_owner

    def _game_over(self, reason):
        self._phase = "over"
        self._to_act = -1
        self.end_reason = reason

    # ------------------------------------------------------------ scores

    def scores(self):
        """Return [[k, r, b, g, treasures] per seat]."""
        return [list(self.points[seat]) + [self.treasures_taken[seat]] for seat in range(self._players)]

    def _final_vector(self, seat):
        """R-END-2: add each treasure to the lowest colour; return the sorted vector."""
        colours = list(self.points[seat])
        for _ in range(self.treasures_taken[seat]):
            lowest = colours.index(min(colours))
            colours[lowest] += 1
        return sorted(colours)

    def result(self):
        """Return [rank per seat]: 0 = winner; rank = number of seats strictly better."""
        vectors = [self._final_vector(seat) for seat in range(self._players)]
        return [sum(1 for other in vectors if other > mine) for mine in vectors]

    # ------------------------------------------------------------ invariants

    def check_consistency(self):
        """Check every invariant from scratch; raise ConsistencyError on the first broken one."""
        problems = self._consistency_problems()
        if problems:
            raise ConsistencyError("; ".join(problems))

    def _consistency_problems(self):
        p = []
        players = self._players
        board = self._board
        cells = self.cells
        phase = self._phase
        if not 2 <= players <= 4:
            return [f"players {players} outside 2..4"]
        if phase not in PHASES:
            return [f"unknown phase {phase!r}"]
        variants = self.variants
        if list(variants) != [v for v in VARIANTS if v in variants]:
            return [f"variants {variants!r} are not names of VARIANTS, once each, in order"]

        # cells: values, tile terrain
        for sq, value in enumerate(cells):
            if not EMPTY <= value <= WONDER:
                p.append(f"cell {sq} holds {value}")
                continue
            colour = _tile_colour(value)
            if colour is not None and (colour == BLUE) != board.is_river(sq):
                p.append(f"{COLOURS[colour]} tile on {'river' if board.is_river(sq) else 'land'} square {sq}")

        # tile conservation, per colour (R-COMP-1)
        if any(b not in range(4) for b in self.bag):
            return p + ["bag holds a non-colour"]
        totals = _tile_totals(cells, self.hands, self.bag, self.swapped, self.discarded)
        for c in range(4):
            total = totals[c]
            if total != TILE_TOTALS[c]:
                p.append(f"{COLOURS[c]} tiles total {total}, expected {TILE_TOTALS[c]}")

        # hands, counters
        for seat in range(players):
            hand = self.hands[seat]
            if any(n < 0 for n in hand) or sum(hand) > HAND_SIZE:
                p.append(f"seat {seat} hand {hand} is not 0..6 tiles")
            if any(n < 0 for n in self.swapped[seat]):
                p.append(f"seat {seat} swapped {self.swapped[seat]} negative")
            if any(n < 0 for n in self.points[seat]):
                p.append(f"seat {seat} scores {self.points[seat]} negative")
            if self.treasures_taken[seat] < 0:
                p.append(f"seat {seat} treasures_taken negative")
            if not 0 <= self.catastrophes_left[seat] <= CATASTROPHES_PER_SEAT:
                p.append(f"seat {seat} catastrophes_left {self.catastrophes_left[seat]}")
        if any(n < 0 for n in self.discarded):
            p.append(f"discarded {self.discarded} negative")
        on_board = sum(1 for v in cells if v == CATASTROPHE)
        if on_board + sum(self.catastrophes_left) != CATASTROPHES_PER_SEAT * players:
            p.append(f"field 'catastrophes_left': {on_board} catastrophes on the board + {sum(self.catastrophes_left)} left"
                     f" != {CATASTROPHES_PER_SEAT * players}")

        # buildings: on face-up tiles of their colour, only with the variant (R-VAR-BLD-1, -5)
        for c in range(4):
            sq = self.buildings[c]
            if sq == -1:
                continue
            if "buildings" not in variants:
                p.append(f"building {COLOURS[c]} on {sq} while the variant 'buildings' is off")
            if not 0 <= sq < SQUARES or cells[sq] != FACE_UP + c:
                p.append(f"building {COLOURS[c]} on {sq}, which is no face-up {COLOURS[c]} tile")

        # the wonder: exactly its cross holds cell 10, all land or all river (R-VAR-WONDER-1)
        wonder_cells = sorted(sq for sq, value in enumerate(cells) if value == WONDER)
        if self.wonder == -1:
            if wonder_cells:
                p.append(f"wonder cells {wonder_cells} but no wonder is built")
        else:
            if "wonder" not in variants:
                p.append(f"wonder at {self.wonder} while the variant 'wonder' is off")
            plus = _plus(self.wonder) if 0 <= self.wonder < SQUARES else None
            if plus is None:
                p.append(f"wonder centre {self.wonder} has no four neighbours")
            else:
                if wonder_cells != sorted(plus):
                    p.append(f"wonder cells {wonder_cells} are not the cross around {self.wonder}")
                if len({board.is_river(q) for q in plus}) != 1:
                    p.append(f"wonder at {self.wonder} covers both land and river (its tiles had one colour)")

        # treasures: on red tiles, face up or down, or on the wonder; conserved (R-SETUP-1, R-TRE-1)
        for sq in self.treasures:
            if _tile_colour(cells[sq]) != RED and cells[sq] != WONDER:
                p.append(f"treasure on square {sq} which holds {cells[sq]}, not a red tile or the wonder")
        if len(self.treasures) + sum(self.treasures_taken) != len(board.temples):
            p.append(f"field 'treasures_taken': {len(self.treasures)} treasures on the board and"
                     f" {sum(self.treasures_taken)} taken, but the board started with {len(board.temples)}"
                     f" (R-SETUP-1, R-TRE-1)")

        # leaders: empty land next to a face-up temple, one per square (R-LEAD-2, R-LEAD-5)
        seen = {}
        for seat in range(players):
            for c in range(4):
                sq = self.leaders[seat][c]
                if sq == -1:
                    continue
                if not 0 <= sq < SQUARES:
                    p.append(f"seat {seat} leader {COLOURS[c]} on square {sq}")
                    continue
                if sq in seen:
                    p.append(f"two leaders on square {sq}")
                seen[sq] = (seat, c)
                if cells[sq] != EMPTY:
                    p.append(f"seat {seat} leader {COLOURS[c]} on non-empty square {sq} ({cells[sq]})")
                if board.is_river(sq):
                    p.append(f"seat {seat} leader {COLOURS[c]} on river square {sq}")
                if self._temples_next_to(sq) == 0:
                    p.append(f"seat {seat} leader {COLOURS[c]} on {sq} has no adjacent face-up temple")
        leader_at = self._leader_squares()

        # monuments: face-down blocks of one of the monument's colours, nothing else face down
        covered = set()
        for m, top_left in enumerate(self.monuments):
            if top_left == -1:
                continue
            if not (0 <= top_left < SQUARES and _is_top_left(top_left)):
                p.append(f"monument {m} at {top_left} is not a block top-left square")
                continue
            block = _block(top_left)
            values = {cells[q] for q in block}
            if len(values) != 1 or not FACE_DOWN <= next(iter(values)) < CATASTROPHE:
                p.append(f"monument {m} at {top_left} does not stand on four face-down tiles of one colour")
            elif next(iter(values)) - FACE_DOWN not in MONUMENTS[m]:
                p.append(f"monument {m} at {top_left} stands on tiles of a colour it does not have")
            if covered & set(block):
                p.append(f"monument {m} overlaps another")
            covered |= set(block)
        for sq, value in enumerate(cells):
            if FACE_DOWN <= value < CATASTROPHE and sq not in covered:
                p.append(f"face-down tile on {sq} is under no monument")

        # kingdoms: at most one leader per colour, except the pending conflict's pair
        conflict = self.conflict
        _label, groups, _kingdoms = self._components(leader_at)
        for group in groups:
            counts = [0, 0, 0, 0]
            for _seat, c, _q in self._leaders_in(group, leader_at):
                counts[c] += 1
            for c in range(4):
                if counts[c] <= 1:
                    continue
                allowed = False
                if counts[c] == 2 and phase in ("revolt_attack", "revolt_defend"):
                    allowed = conflict is not None and c == conflict["colour"] and conflict["attacker_leader"] in group
                if counts[c] == 2 and phase in ("war_choice", "war_attack", "war_defend"):
                    allowed = self.unification in group
                if not allowed:
                    p.append(f"field 'leaders': {counts[c]} {COLOURS[c]} leaders in one kingdom in phase {phase!r} (R-KING-2)")

        # phase, to_act and pending fields
        if not 0 <= self._turn_owner < players:
            p.append(f"turn_owner {self._turn_owner}")
        if len(self.committed) != players:
            p.append("committed has the wrong length")
        # a seat's hand only shrinks on its own turn or by committing (then it refills, R-TURN-3)
        for seat in range(players):
            if seat != self._turn_owner and not self.committed[seat] and sum(self.hands[seat]) != HAND_SIZE:
                p.append(f"field 'hands': seat {seat} holds {sum(self.hands[seat])} tiles between its turns"
                         f" without having committed (R-TURN-3)")
        if phase == "over":
            if self._to_act != -1:
                p.append(f"phase over but to_act {self._to_act}")
            if self.end_reason not in ("treasures", "bag"):
                p.append(f"phase over but end_reason {self.end_reason!r}")
            elif self.end_reason == "bag" and self.bag:
                p.append(f"field 'end_reason': bag, but the bag holds {len(self.bag)} tiles (R-END-1)")
            elif self.end_reason == "treasures" and len(self.treasures) > 2:
                p.append(f"field 'end_reason': treasures, but {len(self.treasures)} treasures are on the board"
                         f" (R-END-1)")
            if self.placed != -1 or self.unification != -1:
                p.append(f"field 'placed': placed {self.placed}, unification {self.unification}"
                         f" in a game that is over")
            return p
        if self.end_reason is not None:
            p.append(f"end_reason {self.end_reason!r} before the game is over")
        if phase in PHASE_VARIANT and PHASE_VARIANT[phase] not in variants:
            p.append(f"phase {phase!r} while the variant {PHASE_VARIANT[phase]!r} is off")
        # after two actions the turn ends with actions_left 0 (wonder_point only)
        if not (0 if phase == "wonder_point" else 1) <= self.actions_left <= 2:
            p.append(f"actions_left {self.actions_left} in phase {phase!r}")
        if phase in CONFLICT_PHASES:
            if conflict is None:
                p.append(f"phase {phase!r} without a conflict")
                return p
        elif conflict is not None:
            p.append(f"conflict {conflict} in phase {phase!r}")
        if phase in ("war_choice", "war_attack", "war_defend"):
            if self.unification == -1 or _face_up_colour(cells[self.unification]) is None:
                p.append(f"field 'unification': {self.unification} in phase {phase!r} is no face-up tile (R-WAR-1)")
            if self.placed != self.unification:
                p.append(f"field 'placed': {self.placed} differs from unification {self.unification} during wars")
        elif self.unification != -1:
            p.append(f"field 'unification': {self.unification} in phase {phase!r} (no war is being resolved)")

        if phase == "action":
            if self._to_act != self._turn_owner:
                p.append("phase action but to_act is not the turn owner")
            if self.placed != -1:
                p.append(f"field 'placed': {self.placed} in phase action")
            if self._pending_treasure() is not None:
                p.append("field 'treasures': a kingdom with a trader holds two treasures in phase action (R-TRE-1)")
        elif phase in CONFLICT_PHASES:
            p.extend(self._conflict_problems(conflict, leader_at))
        elif phase == "war_choice":
            if self._to_act != self._turn_owner:
                p.append("phase war_choice but to_act is not the turn owner")
            if len(self._war_colours()) < 2:
                p.append("field 'phase': war_choice, but fewer than two colours have two leaders in the unified kingdom"
                         " (R-WAR-1)")
        elif phase == "monument":
            if self._to_act != self._turn_owner:
                p.append("phase monument but to_act is not the turn owner")
            if not self._monument_options():
                p.append("field 'phase': monument, but the placed tile is in no 2x2 block of one colour with a monument"
                         " of that colour left (R-MON-1)")
        elif phase == "treasure":
            pending = self._pending_treasure()
            if pending is None:
                p.append("field 'phase': treasure, but no kingdom holds two treasures and a trader (R-TRE-1)")
            else:
                owner, candidates, to_take = pending
                if owner != self._to_act:
                    p.append(f"field 'to_act': seat {self._to_act} in phase treasure, but seat {owner}'s trader takes first"
                             f" (R-TRE-1)")
                if to_take >= len(candidates):
                    p.append("field 'phase': treasure, but the trader's owner has no choice to make (R-TRE-1)")
        elif phase in ("building", "wonder"):
            if self._to_act != self._turn_owner:
                p.append(f"phase {phase} but to_act is not the turn owner")
            if not 0 <= self.placed < SQUARES or _face_up_colour(cells[self.placed]) is None:
                p.append(f"phase {phase} but placed {self.placed} is no face-up tile")
            elif phase == "building" and not self._building_options():
                p.append("field 'phase': building, but the placed tile makes no new line for its building (R-VAR-BLD-2)")
            elif phase == "wonder" and not self._wonder_options():
                p.append("field 'phase': wonder, but the placed tile completes no cross of five (R-VAR-WONDER-1)")
        elif phase == "wonder_point":
            if self._to_act != self._turn_owner:
                p.append("phase wonder_point but to_act is not the turn owner")
            if self.placed != -1:
                p.append(f"field 'placed': {self.placed} in phase wonder_point")
            if not self._king_with_wonder():
                p.append("field 'phase': wonder_point, but the turn owner's king is not in the wonder's kingdom"
                         " (R-VAR-WONDER-4)")
            if self._pending_treasure() is not None:
                p.append("field 'treasures': a kingdom with a trader holds two treasures in phase wonder_point (R-TRE-1)")
        if not p and not self._compute_legal():
            p.append(f"field 'phase': {phase}, but the seat to act has no legal decision in a game that is not over")
        return p

    def _conflict_problems(self, conflict, leader_at):
        p = []
        phase = self._phase
        want = "revolt" if phase.startswith("revolt") else "war"
        if conflict.get("kind") != want:
            return [f"conflict kind {conflict.get('kind')!r} in phase {phase!r}"]
        c = conflict["colour"]
        attacker, defender = conflict["attacker"], conflict["defender"]
        a_sq, d_sq = conflict["attacker_leader"], conflict["defender_leader"]
        if attacker == defender:
            p.append("conflict attacker == defender")
        if self.leaders[attacker][c] != a_sq or self.leaders[defender][c] != d_sq:
            p.append("conflict leaders are not on the squares it names")
            return p
        if d_sq not in self._group(a_sq, leader_at):
            p.append("field 'conflict': the two leaders are not in one kingdom")
        attacking = phase.endswith("attack")
        if attacking != (conflict["attacker_commit"] == -1):
            p.append(f"attacker_commit {conflict['attacker_commit']} in phase {phase!r}")
        if self._to_act != (attacker if attacking else defender):
            p.append(f"to_act {self._to_act} is not the {'attacker' if attacking else 'defender'}")
        if not attacking and conflict["attacker_commit"] > 0:
            # the committed tiles came out of the attacker's hand (R-REV-3, R-WAR-4)
            n = conflict["attacker_commit"]
            held = sum(self.hands[attacker])
            if held + n > HAND_SIZE:
                p.append(f"field 'conflict': attacker_commit {n}, but seat {attacker} still holds {held} tiles:"
                         f" more than a hand of {HAND_SIZE} allows (R-REV-3)")
            if not self.committed[attacker]:
                p.append(f"field 'committed': seat {attacker} committed {n} tiles but is not marked committed")
            if "english" in self.variants and not p:
                attacker_base, defender_base = self._conflict_bases()
                need = defender_base - attacker_base + 1
                if n != need:
                    p.append(f"field 'conflict': attacker_commit {n}, but the english variant allows only"
                             f" 0 or {need} (R-VAR-ENGLISH)")
        if want == "revolt":
            if attacker != self._turn_owner:
                p.append("field 'conflict': the revolt's attacker is not the turn owner (R-REV-1)")
            if self.placed != -1:
                p.append(f"field 'placed': {self.placed} during a revolt")
        else:
            # R-WAR-2: the first seat from the turn owner that owns one of the two
            for k in range(self._players):
                s = (self._turn_owner + k) % self._players
                if s in (attacker, defender):
                    if s != attacker:
                        p.append(f"field 'conflict': war attacker {attacker}, but seat {s} comes first (R-WAR-2)")
                    break
            if d_sq not in self._group(self.unification, leader_at):
                p.append("field 'conflict': the war's leaders are not in the unified kingdom (R-WAR-1)")
        return p


def _validate_variant_fields(s):
    """Validate `buildings`, `wonder` and the wonder cells against `variants` and `cells`."""
    cells = s.cells
    for c, sq in enumerate(s.buildings):
        if sq == -1:
            continue
        if "buildings" not in s.variants:
            _fail("buildings", f"building {COLOURS[c]} on square {sq} while the variant 'buildings' is off")
        if cells[sq] != FACE_UP + c:
            _fail("buildings", f"building {COLOURS[c]} on square {sq}, which holds {cells[sq]},"
                               f" not a face-up {COLOURS[c]} tile")
    wonder_cells = [sq for sq, value in enumerate(cells) if value == WONDER]
    if s.wonder == -1:
        if wonder_cells:
            _fail("cells", f"square {wonder_cells[0]} holds the wonder (10) but no wonder is built"
                           f" (wonder -1)")
        return
    if "wonder" not in s.variants:
        _fail("wonder", f"wonder at {s.wonder} while the variant 'wonder' is off")
    plus = _plus(s.wonder)
    if plus is None:
        _fail("wonder", f"centre square {s.wonder} does not have four neighbours")
    if sorted(wonder_cells) != sorted(plus):
        _fail("wonder", f"the cells holding the wonder (10) are {wonder_cells},"
                        f" not the cross {sorted(plus)} around centre {s.wonder}")


def _validate_conflict(value, players):
    """Validate the snapshot's `conflict` field (null or the conflict dict)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        _fail("conflict", f"expected null or a dict, got {type(value).__name__}")
    for key in CONFLICT_KEYS:
        if key not in value:
            _fail(f"conflict.{key}", "missing")
    for key in value:
        if key not in CONFLICT_KEYS:
            _fail(f"conflict.{key}", "unknown field")
    if value["kind"] not in ("revolt", "war"):
        _fail("conflict.kind", f"expected 'revolt' or 'war', got {value['kind']!r}")
    out = {"kind": value["kind"]}
    out["colour"] = _int(value["colour"], "conflict.colour", 0, 3)
    out["attacker"] = _int(value["attacker"], "conflict.attacker", 0, players - 1)
    out["defender"] = _int(value["defender"], "conflict.defender", 0, players - 1)
    if out["attacker"] == out["defender"]:
        _fail("conflict.defender", "equals the attacker")
    out["attacker_leader"] = _int(value["attacker_leader"], "conflict.attacker_leader", 0, SQUARES - 1)
    out["defender_leader"] = _int(value["defender_leader"], "conflict.defender_leader", 0, SQUARES - 1)
    out["attacker_commit"] = _int(value["attacker_commit"], "conflict.attacker_commit", -1, HAND_SIZE)
    return out
