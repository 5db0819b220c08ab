"""ASCII rendering (engine/render.py)."""
from __future__ import annotations

import random

import pytest

from diagram import position
from engine.boards import COLS, ROWS, load_board
from engine.errors import PositionError
from engine.info import observation
from engine.position import public_snapshot
from engine.render import render


def snapshot() -> dict:
    return position("""
        a  b  c  d
    5   K  K  .  .
    6   K  K  0k x
    7   ~  ~  b  ~
    8   .  r$ 1g ~
    """, hands=["kkrbgg", "rrb"], monuments={"kb": "a5"}, turn_owner=1, swapped=["", "g"],
        scores=[[1, 2, 3, 4], [0, 5, 0, 0]], treasures_taken=[0, 2], discarded="rr",
        phase="revolt_defend", to_act=0, actions_left=1, placed="c6",
        conflict={"kind": "revolt", "colour": "k", "attacker": 1, "defender": 0,
                  "attacker_leader": "c6", "defender_leader": "c6", "attacker_commit": 1},
        committed=[False, True])


def grid(text: str) -> list:
    """Return the 11 board rows as lists of 16 square strings."""
    lines = text.splitlines()
    rows = []
    for r in range(ROWS):
        line = lines[1 + r]
        assert line[:2] == f"{r + 1:>2}"
        rows.append([line[3 + 3 * c:6 + 3 * c].strip() for c in range(COLS)])
    return rows


def at(rows, name: str) -> str:
    col, row = ord(name[0]) - ord("a"), int(name[1:]) - 1
    return rows[row][col]


def test_header_and_rows():
    text = render(snapshot())
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefghijklmnop")
    assert [ln[:2] for ln in lines[1:12]] == [f"{r:>2}" for r in range(1, 12)]
    assert all(len(ln) <= 3 + 3 * COLS for ln in lines[:12])


def test_squares():
    rows = grid(render(snapshot()))
    board = load_board("standard")
    assert at(rows, "a5") == "k" and at(rows, "b6") == "k"        # face-down under a monument
    assert at(rows, "c6") == "0K"                                  # seat 0's king
    assert at(rows, "c8") == "1G"                                  # seat 1's trader
    assert at(rows, "d6") == "X"                                   # catastrophe
    assert at(rows, "c7") == "B"                                   # face-up farm
    assert at(rows, "a7") == "~" and at(rows, "a8") == "."         # river, land
    assert at(rows, "b8") == "R$"                                  # special treasure (board '*')
    assert at(rows, "k1") == "R*"                                  # ordinary treasure
    specials = {f"{chr(97 + s % COLS)}{s // COLS + 1}" for s in board.special}
    assert "b8" in specials and "k1" not in specials


def test_status_lines():
    text = render(snapshot())
    assert "turn of seat 1, 1 action(s) left; phase revolt_defend, seat 0 to act" in text
    assert "revolt over k: seat 1 (c6) attacks seat 0 (c6); attacker committed 1" in text
    assert "seat 0  score k1 r2 b3 g4  treasures 0  catastrophes 1  hand 6" in text
    assert "seat 1* score k0 r5 b0 g0  treasures 2  catastrophes 2  hand 3  swapped 1" in text
    seat_lines = [ln for ln in text.splitlines() if ln.startswith("seat ")]
    assert "committed" in seat_lines[1] and "committed" not in seat_lines[0]
    assert "supply KRB " in seat_lines[1] and "supply RBG" in seat_lines[0]
    assert "monuments kb a5" in text
    assert "discarded k0 r2 b0 g0" in text


def test_hand_shown_only_for_the_asked_seat():
    s = snapshot()
    assert "[" not in render(s)
    t0, t1 = render(s, seat=0), render(s, seat=1)
    assert "[kkrbgg]" in t0 and "[rrb]" not in t0
    assert "[rrb]" in t1 and "[kkrbgg]" not in t1
    with pytest.raises(PositionError, match="seat"):
        render(s, seat=2)


def test_public_snapshots_and_observations_render_the_same_board():
    s = snapshot()
    assert render(public_snapshot(s)) == render(s)
    obs = observation(s, 1)
    assert render(obs, seat=1) == render(s, seat=1)
    assert "[" not in render(obs, seat=0)          # seat 0's hand is not in seat 1's observation


def test_render_along_a_random_game(impl):
    rng = random.Random(2)
    state = impl.new_game(players=4, seed=2)
    for _ in range(150):
        if state.is_terminal():
            break
        snap = state.snapshot()
        rows = grid(render(snap, seat=snap["to_act"] if snap["to_act"] >= 0 else None))
        leaders = sum(1 for seat in snap["leaders"] for sq in seat if sq >= 0)
        assert sum(1 for row in rows for t in row if t[:1].isdigit()) == leaders
        assert sum(1 for row in rows for t in row if t.endswith(("*", "$"))) == len(snap["treasures"])
        state.apply(rng.choice(state.legal_actions()))
