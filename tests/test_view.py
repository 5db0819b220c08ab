"""A seat's view as events (engine/view.py, R-INFO-1, R-SWAP-1): what a bot is told, and nothing more."""
from __future__ import annotations

import random

import pytest

import engine
from engine.info import observation
from engine.view import SeatView, ViewError, events_for_seat, parse_letters, start_observation


def play_views(seed: int, players: int, decisions: int = 400, variants=()):
    """Play a seeded random game, keeping every seat's view from its events; yield after each decision."""
    st = engine.new_game(players, seed, "standard", variants)
    sn = st.snapshot()
    views = [SeatView.start(players, "standard", s, sn["to_act"], sn["hands"][s], variants)
             for s in range(players)]
    rng = random.Random(seed)
    for _ in range(decisions):
        if st.is_terminal():
            break
        a = rng.choice(st.legal_actions())
        before = st.snapshot()
        st.apply(a)
        after = st.snapshot()
        seen = []
        for s, v in enumerate(views):
            evs = events_for_seat(before, a, after, s)
            v.apply_all(evs)
            seen.append(evs)
        yield st, views, a, seen


@pytest.mark.parametrize("players,seed,variants", [(2, 1, ()), (3, 2, ()), (4, 3, ()), (2, 4, ()),
                                                   (3, 5, ("english", "buildings", "wonder"))])
@pytest.mark.slow
def test_R_INFO_1_a_view_from_events_is_the_observation(players, seed, variants):
    """Events alone rebuild each seat's observation after every decision, to the end of the game."""
    for st, views, _, _ in play_views(seed, players, variants=variants):
        snap = st.snapshot()
        for s, v in enumerate(views):
            assert v.observation() == observation(snap, s)


def test_R_SWAP_1_another_seats_swap_shows_only_its_size():
    """A swap reaches the other seats as `swap n`; its own seat sees the tiles and its draws."""
    swaps = 0
    for seed in range(6):
        for st, views, a, seen in play_views(seed, 2):
            if engine.actions.kind(a) == "swap":
                swaps += 1
                texts = [evs[0] for evs in seen]
                assert sum(t.split()[1].isdigit() for t in texts) == 1
                assert sum(not t.split()[1].isdigit() for t in texts) == 1
                mine = next(evs for evs in seen if not evs[0].split()[1].isdigit())
                assert len(mine) == 2 and mine[1].startswith("draw ")
                theirs = next(evs for evs in seen if evs[0].split()[1].isdigit())
                assert all(not e.startswith("draw") for e in theirs)
            if swaps >= 3:
                return
    assert swaps >= 3, "random games should swap"


def test_a_draw_must_follow_a_decision_that_drew():
    """A missing, extra or wrong-sized `draw` is refused and the view is unchanged."""
    obs = start_observation(2, "standard", 0, 0, parse_letters("kkrbgg"))
    v = SeatView(obs)
    v.apply_all(["tile k a1", "tile k b1"])           # seat 0's second action ends its turn: it draws 2
    assert v.pending_draw == 2
    with pytest.raises(ViewError, match="draw"):
        v.observation()
    with pytest.raises(ViewError, match="drew 2"):
        v.apply("draw k")
    with pytest.raises(ViewError, match="must come first"):
        v.apply("pass")
    v.apply("draw kr")
    assert v.observation()["hand"] == [1, 2, 1, 2]
    with pytest.raises(ViewError, match="drew no tiles"):
        v.apply("draw k")


def test_bad_events_leave_the_view_unchanged():
    """Illegal decisions, bad notation, another seat's named swap and impossible tiles are refused."""
    v = SeatView.start(2, "standard", 0, 1, parse_letters("kkrbgg"))
    before = v.observation()
    for events, match in ((["tile q a1"], "colour|tile"), (["swap kk"], "hidden"),
                          (["pass", "draw zz"], "letters"), (["leader k a1"], "illegal")):
        with pytest.raises(ViewError, match=match):
            v.apply_all(events)
        assert v.observation() == before
    with pytest.raises(ViewError, match="own swap"):
        SeatView.start(2, "standard", 0, 0, parse_letters("kkrbgg")).apply("swap 2")


def test_start_observation_checks_its_arguments():
    """Players, board, seats and the starting hand are checked, naming what is wrong."""
    hand = parse_letters("kkrbgg")
    for args, match in (((5, "standard", 0, 0, hand), "players"), ((2, "moon", 0, 0, hand), "board"),
                        ((2, "standard", 2, 0, hand), "seat"), ((2, "standard", 0, -1, hand), "first"),
                        ((2, "standard", 0, 0, parse_letters("kk")), "6 tiles")):
        with pytest.raises(engine.errors.PositionError, match=match):
            start_observation(*args)
