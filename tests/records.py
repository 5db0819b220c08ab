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
