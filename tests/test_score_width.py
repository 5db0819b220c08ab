"""Scores are stored as int32 (ext/core.pxd), so play never wraps them (issue 14, point 5).

Snapshots still cap a score at MAX_SCORE (engine/position.py), but a game may
go on forever (leaders moving back and forth, passes): the monument points
(R-MON-4) and the wonder point (R-VAR-WONDER-4) keep coming, and the core keeps
the score exact past 32,767, where the int16 it stored used to wrap.
"""
from __future__ import annotations

import engine
from diagram import play, position
from engine.position import MAX_SCORE

START = 32_700                 # a few turns below the int16 bound

KING_AT_WONDER = """
    g  h  i  j  k
4   .  W  .  .  .
5   W  W  W  .  .
6   .  W  0k .  .
7   .  .  r$ K  K
8   ~  .  .  K  K
"""


def test_scores_past_int16_are_exact_in_an_endless_game_R_VAR_WONDER_4_R_MON_4():
    """Passing forever, seat 0's king scores the kr monument and the wonder point every turn.

    From 32,700 the black score passes 32,767 (the int16 the core used to
    store) and stays exact: two points per turn of seat 0.
    """
    snap = position(KING_AT_WONDER, variants=["wonder"], wonder_colour="g", monuments={"kr": "j7"},
                    hands=["kkrrbb", None], scores=[[START, 0, 0, 0], [0, 0, 0, 0]])
    s = engine.State.from_snapshot(snap)
    turns = (2 ** 15 - START) // 2 + 10
    for _ in range(turns):
        play(s, "pass", "wonderpoint k", "pass")
    scores = s.snapshot()["scores"]
    assert scores[0][0] == START + 2 * turns > 2 ** 15
    assert s.scores()[0][:4] == scores[0] and scores[1] == [0, 0, 0, 0]
    s.check_consistency()


def test_the_snapshot_bound_loads_and_leaves_room_to_play():
    """MAX_SCORE itself loads in both engines; a point more is refused; it is far below int32's 2**31 - 1."""
    import pytest
    from engine.errors import PositionError
    from engine import reference
    assert MAX_SCORE + 10 ** 8 * 6 < 2 ** 31 - 1
    snap = engine.new_game(2, 3).snapshot()
    snap["scores"][0] = [MAX_SCORE] * 4
    assert engine.State.from_snapshot(snap).snapshot()["scores"][0] == [MAX_SCORE] * 4
    assert reference.State.from_snapshot(snap).snapshot()["scores"][0] == [MAX_SCORE] * 4
    snap["scores"][0][2] = MAX_SCORE + 1
    for load in (engine.State.from_snapshot, reference.State.from_snapshot):
        with pytest.raises(PositionError, match="scores"):
            load(snap)
