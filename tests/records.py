"""Game records the tests share: the review game (tests/data/review-game.txt) cut short."""
from __future__ import annotations

from pathlib import Path

GAME = Path(__file__).parent / "data" / "review-game.txt"


def opening(decisions: int) -> str:
    """Return the review game's record cut after its first `decisions` decisions (with their draw lines)."""
    out, n = [], 0
    for line in GAME.read_text().splitlines():
        word = line.split("#", 1)[0].strip().split(" ")[0]
        if word and not line.startswith("[") and word not in ("draw", "result"):
            if n == decisions:
                break
            n += 1
        if word != "result":
            out.append(line)
    return "\n".join(out) + "\n"


# The teaching-mode position: seat 0 (blue leader on f2, next to the temple f3) has one action left and
# only blue tiles; the bag is empty, so a tile placed ends the game at the refill. A blue tile joined to
# the kingdom (e2, e3, f1) scores blue and wins (b4 -> b5: 5 5 5 5 against seat 1's 4 6 6 6); any other
# tile ends it lost (4 5 5 5 loses the tie-break to 4 6 6 6).
TEACHING_DIAGRAM = """
    d  e  f  g
 1  .  ~  ~  ~
 2  .  ~  0b .
 3  ~  ~  r$ .
"""
TEACHING_GOOD = ("tile b e2", "tile b e3", "tile b f1")
TEACHING_BAD = "tile b a4"          # a river square far from every kingdom: scores nothing


def teaching_start() -> str:
    """Return the teaching-mode position as a position string with its hidden part (for --start, records)."""
    import engine
    from diagram import position
    snap = position(TEACHING_DIAGRAM, hands=["bbbbbb", None], bag_size=0, actions_left=1,
                    scores=[[5, 5, 4, 5], [4, 6, 6, 6]])
    return engine.State.from_snapshot(snap).position(hidden=True)
