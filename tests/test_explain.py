"""The evaluation's terms (search.explain, ext.search.evaluation.explain_terms): they reproduce what the search evaluates, from public facts only."""
from __future__ import annotations

import json
import math
import random

import pytest

import engine
from engine.errors import PositionError
from engine.info import determinize, observation
from engine.position import parse_position
from ext.search import evaluation
from search.agent import SearchError
from search.explain import TERMS, explain, format_explanation
from search.params import SearchParams

VARIANTS = ["english", "buildings", "wonder"]


def positions(players: int, seed: int, variants=(), every: int = 9):
    """Yield the states of a seeded random game every few decisions, its last (ended) state included."""
    s = engine.new_game(players, seed, variants=variants)
    rng = random.Random(seed)
    n = 0
    while not s.is_terminal():
        if n % every == 0:
            yield s.clone()
        s.apply(rng.choice(s.legal_actions()))
        n += 1
    yield s


def close(a: float, b: float, tol: float = 1e-4) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def check_against_the_evaluation(state: engine.State, params: SearchParams, seen: set) -> None:
    """Every seat's explanation from its own observation adds up to what the kernel evaluates on the true state."""
    params = params.resolved(state.players)
    w = params.eval_weights(state.players)
    rewards = evaluation.evaluate_of(state, w)
    values = evaluation.seat_values_of(state, w)
    for seat in range(state.players):
        data = explain(state.observation(seat), params=params)
        json.dumps(data)
        assert data["seat"] == seat and data["over"] == state.is_terminal()
        for p, s in enumerate(data["seats"]):
            # the value and the reward are the kernel's own numbers, bit for bit
            assert s["reward"] == rewards[p]
            if not data["over"]:
                assert s["value"] == values[p]
            assert close(sum(s["terms"][k] for k in TERMS), s["value"])
            assert close(sum(s["leader_parts"].values()), s["terms"]["leaders"])
            assert close(sum(lt["contribution"] for lt in s["leaders"]), s["terms"]["leaders"])
            assert close(s["value"] - s["opponents"], s["margin"])
            if data["over"]:
                assert s["end"] == s["centre"] == 0 and s["root_reward"] == s["reward"]
                continue
            assert close(s["reward"], 1 / (1 + math.exp(-s["margin"] / params.eval_scale)))
            # at the root the needs and margins are frozen there: the centre takes the margin off
            lead = max(-2.0, min(2.0, s["margin"]))
            assert close(s["end"], params.endgame * data["progress"] * lead * 0.5)
            assert close(s["centre"], params.eval_centre * s["margin"])
            assert close(s["root_reward"],
                         1 / (1 + math.exp(-(s["margin"] + s["end"] - s["centre"]) / params.eval_scale)))
            for k in TERMS:
                if abs(s["terms"][k]) > 0:
                    seen.add(k)
            for part, v in s["leader_parts"].items():
                if v > 0:
                    seen.add(part)


@pytest.mark.parametrize("players,seeds,variants", [(2, (1, 2), ()), (3, (3,), ()), (4, (4,), ()),
                                                    (3, (29, 35), VARIANTS)])
def test_the_terms_add_up_to_what_evaluate_returns(players, seeds, variants):
    """Per seat: the terms sum to the value, the reward is evaluate's exactly, on random positions of 2-4 players and the variants."""
    seen: set = set()
    params = SearchParams()
    n = 0
    for seed in seeds:
        for state in positions(players, seed, variants):
            check_against_the_evaluation(state, params, seen)
            n += 1
    assert n >= 10
    expected = {"colours", "weakest", "leaders", "kings", "catastrophes", "temples", "supporters",
                "treasure"}
    if variants:
        expected |= {"wonder", "building"}
    assert expected <= seen, f"never exercised: {expected - seen}"


def test_other_weights_reproduce_evaluate_too():
    """With weights other than the defaults (logistic on zero, heavier kings) the explanation's rewards are evaluate's."""
    params = SearchParams().with_changes(eval_centre=0.0, king=1.5, opponents_max=1.0)
    for state in positions(3, 11, VARIANTS, every=25):
        check_against_the_evaluation(state, params, set())


def test_other_hands_and_the_bag_change_nothing():
    """Two full snapshots that differ only in the other seats' hands and the bag explain the same for the observer."""
    state = list(positions(3, 8, every=30))[2]
    a = state.snapshot()
    b = determinize(observation(a, 1), 1, random.Random(99))
    assert observation(a, 1) == observation(b, 1)
    assert a["hands"][0] != b["hands"][0] or a["hands"][2] != b["hands"][2] or a["bag"] != b["bag"]
    ea, eb = explain(a, seat=1), explain(b, seat=1)
    assert ea == eb
    # the snapshot is explained as the seat's observation is
    assert ea == {**explain(observation(a, 1)), "knowledge": "snapshot"}
    # and nothing hidden is read in the kernel either: the true states give the same terms
    w = SearchParams().eval_weights(a["players"])
    assert evaluation.explain_terms(engine.State.from_snapshot(a), w) == evaluation.explain_terms(engine.State.from_snapshot(b), w)
    # the seat's own hand is not read: the same position with the observer's tiles redealt
    c = determinize(observation(a, 2), 2, random.Random(5))
    assert c["hands"][1] != a["hands"][1]
    assert explain(c, seat=1)["seats"] == ea["seats"]


def test_bad_input_names_what_was_wrong():
    """A seat out of range, a seat that is not the observation's, a public snapshot, bad params."""
    state = list(positions(2, 5, every=20))[1]
    snap = state.snapshot()
    with pytest.raises(PositionError, match="seat 2 out of range"):
        explain(snap, seat=2)
    with pytest.raises(PositionError, match="observation of seat 0"):
        explain(observation(snap, 0), seat=1)
    public = parse_position(state.position())
    with pytest.raises(PositionError, match="public snapshot"):
        explain(public)
    with pytest.raises(PositionError):
        explain("not a position")
    with pytest.raises(SearchError, match="SearchParams"):
        explain(snap, params={"tau": 5})
    # a snapshot without a seat is seen by the seat to act
    assert explain(snap)["seat"] == state.to_act


def test_format_explanation_has_a_row_and_a_line_of_words_per_seat():
    """The table lists every seat with its weakest colour; the words say what counts most for each."""
    for players, variants in ((2, ()), (4, ()), (3, VARIANTS)):
        state = list(positions(players, 6, variants, every=40))[-2]
        data = explain(state.observation(0))
        text = format_explanation(data)
        lines = text.splitlines()
        head = next(i for i, line in enumerate(lines) if line.lstrip().startswith("seat "))
        rows = lines[head + 1:head + 1 + players]
        for p, row in enumerate(rows):
            assert row.split()[0] == str(p)
            assert data["seats"][p]["weakest"]["name"] in row
        words = [line for line in lines if line.startswith("seat ") and ":" in line]
        assert [w.split(":")[0] for w in words] == [f"seat {p}" for p in range(players)]
        assert all("weakest colour" in w and "reward" in w for w in words)
        assert ("wonder" in lines[head]) == bool(variants)


def test_an_ended_game_is_explained_with_its_final_ranking():
    """Once over, the rewards are the ranking's (as evaluate gives them) and the words say so."""
    state = list(positions(2, 9))[-1]
    assert state.is_terminal()
    data = explain(state.snapshot(), seat=0)
    assert data["over"] and data["to_act"] == -1
    ranks = state.result()
    assert [s["reward"] for s in data["seats"]] == evaluation.evaluate_of(state, SearchParams().eval_weights(state.players))
    assert data["seats"][ranks.index(0)]["reward"] >= 0.5
    assert "final reward" in format_explanation(data)
