"""The greedy kernel (ext/search/greedy.pyx) decides exactly as the Python reference (search.baselines.PyGreedyAgent)."""
from __future__ import annotations

import collections
import os
import random
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:          # import `search` from this checkout even if not installed
    sys.path.insert(0, ROOT)

import engine  # noqa: E402
from engine import actions as A  # noqa: E402
from ext.search.greedy import GreedyParams, _tie_noise, greedy_choose  # noqa: E402
from search.agent import SearchError  # noqa: E402
from search.baselines import (DEFAULT_WEIGHTS, GreedyAgent, PyGreedyAgent, kernel_world,  # noqa: E402
                              tie_noise)

# (players, seed, board, variants, driver): the driver plays the moves, greedy or seeded random
# (random play reaches conflicts and choices greedy players avoid); both greedy agents decide
# at every step of every seat either way.
GAMES = (
    (2, 1, "standard", (), "greedy"),
    (3, 2, "standard", (), "greedy"),
    (4, 3, "standard", (), "greedy"),
    (2, 4, "standard", (), "random"),
    (2, 5, "standard", ("buildings", "wonder"), "greedy"),
    (3, 6, "advanced", ("english",), "random"),
    (4, 7, "advanced", ("english", "buildings", "wonder"), "greedy"),
    (3, 8, "standard", ("buildings", "wonder"), "random"),
    (2, 9, "advanced", ("english",), "greedy"),
    (2, 21, "standard", ("wonder",), "random"),        # seeds whose random play builds the wonder
    (4, 306, "standard", ("wonder",), "random"),
)
COVERED = ("action", "revolt_attack", "revolt_defend", "war_choice", "war_attack", "war_defend",
           "monument", "treasure", "building", "wonder", "wonder_point")


def compare_game(players: int, seed: int, board: str, variants: tuple, driver: str,
                 weights: dict | None = None, max_decisions: int = 3000) -> collections.Counter:
    """Play one game with both greedy agents in every seat; fail at the first decision they disagree on.

    Return {phase: decisions compared with more than one legal choice}.
    """
    state = engine.new_game(players, seed, board, variants)
    py = [PyGreedyAgent(seed * 100 + s, weights) for s in range(players)]
    kernel = [GreedyAgent(seed * 100 + s, weights) for s in range(players)]
    rng = random.Random(seed)
    for s in range(players):
        obs = state.observation(s)
        py[s].new_game(s, obs)
        kernel[s].new_game(s, obs)
    compared = collections.Counter()
    n = 0
    while not state.is_terminal() and n < max_decisions:
        seat = state.to_act
        a, b = py[seat].choose(), kernel[seat].choose()
        assert a == b, (f"{players}p seed {seed} {board} {variants}: decision {n} ({state.phase}, seat {seat}): "
                        f"Python {A.format_action(a)}, kernel {A.format_action(b)}")
        if state.count_legal() > 1:
            compared[state.phase] += 1
        action = a if driver == "greedy" else rng.choice(state.legal_actions())
        state.apply(action)
        for s in range(players):
            obs = state.observation(s)
            py[s].apply(action, obs)
            kernel[s].apply(action, obs)
        n += 1
    compared["decisions"] = n
    return compared


def test_kernel_and_python_agree_over_the_first_decisions():
    """The fast tier's small case of the comparison below: the first 40 decisions of one random-driven game."""
    counts = compare_game(3, 6, "advanced", ("english", "buildings", "wonder"), "random", max_decisions=40)
    assert counts["decisions"] == 40


@pytest.fixture(scope="module")
def played():
    return [compare_game(*g) for g in GAMES]


@pytest.mark.slow
def test_kernel_and_python_agree_on_every_decision(played):
    """Same decision at every step of seeded 2-4 player games, both boards, every variant."""
    total = sum(played, collections.Counter())
    assert total["decisions"] > 1500
    missing = [ph for ph in COVERED if total[ph] == 0]
    assert not missing, f"no decision compared in {missing}: {dict(total)}"
    assert total["revolt_attack"] + total["war_attack"] >= 20 and total["war_choice"] >= 5


@pytest.mark.slow
def test_every_game_ends(played):
    """The games compared are whole games, each player's stall rule included."""
    for (players, seed, board, variants, driver), counts in zip(GAMES, played):
        assert counts["decisions"] < 3000, (players, seed, variants)


@pytest.mark.slow
def test_agree_with_other_weights():
    """Weights are read by the kernel as by the reference (a 4-player game, every weight changed)."""
    weights = {k: v * (1.3 if i % 2 else 0.7) for i, (k, v) in enumerate(DEFAULT_WEIGHTS.items())}
    counts = compare_game(4, 11, "standard", (), "greedy", weights, max_decisions=120)
    assert counts["decisions"] == 120


def test_tie_noise_is_the_kernels():
    """The reference's tie-breaking noise is the kernel's, bit for bit, and below 1e-9."""
    rng = random.Random(3)
    for _ in range(200):
        salt, action = rng.getrandbits(64), rng.randrange(A.NUM_ACTIONS)
        x = tie_noise(salt, action)
        assert x == _tie_noise(salt, action)
        assert 0.0 <= x < 1e-9


def test_kernel_world_keeps_the_observation():
    """The kernel agent's world (unseen tiles in colour order) has the observation it came from."""
    state = engine.new_game(3, 5)
    rng = random.Random(5)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    for seat in range(3):
        obs = state.observation(seat)
        world = kernel_world(obs)
        assert world.observation(seat) == obs
        assert world._consistency_problems() == []


def test_greedy_choose_checks_the_seat_and_keeps_the_world():
    state = engine.new_game(2, 1)
    before = state.snapshot()
    params = GreedyParams(DEFAULT_WEIGHTS)
    seat = state.to_act
    with pytest.raises(ValueError, match=f"seat {seat} is to act"):
        greedy_choose(state, 1 - seat, params, 0, 0)
    assert greedy_choose(state, seat, params, 0, 0) in state.legal_actions()
    assert state.snapshot() == before
    with pytest.raises(ValueError, match="missing weight"):
        GreedyParams({"tau": 1.0})


def test_kernel_agent_checks_the_turn():
    state = engine.new_game(2, 1)
    ag = GreedyAgent(0)
    seat = 1 - state.to_act
    ag.new_game(seat, state.observation(seat))
    with pytest.raises(SearchError):
        ag.choose()


def test_the_kernel_bench_times_every_recorded_decision(capsys):
    from bench import greedy_bench
    calls = greedy_bench.kernel_worlds(2, 1)
    assert len(calls) > 50
    median, mean = greedy_bench.time_kernel(calls[:20], 2)
    assert 0 < median and 0 < mean
    assert greedy_bench.main(["--kernel", "--games", "1", "--repeat", "1", "--players", "2"]) == 0
    assert f"2p kernel {len(calls):13d}" in capsys.readouterr().out


def _play_on_from_the_stall(steps: int, check_reference: int) -> engine.State:
    """Replay tests/data/greedy-stall.txt, then let greedy seats play on (the reference checked for a while)."""
    from engine.record import replay_record
    with open(os.path.join(ROOT, "tests", "data", "greedy-stall.txt")) as f:
        state, _ = replay_record(f.read(), engine.new_game, engine.State.from_snapshot)
    kernel = [GreedyAgent(s + 1) for s in range(2)]
    py = [PyGreedyAgent(s + 1) for s in range(2)]
    for s in range(2):
        kernel[s].new_game(s, state.observation(s))
        py[s].new_game(s, state.observation(s))
    for step in range(steps):
        if state.is_terminal():
            break
        seat = state.to_act
        a = kernel[seat].choose()
        if step < check_reference:
            assert py[seat].choose() == a, f"step {step}"
        else:
            py[seat].rng.getrandbits(64)            # keep the two agents' salts in step
        state.apply(a)
        for s in range(2):
            kernel[s].apply(a, state.observation(s))
            py[s].apply(a, state.observation(s))
    return state


def test_a_revolt_greedy_will_not_pay_for_is_not_started(monkeypatch):
    """The record looped on lost revolts while a revolt was valued at its best odds (R-REV-4); valued at the commitment greedy makes, it ends by the rules with the stall rule off."""
    import search.baselines
    monkeypatch.setattr(search.baselines, "STALL_ACTIONS_PER_PLAYER", 10 ** 9)
    state = _play_on_from_the_stall(1000, check_reference=1000)
    assert state.is_terminal()
    assert state.snapshot()["end_reason"] in ("bag", "treasures")


def test_a_stalled_greedy_seat_places_a_tile():
    """After four rounds without a tile placed or swapped, a seat that would place a leader, a catastrophe or pass places a tile or swaps (kernel and reference)."""
    from engine.record import replay_record
    with open(os.path.join(ROOT, "tests", "data", "greedy-stall.txt")) as f:
        state, _ = replay_record(f.read(), engine.new_game, engine.State.from_snapshot)
    overruled = 0
    for step in range(40):
        if state.is_terminal():
            break
        seat = state.to_act
        chosen = {}
        for stalled in (False, True):
            for cls in (GreedyAgent, PyGreedyAgent):
                agent = cls(seat + 1)
                agent.new_game(seat, state.observation(seat))
                agent.stalled = lambda: stalled
                chosen[stalled, cls] = agent.choose()
        assert chosen[True, GreedyAgent] == chosen[True, PyGreedyAgent], f"step {step}"
        assert chosen[False, GreedyAgent] == chosen[False, PyGreedyAgent], f"step {step}"
        free, forced = chosen[False, GreedyAgent], chosen[True, GreedyAgent]
        if state.phase == "action":
            places = lambda a: a < A.LEADER_BASE or A.SWAP_BASE <= a < A.PASS   # noqa: E731
            assert places(forced), f"step {step}: stalled, greedy chose {A.format_action(forced)}"
            overruled += not places(free)
        state.apply(free)
    assert overruled >= 1           # the rule changed a decision that would have placed no tile
