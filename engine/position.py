"""Position strings: a whole game state on one line (like chess FEN), and back.

A position string is the snapshot (docs/engine.md) as 21 space-separated
public fields, optionally followed by ` | ` and 3 hidden fields. `-` means
"none" (an empty list, a leader in supply, no square, no conflict, -1).
Seats are separated by `/`, the four colour counts of one seat by `,`
(always in the order k r b g).

Public fields, in order:

    board              standard | advanced
    players            2..4
    cells              11 rows (top to bottom) separated by `/`; in a row,
                       K R B G face-up tile, k r b g face-down tile (under a
                       monument), X catastrophe, a number = that many empty
                       squares, `.` one empty square; a `*` after a square
                       marks a treasure on it (`R*`)
    leaders            per seat: `-` or leaders on the board as colour:square,
                       e.g. `k:f3,g:h5`
    monuments          `-` or built monuments as pair:top-left, e.g. `kr:f6,bg:a1`
    scores             per seat k,r,b,g
    treasures_taken    per seat
    catastrophes_left  per seat 0..2
    hand_sizes         per seat 0..6
    bag_size           0..153
    swapped_sizes      per seat: tiles that seat swapped away, in all
    discarded          k,r,b,g tiles that left the game in view
    turn_owner         seat
    actions_left       0..2
    phase              action | revolt_attack | ... | over
    to_act             seat, `-` when the game is over
    placed             square or `-`
    unification        square or `-`
    conflict           `-` or kind:colour:attacker:defender:attacker_leader:
                       defender_leader:attacker_commit, e.g. `revolt:r:1:0:f5:h6:-`
    committed          per seat 0 or 1
    end_reason         `-` | treasures | bag

Two more public fields follow only when a 2015 variant is on (so a base-game
string is unchanged):

    variants           the variants on, comma-separated in the order
                       english,buildings,wonder
    buildings          `-` or the buildings on the board as colour:square,
                       e.g. `r:f7,b:c3`

The wonder's squares are `W` in the cells (`W*` with a treasure on it); its
centre is the `W` whose four neighbours are `W`.

Hidden fields (after ` | `):

    hands              per seat the tiles as letters, e.g. `kkrbgg` (`-` if empty)
    bag                the bag as letters in list order (the last letter is
                       drawn next), a run of 3 or more written as count+letter
                       (`12kr3b` = 12 k, 1 r, 3 b), `-` if empty
    swapped            per seat k,r,b,g

Example (the standard board, 2 players, first seat 1, before any action;
the bag shortened here)::

    standard 2 10R*5/1R*13R*/5R*10/16/13R*2/16/8R*7/1R*14/14R*1/5R*10/10R*5
    -/- - 0,0,0,0/0,0,0,0 0/0 2/2 6/6 131 0/0 0,0,0,0 1 2 action 1 - - - 0/0 -
    | kkrbgg/krrbbg gbkkrbgkk3rgkgbg...rkr 0,0,0,0/0,0,0,0

(one line in reality). A string without the hidden part parses to a *public
snapshot*: every snapshot key, with `hands`, `bag` and `swapped` set to None,
plus three extra keys holding what is public about them: `hand_sizes`
(per seat), `bag_size` and `swapped_sizes` (per seat). Full snapshots never
carry these extra keys, so `parse_position(format_position(s, hidden=True))
== s` exactly. `format_position` accepts full and public snapshots (and
observations, which are public snapshots with extra keys).

Only syntax, ranges and internal agreement (a hidden hand against its public
size, ...) are checked here; whether the position is reachable under the rules
is `State.from_snapshot`'s business. Every error is a PositionError naming
the field.
"""
from __future__ import annotations

import re

from engine.actions import COLOURS, MONUMENTS, VARIANTS
from engine.boards import BOARD_NAMES, COLS, ROWS, SQUARES, load_board
from engine.errors import PositionError, shown

PHASES = ("action", "revolt_attack", "revolt_defend", "war_choice", "war_attack",
          "war_defend", "monument", "treasure", "over", "building", "wonder", "wonder_point")
END_REASONS = ("treasures", "bag")
CONFLICT_KINDS = ("revolt", "war")
CONFLICT_PHASES = ("revolt_attack", "revolt_defend", "war_attack", "war_defend")
CONFLICT_KEYS = ("kind", "colour", "attacker", "defender", "attacker_leader",
                 "defender_leader", "attacker_commit")
TILE_TOTALS = (30, 57, 36, 30)
TOTAL_TILES = sum(TILE_TOTALS)
HAND_SIZE = 6
CATASTROPHES = 2
MAX_COMMIT = 6
MAX_COUNT = 999_999          # cap on counts in a position string (keeps numbers sane)
MAX_SCORE = 1_000_000_000    # cap on a seat's score in one colour: int32 in the core, room for 10**8 more turns

PUBLIC_FIELDS = ("board", "players", "cells", "leaders", "monuments", "scores",
                 "treasures_taken", "catastrophes_left", "hand_sizes", "bag_size",
                 "swapped_sizes", "discarded", "turn_owner", "actions_left", "phase",
                 "to_act", "placed", "unification", "conflict", "committed", "end_reason")
HIDDEN_FIELDS = ("hands", "bag", "swapped")
VARIANT_FIELDS = ("variants", "buildings")
SNAPSHOT_KEYS = ("players", "board", "variants", "cells", "buildings", "wonder", "treasures",
                 "leaders", "monuments", "hands",
                 "bag", "swapped", "discarded", "scores", "treasures_taken",
                 "catastrophes_left", "turn_owner", "actions_left", "phase", "to_act",
                 "placed", "unification", "conflict", "committed", "end_reason")
PUBLIC_EXTRA_KEYS = ("hand_sizes", "bag_size", "swapped_sizes")

EMPTY, FACE_UP, FACE_DOWN, CATASTROPHE, WONDER = 0, 1, 5, 9, 10
_CELL_CHARS = {FACE_UP + c: COLOURS[c].upper() for c in range(4)}
_CELL_CHARS.update({FACE_DOWN + c: COLOURS[c] for c in range(4)})
_CELL_CHARS[CATASTROPHE] = "X"
_CELL_CHARS[WONDER] = "W"
_CHAR_CELLS = {ch: v for v, ch in _CELL_CHARS.items()}
_SQUARE_RE = re.compile(r"([a-p])(1[01]|[1-9])")
_INT_RE = re.compile(r"[0-9]{1,6}")


def _fail(field: str, msg: str) -> PositionError:
    return PositionError(f"position field {field!r}: {msg}")


# ---------------------------------------------------------------- snapshots


def is_public(snap: dict) -> bool:
    """Return whether a snapshot lacks its hidden part (hands, bag, swapped are None)."""
    return snap.get("hands") is None


def hand_sizes(snap: dict) -> list:
    """Return the number of tiles in each seat's hand, for full or public snapshots."""
    if snap.get("hands") is not None:
        return [sum(h) for h in snap["hands"]]
    return list(snap["hand_sizes"])


def bag_size(snap: dict) -> int:
    """Return the number of tiles in the bag, for full or public snapshots."""
    if snap.get("bag") is not None:
        return len(snap["bag"])
    return snap["bag_size"]


def swapped_sizes(snap: dict) -> list:
    """Return how many tiles each seat has swapped away, for full or public snapshots."""
    if snap.get("swapped") is not None:
        return [sum(s) for s in snap["swapped"]]
    return list(snap["swapped_sizes"])


def known_hand(snap: dict, seat: int):
    """Return `seat`'s hand [k, r, b, g] if the snapshot or observation knows it, else None."""
    if snap.get("hands") is not None:
        return snap["hands"][seat]
    if snap.get("seat") == seat and snap.get("hand") is not None:
        return snap["hand"]
    return None


def public_snapshot(snap: dict) -> dict:
    """Return a copy of a snapshot with its hidden part replaced by public sizes."""
    check_snapshot(snap)
    out = {k: _copy(snap[k]) for k in SNAPSHOT_KEYS}
    out["hand_sizes"] = hand_sizes(snap)
    out["bag_size"] = bag_size(snap)
    out["swapped_sizes"] = swapped_sizes(snap)
    out["hands"] = out["bag"] = out["swapped"] = None
    return out


def _copy(v):
    if isinstance(v, list):
        return [_copy(x) for x in v]
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    return v


def _is_int(v) -> bool:
    return type(v) is int


def _int_in(field: str, v, lo: int, hi: int) -> None:
    if not _is_int(v):
        raise _fail(field, f"expected an int, got {shown(v)}")
    if not lo <= v <= hi:
        raise _fail(field, f"{shown(v)} out of range {lo}..{hi}")


def _list_of(field: str, v, n=None) -> list:
    if not isinstance(v, list):
        raise _fail(field, f"expected a list, got {type(v).__name__}")
    if n is not None and len(v) != n:
        raise _fail(field, f"expected {n} entries, got {len(v)}")
    return v


def _counts(field: str, v, hi: int = MAX_COUNT) -> None:
    _list_of(field, v, 4)
    for x in v:
        _int_in(field, x, 0, hi)


def check_snapshot(snap, full: bool = False) -> None:
    """Check a full (or, unless `full`, public) snapshot's fields and agreement; raise PositionError.

    The one snapshot validator: position strings, renderers, views, the
    information layer and `State.from_snapshot` (full=True) all call it.
    """
    if not isinstance(snap, dict):
        raise PositionError(f"a snapshot must be a dict, got {type(snap).__name__}")
    missing = [k for k in SNAPSHOT_KEYS if k not in snap]
    if missing:
        raise _fail(missing[0], "missing from the snapshot")
    _int_in("players", snap["players"], 2, 4)
    n = snap["players"]
    if snap["board"] not in BOARD_NAMES:
        raise _fail("board", f"unknown board {snap['board']!r}; expected one of {', '.join(BOARD_NAMES)}")
    board = load_board(snap["board"])
    names = _list_of("variants", snap["variants"])
    if any(not isinstance(v, str) or v not in VARIANTS for v in names):
        raise _fail("variants", f"unknown variant in {names!r}; expected some of {', '.join(VARIANTS)}")
    if names != [v for v in VARIANTS if v in names]:
        raise _fail("variants", f"expected distinct names in the order {', '.join(VARIANTS)}, got {names!r}")
    for v in _list_of("cells", snap["cells"], SQUARES):
        if not _is_int(v) or v not in (EMPTY, CATASTROPHE, WONDER) and not FACE_UP <= v < FACE_DOWN + 4:
            raise _fail("cells", f"bad cell value {shown(v)}: expected 0..10")
    for c, sq in enumerate(_list_of("buildings", snap["buildings"], 4)):
        _int_in("buildings", sq, -1, SQUARES - 1)
        if sq >= 0 and ("buildings" not in names or snap["cells"][sq] != FACE_UP + c):
            raise _fail("buildings", f"building {COLOURS[c]} on {_sq(sq)}: "
                        + ("the buildings variant is off" if "buildings" not in names
                           else "not a face-up tile of its colour"))
    _int_in("wonder", snap["wonder"], -1, SQUARES - 1)
    if _wonder_centre(snap["cells"]) != snap["wonder"]:
        raise _fail("wonder", f"the wonder field {snap['wonder']} does not match the W squares of the cells")
    if snap["wonder"] >= 0 and "wonder" not in names:
        raise _fail("wonder", "a wonder on the board but the wonder variant is off")
    tr = _list_of("treasures", snap["treasures"])
    for sq in tr:
        _int_in("treasures", sq, 0, SQUARES - 1)
    if any(a >= b for a, b in zip(tr, tr[1:])):
        raise _fail("treasures", "squares must be strictly ascending")
    seen = set()
    for seat in _list_of("leaders", snap["leaders"], n):
        for sq in _list_of("leaders", seat, 4):
            _int_in("leaders", sq, -1, SQUARES - 1)
            if sq >= 0:
                if sq in seen:
                    raise _fail("leaders", f"two leaders on square {sq}")
                seen.add(sq)
    for sq in _list_of("monuments", snap["monuments"], len(MONUMENTS)):
        _int_in("monuments", sq, -1, SQUARES - 1)
        if sq >= 0 and (sq % COLS == COLS - 1 or sq // COLS == ROWS - 1):
            raise _fail("monuments", f"square {sq} cannot be the top-left of a 2x2 block")
    hidden = [snap[k] is None for k in HIDDEN_FIELDS]
    if any(hidden) and not all(hidden):
        raise _fail("hands", "hands, bag and swapped must all be present or all be None")
    if full and hidden[0]:
        raise _fail("hands", "None in a public snapshot: a game state needs the hidden part (hands, bag, swapped)")
    if not hidden[0]:
        for h in _list_of("hands", snap["hands"], n):
            _counts("hands", h, HAND_SIZE)
            if sum(h) > HAND_SIZE:
                raise _fail("hands", f"a hand holds {sum(h)} tiles, more than {HAND_SIZE}")
        for c in _list_of("bag", snap["bag"]):
            _int_in("bag", c, 0, 3)
        if len(snap["bag"]) > TOTAL_TILES:
            raise _fail("bag", f"{len(snap['bag'])} tiles, more than {TOTAL_TILES}")
        for s in _list_of("swapped", snap["swapped"], n):
            _counts("swapped", s, TOTAL_TILES)
    else:
        for k in PUBLIC_EXTRA_KEYS:
            if k not in snap:
                raise _fail(k, "missing from a public snapshot (hands is None)")
        for v in _list_of("hand_sizes", snap["hand_sizes"], n):
            _int_in("hand_sizes", v, 0, HAND_SIZE)
        _int_in("bag_size", snap["bag_size"], 0, TOTAL_TILES)
        for v in _list_of("swapped_sizes", snap["swapped_sizes"], n):
            _int_in("swapped_sizes", v, 0, TOTAL_TILES)
    _counts("discarded", snap["discarded"], TOTAL_TILES)
    for c, v in enumerate(snap["discarded"]):
        _int_in("discarded", v, 0, TILE_TOTALS[c])
    for s in _list_of("scores", snap["scores"], n):
        _counts("scores", s, MAX_SCORE)
    for v in _list_of("treasures_taken", snap["treasures_taken"], n):
        _int_in("treasures_taken", v, 0, len(board.temples))
    for v in _list_of("catastrophes_left", snap["catastrophes_left"], n):
        _int_in("catastrophes_left", v, 0, CATASTROPHES)
    _int_in("turn_owner", snap["turn_owner"], 0, n - 1)
    _int_in("actions_left", snap["actions_left"], 0, 2)
    if snap["phase"] not in PHASES:
        raise _fail("phase", f"unknown phase {snap['phase']!r}")
    _int_in("to_act", snap["to_act"], -1, n - 1)
    _int_in("placed", snap["placed"], -1, SQUARES - 1)
    _int_in("unification", snap["unification"], -1, SQUARES - 1)
    cf = snap["conflict"]
    if cf is not None:
        if not isinstance(cf, dict) or sorted(cf) != sorted(CONFLICT_KEYS):
            raise _fail("conflict", f"expected None or a dict with keys {', '.join(CONFLICT_KEYS)}")
        if cf["kind"] not in CONFLICT_KINDS:
            raise _fail("conflict", f"unknown kind {cf['kind']!r}")
        _int_in("conflict", cf["colour"], 0, 3)
        _int_in("conflict", cf["attacker"], 0, n - 1)
        _int_in("conflict", cf["defender"], 0, n - 1)
        _int_in("conflict", cf["attacker_leader"], 0, SQUARES - 1)     # both leaders stand on the board
        _int_in("conflict", cf["defender_leader"], 0, SQUARES - 1)
        _int_in("conflict", cf["attacker_commit"], -1, MAX_COMMIT)
    if (snap["phase"] in CONFLICT_PHASES) != (cf is not None):
        raise _fail("conflict", f"phase {snap['phase']!r} "
                    + ("needs a conflict" if cf is None else "takes no conflict"))
    for v in _list_of("committed", snap["committed"], n):
        if type(v) is not bool:
            raise _fail("committed", f"expected a bool per seat, got {v!r}")
    if snap["end_reason"] is not None and snap["end_reason"] not in END_REASONS:
        raise _fail("end_reason", f"unknown end reason {snap['end_reason']!r}")
    if (snap["phase"] == "over") != (snap["end_reason"] is not None):
        raise _fail("end_reason", "must be set exactly when the phase is 'over'")
    # No colour may exceed its number of tiles (R-COMP-1).
    on_board = [sum(1 for v in snap["cells"] if v in (FACE_UP + c, FACE_DOWN + c)) for c in range(4)]
    if hidden[0]:
        total = (sum(on_board) + sum(snap["hand_sizes"]) + snap["bag_size"]
                 + sum(snap["swapped_sizes"]) + sum(snap["discarded"]))
        if total > TOTAL_TILES:
            raise _fail("bag_size", f"{total} tiles in all (board, hands, bag, swapped, discarded), "
                                       f"more than {TOTAL_TILES}")
    else:
        for c in range(4):
            total = (on_board[c] + sum(h[c] for h in snap["hands"]) + snap["bag"].count(c)
                     + sum(s[c] for s in snap["swapped"]) + snap["discarded"][c])
            if total > TILE_TOTALS[c]:
                raise _fail("bag", f"{total} {COLOURS[c]} tiles in all (board, hands, bag, swapped, "
                                      f"discarded), more than {TILE_TOTALS[c]}")


# ---------------------------------------------------------------- formatting


def _sq(sq: int) -> str:
    if sq < 0:
        return "-"
    row, col = divmod(sq, COLS)
    return f"{chr(ord('a') + col)}{row + 1}"


def _opt_int(v: int) -> str:
    return "-" if v < 0 else str(v)


def _seats(items) -> str:
    return "/".join(items)


def _c4(counts) -> str:
    return ",".join(str(x) for x in counts)


def _letters(counts) -> str:
    return "".join(COLOURS[c] * n for c, n in enumerate(counts)) or "-"


def _wonder_centre(cells) -> int:
    """Return the centre of the W cells if they form the cross of five, -1 if there are none, -2 if malformed."""
    ws = [sq for sq, v in enumerate(cells) if v == WONDER]
    if not ws:
        return -1
    for x in ws:
        r, c = divmod(x, COLS)
        if 0 < r < ROWS - 1 and 0 < c < COLS - 1 and sorted(ws) == sorted([x, x - 1, x + 1, x - COLS, x + COLS]):
            return x
    return -2


def _format_cells(cells, treasures) -> str:
    tr = set(treasures)
    rows = []
    for r in range(ROWS):
        out, run = [], 0
        for sq in range(r * COLS, (r + 1) * COLS):
            v = cells[sq]
            if v == EMPTY and sq not in tr:
                run += 1
                continue
            if run:
                out.append(str(run))
                run = 0
            out.append(("." if v == EMPTY else _CELL_CHARS[v]) + ("*" if sq in tr else ""))
        if run:
            out.append(str(run))
        rows.append("".join(out))
    return "/".join(rows)


def _colour_squares(squares) -> str:
    """Format a square (or -1) per colour as colour:square items, `-` if none."""
    return ",".join(f"{COLOURS[c]}:{_sq(sq)}" for c, sq in enumerate(squares) if sq >= 0) or "-"


def _format_bag(bag) -> str:
    out, i = [], 0
    while i < len(bag):
        j = i
        while j < len(bag) and bag[j] == bag[i]:
            j += 1
        out.append((str(j - i) if j - i >= 3 else COLOURS[bag[i]] * (j - i - 1)) + COLOURS[bag[i]])
        i = j
    return "".join(out) or "-"


def _format_conflict(cf) -> str:
    if cf is None:
        return "-"
    return ":".join((cf["kind"], COLOURS[cf["colour"]], str(cf["attacker"]), str(cf["defender"]),
                     _sq(cf["attacker_leader"]), _sq(cf["defender_leader"]),
                     _opt_int(cf["attacker_commit"])))


def format_position(snap: dict, hidden: bool = False) -> str:
    """Format a snapshot as a one-line position string, with its hidden part if asked."""
    check_snapshot(snap)
    if hidden and is_public(snap):
        raise _fail("hands", "the snapshot has no hidden part to format")
    fields = [
        snap["board"],
        str(snap["players"]),
        _format_cells(snap["cells"], snap["treasures"]),
        _seats(_colour_squares(seat) for seat in snap["leaders"]),
        ",".join(f"{COLOURS[MONUMENTS[m][0]]}{COLOURS[MONUMENTS[m][1]]}:{_sq(sq)}"
                 for m, sq in enumerate(snap["monuments"]) if sq >= 0) or "-",
        _seats(_c4(s) for s in snap["scores"]),
        _seats(str(v) for v in snap["treasures_taken"]),
        _seats(str(v) for v in snap["catastrophes_left"]),
        _seats(str(v) for v in hand_sizes(snap)),
        str(bag_size(snap)),
        _seats(str(v) for v in swapped_sizes(snap)),
        _c4(snap["discarded"]),
        str(snap["turn_owner"]),
        str(snap["actions_left"]),
        snap["phase"],
        _opt_int(snap["to_act"]),
        _sq(snap["placed"]),
        _sq(snap["unification"]),
        _format_conflict(snap["conflict"]),
        _seats("1" if v else "0" for v in snap["committed"]),
        snap["end_reason"] or "-",
    ]
    if snap["variants"]:
        fields.append(",".join(snap["variants"]))
        fields.append(_colour_squares(snap["buildings"]))
    text = " ".join(fields)
    if hidden:
        text += " | " + " ".join((
            _seats(_letters(h) for h in snap["hands"]),
            _format_bag(snap["bag"]),
            _seats(_c4(s) for s in snap["swapped"]),
        ))
    return text


# ---------------------------------------------------------------- parsing


def _p_int(field: str, text: str, lo: int = 0, hi: int = MAX_COUNT) -> int:
    if not _INT_RE.fullmatch(text):
        raise _fail(field, f"bad number {text!r}")
    v = int(text)
    if not lo <= v <= hi:
        raise _fail(field, f"{v} out of range {lo}..{hi}")
    return v


def _p_opt_int(field: str, text: str, hi: int) -> int:
    return -1 if text == "-" else _p_int(field, text, 0, hi)


def _p_square(field: str, text: str, allow_none: bool = False) -> int:
    if allow_none and text == "-":
        return -1
    m = _SQUARE_RE.fullmatch(text)
    if not m:
        raise _fail(field, f"bad square {text!r}: expected a1..p11" + (" or -" if allow_none else ""))
    return (int(m.group(2)) - 1) * COLS + ord(m.group(1)) - ord("a")


def _p_colour(field: str, text: str) -> int:
    if len(text) != 1 or text not in COLOURS:
        raise _fail(field, f"bad colour {text!r}: expected one of k r b g")
    return COLOURS.index(text)


def _p_seats(field: str, text: str, players: int) -> list:
    parts = text.split("/")
    if len(parts) != players:
        raise _fail(field, f"expected {players} seats separated by '/', got {len(parts)}")
    return parts


def _p_c4(field: str, text: str) -> list:
    parts = text.split(",")
    if len(parts) != 4:
        raise _fail(field, f"expected 4 counts k,r,b,g, got {text!r}")
    return [_p_int(field, p) for p in parts]


def _p_letters(field: str, text: str) -> list:
    if text == "-":
        return []
    out = []
    for ch in text:
        out.append(_p_colour(field, ch))
    return out


def _p_bag(text: str) -> list:
    if text == "-":
        return []
    out, i = [], 0
    while i < len(text):
        j = i
        while j < len(text) and text[j].isascii() and text[j].isdigit():
            j += 1
        n = 1 if j == i else _p_int("bag", text[i:j], 1, TOTAL_TILES)
        if j >= len(text):
            raise _fail("bag", f"count {text[i:j]!r} not followed by a colour letter")
        out.extend([_p_colour("bag", text[j])] * n)
        if len(out) > TOTAL_TILES:
            raise _fail("bag", f"more than {TOTAL_TILES} tiles")
        i = j + 1
    return out


def _p_cells(text: str):
    rows = text.split("/")
    if len(rows) != ROWS:
        raise _fail("cells", f"expected {ROWS} rows separated by '/', got {len(rows)}")
    cells, treasures = [], []
    for r, row in enumerate(rows):
        start, i = len(cells), 0
        if not row:
            raise _fail("cells", f"row {r + 1} is empty")
        while i < len(row):
            ch = row[i]
            if ch.isascii() and ch.isdigit():
                j = i
                while j < len(row) and row[j].isascii() and row[j].isdigit():
                    j += 1
                run = int(row[i:j]) if j - i <= 2 else COLS + 1
                if run == 0:
                    raise _fail("cells", f"row {r + 1}: empty run of 0 squares")
                cells.extend([EMPTY] * min(run, COLS + 1))
                i = j
            elif ch == "." or ch in _CHAR_CELLS:
                cells.append(EMPTY if ch == "." else _CHAR_CELLS[ch])
                i += 1
                if i < len(row) and row[i] == "*":
                    treasures.append(len(cells) - 1)
                    i += 1
            else:
                raise _fail("cells", f"row {r + 1}: unexpected {ch!r} (expected K R B G k r b g X W . * or a number)")
            if len(cells) - start > COLS:
                raise _fail("cells", f"row {r + 1} has more than {COLS} squares")
        if len(cells) - start != COLS:
            raise _fail("cells", f"row {r + 1} has {len(cells) - start} squares, expected {COLS}")
    return cells, treasures


def _p_colour_squares(field: str, text: str, what: str) -> list:
    """Parse `-` or colour:square items (e.g. `k:f3,g:h5`) into a square (or -1) per colour."""
    out = [-1] * 4
    if text == "-":
        return out
    for item in text.split(","):
        c_text, colon, sq_text = item.partition(":")
        if not colon:
            raise _fail(field, f"bad {what} {item!r}: expected colour:square, e.g. k:f3")
        c = _p_colour(field, c_text)
        if out[c] >= 0:
            raise _fail(field, f"{what} {c_text} listed twice")
        out[c] = _p_square(field, sq_text)
    return out


def _p_leaders(text: str, players: int) -> list:
    return [_p_colour_squares("leaders", seat_text, "leader")
            for seat_text in _p_seats("leaders", text, players)]


def _p_monuments(text: str) -> list:
    out = [-1] * len(MONUMENTS)
    if text == "-":
        return out
    for item in text.split(","):
        pair, colon, sq_text = item.partition(":")
        if not colon or len(pair) != 2:
            raise _fail("monuments", f"bad monument {item!r}: expected pair:square, e.g. kr:f6")
        a, b = _p_colour("monuments", pair[0]), _p_colour("monuments", pair[1])
        key = (min(a, b), max(a, b))
        if key not in MONUMENTS:
            raise _fail("monuments", f"no monument of colours {pair!r}")
        m = MONUMENTS.index(key)
        if out[m] >= 0:
            raise _fail("monuments", f"monument {pair} listed twice")
        out[m] = _p_square("monuments", sq_text)
    return out


def _p_conflict(text: str, players: int):
    if text == "-":
        return None
    parts = text.split(":")
    if len(parts) != 7:
        raise _fail("conflict", f"expected - or 7 parts kind:colour:attacker:defender:"
                                f"attacker_leader:defender_leader:attacker_commit, got {text!r}")
    if parts[0] not in CONFLICT_KINDS:
        raise _fail("conflict", f"unknown kind {parts[0]!r}: expected revolt or war")
    return {
        "kind": parts[0],
        "colour": _p_colour("conflict", parts[1]),
        "attacker": _p_int("conflict", parts[2], 0, players - 1),
        "defender": _p_int("conflict", parts[3], 0, players - 1),
        "attacker_leader": _p_square("conflict", parts[4]),
        "defender_leader": _p_square("conflict", parts[5]),
        "attacker_commit": _p_opt_int("conflict", parts[6], MAX_COMMIT),
    }


def _p_variants(text):
    if text is None:
        return []
    names = text.split(",")
    for name in names:
        if name not in VARIANTS:
            raise _fail("variants", f"unknown variant {name!r}; expected some of {', '.join(VARIANTS)}")
    if names != [v for v in VARIANTS if v in names]:
        raise _fail("variants", f"expected distinct names in the order {','.join(VARIANTS)}, got {text!r}")
    return names


def _p_bool(field: str, text: str) -> bool:
    if text not in ("0", "1"):
        raise _fail(field, f"expected 0 or 1 per seat, got {text!r}")
    return text == "1"


def parse_position(text: str) -> dict:
    """Parse a position string into a full snapshot, or a public one without ` | `."""
    if not isinstance(text, str):
        raise PositionError(f"a position must be a string, got {type(text).__name__}")
    public_text, bar, hidden_text = text.partition("|")
    if "|" in hidden_text:
        raise _fail("hands", "more than one '|' separator")
    words = public_text.split()
    if len(words) < len(PUBLIC_FIELDS):
        raise _fail(PUBLIC_FIELDS[len(words)], "missing (the string ends too early)")
    if len(words) == len(PUBLIC_FIELDS) + 1:
        _p_variants(words[-1])
        raise _fail("buildings", "missing (a variants field must be followed by a buildings field)")
    if len(words) > len(PUBLIC_FIELDS) + len(VARIANT_FIELDS):
        raise _fail("buildings", f"unexpected text after the last public field: "
                                 f"{words[len(PUBLIC_FIELDS) + len(VARIANT_FIELDS)]!r}")
    f = dict(zip(PUBLIC_FIELDS + VARIANT_FIELDS, words))
    if f["board"] not in BOARD_NAMES:
        raise _fail("board", f"unknown board {f['board']!r}; expected one of {', '.join(BOARD_NAMES)}")
    players = _p_int("players", f["players"], 2, 4)
    cells, treasures = _p_cells(f["cells"])
    if _wonder_centre(cells) == -2:
        raise _fail("cells", "the W squares do not form one cross of five")
    snap = {
        "players": players,
        "board": f["board"],
        "variants": _p_variants(f.get("variants")),
        "cells": cells,
        "buildings": _p_colour_squares("buildings", f.get("buildings", "-"), "building"),
        "wonder": _wonder_centre(cells),
        "treasures": treasures,
        "leaders": _p_leaders(f["leaders"], players),
        "monuments": _p_monuments(f["monuments"]),
        "hands": None,
        "bag": None,
        "swapped": None,
        "discarded": _p_c4("discarded", f["discarded"]),
        "scores": [_p_c4("scores", s) for s in _p_seats("scores", f["scores"], players)],
        "treasures_taken": [_p_int("treasures_taken", s)
                            for s in _p_seats("treasures_taken", f["treasures_taken"], players)],
        "catastrophes_left": [_p_int("catastrophes_left", s, 0, CATASTROPHES)
                              for s in _p_seats("catastrophes_left", f["catastrophes_left"], players)],
        "turn_owner": _p_int("turn_owner", f["turn_owner"], 0, players - 1),
        "actions_left": _p_int("actions_left", f["actions_left"], 0, 2),
        "phase": f["phase"],
        "to_act": _p_opt_int("to_act", f["to_act"], players - 1),
        "placed": _p_square("placed", f["placed"], allow_none=True),
        "unification": _p_square("unification", f["unification"], allow_none=True),
        "conflict": _p_conflict(f["conflict"], players),
        "committed": [_p_bool("committed", s) for s in _p_seats("committed", f["committed"], players)],
        "end_reason": None if f["end_reason"] == "-" else f["end_reason"],
    }
    sizes = [_p_int("hand_sizes", s, 0, HAND_SIZE) for s in _p_seats("hand_sizes", f["hand_sizes"], players)]
    nbag = _p_int("bag_size", f["bag_size"], 0, TOTAL_TILES)
    nswapped = [_p_int("swapped_sizes", s, 0, TOTAL_TILES)
                for s in _p_seats("swapped_sizes", f["swapped_sizes"], players)]
    if not bar:
        snap.update(hand_sizes=sizes, bag_size=nbag, swapped_sizes=nswapped)
        check_snapshot(snap)
        return snap
    hw = hidden_text.split()
    if len(hw) != len(HIDDEN_FIELDS):
        name = HIDDEN_FIELDS[min(len(hw), len(HIDDEN_FIELDS) - 1)]
        raise _fail(name, f"the hidden part needs {len(HIDDEN_FIELDS)} fields "
                          f"({' '.join(HIDDEN_FIELDS)}), got {len(hw)}")
    hands = []
    for seat, h_text in enumerate(_p_seats("hands", hw[0], players)):
        counts = [0] * 4
        for c in _p_letters("hands", h_text):
            counts[c] += 1
        if sum(counts) != sizes[seat]:
            raise _fail("hands", f"seat {seat} holds {sum(counts)} tiles but field 'hand_sizes' says {sizes[seat]}")
        hands.append(counts)
    bag = _p_bag(hw[1])
    if len(bag) != nbag:
        raise _fail("bag", f"{len(bag)} tiles but field 'bag_size' says {nbag}")
    swapped = [_p_c4("swapped", s) for s in _p_seats("swapped", hw[2], players)]
    for seat, s in enumerate(swapped):
        if sum(s) != nswapped[seat]:
            raise _fail("swapped", f"seat {seat} swapped {sum(s)} tiles but field 'swapped_sizes' says {nswapped[seat]}")
    snap.update(hands=hands, bag=bag, swapped=swapped)
    check_snapshot(snap)
    return snap
