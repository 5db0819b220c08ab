"""Inference over the hidden tiles (search/inference.py): public facts exact, weights from play, and it never peeks (R-INFO-1)."""
from __future__ import annotations

import itertools
import math
import os
import tarfile

import pytest

import engine
from diagram import position
from engine.actions import parse_action
from engine.info import observation
from engine.record import replay_record
from ext.search.evaluation import prior_chances
from search.agent import Limits
from search.inference import HandFilter, draw_log_chance
import search.ismcts
from search.ismcts import MIN_SEARCH_SECONDS, ISMCTSAgent, limits_after
from search.params import SearchParams

INFERENCE = SearchParams(inference=True)
RECORDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "records")


def game(seat1_hand: str, draws: str = "rrg") -> engine.State:
    """Seat 1 to act in its turn; seat 0 (the observer) holds kbbggg.

        a  b  c  d
    5   r  0k .  .
    6   1b g  .  .
    """
    return engine.State.from_snapshot(position("""
        a  b  c  d
    5   r  0k .  .
    6   1b g  .  .
    """, hands=["kbbggg", seat1_hand], draws=draws, turn_owner=1, to_act=1))


def seen_by_seat0(state: engine.State, decisions: list) -> tuple:
    """Play the decisions; return seat 0's observations before and after each, and the decisions."""
    obs = [observation(state.snapshot(), 0)]
    acts = []
    for text in decisions:
        a = parse_action(text)
        state.apply(a)
        acts.append(a)
        obs.append(observation(state.snapshot(), 0))
    return obs, acts


def search_stats(obs: list, acts: list, params: SearchParams) -> tuple:
    agent = ISMCTSAgent(seed=7, params=params)
    agent.new_game(0, obs[0])
    for a, o in zip(acts, obs[1:]):
        agent.apply(a, o)
    agent.choose(Limits(iterations=400))
    stats = [(c.action, c.visits, round(c.mean, 12)) for c in agent.last_result.candidates]
    weights = agent.hand_filter.weights() if agent.hand_filter is not None else None
    return stats, weights


# ------------------------------------------------------------ never peeks

@pytest.mark.parametrize("hands, decisions", [
    # the same public history: seat 1 swaps two tiles (black in one game, green in the other) and passes
    (("kkrrbg", "rrbbgg"), (["swap kk", "pass"], ["swap gg", "pass"])),
    # seat 1 places a red tile and passes, holding other hidden tiles in each game
    (("rrkkbb", "rgggbk"), (["tile r d6", "pass"], ["tile r d6", "pass"])),
])
def test_games_alike_in_all_the_seat_sees_give_identical_searches(hands, decisions):
    obs_a, acts_a = seen_by_seat0(game(hands[0]), decisions[0])
    obs_b, acts_b = seen_by_seat0(game(hands[1]), decisions[1])
    assert obs_a == obs_b                       # the pair: the same public history and the same own hand
    assert game(hands[0]).snapshot()["hands"][1] != game(hands[1]).snapshot()["hands"][1]
    assert search_stats(obs_a, acts_a, INFERENCE) == search_stats(obs_b, acts_b, INFERENCE)


def test_inference_changes_the_search_once_the_opponent_has_played():
    obs, acts = seen_by_seat0(game("rrkkbb"), ["tile r d6", "pass"])
    with_inference, weights = search_stats(obs, acts, INFERENCE)
    without, none = search_stats(obs, acts, SearchParams())
    assert none is None and len(set(weights)) > 1       # the sets were weighed apart
    assert with_inference != without


def test_the_knob_is_off_by_default_and_reproducible():
    assert SearchParams().inference is False
    obs, acts = seen_by_seat0(game("rrkkbb"), ["tile r d6", "pass"])
    assert search_stats(obs, acts, INFERENCE) == search_stats(obs, acts, INFERENCE)


def test_the_filter_is_paid_from_the_seats_own_clock(monkeypatch):
    """At equal time the filter's work comes out of the search's seconds, not on top of them."""
    obs, acts = seen_by_seat0(game("rrkkbb"), ["tile r d6", "pass"])
    agent = ISMCTSAgent(seed=7, params=INFERENCE)
    agent.new_game(0, obs[0])
    for a, o in zip(acts, obs[1:]):
        agent.apply(a, o)
    clock = iter([100.0, 100.015])              # the filter takes 15 ms of a 20 ms decision
    monkeypatch.setattr(search.ismcts, "filter_clock", lambda: next(clock))
    given = []
    real_search = agent.search_engine.search
    monkeypatch.setattr(agent.search_engine, "search",
                        lambda *args, **kw: given.append(args[2]) or real_search(*args, **kw))
    agent.choose(Limits(iterations=50, seconds=0.02))
    assert given[0].iterations == 50 and given[0].seconds == pytest.approx(0.005)


def test_limits_after_keeps_iterations_and_a_moment_to_search():
    assert limits_after(Limits(iterations=400), 5.0) == Limits(iterations=400)
    assert limits_after(Limits(seconds=0.02), 0.5).seconds == MIN_SEARCH_SECONDS


# ------------------------------------------------------------ the filter's facts

def test_public_facts_hold_in_every_set():
    """After seat 1 places a red tile and draws, every live set has its public size and fits the unseen tiles."""
    state = game("rrkkbb")
    f = HandFilter(0, observation(state.snapshot(), 0), sets=64, seed=1)
    obs, acts = seen_by_seat0(state, ["tile r d6", "pass"])
    for a, before, after in zip(acts, obs, obs[1:]):
        f.update(a, before, after)
    hands, weights = f.weighted_hands()
    assert len(hands) == len(weights) >= 1 and math.isclose(sum(weights), 1.0)
    unseen = obs[-1]["unseen"]
    for h in hands:
        assert h[0] == [0, 0, 0, 0]
        assert sum(h[1]) == obs[-1]["hand_sizes"][1]
        assert all(h[1][c] <= unseen[c] for c in range(4))
    assert 1.0 <= f.effective_size() <= 64
    assert f.observed == 2 and f.resets == 0


def test_the_pooled_chances_are_each_sets_own():
    """prior_chances shares one chance between sets giving the actor the same tiles; it must equal each set alone.

    Followed along a recorded 4-player game (conflicts and swaps included), at every decision of another seat.
    """
    with tarfile.open(os.path.join(RECORDS, "sprt-4p-mix05-seed43600.tar.xz")) as tar:
        name = min(m.name for m in tar.getmembers() if os.path.basename(m.name).startswith("game"))
        text = tar.extractfile(name).read().decode()
    header = "\n".join(line for line in text.splitlines() if line.startswith("["))
    _, actions = replay_record(text, engine.new_game)
    state, _ = replay_record(header, engine.new_game)
    seat = 1
    obs = observation(state.snapshot(), seat)
    f = HandFilter(seat, obs, sets=48, seed=3)
    compared = 0
    for a in actions:
        before = obs
        if before["to_act"] != seat and before["phase"] != "over":
            world = f._world(before)
            sets = [bytes(c for h in hands for c in h) for hands in f.hands]
            pooled = prior_chances(world, seat, b"".join(sets), a, 4.0)
            assert pooled == [prior_chances(world, seat, one, a, 4.0)[0] for one in sets]
            compared += 1
        state.apply(a)
        obs = observation(state.snapshot(), seat)
        f.update(a, before, obs)
        if state.is_terminal():
            break
    assert compared > 50


@pytest.mark.parametrize("players", [2, 4])
def test_resampling_draws_each_seats_hand_apart(players):
    """After a decision only two sets explain, the other seats' hands are joined anew, not copied whole."""
    obs = observation(engine.new_game(players=players, seed=5).snapshot(), 0)
    f = HandFilter(0, obs, sets=16, seed=2)
    survivors = [[list(h) for h in f.hands[k]] for k in (3, 9)]
    f.logw = [0.0 if k in (3, 9) else -math.inf for k in range(16)]
    f._resample(obs["unseen"])
    for hands in f.hands:
        assert all(hands[q] in (survivors[0][q], survivors[1][q]) for q in range(1, players))
        assert all(sum(h[c] for h in hands) <= obs["unseen"][c] for c in range(4))
    joined = {str(h) for h in f.hands}
    assert len(joined) == 2 if players == 2 else len(joined) > 2
    assert f.weights() == [1 / 16] * 16


def test_a_set_without_the_colour_played_drops_out():
    state = game("rrkkbb")
    f = HandFilter(0, observation(state.snapshot(), 0), sets=2, seed=1)
    f.hands = [[[0, 0, 0, 0], [0, 0, 3, 3]], [[0, 0, 0, 0], [2, 2, 2, 0]]]   # no red / two reds
    obs, acts = seen_by_seat0(state, ["tile r d6"])
    f.update(acts[0], obs[0], obs[1])
    assert f.weights() == [0.0, 1.0]


def test_the_prior_model_gives_illegal_decisions_no_chance_and_sums_to_one():
    state = game("rrkkbb")
    legal = state.legal_actions()
    hands = bytes([0, 0, 0, 0, 2, 2, 2, 0])
    chances = [prior_chances(state, 0, hands, a, 4.0)[0] for a in legal]
    assert math.isclose(sum(chances), 1.0, rel_tol=1e-9)
    green = parse_action("tile g d6")
    assert prior_chances(state, 0, bytes([0, 0, 0, 0, 3, 0, 3, 0]), green, 4.0) == [0.0]   # no green held
    assert prior_chances(state, 0, bytes([0, 0, 0, 0, 3, 0, 2, 1]), green, 4.0)[0] > 0
    with pytest.raises(ValueError, match="temperature"):
        prior_chances(state, 0, hands, legal[0], 0.0)


def test_draw_log_chance_is_the_multivariate_hypergeometric():
    left = [2, 1, 3, 0]
    pool = [c for c in range(4) for _ in range(left[c])]
    draws = list(itertools.combinations(range(len(pool)), 2))
    for drawn in ([1, 1, 0, 0], [0, 0, 2, 0], [1, 0, 1, 0]):
        hits = sum(1 for d in draws if [sorted(pool[i] for i in d).count(c) for c in range(4)] == drawn)
        assert math.isclose(math.exp(draw_log_chance(drawn, left)), hits / len(draws))
    assert draw_log_chance([0, 2, 0, 0], left) == -math.inf
