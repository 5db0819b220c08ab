"""Information sets (engine/info.py, R-INFO-1): observation and determinisation."""
from __future__ import annotations

import random

import pytest

from diagram import position, tile_totals
from engine.errors import PositionError
from engine.info import determinize, is_observation, observation, unseen_tiles
from engine.position import SNAPSHOT_KEYS, TILE_TOTALS, format_position, public_snapshot

TOTALS = list(TILE_TOTALS)




def sample_snapshot() -> dict:
    """Three seats, tiles swapped and discarded, a catastrophe and a monument."""
    return position("""
        a  b  c  d
    5   K  K  .  .
    6   K  K  0k x
    """, players=3, hands=["kkrbgg", "rrb", "gggg"], swapped=["rb", "kkkg", ""],
        discarded="rrrg", monuments={"kb": "a5"}, turn_owner=1, draws="bbk")


def reshuffle_hidden(snap: dict, seat: int, rng: random.Random) -> dict:
    """Deal the tiles hidden from `seat` differently (same sizes): only hidden parts change."""
    pool = list(snap["bag"])
    for s in range(snap["players"]):
        if s != seat:
            for part in (snap["hands"][s], snap["swapped"][s]):
                pool += [c for c in range(4) for _ in range(part[c])]
    rng.shuffle(pool)
    out = {k: v for k, v in snap.items()}
    out["hands"], out["swapped"] = [], []
    for key in ("hands", "swapped"):
        for s in range(snap["players"]):
            if s == seat:
                out[key].append(list(snap[key][s]))
            else:
                n = sum(snap[key][s])
                part, pool = pool[:n], pool[n:]
                out[key].append([part.count(c) for c in range(4)])
    out["bag"] = pool
    return out


def random_game_snapshots(impl, seed: int, players: int, every: int = 7, limit: int = 400):
    rng = random.Random(seed)
    state = impl.new_game(players=players, seed=seed)
    n = 0
    while not state.is_terminal() and n < limit:
        if n % every == 0:
            yield state.snapshot()
        state.apply(rng.choice(state.legal_actions()))
        n += 1
    yield state.snapshot()


# --- observation ------------------------------------------------------------------

def test_observation_holds_public_part_own_hand_sizes_and_unseen():
    s = sample_snapshot()
    obs = observation(s, 0)
    assert is_observation(obs) and not is_observation(s)
    assert obs["seat"] == 0
    assert obs["hand"] == [2, 1, 1, 2]
    assert obs["own_swapped"] == [0, 1, 1, 0]
    assert obs["hands"] is None and obs["bag"] is None and obs["swapped"] is None
    assert obs["hand_sizes"] == [6, 3, 4]
    assert obs["swapped_sizes"] == [2, 4, 0]
    assert obs["bag_size"] == len(s["bag"])
    for k in SNAPSHOT_KEYS:
        if k not in ("hands", "bag", "swapped"):
            assert obs[k] == s[k]
    # unseen = bag + other hands + other seats' swapped tiles
    expect = [s["bag"].count(c) + sum(s["hands"][o][c] + s["swapped"][o][c] for o in (1, 2))
              for c in range(4)]
    assert obs["unseen"] == expect == unseen_tiles(s, 0)
    # the public part of an observation formats like the snapshot's
    assert format_position(obs) == format_position(s)


def test_observation_ignores_hidden_parts_of_other_seats():
    s = sample_snapshot()
    rng = random.Random(1)
    for seat in range(3):
        for _ in range(20):
            other = reshuffle_hidden(s, seat, rng)
            assert tile_totals(other) == TOTALS
            assert observation(other, seat) == observation(s, seat)
    # ...but does depend on the seat's own hand
    changed = reshuffle_hidden(s, 1, random.Random(5))
    assert changed["hands"][0] != s["hands"][0]
    assert observation(changed, 0) != observation(s, 0)


def test_observation_does_not_alias_the_snapshot():
    s = sample_snapshot()
    obs = observation(s, 2)
    obs["scores"][0][0] = 99
    obs["hand"][3] = 0
    assert s["scores"][0][0] == 0 and s["hands"][2][3] == 4


def test_observation_errors():
    s = sample_snapshot()
    for seat in (-1, 3, "0", None, True):
        with pytest.raises(PositionError, match="seat"):
            observation(s, seat)
    with pytest.raises(PositionError, match="hands"):
        observation(public_snapshot(s), 0)
    with pytest.raises(PositionError, match="seat 0"):
        observation(observation(s, 0), 1)
    assert observation(observation(s, 0), 0) == observation(s, 0)


# --- determinize ---------------------------------------------------------------------

def check_sample(snap: dict, seat: int, sample: dict) -> None:
    assert set(sample) == set(SNAPSHOT_KEYS)
    assert tile_totals(sample) == TOTALS
    assert observation(sample, seat) == observation(snap, seat)


@pytest.mark.slow
def test_determinize_keeps_the_observation_and_conserves_153_tiles():
    s = sample_snapshot()
    for seat in range(3):
        obs = observation(s, seat)
        for seed in range(200):
            check_sample(s, seat, determinize(s, seat, random.Random(seed)))
            check_sample(s, seat, determinize(obs, seat, random.Random(seed)))


def test_determinize_from_snapshot_or_observation_is_the_same_and_reproducible():
    s = sample_snapshot()
    a = determinize(s, 1, random.Random(42))
    b = determinize(observation(s, 1), 1, random.Random(42))
    assert a == b == determinize(s, 1, random.Random(42))
    assert len({format_position(determinize(s, 1, random.Random(k)), hidden=True) for k in range(20)}) > 1


def test_determinize_does_not_depend_on_other_seats_hidden_tiles():
    s = sample_snapshot()
    other = reshuffle_hidden(s, 0, random.Random(3))
    assert other != s
    for seed in range(10):
        assert determinize(s, 0, random.Random(seed)) == determinize(other, 0, random.Random(seed))


@pytest.mark.slow
def test_determinize_is_roughly_uniform():
    s = sample_snapshot()
    unseen = observation(s, 0)["unseen"]
    n, counts = 3000, [0, 0, 0, 0]
    for seed in range(n):
        d = determinize(s, 0, random.Random(seed))
        counts[d["bag"][-1]] += 1               # the next tile drawn
    for c in range(4):
        expect = n * unseen[c] / sum(unseen)
        assert abs(counts[c] - expect) < 5 * (expect ** 0.5) + 5, (counts, unseen)


def test_determinize_rejects_unconserved_tiles():
    s = sample_snapshot()
    s["bag"].pop()                              # a tile vanished: unseen no longer fits
    with pytest.raises(PositionError, match="conserved"):
        determinize(s, 0, random.Random(0))
    obs = observation(sample_snapshot(), 0)
    obs["hand"] = [6, 0, 0, 0]                  # own hand no longer matches the public sizes
    with pytest.raises(PositionError):
        determinize(obs, 0, random.Random(0))


@pytest.mark.slow
def test_determinize_along_random_games_gives_states_the_engine_accepts(impl):
    for seed, players in ((1, 2), (2, 3), (3, 4)):
        for snap in random_game_snapshots(impl, seed, players):
            for seat in range(players):
                d = determinize(snap, seat, random.Random(seed * 10 + seat))
                check_sample(snap, seat, d)
                state = impl.from_snapshot(d)
                assert state.snapshot() == d
                state.check_consistency()
                if state.to_act == seat:            # the seat's own choices are unchanged
                    assert state.legal_actions() == impl.from_snapshot(snap).legal_actions()
