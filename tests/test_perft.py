"""Perft: legal-decision counts at depth 1 and 2 for fixed positions (tests/data/perft.tsv).

Both implementations must reproduce every count: the start of 2-, 3- and
4-player games, a pending revolt, wars, a monument choice, a treasure choice,
a board after catastrophes, positions one decision from each end, and the
2015 variants: a building placement and a building move, a wonder choice, a
wonder point, English commitments and a mid-game with all variants on.
"""
from pathlib import Path

import pytest

from engine.position import parse_position
from engine.state import perft

ROWS = [line.split("\t") for line in
        (Path(__file__).parent / "data" / "perft.tsv").read_text().splitlines()
        if line and not line.startswith("#")]


def test_perft_file_covers_the_required_positions():
    names = {r[0] for r in ROWS}
    assert len(ROWS) >= 10
    for needed in ("start-2p", "start-3p", "start-4p", "pending-revolt", "war-two-colours",
                   "monument-choice", "treasure-choice", "after-catastrophes",
                   "one-from-treasure-end", "one-from-bag-end",
                   "start-2p-all-variants", "building-choice", "building-move", "wonder-choice",
                   "wonder-point", "english-war-attack", "english-revolt-defend",
                   "midgame-all-variants"):
        assert needed in names


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_perft_depth_1(impl, row):
    name, p1, p2, text = row
    state = impl.from_snapshot(parse_position(text))
    assert perft(state, 1) == int(p1)


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
@pytest.mark.slow
def test_perft_depth_2(impl, row):
    name, p1, p2, text = row
    state = impl.from_snapshot(parse_position(text))
    assert perft(state, 2) == int(p2)
