"""ASCII rendering of a snapshot: the board as a grid, then the public state.

Each square takes three characters::

     .   empty land            ~   empty river
     R   face-up tile (K R B G) r   face-down tile under a monument (k r b g)
     X   catastrophe           0K  leader: owner's seat digit + colour letter
     W   a square of the wonder (variant)
     R*  tile with a treasure  R$  tile with a special treasure (a `*` square
                                   of the board file, taken first)

Below the board: the turn, phase and seat to act, one line per seat (scores
k r b g, treasures taken, catastrophes left, hand size, leaders in supply;
the hand itself only for the `seat` asked for), the bag, the discarded
tiles, the built monuments, the variants with the buildings' squares and
the wonder's centre, and any pending conflict. Works on full
snapshots, public snapshots and observations.
"""
from __future__ import annotations

from engine.actions import COLOURS, MONUMENTS
from engine.boards import COLS, ROWS, load_board
from engine.errors import PositionError
from engine.position import bag_size, check_snapshot, hand_sizes, known_hand, swapped_sizes

def _sq(sq: int) -> str:
    return "-" if sq < 0 else f"{chr(ord('a') + sq % COLS)}{sq // COLS + 1}"


def legend(variants=(), marked: bool = False) -> str:
    """Return the key to the board's squares, two lines (under show's and analyze's text board, in play's help).

    `marked`: also the `>` that play puts before the squares of the engines' last decisions.
    """
    extra = ("  W the wonder" if "wonder" in variants else "") + ("  >R the engines' last decisions" if marked else "")
    return ("key: K R B G tiles (k r b g under a monument)  0K seat 0's king (seat, colour)\n"
            f"     R* treasure on a temple (R$ special)  X catastrophe  ~ river  . land{extra}")


def conflict_line(snap: dict) -> str:
    """Return the one-line account of the pending conflict (render and the SVG status share it), else ''."""
    cf = snap["conflict"]
    if cf is None:
        return ""
    commit = "not yet" if cf["attacker_commit"] < 0 else str(cf["attacker_commit"])
    return (f"{cf['kind']} over {COLOURS[cf['colour']]}: seat {cf['attacker']} "
            f"({_sq(cf['attacker_leader'])}) attacks seat {cf['defender']} "
            f"({_sq(cf['defender_leader'])}); attacker committed {commit}")


def _square(snap: dict, board, leader_at: dict, treasures: set, sq: int) -> str:
    if sq in leader_at:
        seat, c = leader_at[sq]
        return f"{seat}{COLOURS[c].upper()}"
    v = snap["cells"][sq]
    if v == 0:
        text = "~" if board.is_river(sq) else "."
    elif v == 9:
        text = "X"
    elif v == 10:
        text = "W"
    elif v <= 4:
        text = COLOURS[v - 1].upper()
    else:
        text = COLOURS[v - 5]
    if sq in treasures:
        text += "$" if sq in board.special else "*"
    return text


def render(snap: dict, seat=None) -> str:
    """Return an ASCII picture of a snapshot, showing `seat`'s hand if given."""
    check_snapshot(snap)
    if seat is not None and (type(seat) is not int or not 0 <= seat < snap["players"]):
        raise PositionError(f"seat {seat!r} out of range 0..{snap['players'] - 1}")
    board = load_board(snap["board"])
    leader_at = {sq: (s, c) for s, row in enumerate(snap["leaders"]) for c, sq in enumerate(row) if sq >= 0}
    treasures = set(snap["treasures"])
    lines = [("   " + "".join(f" {chr(ord('a') + c)} " for c in range(COLS))).rstrip()]
    for r in range(ROWS):
        cells = "".join(f" {_square(snap, board, leader_at, treasures, r * COLS + c):<2}" for c in range(COLS))
        lines.append(f"{r + 1:>2} {cells.rstrip()}")
    lines.append("")
    to_act = "nobody" if snap["to_act"] < 0 else f"seat {snap['to_act']}"
    lines.append(f"{snap['board']} board, {snap['players']} players; turn of seat {snap['turn_owner']}, "
                 f"{snap['actions_left']} action(s) left; phase {snap['phase']}, {to_act} to act")
    if snap["placed"] >= 0 or snap["unification"] >= 0:
        lines.append(f"placed {_sq(snap['placed'])}, unification {_sq(snap['unification'])}")
    if snap["conflict"] is not None:
        lines.append(conflict_line(snap))
    sizes, nswapped = hand_sizes(snap), swapped_sizes(snap)
    for s in range(snap["players"]):
        sc = " ".join(f"{COLOURS[c]}{v}" for c, v in enumerate(snap["scores"][s]))
        supply = "".join(COLOURS[c].upper() for c, sq in enumerate(snap["leaders"][s]) if sq < 0) or "-"
        text = (f"seat {s}{'*' if s == snap['turn_owner'] else ' '} score {sc}  treasures "
                f"{snap['treasures_taken'][s]}  catastrophes {snap['catastrophes_left'][s]}  "
                f"hand {sizes[s]}  swapped {nswapped[s]}  supply {supply}")
        if snap["committed"][s]:
            text += "  committed"
        hand = known_hand(snap, s) if s == seat else None
        if hand is not None:
            text += "  [" + ("".join(COLOURS[c] * n for c, n in enumerate(hand)) or "-") + "]"
        lines.append(text)
    built = [f"{COLOURS[MONUMENTS[m][0]]}{COLOURS[MONUMENTS[m][1]]} {_sq(sq)}"
             for m, sq in enumerate(snap["monuments"]) if sq >= 0]
    discarded = " ".join(f"{COLOURS[c]}{v}" for c, v in enumerate(snap["discarded"]))
    lines.append(f"bag {bag_size(snap)}  discarded {discarded}  treasures on board {len(snap['treasures'])}")
    lines.append("monuments " + (", ".join(built) if built else "none"))
    if snap.get("variants"):
        on = [f"{COLOURS[c]} {_sq(sq)}" for c, sq in enumerate(snap["buildings"]) if sq >= 0]
        text = "variants " + ",".join(snap["variants"])
        if "buildings" in snap["variants"]:
            text += "  buildings " + (", ".join(on) if on else "none")
        if "wonder" in snap["variants"]:
            text += "  wonder " + (_sq(snap["wonder"]) if snap["wonder"] >= 0 else "unbuilt")
        lines.append(text)
    if snap["end_reason"] is not None:
        lines.append(f"game over ({snap['end_reason']})")
    return "\n".join(lines) + "\n"
