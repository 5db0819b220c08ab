"""Random play: 2,000 seeded full games across 2-4 players and both boards,
and 100 more for each 2015 variant alone and for all of them together.

check_consistency() runs after every decision; position strings and game
records round-trip along the way; garbage decisions are refused with the state
unchanged; the same seed gives the same game.
"""
import random

import pytest

import engine
from engine import IllegalActionError
from engine.actions import NUM_ACTIONS, kind
from engine.boards import SQUARES, neighbours
from engine.position import format_position, parse_position
from engine.record import GameRecorder, replay_record

GAMES = 2000
CHUNKS = 20


def play(players: int, seed: int, board: str, check=True):
    """Play one seeded uniformly random game; return (final state, actions)."""
    s = engine.new_game(players, seed, board)
    rng = random.Random(seed)
    actions = []
    while not s.is_terminal():
        a = rng.choice(s.legal_actions())
        s.apply(a)
        actions.append(a)
        if check:
            s.check_consistency()
    return s, actions


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.slow
def test_random_games_stay_consistent(chunk):
    ended = set()
    for game in range(chunk, GAMES, CHUNKS):
        players = 2 + game % 3
        board = "standard" if game // 3 % 2 == 0 else "advanced"
        s = engine.new_game(players, game, board)
        rng = random.Random(game)
        decisions = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            assert legal == sorted(set(legal)) and legal
            if decisions % 37 == 0:
                snap = s.snapshot()
                text = format_position(snap, hidden=True)
                assert parse_position(text) == snap
                again = engine.State.from_snapshot(parse_position(text))
                assert again.legal_actions() == legal
                junk = rng.randrange(NUM_ACTIONS)
                if junk not in legal:
                    with pytest.raises(IllegalActionError):
                        s.apply(junk)
                    assert s.snapshot() == snap
            s.apply(rng.choice(legal))
            s.check_consistency()
            decisions += 1
        assert s.legal_actions() == []
        ranks = s.result()
        assert min(ranks) == 0 and len(ranks) == players
        ended.add(s.snapshot()["end_reason"])
    assert ended <= {"bag", "treasures"}


@pytest.mark.parametrize("players,board", [(2, "standard"), (3, "advanced"), (4, "standard")])
def test_game_record_replays_to_the_same_state(players, board):
    for seed in range(5):
        s = engine.new_game(players, seed, board)
        rec = GameRecorder(s, seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            rec.apply(rng.choice(s.legal_actions()))
        replayed, actions = replay_record(rec.text(), engine.new_game, engine.State.from_snapshot)
        assert actions == rec.actions
        assert replayed.snapshot() == s.snapshot()


def test_same_seed_same_game():
    a, acts_a = play(3, 77, "standard", check=False)
    b, acts_b = play(3, 77, "standard", check=False)
    assert acts_a == acts_b and a.snapshot() == b.snapshot()
    c, acts_c = play(3, 78, "standard", check=False)
    assert acts_c != acts_a


def test_kernel_playout_is_deterministic_and_ends():
    a = engine.new_game(2, 5)
    b = engine.new_game(2, 5)
    na, nb = a.random_playout(99), b.random_playout(99)
    assert na == nb and a.is_terminal() and a.snapshot() == b.snapshot()
    a.check_consistency()


VARIANT_SETS = (("english",), ("buildings",), ("wonder",), ("english", "buildings", "wonder"))


@pytest.mark.parametrize("variants", VARIANT_SETS, ids=["+".join(v) for v in VARIANT_SETS])
@pytest.mark.slow
def test_random_games_with_variants_stay_consistent(variants):
    """Half the games uniform, half steered into lines and crosses (see test_differential)."""
    seen = set()
    for game in range(100):
        players = 2 + game % 3
        board = "standard" if game // 3 % 2 == 0 else "advanced"
        s = engine.new_game(players, game, board, variants)
        rec = GameRecorder(s, seed=game) if game % 10 == 0 else None
        rng = random.Random(game)
        steer = game % 2 == 1
        decisions = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            assert legal == sorted(set(legal)) and legal
            snap = s.snapshot()
            if decisions % 23 == 0 or snap["phase"] in ("building", "wonder", "wonder_point"):
                text = format_position(snap, hidden=True)
                assert parse_position(text) == snap
                assert engine.State.from_snapshot(parse_position(text)).legal_actions() == legal
                junk = rng.randrange(NUM_ACTIONS)
                if junk not in legal:
                    with pytest.raises(IllegalActionError):
                        s.apply(junk)
                    assert s.snapshot() == snap
            build = [a for a in legal if kind(a) in ("building", "wonder")]
            grow = [a for a in legal if kind(a) == "tile"
                    and any(snap["cells"][n] == 1 + a // SQUARES for n in neighbours(a % SQUARES))]
            if steer and build and rng.random() < 0.8:
                a = rng.choice(build)
            elif steer and grow and rng.random() < 0.7:
                a = rng.choice(grow)
            else:
                a = rng.choice(legal)
            seen.add(kind(a))
            if rec is not None:
                rec.apply(a)
            else:
                s.apply(a)
            s.check_consistency()
            decisions += 1
        assert min(s.result()) == 0
        if rec is not None:
            replayed, actions = replay_record(rec.text(), engine.new_game, engine.State.from_snapshot)
            assert actions == rec.actions and replayed.snapshot() == s.snapshot()
    expected = {"english": set(), "buildings": {"building", "nobuilding"},
                "wonder": {"wonder", "nowonder", "wonderpoint"}}
    for v in variants:
        assert expected[v] <= seen, f"{v}: never saw {expected[v] - seen}"
    for v in set(expected) - set(variants):
        assert not expected[v] & seen
