"""The board as a standalone SVG document: one renderer for the web page and for `show --svg`/`analyze --svg`.

`board_svg(snap, seat=None, *, last=None, highlight=(), selectable=(), title=None)`
returns a complete `<svg>` document (fixed cell size, viewBox, embedded
`<style>`, no scripts, no external resources) for a full snapshot, a public
snapshot or an observation, like engine/render.py's ASCII picture. Pure
Python, standard library only.

What is drawn, every colour also carried by a letter or a shape (the palette
is Okabe–Ito's, safe for colour-blind eyes):

- land and river squares (river light blue); the board's starting temple
  squares with a corner mark (grey, gold for the special `*` ones);
- face-up tiles as coloured squares with their letter K R B G (black dark
  with a light letter), face-down tiles under a monument pale with a
  lowercase letter; a treasure as a gold disc on its square, a special
  treasure as a gold diamond with `$`;
- leaders as a circle in the leader's colour with its letter, and the
  dynasty of its owner: a symbol per seat (▲ ● ■ ◆) and the seat digit;
- catastrophes as an X; monuments as a frame around their 2×2 block in their
  two colours, labelled (`KR`); the variants' buildings as a small house on
  the tile carrying it and the wonder's five squares (`W`, outlined);
- the pending unification (`U`), the placed tile (`P`) and the leaders in a
  conflict (`A` attacker, `D` defender);
- each kingdom (R-KING-2: a connected group of tiles, face up or down, wonder
  squares and leaders, holding a leader) outlined;
- `last`: the last decision (an action int or its notation) ringed on its
  square(s): tile, leader, catastrophe, treasure, building, the monument's
  four and the wonder's five squares (nothing for a decision without one);
  `highlight`: squares marked (e.g. legal targets); `selectable`: squares
  given the CSS class `sel` (clickable on a page);
- coordinates a..p across the top and 1..11 down the side; below the board
  `seat`'s hand (only that seat's, and only when the snapshot knows it), the
  public status (turn, phase, who acts, a line per seat) and a legend.

Every square is a `<g class="sq" data-sq="f7">` (`class="sq sel"` when
selectable) holding what stands on it, so a page maps clicks to squares with
no geometry; the overlays (outlines, rings, labels) ignore pointer events.
"""
from __future__ import annotations

from engine.actions import (BUILDING_BASE, CAT_BASE, COLOURS, MONUMENT_BASE, MONUMENTS,
                            NO_MONUMENT, TREASURE_BASE, WITHDRAW_BASE, WONDER_BASE, NO_WONDER,
                            NO_BUILDING, parse_action, parse_square)
from engine.boards import COLS, ROWS, SQUARES, load_board
from engine.errors import PositionError
from engine.position import check_snapshot, hand_sizes, known_hand
from engine.render import conflict_line

CELL = 40                      # pixels per square
LEFT, TOP = 26, 24             # room for the row numbers and the column letters
WIDTH = LEFT + COLS * CELL + 10
BOARD_BOTTOM = TOP + ROWS * CELL
LINE = 17                      # status line height

SEAT_SYMBOLS = ("\u25b2", "\u25cf", "\u25a0", "\u25c6")      # ▲ ● ■ ◆ : dynasties of seats 0..3
TILE_FILL = ("#222222", "#d55e00", "#0072b2", "#009e73")   # k r b g (Okabe-Ito)
PALE_FILL = ("#9a9a9a", "#efb48a", "#8fbfe0", "#8fd3bf")   # the same, face down
COLUMN_NAMES = "abcdefghijklmnop"
SQ_NAMES = tuple(f"{COLUMN_NAMES[sq % COLS]}{sq // COLS + 1}" for sq in range(SQUARES))

STYLE = """
text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif}
.coord{font-size:12px;fill:#555;text-anchor:middle}
.land{fill:#efe6cf;stroke:#c9bb98;stroke-width:.6}
.river{fill:#a9d4ef;stroke:#7fb2d6;stroke-width:.6}
.t0{fill:#222}.t1{fill:#d55e00}.t2{fill:#0072b2}.t3{fill:#009e73}
.d0{fill:#9a9a9a}.d1{fill:#efb48a}.d2{fill:#8fbfe0}.d3{fill:#8fd3bf}
.tile{stroke:#fff;stroke-width:1}
.tl{font-size:17px;font-weight:bold;fill:#fff;text-anchor:middle}
.dl{font-size:16px;font-weight:bold;fill:#222;text-anchor:middle}
.temple{fill:#8c8c8c}.special{fill:#c9a000}
.tr{fill:#ffd23f;stroke:#5a4500;stroke-width:1.2}
.trl{font-size:8px;font-weight:bold;fill:#5a4500;text-anchor:middle}
.ldr{stroke:#fff;stroke-width:2.2}
.lc{font-size:12px;font-weight:bold;fill:#fff;text-anchor:middle}
.ls{font-size:9.5px;fill:#fff;text-anchor:middle}
.cat{fill:#d9d9d9;stroke:#888;stroke-width:.6}
.catx{stroke:#b00020;stroke-width:4;stroke-linecap:round}
.wonder{fill:#e8d9a8;stroke:#7a6a30;stroke-width:.6}
.wl{font-size:15px;font-weight:bold;fill:#7a6a30;text-anchor:middle}
.bld{fill:#fff;stroke:#222;stroke-width:1}
.ov{pointer-events:none}
.kingdom{fill:none;stroke:#3d2b1f;stroke-width:3;stroke-linecap:square}
.wonderline{fill:none;stroke:#7a6a30;stroke-width:2.5}
.mon{fill:none;stroke-width:3.5}.mon2{fill:none;stroke-width:3.5;stroke-dasharray:6 6}
.monl{font-size:10px;font-weight:bold;fill:#222;text-anchor:middle}
.monb{fill:#fff;stroke:#222;stroke-width:.8}
.mark{fill:none;stroke:#cc79a7;stroke-width:3;stroke-dasharray:5 3}
.markl{font-size:10px;font-weight:bold;fill:#fff;text-anchor:middle}
.markb{fill:#8a2f62}
.last{fill:none;stroke:#f0e442;stroke-width:3.5}
.lastb{fill:none;stroke:#000;stroke-width:1.5}
.hl{fill:none;stroke:#000;stroke-width:2;stroke-dasharray:3 3}
.hld{fill:#000;fill-opacity:.55}
.sel{cursor:pointer}
.sel:hover .land,.sel:hover .river{fill:#fff6b0}
.status{font-size:12.5px;fill:#222}
.title{font-size:14px;font-weight:bold;fill:#222}
.small{font-size:11px;fill:#444}
"""


def _square_index(x) -> int:
    if type(x) is int:
        if not 0 <= x < SQUARES:
            raise PositionError(f"square {x} out of range 0..{SQUARES - 1}")
        return x
    return parse_square(str(x))


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def decision_squares(action) -> tuple:
    """Return the squares a decision (int or notation) puts something on: () for one without a square."""
    a = parse_action(action) if isinstance(action, str) else action
    if type(a) is not int:
        raise PositionError(f"a decision must be an action int or notation, got {action!r}")
    if 0 <= a < WITHDRAW_BASE or BUILDING_BASE <= a < NO_BUILDING:
        return ((a - (BUILDING_BASE if a >= BUILDING_BASE else 0)) % SQUARES,)
    if CAT_BASE <= a < CAT_BASE + SQUARES:
        return (a - CAT_BASE,)
    if TREASURE_BASE <= a < TREASURE_BASE + SQUARES:
        return (a - TREASURE_BASE,)
    if MONUMENT_BASE <= a < NO_MONUMENT:
        sq = (a - MONUMENT_BASE) % SQUARES
        return (sq, sq + 1, sq + COLS, sq + COLS + 1)
    if WONDER_BASE <= a < NO_WONDER:
        x = a - WONDER_BASE
        return tuple(sorted((x, x - 1, x + 1, x - COLS, x + COLS)))
    return ()


def kingdoms(snap: dict) -> list:
    """Return the kingdoms (R-KING-2) as sorted lists of squares, ordered by their first square.

    Tiles face up or down, wonder squares and leaders connect edge to edge;
    empty squares and catastrophes do not; a group is a kingdom when it holds
    a leader.
    """
    cells = snap["cells"]
    leaders = {sq for row in snap["leaders"] for sq in row if sq >= 0}
    occupied = [(v != 0 and v != 9) or sq in leaders for sq, v in enumerate(cells)]
    seen = [False] * SQUARES
    out = []
    for start in range(SQUARES):
        if not occupied[start] or seen[start]:
            continue
        group, stack, has_leader = [], [start], False
        seen[start] = True
        while stack:
            sq = stack.pop()
            group.append(sq)
            has_leader = has_leader or sq in leaders
            col = sq % COLS
            for n in (sq - COLS if sq >= COLS else -1, sq - 1 if col else -1,
                      sq + 1 if col < COLS - 1 else -1, sq + COLS if sq < SQUARES - COLS else -1):
                if n >= 0 and occupied[n] and not seen[n]:
                    seen[n] = True
                    stack.append(n)
        if has_leader:
            out.append(sorted(group))
    return out


def _outline(squares) -> str:
    """Return path data for the edges of a set of squares that border a square outside it."""
    inside = set(squares)
    d = []
    for sq in squares:
        r, c = divmod(sq, COLS)
        x, y = LEFT + c * CELL, TOP + r * CELL
        if r == 0 or sq - COLS not in inside:
            d.append(f"M{x} {y}h{CELL}")
        if r == ROWS - 1 or sq + COLS not in inside:
            d.append(f"M{x} {y + CELL}h{CELL}")
        if c == 0 or sq - 1 not in inside:
            d.append(f"M{x} {y}v{CELL}")
        if c == COLS - 1 or sq + 1 not in inside:
            d.append(f"M{x + CELL} {y}v{CELL}")
    return "".join(d)


def _tile(out: list, x: int, y: int, c: int, face_up: bool = True) -> None:
    if face_up:
        out.append(f'<rect class="tile t{c}" x="{x + 2}" y="{y + 2}" width="{CELL - 4}" height="{CELL - 4}" rx="3"/>'
                   f'<text class="tl" x="{x + CELL // 2}" y="{y + 26}">{COLOURS[c].upper()}</text>')
    else:
        out.append(f'<rect class="tile d{c}" x="{x + 2}" y="{y + 2}" width="{CELL - 4}" height="{CELL - 4}" rx="3"/>'
                   f'<text class="dl" x="{x + CELL // 2}" y="{y + 26}">{COLOURS[c]}</text>')


def _leader(out: list, x: int, y: int, seat: int, c: int) -> None:
    cx, cy = x + CELL // 2, y + CELL // 2
    out.append(f'<g class="leader" data-seat="{seat}" data-colour="{COLOURS[c]}">'
               f'<circle class="ldr t{c}" cx="{cx}" cy="{cy}" r="17"/>'
               f'<text class="lc" x="{cx}" y="{cy - 1}">{COLOURS[c].upper()}</text>'
               f'<text class="ls" x="{cx}" y="{cy + 11}">{SEAT_SYMBOLS[seat]}{seat}</text></g>')


def _treasure(out: list, x: int, y: int, special: bool) -> None:
    cx, cy = x + CELL - 9, y + 9
    if special:
        out.append(f'<path class="tr treasure special-treasure" d="M{cx} {cy - 8}l7 8l-7 8l-7 -8z"/>'
                   f'<text class="trl" x="{cx}" y="{cy + 3}">$</text>')
    else:
        out.append(f'<circle class="tr treasure" cx="{cx}" cy="{cy}" r="6"/>')


def _building(out: list, x: int, y: int, c: int) -> None:
    bx, by = x + 4, y + CELL - 5
    out.append(f'<path class="bld building" data-colour="{COLOURS[c]}" '
               f'd="M{bx} {by}v-8l6 -6l6 6v8z"/>')


def _label(out: list, x: int, y: int, text: str) -> None:
    out.append(f'<rect class="markb" x="{x + 1}" y="{y + 1}" width="12" height="12" rx="2"/>'
               f'<text class="markl" x="{x + 7}" y="{y + 11}">{text}</text>')


def board_svg(snap: dict, seat=None, *, last=None, highlight=(), selectable=(), title=None,
              status: bool = True, legend: bool = True) -> str:
    """Return a standalone SVG document of a snapshot (full, public, or an observation).

    seat: whose hand to show (only if the snapshot knows it); last: the last
    decision (int or notation) to ring; highlight: squares (ints or names) to
    mark; selectable: squares given the CSS class `sel`; title: a heading;
    status/legend: the public status lines and the legend below the board.
    """
    check_snapshot(snap)
    if seat is not None and (type(seat) is not int or not 0 <= seat < snap["players"]):
        raise PositionError(f"seat {seat!r} out of range 0..{snap['players'] - 1}")
    board = load_board(snap["board"])
    cells = snap["cells"]
    treasures = set(snap["treasures"])
    leader_at = {sq: (s, c) for s, row in enumerate(snap["leaders"]) for c, sq in enumerate(row) if sq >= 0}
    building_at = {sq: c for c, sq in enumerate(snap.get("buildings") or ()) if sq >= 0}
    selectable = {_square_index(x) for x in selectable}
    marked = sorted({_square_index(x) for x in highlight})
    last_squares = decision_squares(last) if last is not None else ()
    temples, special = set(board.temples), board.special

    out = []
    # ---- squares
    out.append('<g class="board">')
    for sq in range(SQUARES):
        r, c = divmod(sq, COLS)
        x, y = LEFT + c * CELL, TOP + r * CELL
        v = cells[sq]
        cls = "sq sel" if sq in selectable else "sq"
        out.append(f'<g class="{cls}" data-sq="{SQ_NAMES[sq]}">'
                   f'<rect class="{"river" if sq in board.river else "land"}" x="{x}" y="{y}" '
                   f'width="{CELL}" height="{CELL}"/>')
        if 1 <= v <= 4:
            _tile(out, x, y, v - 1)
        elif 5 <= v <= 8:
            _tile(out, x, y, v - 5, face_up=False)
        elif v == 9:
            out.append(f'<g class="catastrophe"><rect class="cat" x="{x + 2}" y="{y + 2}" width="{CELL - 4}" '
                       f'height="{CELL - 4}"/><path class="catx" d="M{x + 10} {y + 10}l20 20M{x + 30} {y + 10}'
                       f'l-20 20"/></g>')
        elif v == 10:
            out.append(f'<rect class="wonder" x="{x + 1}" y="{y + 1}" width="{CELL - 2}" height="{CELL - 2}"/>'
                       f'<text class="wl" x="{x + CELL // 2}" y="{y + 26}">W</text>')
        if sq in temples:
            out.append(f'<path class="{"special" if sq in special else "temple"}" '
                       f'd="M{x} {y}h9l-9 9z"/>')
        if sq in building_at:
            _building(out, x, y, building_at[sq])
        if sq in leader_at:
            _leader(out, x, y, *leader_at[sq])
        if sq in treasures:
            _treasure(out, x, y, sq in special)
        out.append("</g>")
    out.append("</g>")

    # ---- overlays
    out.append('<g class="ov">')
    for i, group in enumerate(kingdoms(snap)):
        out.append(f'<path class="kingdom" data-kingdom="{i}" d="{_outline(group)}"/>')
    if snap.get("wonder", -1) >= 0:
        x0 = snap["wonder"]
        out.append(f'<path class="wonderline" d="{_outline((x0, x0 - 1, x0 + 1, x0 - COLS, x0 + COLS))}"/>')
    marks = {}
    if snap["placed"] >= 0:
        marks[snap["placed"]] = "P"
    cf = snap["conflict"]
    if cf is not None:
        if cf["attacker_leader"] >= 0:
            marks[cf["attacker_leader"]] = "A"
        if cf["defender_leader"] >= 0:
            marks[cf["defender_leader"]] = "D"
    if snap["unification"] >= 0:
        marks[snap["unification"]] = "U"
    for sq, text in sorted(marks.items()):
        r, c = divmod(sq, COLS)
        x, y = LEFT + c * CELL, TOP + r * CELL
        out.append(f'<g class="marker" data-sq="{SQ_NAMES[sq]}" data-mark="{text}">'
                   f'<rect class="mark" x="{x + 1.5}" y="{y + 1.5}" width="{CELL - 3}" height="{CELL - 3}"/>')
        _label(out, x, y + CELL - 14, text)
        out.append("</g>")
    for sq in marked:
        r, c = divmod(sq, COLS)
        x, y = LEFT + c * CELL, TOP + r * CELL
        out.append(f'<g class="highlight" data-sq="{SQ_NAMES[sq]}"><rect class="hl" x="{x + 4}" y="{y + 4}" '
                   f'width="{CELL - 8}" height="{CELL - 8}" rx="4"/>'
                   f'<circle class="hld" cx="{x + CELL // 2}" cy="{y + CELL // 2}" r="3"/></g>')
    for sq in last_squares:
        r, c = divmod(sq, COLS)
        x, y = LEFT + c * CELL, TOP + r * CELL
        out.append(f'<g class="last" data-sq="{SQ_NAMES[sq]}"><rect class="lastb" x="{x}" y="{y}" '
                   f'width="{CELL}" height="{CELL}"/><rect class="last" x="{x + 2.5}" y="{y + 2.5}" '
                   f'width="{CELL - 5}" height="{CELL - 5}"/></g>')
    for m, sq in enumerate(snap["monuments"]):
        if sq < 0:
            continue
        a, b = MONUMENTS[m]
        r, c = divmod(sq, COLS)
        x, y = LEFT + c * CELL, TOP + r * CELL
        name = (COLOURS[a] + COLOURS[b]).upper()
        out.append(f'<g class="monument" data-monument="{name}" data-sq="{SQ_NAMES[sq]}">'
                   f'<rect class="mon" stroke="{TILE_FILL[a]}" x="{x + 3}" y="{y + 3}" width="{2 * CELL - 6}" '
                   f'height="{2 * CELL - 6}"/><rect class="mon2" stroke="{TILE_FILL[b]}" x="{x + 3}" y="{y + 3}" '
                   f'width="{2 * CELL - 6}" height="{2 * CELL - 6}"/>'
                   f'<rect class="monb" x="{x + CELL - 13}" y="{y + CELL - 8}" width="26" height="16" rx="3"/>'
                   f'<text class="monl" x="{x + CELL}" y="{y + CELL + 4}">{name}</text></g>')
    out.append("</g>")

    # ---- coordinates
    out.append('<g class="coords">')
    for c in range(COLS):
        out.append(f'<text class="coord" x="{LEFT + c * CELL + CELL // 2}" y="{TOP - 7}">{COLUMN_NAMES[c]}</text>')
    for r in range(ROWS):
        out.append(f'<text class="coord" x="{LEFT // 2}" y="{TOP + r * CELL + CELL // 2 + 4}">{r + 1}</text>')
    out.append("</g>")

    # ---- below the board: hand, status, legend
    y = BOARD_BOTTOM + 8
    hand = known_hand(snap, seat) if seat is not None else None
    if hand is not None:
        out.append(f'<g class="hand" data-seat="{seat}"><text class="status" x="{LEFT}" y="{y + 20}">'
                   f'{SEAT_SYMBOLS[seat]}{seat} hand</text>')
        x = LEFT + 74
        for c, n in enumerate(hand):
            for _ in range(n):
                _tile(out, x, y, c)
                x += CELL
        if not sum(hand):
            out.append(f'<text class="status" x="{x}" y="{y + 20}">(empty)</text>')
        out.append("</g>")
        y += CELL + 4
    if title is not None:
        y += LINE
        out.append(f'<text class="title" x="{LEFT}" y="{y}">{_esc(str(title))}</text>')
    if status:
        out.append('<g class="status">')
        for text in _status_lines(snap, board):
            y += LINE
            out.append(f'<text class="status" x="{LEFT}" y="{y}">{_esc(text)}</text>')
        out.append("</g>")
    if legend:
        for text in _LEGEND:
            y += LINE - 2
            out.append(f'<text class="small" x="{LEFT}" y="{y}">{_esc(text)}</text>')
    height = y + 10
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
            f'height="{height}" class="tne-board" data-board="{snap["board"]}" data-players="{snap["players"]}">'
            f'<title>{_esc(str(title) if title is not None else "Tigris & Euphrates board")}</title>'
            f'<style>{STYLE}</style><rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#fff"/>')
    return head + "".join(out) + "</svg>\n"


_LEGEND = ("K R B G tiles (k r b g face down, under a monument) \u00b7 circle: a leader, its colour letter and "
           "dynasty " + " ".join(f"{SEAT_SYMBOLS[s]}{s}" for s in range(4)),
           "disc: treasure, $: special \u00b7 corner: temple \u00b7 X catastrophe \u00b7 house: building "
           "\u00b7 U unification, P placed, A/D conflict")


def _status_lines(snap: dict, board) -> list:
    to_act = "nobody" if snap["to_act"] < 0 else f"seat {snap['to_act']}"
    lines = [f"{snap['board']} board, {snap['players']} players"
             + (f", variants {','.join(snap['variants'])}" if snap.get("variants") else ""),
             f"turn of seat {snap['turn_owner']}, {snap['actions_left']} action(s) left; "
             f"phase {snap['phase']}, {to_act} to act"
             + (f"; game over ({snap['end_reason']})" if snap["end_reason"] is not None else "")]
    if snap["conflict"] is not None:
        lines.append(conflict_line(snap))
    sizes = hand_sizes(snap)
    for s in range(snap["players"]):
        sc = " ".join(f"{COLOURS[c]}{v}" for c, v in enumerate(snap["scores"][s]))
        supply = "".join(COLOURS[c].upper() for c, sq in enumerate(snap["leaders"][s]) if sq < 0) or "-"
        lines.append(f"{SEAT_SYMBOLS[s]}{s}{' (turn)' if s == snap['turn_owner'] else ''}  score {sc}  "
                     f"treasures {snap['treasures_taken'][s]}  catastrophes {snap['catastrophes_left'][s]}  "
                     f"hand {sizes[s]}  supply {supply}")
    return lines
