"""pytest-benchmark suite for the rules engine (not part of the default test run).

    pytest bench/ --benchmark-only
"""
import random

import pytest

import engine
from engine import reference


def midgame(new_game, players: int, decisions: int = 60):
    s = new_game(players, 7, "standard")
    rng = random.Random(7)
    for _ in range(decisions):
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("players", [2, 4])
def test_random_game_cython(benchmark, players):
    seeds = iter(range(10 ** 9))
    benchmark(lambda: engine.new_game(players, next(seeds)).random_playout(1))


@pytest.mark.parametrize("players", [2, 4])
def test_legal_actions_cython(benchmark, players):
    s = midgame(engine.new_game, players)
    benchmark(s.legal_actions)


@pytest.mark.parametrize("players", [2, 4])
def test_legal_actions_reference(benchmark, players):
    s = midgame(reference.new_game, players)
    benchmark(s.legal_actions)


@pytest.mark.parametrize("players", [2, 4])
def test_clone_cython(benchmark, players):
    benchmark(midgame(engine.new_game, players).clone)


@pytest.mark.parametrize("players", [2, 4])
def test_clone_and_apply_cython(benchmark, players):
    s = midgame(engine.new_game, players)
    a = s.legal_actions()[len(s.legal_actions()) // 2]
    benchmark(lambda: s.clone().apply(a))
