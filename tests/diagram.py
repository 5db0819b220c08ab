"""Build full engine snapshots (docs/engine.md schema) from small ASCII diagrams.

A diagram is a window of the board: a header line of column letters, then one
line per row starting with the row number. Cells are whitespace-separated
tokens::

        e  f  g  h
    5   .  0k r$ .
    6   ~  .  k  x

Tokens:

    .        empty land             ~    empty river
    k r b g  face-up tile           K R B G   face-down tile (under a monument)
    r$ R$    red tile holding a treasure (only on a starting-temple square)
    x        catastrophe
    0k 1r .. a leader: owner's seat digit + colour letter (k r b g)
    r@ b@    face-up tile carrying its colour's building (variant buildings,
             R-VAR-BLD); r$@ a red temple with treasure and the red building
    W  W$    a wonder square (variant wonder, R-VAR-WONDER); W$ holds a
             treasure (only on a starting-temple square)

Every token is checked against the real board: tiles, leaders and empty
squares must agree with its land/river layout (blue tiles on river, the other
colours and leaders on land; `.` only on land, `~` only on river).

Squares outside the window: with ``outside="start"`` (the default) every
starting temple of the board that the window does not show keeps its face-up
red tile and its treasure, as at setup, and every other square is empty. With
``outside="empty"`` the board outside the window is empty (no tiles, no
treasures). Inside the window the diagram is the whole truth: a temple square
drawn as `.` has lost its tile and treasure.

Everything else is filled so that the snapshot is consistent:

- hands: ``hands=["rrkkbg", [0, 2, 0, 4]]`` (letters or [k, r, b, g] counts
  per seat), exactly as given; a seat not given (or given as None) holds
  DEFAULT_HAND = "kkbbgg" (6 tiles, no red). Between its turns a seat holds
  6 tiles unless it committed tiles this turn: the engines check that.
- the bag: every tile that is not on the board, in a hand, swapped or
  discarded (153 in all: 30 k, 57 r, 36 b, 30 g). ``draws="rrb"`` puts those
  tiles on top of the bag in draw order (the first letter is drawn first,
  i.e. it is the last element of the list). The rest of the bag is ordered
  k...r...b...g... (so without ``draws`` green is drawn first). With
  ``bag_size=n`` the bag holds only n tiles (the ``draws`` tiles on top) and
  the surplus is counted as ``discarded`` (left the game).
- treasures_taken: by default the starting treasures missing from the board
  (10 on the standard board) are charged to seats 0, 1, ... in turn, one at a
  time, so that board + taken = the board's temples.
- catastrophes_left: by default each `x` on the board is charged to seat 0
  until it has none left, then seat 1, and so on.
- monuments: ``monuments={"rb": "g5"}`` (colour pair, top-left square of the
  block); each face-down tile must lie in exactly one declared block, and each
  block is four face-down tiles of one colour of the pair.
- variants (2015 edition): ``variants=["wonder", "buildings"]`` (any order;
  the snapshot lists them in the canonical order english, buildings, wonder).
  The fields ``variants``, ``buildings`` and ``wonder`` are always filled
  (defaults [], [-1]*4, -1). A building token needs the ``buildings`` variant
  and at most one building per colour; ``W`` tokens need the ``wonder``
  variant and must form exactly one plus of five squares (a centre and its
  four neighbours): ``wonder`` is that centre. The five tiles the wonder
  replaced left the game: ``wonder_colour="r"`` (required with ``W``) adds
  5 tiles of that colour to ``discarded`` so tiles are conserved.
- squares may be given as names ("f7") or ints anywhere (placed, unification,
  the conflict's leader squares).

Helpers: ``sq("f7")``, ``at(snap, "f7")`` (the token on a square, with
the variant tokens: ``r@``, ``r$@``, ``W``, ``W$``),
``show(snap, "e4:h6")`` (render a window), ``norm(diagram)`` (normalise a
diagram so that ``show(...) == norm(...)`` compares pictures); for play:
``act("tile r f7")``, ``play(state, "tile r f7", "commit 2")`` (each must be
listed as legal), ``legal(state)`` (legal actions as text) and
``assert_illegal(state, "cat h4")`` (not listed, raises IllegalActionError,
snapshot unchanged).
"""
from __future__ import annotations

import re

from engine.actions import COLOURS, MONUMENTS, parse_square, square_name
from engine.boards import COLS, ROWS, SQUARES, load_board


def board_of(name: str):
    """Return the engine's Board of that name (river, temples, special squares)."""
    return load_board(name)


TOTALS = (30, 57, 36, 30)
DEFAULT_HAND = "kkbbgg"   # a seat whose hand the test does not give (no red: no revolt commits)
EMPTY, CATASTROPHE, WONDER = 0, 9, 10
_LEADER = re.compile(r"^([0-3])([krbg])$")


def _variants(names) -> list:
    """Return the variant names in canonical order (english, buildings, wonder)."""
    from engine.actions import VARIANTS
    names = list(names or [])
    for n in names:
        assert n in VARIANTS, f"unknown variant {n!r} (known: {VARIANTS})"
    assert len(set(names)) == len(names), f"variant listed twice: {names}"
    return [n for n in VARIANTS if n in names]


def sq(name) -> int:
    """Return the square index of a name ('f7') or pass an int through."""
    if name is None:
        return -1
    if isinstance(name, int):
        return name
    return parse_square(name)


def counts(hand) -> list:
    """Return [k, r, b, g] counts from a letter string or a 4-list."""
    if hand is None:
        return [0, 0, 0, 0]
    if isinstance(hand, str):
        out = [0, 0, 0, 0]
        for ch in hand.replace(" ", ""):
            assert ch in COLOURS, f"bad tile letter {ch!r} in {hand!r}"
            out[COLOURS.index(ch)] += 1
        return out
    hand = list(hand)
    assert len(hand) == 4, f"counts need 4 entries (k r b g), got {hand!r}"
    return hand


def _lines(diagram: str) -> list:
    return [ln.split() for ln in diagram.strip("\n").splitlines() if ln.strip()]


def parse_window(diagram: str) -> dict:
    """Parse a diagram into {square: token}; checks the labels are contiguous."""
    lines = _lines(diagram)
    assert lines, "empty diagram"
    header = lines[0]
    assert all(len(c) == 1 and "a" <= c <= "p" for c in header), f"bad header {header}"
    cols = [ord(c) - ord("a") for c in header]
    assert cols == list(range(cols[0], cols[0] + len(cols))), f"columns not contiguous: {header}"
    out, rows = {}, []
    for toks in lines[1:]:
        assert toks[0].isdigit(), f"row line must start with its number: {toks}"
        row = int(toks[0]) - 1
        assert 0 <= row < ROWS, f"bad row {toks[0]}"
        rows.append(row)
        assert len(toks) - 1 == len(cols), f"row {row + 1}: {len(toks) - 1} cells for {len(cols)} columns"
        for col, tok in zip(cols, toks[1:]):
            out[row * COLS + col] = tok
    assert rows == list(range(rows[0], rows[0] + len(rows))), f"rows not contiguous: {rows}"
    return out


def position(diagram: str | None = None, players: int = 2, board: str = "standard", *,
             hands=None, draws: str = "", bag_size: int | None = None,
             swapped=None, discarded=None, scores=None, treasures_taken=None,
             catastrophes_left=None, monuments=None, turn_owner: int = 0,
             to_act: int | None = None, actions_left: int = 2, phase: str = "action",
             placed=None, unification=None, conflict=None, committed=None,
             end_reason=None, outside: str = "start", variants=None,
             wonder_colour: str | None = None) -> dict:
    """Return a full snapshot dict for the diagram (see the module docstring)."""
    assert 2 <= players <= 4
    assert outside in ("start", "empty")
    b = board_of(board)
    cells = [EMPTY] * SQUARES
    treasures = set()
    leaders = [[-1] * 4 for _ in range(players)]
    variants = _variants(variants)
    buildings = [-1] * 4
    wonder_squares = set()
    window = parse_window(diagram) if diagram else {}
    if outside == "start":
        for t in b.temples:
            if t not in window:
                cells[t] = 1 + 1
                treasures.add(t)
    for s, tok in window.items():
        name, river = square_name(s), b.is_river(s)
        terrain = "river" if river else "land"
        m = _LEADER.match(tok)
        if tok == ".":
            assert not river, f"{name} is river on the {board} board: draw it as ~"
        elif tok == "~":
            assert river, f"{name} is land on the {board} board: draw it as ."
        elif tok == "x":
            cells[s] = CATASTROPHE
        elif tok in ("W", "W$"):
            assert "wonder" in variants, f"{name}: a wonder needs variants=[..., 'wonder']"
            cells[s] = WONDER
            wonder_squares.add(s)
            if tok == "W$":
                assert s in b.temples, f"{name}: treasures never move; not a starting temple"
                treasures.add(s)
        elif m:
            seat, c = int(m.group(1)), COLOURS.index(m.group(2))
            assert seat < players, f"{name}: leader of seat {seat} with {players} players"
            assert not river, f"{name}: leader on a river square"
            assert leaders[seat][c] == -1, f"{name}: seat {seat} has two {tok[1]} leaders"
            leaders[seat][c] = s
        else:
            building = tok.endswith("@")
            letter = tok[:-1] if building else tok
            treasure = letter.endswith("$")
            letter = letter[:-1] if treasure else letter
            assert len(letter) == 1 and letter.lower() in COLOURS, f"{name}: unknown token {tok!r}"
            c = COLOURS.index(letter.lower())
            assert river == (c == 2), f"{name}: {COLOURS[c]} tile on {terrain}"
            cells[s] = (1 if letter.islower() else 5) + c
            if building:
                assert "buildings" in variants, f"{name}: a building needs variants=[..., 'buildings']"
                assert letter.islower(), f"{name}: a building stands only on a face-up tile"
                assert buildings[c] == -1, f"{name}: two {COLOURS[c]} buildings"
                buildings[c] = s
            if treasure:
                assert c == 1, f"{name}: a treasure lies only on a red tile"
                assert s in b.temples, f"{name}: treasures never move; not a starting temple"
                treasures.add(s)

    # the wonder: exactly one plus of five W squares
    wonder = -1
    if wonder_squares:
        centres = [x for x in wonder_squares
                   if {x} | set(_neighbours(x)) == wonder_squares and len(_neighbours(x)) == 4]
        assert len(centres) == 1, f"W squares {sorted(map(square_name, wonder_squares))} are not a plus of five"
        wonder = centres[0]
        assert wonder_colour is not None and wonder_colour in COLOURS, \
            "a wonder needs wonder_colour='k'|'r'|'b'|'g' (its 5 tiles left the game)"
    else:
        assert wonder_colour is None, "wonder_colour given but no W squares"

    # monuments
    mons = [-1] * 6
    covered = set()
    for pair, top in (monuments or {}).items():
        idx = MONUMENTS.index(tuple(sorted(COLOURS.index(ch) for ch in pair)))
        t = sq(top)
        block = [t, t + 1, t + COLS, t + COLS + 1]
        assert t % COLS < COLS - 1 and t // COLS < ROWS - 1, f"monument {pair} block off the board"
        colours = {cells[x] for x in block}
        assert len(colours) == 1 and 5 <= cells[t] <= 8, f"monument {pair} at {square_name(t)}: not 4 face-down tiles of one colour"
        assert cells[t] - 5 in MONUMENTS[idx], f"monument {pair}: block colour not in the pair"
        assert not covered & set(block), f"monument {pair} overlaps another"
        covered |= set(block)
        mons[idx] = t
    facedown = {s for s in range(SQUARES) if 5 <= cells[s] <= 8}
    assert facedown == covered, f"face-down tiles without a monument: {sorted(map(square_name, facedown - covered))}"

    # tiles
    hands = list(hands or [])
    hands += [None] * (players - len(hands))
    hands_c = [counts(DEFAULT_HAND if h is None else h) for h in hands]
    assert len(hands_c) == players, "more hands than players"
    swapped_c = [counts(h) for h in (swapped or [])]
    swapped_c += [[0, 0, 0, 0] for _ in range(players - len(swapped_c))]
    discarded_c = counts(discarded)
    if wonder != -1:
        discarded_c[COLOURS.index(wonder_colour)] += 5
    used = [0, 0, 0, 0]
    for v in cells:
        if 1 <= v <= 8:
            used[(v - 1) % 4] += 1
    for h in hands_c + swapped_c + [discarded_c]:
        for c in range(4):
            used[c] += h[c]
    rest = [TOTALS[c] - used[c] for c in range(4)]
    top = counts(draws)
    for c in range(4):
        assert rest[c] - top[c] >= 0, f"too many {COLOURS[c]} tiles: {used[c] + top[c]} > {TOTALS[c]}"
        rest[c] -= top[c]
    under = [c for c in range(4) for _ in range(rest[c])]
    drawn_first = [COLOURS.index(ch) for ch in draws.replace(" ", "")]
    if bag_size is not None:
        assert bag_size >= len(drawn_first), "bag_size smaller than draws"
        keep = bag_size - len(drawn_first)
        extra, under = under[: len(under) - keep], under[len(under) - keep:]
        for c in extra:
            discarded_c[c] += 1
    bag = under + drawn_first[::-1]

    ncat = cells.count(CATASTROPHE)
    if catastrophes_left is None:
        catastrophes_left = []
        for _ in range(players):
            use = min(2, ncat)
            ncat -= use
            catastrophes_left.append(2 - use)
        assert ncat == 0, "more catastrophes on the board than players own"

    if conflict is not None:
        conflict = dict(conflict)
        for key in ("attacker_leader", "defender_leader"):
            conflict[key] = sq(conflict[key])
        conflict.setdefault("attacker_commit", -1)
        if isinstance(conflict.get("colour"), str):
            conflict["colour"] = COLOURS.index(conflict["colour"])

    if treasures_taken is None:
        # treasures conserved: the starting treasures missing from the board
        # were taken, one at a time, by seats 0, 1, ... in turn
        treasures_taken = [0] * players
        for i in range(len(b.temples) - len(treasures)):
            treasures_taken[i % players] += 1

    if to_act is None:
        to_act = -1 if phase == "over" else turn_owner
    return {
        "players": players,
        "board": board,
        "variants": variants,
        "cells": cells,
        "buildings": buildings,
        "wonder": wonder,
        "treasures": sorted(treasures),
        "leaders": leaders,
        "monuments": mons,
        "hands": hands_c,
        "bag": bag,
        "swapped": swapped_c,
        "discarded": discarded_c,
        "scores": [list(x) for x in (scores or [[0, 0, 0, 0]] * players)],
        "treasures_taken": list(treasures_taken),
        "catastrophes_left": list(catastrophes_left),
        "turn_owner": turn_owner,
        "actions_left": actions_left,
        "phase": phase,
        "to_act": to_act,
        "placed": sq(placed),
        "unification": sq(unification),
        "conflict": conflict,
        "committed": list(committed or [False] * players),
        "end_reason": end_reason,
    }


def _neighbours(s: int) -> list:
    from engine.boards import neighbours
    return list(neighbours(s))


def at(snap: dict, name) -> str:
    """Return the diagram token of one square of a snapshot."""
    s = sq(name)
    for seat, row in enumerate(snap["leaders"]):
        for c, where in enumerate(row):
            if where == s:
                return f"{seat}{COLOURS[c]}"
    v = snap["cells"][s]
    if v == EMPTY:
        return "~" if board_of(snap["board"]).is_river(s) else "."
    if v == CATASTROPHE:
        return "x"
    treasure = "$" if s in snap["treasures"] else ""
    if v == WONDER:
        return "W" + treasure
    letter = COLOURS[(v - 1) % 4]
    tok = letter if v <= 4 else letter.upper()
    building = "@" if v <= 4 and snap.get("buildings", [-1] * 4)[v - 1] == s else ""
    return tok + treasure + building


def show(snap: dict, area: str) -> str:
    """Render the window 'e4:h6' (top-left:bottom-right) of a snapshot as a diagram."""
    a, z = (sq(x) for x in area.split(":"))
    (r0, c0), (r1, c1) = divmod(a, COLS), divmod(z, COLS)
    rows = [[" "] + [chr(ord("a") + c) for c in range(c0, c1 + 1)]]
    for r in range(r0, r1 + 1):
        rows.append([str(r + 1)] + [at(snap, r * COLS + c) for c in range(c0, c1 + 1)])
    return "\n".join(" ".join(f"{t:>2}" for t in row).rstrip() for row in rows)


def norm(diagram: str) -> str:
    """Normalise a diagram's spacing like show() does."""
    lines = _lines(diagram)
    rows = [[" "] + lines[0]] + lines[1:]
    return "\n".join(" ".join(f"{t:>2}" for t in row).rstrip() for row in rows)


# --- playing helpers ---------------------------------------------------------

def act(text: str) -> int:
    """Return the action int of a text action ('tile r f7')."""
    from engine.actions import parse_action
    return parse_action(text)


def play(state, *texts) -> None:
    """Apply text actions in order (each must be legal and listed as legal)."""
    from engine.actions import format_action
    for t in texts:
        a = act(t)
        legal = state.legal_actions()
        assert a in legal, f"{t!r} not legal; legal: {[format_action(x) for x in legal][:40]}"
        state.apply(a)


def legal(state) -> list:
    """Return the legal actions as text, in action-int order."""
    from engine.actions import format_action
    return [format_action(a) for a in state.legal_actions()]


def assert_illegal(state, text: str) -> None:
    """Assert that an action is not listed, raises IllegalActionError and leaves the state unchanged."""
    import pytest
    from engine.errors import IllegalActionError
    a = act(text)
    before = state.snapshot()
    assert a not in state.legal_actions(), f"{text!r} is listed as legal"
    with pytest.raises(IllegalActionError):
        state.apply(a)
    assert state.snapshot() == before, f"illegal {text!r} changed the state"


def tile_totals(snap) -> list:
    """Tiles of each colour anywhere: board, hands, bag, swapped, discarded."""
    out = list(snap["discarded"])
    for v in snap["cells"]:
        if 1 <= v <= 8:
            out[(v - 1) % 4] += 1
    for h in snap["hands"] + snap["swapped"]:
        for c in range(4):
            out[c] += h[c]
    for c in snap["bag"]:
        out[c] += 1
    return out
