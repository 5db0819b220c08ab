"""Differential test: the Cython engine against the pure-Python reference.

Along seeded random games (2-4 players, both boards) both must offer the same
legal decisions, reach the same snapshot after every decision (board, hands,
bag, scores, phase, conflict) and the same final result.
"""
import random

import pytest

import engine
from engine import reference
from engine.actions import format_action

GAMES = 300


def first_difference(a: dict, b: dict) -> str:
    """Name the first field where two snapshots differ."""
    for k in a:
        if a[k] != b.get(k):
            return f"{k}: cython {a[k]!r} != reference {b.get(k)!r}"
    return "keys differ"


@pytest.mark.parametrize("chunk", range(10))
def test_cython_matches_reference_along_random_games(chunk):
    for game in range(chunk, GAMES, 10):
        players = 2 + game % 3
        board = "standard" if game % 2 == 0 else "advanced"
        fast = engine.new_game(players, game, board)
        ref = reference.new_game(players, game, board)
        rng = random.Random(game)
        history = []
        while True:
            sf, sr = fast.snapshot(), ref.snapshot()
            assert sf == sr, f"game {game} after {history[-3:]}: {first_difference(sf, sr)}"
            legal = fast.legal_actions()
            assert legal == ref.legal_actions(), f"game {game} after {history[-3:]}: legal decisions differ"
            if fast.is_terminal():
                assert ref.is_terminal()
                assert fast.result() == ref.result()
                assert fast.scores() == ref.scores()
                break
            a = rng.choice(legal)
            history.append(format_action(a))
            fast.apply(a)
            ref.apply(a)
