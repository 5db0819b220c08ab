"""Smoke tests of the pure-Python reference engine (engine/reference.py).

Seeded random games on both boards for 2-4 players with every invariant
checked after every decision, snapshot round trips, illegal actions, and a few
hand-built positions for the rules the random games reach only by luck.
"""
import json
import random

import pytest

from engine.actions import NUM_ACTIONS, PASS, parse_action
from engine.errors import ConsistencyError, IllegalActionError, PositionError
from engine.reference import TILE_TOTALS, State, new_game

GAMES_PER_CONFIG = 28          # x 3 player counts x 2 boards = 168 games
BOARDS = ("standard", "advanced")
K, R, B, G = 1, 2, 3, 4        # face-up tile cell values
HANDS = [[2, 1, 1, 2], [1, 2, 1, 2]]
A = parse_action


def play_random(players, seed, board, checks=True):
    """Play one random game; return (actions, final state)."""
    s = new_game(players, seed, board)
    rng = random.Random(seed)
    actions = []
    while not s.is_terminal():
        if checks:
            s.check_consistency()
            n = len(actions)
            if n % 4 == 0:
                snap = s.snapshot()
                assert State.from_snapshot(json.loads(json.dumps(snap))).snapshot() == snap
            if n % 10 == 0:
                assert_illegal_is_rejected(s, rng)
        legal = s.legal_actions()
        assert legal == sorted(set(legal)) and legal
        assert s.to_act >= 0
        a = rng.choice(legal)
        s.apply(a)
        actions.append(a)
        assert len(actions) < 5000, "game does not terminate"
    s.check_consistency()
    assert s.to_act == -1 and s.legal_actions() == []
    assert s.snapshot()["end_reason"] in ("treasures", "bag")
    return actions, s


def assert_illegal_is_rejected(s, rng):
    legal = set(s.legal_actions())
    before = s.snapshot()
    illegal = [a for a in rng.sample(range(NUM_ACTIONS), 20) if a not in legal][:3]
    for a in illegal + [-1, NUM_ACTIONS, True, "pass", None]:
        with pytest.raises(IllegalActionError):
            s.apply(a)
    assert s.snapshot() == before


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("players", (2, 3, 4))
@pytest.mark.slow
def test_random_games(players, board):
    ends = set()
    for seed in range(GAMES_PER_CONFIG):
        _actions, s = play_random(players, seed * 7919 + players, board)
        # the final position survives a JSON round trip too
        snap = s.snapshot()
        assert State.from_snapshot(json.loads(json.dumps(snap))).snapshot() == snap
        assert len(s.scores()) == players and all(len(row) == 5 for row in s.scores())
        ranks = s.result()
        assert len(ranks) == players and min(ranks) == 0
        ends.add(s.snapshot()["end_reason"])
    assert ends  # at least one way to end was reached


@pytest.mark.slow
def test_same_seed_same_game():
    for players, board in ((2, "standard"), (4, "advanced")):
        a1, s1 = play_random(players, 12345, board, checks=False)
        a2, s2 = play_random(players, 12345, board, checks=False)
        assert a1 == a2
        assert s1.snapshot() == s2.snapshot()
    assert new_game(3, 99, "advanced").snapshot() == new_game(3, 99, "advanced").snapshot()
    assert new_game(2, 1).snapshot() != new_game(2, 2).snapshot()


def test_setup():
    for board, temples in (("standard", 10), ("advanced", 14)):
        for players in (2, 3, 4):
            snap = new_game(players, 5, board).snapshot()
            assert sum(1 for v in snap["cells"] if v == R) == temples
            assert len(snap["treasures"]) == temples
            assert all(sum(h) == 6 for h in snap["hands"])
            assert len(snap["bag"]) == 153 - temples - 6 * players
            assert snap["phase"] == "action" and snap["to_act"] == snap["turn_owner"]
            assert snap["catastrophes_left"] == [2] * players
            json.dumps(snap)


def test_clone_is_independent():
    s = new_game(2, 3)
    c = s.clone()
    c.apply(PASS)
    assert s.snapshot() == new_game(2, 3).snapshot()
    assert c.snapshot() != s.snapshot()


# ---------------------------------------------------------------- hand-built positions


def position(cells=None, leaders=None, hands=None, treasures=None, players=2, **fields):
    """new_game()'s position with fields replaced, seat 0 to act, bag rebalanced."""
    snap = new_game(players, 0, "standard").snapshot()
    for sq, v in (cells or {}).items():
        snap["cells"][sq] = v
    if leaders is not None:
        snap["leaders"] = leaders
    if hands is not None:
        snap["hands"] = hands
    if treasures is not None:
        snap["treasures"] = sorted(treasures)
    snap["turn_owner"] = snap["to_act"] = 0
    snap.update(fields)
    used = list(snap["discarded"])
    for v in snap["cells"]:
        if 1 <= v <= 8:
            used[(v - 1) % 4] += 1
    for row in snap["hands"] + snap["swapped"]:
        for c in range(4):
            used[c] += row[c]
    snap["bag"] = [c for c in range(4) for _ in range(TILE_TOTALS[c] - used[c])]
    s = State.from_snapshot(snap)
    s.check_consistency()
    return s


def test_revolt_ex1_tie_goes_to_defender():
    # defender priest e5 (2 temples), attacker priest to h5 (3 temples), joined by a settlement
    s = position(cells={68: R, 53: R, 70: K, 55: R, 87: R, 72: R},
                 leaders=[[-1, -1, -1, -1], [-1, 69, -1, -1]], hands=[[0, 3, 3, 0], [1, 4, 1, 0]])
    s.apply(A("leader r h5"))
    assert s.phase == "revolt_attack" and s.to_act == 0
    assert s.legal_actions() == [A("commit 0"), A("commit 1"), A("commit 2"), A("commit 3")]
    s.apply(A("commit 2"))
    assert s.phase == "revolt_defend" and s.to_act == 1
    s.apply(A("commit 3"))
    snap = s.snapshot()
    assert snap["leaders"] == [[-1, -1, -1, -1], [-1, 69, -1, -1]]
    assert snap["scores"] == [[0, 0, 0, 0], [0, 1, 0, 0]]
    assert snap["discarded"] == [0, 5, 0, 0]
    assert snap["committed"] == [True, True]
    assert s.phase == "action" and snap["actions_left"] == 1
    s.check_consistency()


def test_wars_choice_red_exception_and_supporters():
    s = position(cells={65: K, 67: K, 82: R, 69: K, 71: K, 86: R},
                 leaders=[[66, 81, -1, -1], [70, 87, -1, -1]], hands=HANDS)
    s.apply(A("tile k e5"))            # unites the two kingdoms: kings and priests clash
    assert s.phase == "war_choice" and s.legal_actions() == [A("war k"), A("war r")]
    s.apply(A("war r"))
    s.apply(A("commit 0"))
    s.apply(A("commit 0"))             # 1-1: the defender (seat 1) wins the red war
    snap = s.snapshot()
    assert snap["leaders"][0] == [66, -1, -1, -1]
    assert snap["cells"][82] == R       # next to seat 0's king: stays (R-WAR-5)
    assert snap["scores"][1] == [0, 1, 0, 0]
    assert s.phase == "war_attack" and snap["conflict"]["colour"] == 0
    s.apply(A("commit 1"))
    s.apply(A("commit 0"))             # 2+1 vs 2: seat 0 wins, two supporters removed
    snap = s.snapshot()
    assert snap["leaders"] == [[66, -1, -1, -1], [-1, 87, -1, -1]]
    assert [snap["cells"][q] for q in (65, 67, 68, 69, 71)] == [K, K, K, 0, 0]
    assert snap["scores"] == [[3, 0, 0, 0], [0, 1, 0, 0]]
    assert snap["discarded"] == [3, 0, 0, 0]
    assert snap["unification"] == -1 and s.phase == "action"


def test_special_treasure_first_then_choice():
    s = position(cells={1: R, 16: R}, treasures=[1, 16, 17, 31, 77, 104, 113, 142, 149, 170], hands=HANDS)
    s.apply(A("leader g c2"))
    assert s.phase == "treasure" and s.to_act == 0
    assert s.snapshot()["treasures_taken"] == [1, 0] and 17 not in s.snapshot()["treasures"]
    assert s.legal_actions() == [A("treasure b1"), A("treasure a2")]
    s.apply(A("treasure a2"))
    assert s.phase == "action" and s.snapshot()["treasures_taken"] == [2, 0]


def test_monument_turns_tiles_down_and_strands_leaders():
    s = position(cells={65: R, 66: R, 81: R}, leaders=[[80, 64, -1, -1], [-1, -1, -1, -1]], hands=HANDS)
    s.apply(A("tile r c6"))
    assert s.snapshot()["scores"][0] == [0, 1, 0, 0]
    assert s.phase == "monument"
    assert s.legal_actions() == sorted([A("monument kr b5"), A("monument rb b5"), A("monument rg b5"), A("nomonument")])
    s.apply(A("monument rb b5"))
    snap = s.snapshot()
    assert [snap["cells"][q] for q in (65, 66, 81, 82)] == [6, 6, 6, 6]
    assert snap["leaders"][0] == [-1, -1, -1, -1]   # R-LEAD-5
    assert snap["monuments"] == [-1, -1, -1, 65, -1, -1]


def test_monument_points_at_end_of_turn():
    s = position(cells={57: 5, 58: 5, 73: 5, 74: 5, 40: R}, leaders=[[56, -1, -1, -1], [-1, -1, -1, -1]],
                 hands=HANDS, monuments=[-1, 57, -1, -1, -1, -1])
    s.apply(PASS)
    assert s.snapshot()["scores"][0] == [1, 0, 0, 0] and s.turn_owner == 1


def test_placement_limits():
    base = {67: K, 82: R, 69: K, 86: R}
    two = position(cells=base, leaders=[[66, -1, -1, -1], [-1, -1, -1, 70]], hands=HANDS)
    assert A("tile k e5") in two.legal_actions()
    three = position(cells={**base, 84: K, 101: R}, leaders=[[66, -1, -1, -1], [-1, 100, -1, 70]], hands=HANDS)
    assert A("tile k e5") not in three.legal_actions()
    s = position(cells={**base, 84: R}, leaders=[[66, -1, -1, -1], [-1, -1, -1, 70]], hands=HANDS)
    assert A("leader r e5") not in s.legal_actions()          # would join two kingdoms
    assert A("leader k e5") in s.legal_actions()              # the king is lifted first
    assert A("leader k c5") not in s.legal_actions()          # same square
    assert A("cat k1") not in s.legal_actions()               # treasure
    assert A("cat c5") not in s.legal_actions()               # leader
    assert A("cat d5") in s.legal_actions() and A("cat e1") in s.legal_actions()
    assert A("tile b a1") not in s.legal_actions() and A("tile b e1") in s.legal_actions()
    assert A("tile r e1") not in s.legal_actions()


def test_scoring_and_catastrophe():
    s = position(cells={40: R}, leaders=[[56, -1, -1, -1], [-1, -1, -1, -1]], hands=HANDS)
    s.apply(A("tile g j4"))            # no trader: the king's owner scores green
    assert s.snapshot()["scores"][0] == [0, 0, 0, 1]
    s = position(cells={40: R}, leaders=[[56, -1, -1, -1], [-1, -1, -1, -1]], hands=HANDS)
    s.apply(A("cat i3"))               # the king's only temple goes: back to supply
    snap = s.snapshot()
    assert snap["leaders"][0] == [-1, -1, -1, -1] and snap["cells"][40] == 9
    assert snap["discarded"] == [0, 1, 0, 0] and snap["catastrophes_left"] == [1, 2]


def test_game_end_by_bag_and_by_treasures():
    snap = position(hands=HANDS).snapshot()
    snap["discarded"] = [snap["bag"].count(c) - (c == 1) for c in range(4)]
    snap["bag"] = [1]
    s = State.from_snapshot(snap)
    s.apply(A("swap kk"))              # one draw succeeds, the second finds the bag empty
    snap = s.snapshot()
    assert s.is_terminal() and snap["end_reason"] == "bag" and snap["hands"][0] == [0, 2, 1, 2]
    s = position(treasures=[10, 17], hands=HANDS, treasures_taken=[5, 3], scores=[[1, 0, 0, 3], [0, 0, 2, 2]])
    s.apply(PASS)
    assert s.is_terminal() and s.snapshot()["end_reason"] == "treasures"
    assert s.result() == [0, 1]        # [2,2,2,3] beats [1,2,2,2]


# ---------------------------------------------------------------- malformed snapshots


@pytest.mark.parametrize("field, value", [
    ("players", 5), ("players", "2"), ("board", "moon"), ("cells", [0] * 175),
    ("cells", [10] * 176), ("treasures", [17, 10]), ("leaders", [[-1] * 4]),
    ("monuments", [-1] * 5), ("hands", [[7, 0, 0, 0], [0, 0, 0, 0]]), ("bag", [4]),
    ("discarded", [0, 0, 0, -1]), ("turn_owner", 2), ("actions_left", 3),
    ("phase", "dance"), ("to_act", -1), ("committed", [0, 0]), ("end_reason", "bored"),
    ("conflict", {"kind": "revolt"}), ("scores", True),
])
def test_malformed_snapshot_names_the_field(field, value):
    snap = new_game(2, 0).snapshot()
    snap[field] = value
    with pytest.raises(PositionError, match=field.split(".")[0] if field != "bag" else "bag|tiles"):
        State.from_snapshot(snap)


def test_snapshot_tile_count_and_keys():
    snap = new_game(2, 0).snapshot()
    snap["bag"].append(0)
    with pytest.raises(PositionError, match="tiles"):
        State.from_snapshot(snap)
    snap = new_game(2, 0).snapshot()
    del snap["placed"]
    with pytest.raises(PositionError, match="placed"):
        State.from_snapshot(snap)
    snap = new_game(2, 0).snapshot()
    snap["extra"] = 1
    with pytest.raises(PositionError, match="extra"):
        State.from_snapshot(snap)


def test_a_stranded_leader_is_refused_and_caught():
    """A leader with no temple beside it: from_snapshot refuses it, check_consistency catches it made by hand."""
    snap = new_game(2, 0).snapshot()
    snap["leaders"][0][0] = 0          # a1: empty land, no temple next to it
    with pytest.raises(PositionError, match="temple"):
        State.from_snapshot(snap)
    s = new_game(2, 0)
    s.leaders[0][0] = 0
    with pytest.raises(ConsistencyError, match="temple"):
        s.check_consistency()
