"""Boards as data: load the 16x11 board files (R-COMP-4, R-VAR-ADV-BOARD).

A board file has 11 lines of 16 characters: `.` land, `~` river, `T` a
starting temple with a treasure, `*` a starting temple with a special
treasure. Nothing about a board is hard-coded anywhere else in the engine.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from engine.errors import BoardError

COLS = 16
ROWS = 11
SQUARES = COLS * ROWS
BOARD_NAMES = ("standard", "advanced")


@dataclass(frozen=True)
class Board:
    """One board layout: river squares, starting temples and special squares."""

    name: str
    river: frozenset       # square indices that are river
    temples: tuple         # starting temple squares, ascending
    special: frozenset     # squares whose treasure is special (`*`)

    def is_river(self, sq: int) -> bool:
        """Return whether a square is river."""
        return sq in self.river


def parse_board(name: str, text: str) -> Board:
    """Parse a board file's text; raise BoardError naming the bad line."""
    lines = [ln.rstrip("\r") for ln in text.splitlines() if ln.strip()]
    if len(lines) != ROWS:
        raise BoardError(f"board {name!r}: expected {ROWS} rows, got {len(lines)}")
    river, temples, special = set(), [], set()
    for row, line in enumerate(lines):
        if len(line) != COLS:
            raise BoardError(f"board {name!r}: row {row + 1} has {len(line)} squares, expected {COLS}")
        for col, ch in enumerate(line):
            sq = row * COLS + col
            if ch == "~":
                river.add(sq)
            elif ch in "T*":
                temples.append(sq)
                if ch == "*":
                    special.add(sq)
            elif ch != ".":
                raise BoardError(f"board {name!r}: row {row + 1} column {col + 1}: unknown square {ch!r}")
    return Board(name, frozenset(river), tuple(sorted(temples)), frozenset(special))


@lru_cache(maxsize=None)
def load_board(name: str = "standard") -> Board:
    """Load a packaged board by name ('standard' or 'advanced')."""
    if name not in BOARD_NAMES:
        raise BoardError(f"unknown board {name!r}; expected one of {', '.join(BOARD_NAMES)}")
    text = resources.files("engine").joinpath(f"data/board-{name}.txt").read_text()
    return parse_board(name, text)


def neighbours(sq: int) -> list:
    """Return the edge-adjacent squares of a square (R-KING-1)."""
    row, col = divmod(sq, COLS)
    out = []
    if row > 0:
        out.append(sq - COLS)
    if col > 0:
        out.append(sq - 1)
    if col < COLS - 1:
        out.append(sq + 1)
    if row < ROWS - 1:
        out.append(sq + COLS)
    return out
