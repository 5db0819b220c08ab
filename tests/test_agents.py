"""The baseline agents (search/baselines.py): legal in every phase, no peeking, greedy beats random."""
from __future__ import annotations

import os
import random
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:          # import `search` from this checkout even if not installed
    sys.path.insert(0, ROOT)

import engine  # noqa: E402
from engine import actions as A  # noqa: E402
from engine.info import determinize, observation  # noqa: E402
from engine.legality import conflict_bases, side_supporters, temples_beside  # noqa: E402
from search.agent import Limits, SearchError  # noqa: E402
from search.baselines import GreedyAgent, RandomAgent, hyper_at_least  # noqa: E402
from search.arena.runner import run_match  # noqa: E402

PHASES = ("action", "revolt_attack", "revolt_defend", "war_choice", "war_attack", "war_defend",
          "monument", "treasure")


def phase_positions(per_phase: int = 6, max_games: int = 400) -> dict:
    """Return {phase: [full snapshots]} collected from seeded random games (2-4 players, both boards)."""
    found = {ph: [] for ph in PHASES}
    for g in range(max_games):
        players = 2 + g % 3
        board = "standard" if g // 3 % 2 == 0 else "advanced"
        s = engine.new_game(players, 1000 + g, board)
        rng = random.Random(g)
        n = 0
        while not s.is_terminal():
            ph = s.phase
            # sample action positions sparsely, every other phase whenever met
            if len(found[ph]) < per_phase and (ph != "action" or n % 53 == 7):
                found[ph].append(s.snapshot())
            s.apply(rng.choice(s.legal_actions()))
            n += 1
        if all(len(v) >= per_phase for v in found.values()):
            break
    return found


@pytest.fixture(scope="module")
def positions():
    return phase_positions()


def agent_at(cls, snap: dict, seed: int):
    """Return an agent of `cls` told the observation of the seat to act in `snap`."""
    ag = cls(seed)
    seat = snap["to_act"]
    ag.new_game(seat, observation(snap, seat))
    return ag


def test_positions_cover_every_phase(positions):
    for ph in PHASES:
        assert len(positions[ph]) >= 6, f"found only {len(positions[ph])} {ph} positions"


@pytest.mark.parametrize("cls", [RandomAgent, GreedyAgent])
def test_agents_return_legal_decisions_in_every_phase(positions, cls):
    for ph in PHASES:
        for i, snap in enumerate(positions[ph]):
            legal = engine.State.from_snapshot(snap).legal_actions()
            for seed in range(3 if cls is RandomAgent else 1):
                a = agent_at(cls, snap, 17 * i + seed).choose(Limits())
                assert a in legal, f"{cls.__name__} chose {a} ({ph}), not legal"


def test_legal_decisions_do_not_depend_on_hidden_tiles(positions):
    """Why RandomAgent may enumerate a determinised world: the actor's legal set is the same in all."""
    rng = random.Random(3)
    for ph in PHASES:
        for snap in positions[ph]:
            seat = snap["to_act"]
            true_legal = engine.State.from_snapshot(snap).legal_actions()
            obs = observation(snap, seat)
            for _ in range(3):
                world = engine.State.from_snapshot(determinize(obs, seat, rng))
                assert world.legal_actions() == true_legal


@pytest.mark.slow
def test_agents_play_whole_games_legally_3_and_4_players():
    for players, board in ((3, "advanced"), (4, "standard")):
        res = run_match({"greedy": GreedyAgent, "random": RandomAgent}, games=players,
                        players=players, seed=5, board=board)
        assert all(g.forfeit is None for g in res.games), [g.forfeit for g in res.games]
        assert res.stats["greedy"].games == players


def test_agent_refuses_when_not_its_turn(positions):
    snap = positions["action"][0]
    other = (snap["to_act"] + 1) % snap["players"]
    for cls in (RandomAgent, GreedyAgent):
        ag = cls(0)
        ag.new_game(other, observation(snap, other))
        with pytest.raises(SearchError):
            ag.choose()


def test_greedy_never_peeks(positions):
    """Two worlds alike in all the seat sees but dealt differently: the same decision, seed for seed."""
    rng = random.Random(11)
    checked = 0
    for ph in PHASES:
        for snap in positions[ph][:4]:
            seat = snap["to_act"]
            obs = observation(snap, seat)
            w1, w2 = determinize(obs, seat, rng), determinize(obs, seat, rng)
            hidden = lambda w: ([h for s, h in enumerate(w["hands"]) if s != seat], w["bag"])  # noqa: E731
            if hidden(w1) == hidden(w2):
                continue
            assert observation(w1, seat) == observation(w2, seat)
            for seed in (0, 1):
                d1 = agent_at(GreedyAgent, w1, seed).choose()
                d2 = agent_at(GreedyAgent, w2, seed).choose()
                assert d1 == d2, f"{ph}: {A.format_action(d1)} vs {A.format_action(d2)}"
            checked += 1
    assert checked >= 20


def test_greedy_defender_commits_what_wins(positions):
    for ph in ("revolt_defend", "war_defend"):
        for snap in positions[ph]:
            seat, cf = snap["to_act"], snap["conflict"]
            colour = A.RED if cf["kind"] == "revolt" else cf["colour"]
            held = snap["hands"][seat][colour]
            base_a, base_d = conflict_bases(snap)
            if cf["kind"] == "revolt":
                assert (base_a, base_d) == (temples_beside(snap["cells"], cf["attacker_leader"]),
                                            temples_beside(snap["cells"], cf["defender_leader"]))
            need = max(0, base_a + cf["attacker_commit"] - base_d)
            n = agent_at(GreedyAgent, snap, 0).choose() - A.COMMIT_BASE
            assert n == (need if need <= held else 0)


def test_greedy_attacker_commits_enough_for_a_sure_win(positions):
    for ph in ("revolt_attack", "war_attack"):
        for snap in positions[ph]:
            seat, cf = snap["to_act"], snap["conflict"]
            colour = A.RED if cf["kind"] == "revolt" else cf["colour"]
            held = snap["hands"][seat][colour]
            base_a, base_d = conflict_bases(snap)
            obs = observation(snap, seat)
            most = min(obs["hand_sizes"][cf["defender"]], obs["unseen"][colour])   # defender's best case
            n = agent_at(GreedyAgent, snap, 0).choose() - A.COMMIT_BASE
            assert 0 <= n <= held
            if base_a > base_d + most:
                assert n == 0                      # already safe: nothing to spend
            elif base_a + held > base_d + most:
                assert base_a + n > base_d + most  # a sure win is taken


def test_hypergeometric_tail():
    assert hyper_at_least(10, 0, 5, 1) == 0.0
    assert hyper_at_least(10, 10, 5, 5) == 1.0
    assert hyper_at_least(10, 3, 5, 0) == 1.0
    assert hyper_at_least(2, 1, 1, 1) == pytest.approx(0.5)
    assert hyper_at_least(52, 4, 5, 1) == pytest.approx(1 - 48 * 47 * 46 * 45 * 44 / (52 * 51 * 50 * 49 * 48))


def test_greedy_weights_are_checked():
    GreedyAgent(0, weights={"leader": 2.0})
    with pytest.raises(ValueError):
        GreedyAgent(0, weights={"no_such_weight": 1.0})


@pytest.mark.slow
def test_greedy_beats_random():
    # speed is bench/'s business (agent timing figures are in docs/benchmarks.md)
    res = run_match({"greedy": GreedyAgent, "random": RandomAgent}, games=40, players=2, seed=2024)
    st = res.stats["greedy"]
    assert st.games == 40 and st.forfeits == 0
    assert st.win_share >= 0.9, res.table()


def test_greedy_counts_supporters_through_the_wonder_R_VAR_WONDER_2():
    """The wonder connects like tiles: a black tile beyond it supports the king (else greedy's
    English commitment, computed from these bases, is not a legal count)."""
    cells = [0] * 176
    king, wonder, tile = 5 * 16 + 4, 5 * 16 + 5, 5 * 16 + 6      # e6, f6, g6 in a row
    cells[wonder], cells[tile] = 10, 1
    assert side_supporters(cells, {king}, king, -1, 0) == 1
    cells[wonder] = 9                                               # a catastrophe cuts it
    assert side_supporters(cells, {king}, king, -1, 0) == 0
