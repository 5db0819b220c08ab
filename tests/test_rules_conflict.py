"""Revolts and wars (docs/rules.md §8, §9) and worked examples EX-1, EX-2, EX-3."""
from __future__ import annotations

import pytest

from diagram import assert_illegal, at, legal, norm, play, show, sq

# seat 1 (the turn owner) places its priest on j7 (next to j6 and i7);
# seat 0's priest on h7 touches h6 and i7. i7 counts for both.
REVOLT = """
    g  h  i  j  k
6   .  r  .  r  .
7   .  0r r$ .  .
8   ~  .  .  .  .
"""


def test_placer_attacks_other_owner_defends_R_REV_1(impl):
    s = impl.position(REVOLT, players=3, turn_owner=1,
                      hands=["rrkkbb", "rrkkbb", "rrrrrr"])
    play(s, "leader r j7")
    snap = s.snapshot()
    assert (snap["phase"], snap["to_act"]) == ("revolt_attack", 1)
    assert snap["conflict"]["attacker"] == 1 and snap["conflict"]["defender"] == 0
    play(s, "commit 0")
    assert (s.phase, s.to_act) == ("revolt_defend", 0)


@pytest.mark.parametrize("a_commit,d_commit,attacker_wins", [
    (0, 0, False),   # 1 v 1: both count the shared temple i7, tie to the defender
    (1, 0, True),    # 2 v 1
    (1, 1, False),   # 2 v 2
])
def test_base_is_adjacent_temples_shared_counts_for_both_R_REV_2(impl, a_commit, d_commit, attacker_wins):
    s = impl.position("""
        g  h  i  j  k
    7   .  0r r$ .  .
    8   ~  .  .  .  .
    """, turn_owner=1, hands=["rrkkbb", "rrkkbb"])
    play(s, "leader r j7", f"commit {a_commit}", f"commit {d_commit}")
    snap = s.snapshot()
    if attacker_wins:
        assert snap["leaders"][1][1] == sq("j7") and snap["leaders"][0][1] == -1
        assert snap["scores"] == [[0] * 4, [0, 1, 0, 0]]
    else:
        assert snap["leaders"][1][1] == -1 and snap["leaders"][0][1] == sq("h7")
        assert snap["scores"] == [[0, 1, 0, 0], [0] * 4]


def test_base_counts_only_adjacent_face_up_temples_R_REV_2_R_MON_2(impl):
    # attacker on j7 touches j6, i7, k7: 3. Defender on h7 touches h6 and i7: 2;
    # g7 is face down (monument) and h5 is in the kingdom but not adjacent.
    s = impl.position("""
        f  g  h  i  j  k
    5   .  .  r  .  .  .
    6   R  R  r  .  r  .
    7   R  R  0r r$ .  r
    8   ~  ~  .  .  .  .
    """, turn_owner=1, monuments={"rg": "f6"}, hands=["rkkbbb", "rrkkbb"])
    play(s, "leader r j7", "commit 1", "commit 1")     # 4 v 3
    snap = s.snapshot()
    assert snap["leaders"][0][1] == -1 and snap["leaders"][1][1] == sq("j7")
    assert snap["scores"] == [[0] * 4, [0, 1, 0, 0]]


def test_commit_red_tiles_attacker_then_defender_R_REV_3(impl):
    s = impl.position(REVOLT, turn_owner=1, hands=["rrkbgg", "rrrkkb"])
    play(s, "leader r j7")
    assert legal(s) == ["commit 0", "commit 1", "commit 2", "commit 3"]
    assert_illegal(s, "commit 4")
    play(s, "commit 2")
    snap = s.snapshot()
    assert snap["phase"] == "revolt_defend" and snap["to_act"] == 0
    assert snap["conflict"]["attacker_commit"] == 2       # the defender sees it
    assert legal(s) == ["commit 0", "commit 1", "commit 2"]
    assert_illegal(s, "commit 3")
    assert_illegal(s, "pass")


def test_tie_to_defender_loser_returns_committed_tiles_leave_R_REV_4_R_KING_2(impl):
    s = impl.position(REVOLT, turn_owner=1, hands=["rrkbgg", "rrrkkb"])
    before = s.snapshot()
    play(s, "leader r j7", "commit 1", "commit 1")       # 2+1 v 2+1: tie
    snap = s.snapshot()
    assert snap["leaders"][1][1] == -1                    # the attacker's priest returns
    assert snap["leaders"][0][1] == sq("h7")              # one priest left in the kingdom
    assert snap["scores"] == [[0, 1, 0, 0], [0] * 4]
    assert snap["discarded"][1] == before["discarded"][1] + 2
    assert snap["hands"][0] == [1, 1, 1, 2] and snap["hands"][1] == [2, 2, 1, 0]
    assert snap["committed"] == [True, True]
    assert snap["conflict"] is None
    assert (snap["phase"], snap["to_act"], snap["actions_left"]) == ("action", 1, 1)
    assert show(snap, "g6:k7") == norm("""
        g  h  i  j  k
    6   .  r  .  r  .
    7   .  0r r$ .  .
    """)


def test_attacker_wins_defender_priest_returns_R_REV_4(impl):
    s = impl.position(REVOLT, turn_owner=1, hands=["rrkbgg", "rrrkkb"])
    play(s, "leader r j7", "commit 3", "commit 0")        # 5 v 2
    snap = s.snapshot()
    assert snap["leaders"][0][1] == -1 and snap["leaders"][1][1] == sq("j7")
    assert snap["scores"] == [[0] * 4, [0, 1, 0, 0]]
    assert snap["committed"] == [False, True]             # committing 0 marks nothing
    play(s, "pass")                                       # seat 1 refills, seat 0 was not asked
    snap = s.snapshot()
    assert snap["hands"][0] == [1, 2, 1, 2] and sum(snap["hands"][1]) == 6


def test_ex1_revolt_five_five_defender_wins_EX_1(impl):
    s = impl.position("""
        g  h  i  j  k
    6   .  r  .  r  .
    7   .  0r r$ .  r
    8   ~  .  .  .  .
    """, turn_owner=1, hands=["rrrkbb", "rrkkbb"])
    play(s, "leader r j7")                  # attacker: j6, i7, k7 = 3; defender: h6, i7 = 2
    play(s, "commit 2")
    play(s, "commit 3")                     # 5 - 5
    snap = s.snapshot()
    assert snap["leaders"][1][1] == -1 and snap["leaders"][0][1] == sq("h7")
    assert snap["scores"] == [[0, 1, 0, 0], [0] * 4]
    assert snap["discarded"] == [0, 5, 0, 0]   # the 5 committed temples left the game
    assert snap["hands"] == [[1, 0, 2, 0], [2, 0, 2, 0]]


# --- war ---------------------------------------------------------------------

# kings on f5 (seat 0) and j5 (seat 1); h5 unifies; one black supporter each
KINGS = """
    e  f  g  h  i  j  k
4   .  .  .  .  .  .  .
5   k  0k r  .  r  1k k
6   .  .  .  .  .  .  .
"""

# the same plus traders on g4 (seat 0) and i4 (seat 1)
KINGS_TRADERS = """
    e  f  g  h  i  j  k
4   .  .  0g .  1g .  .
5   k  0k r  .  r  1k k
6   .  .  .  .  .  .  .
"""


def test_single_colour_war_starts_at_once_R_WAR_1(impl):
    s = impl.position(KINGS, hands=["kkkrrb", "kkrrbb"])
    play(s, "tile k h5")
    snap = s.snapshot()
    assert snap["phase"] == "war_attack" and snap["to_act"] == 0
    assert snap["unification"] == sq("h5") and snap["placed"] == sq("h5")
    assert snap["conflict"] == {"kind": "war", "colour": 0, "attacker": 0, "defender": 1,
                                "attacker_leader": sq("f5"), "defender_leader": sq("j5"),
                                "attacker_commit": -1}


def test_active_player_picks_colour_R_WAR_1(impl):
    s = impl.position(KINGS_TRADERS, hands=["kkkrrg", "kkrrbg"])
    play(s, "tile r h5")
    snap = s.snapshot()
    assert snap["phase"] == "war_choice" and snap["to_act"] == 0 and snap["conflict"] is None
    assert legal(s) == ["war k", "war g"]
    assert_illegal(s, "war r")
    play(s, "war g")
    snap = s.snapshot()
    assert snap["phase"] == "war_attack" and snap["conflict"]["colour"] == 3
    assert snap["conflict"]["attacker_leader"] == sq("g4")


def test_active_player_attacks_when_involved_R_WAR_2(impl):
    # seat 1 unifies: it owns one king, so it attacks though seat 0 comes first
    s = impl.position(KINGS, turn_owner=1, hands=["kkkrrb", "kkrrbb"])
    play(s, "tile k h5")
    c = s.snapshot()["conflict"]
    assert (c["attacker"], c["defender"], s.to_act) == (1, 0, 1)
    assert c["attacker_leader"] == sq("j5")


@pytest.mark.parametrize("owner,left,right,attacker", [
    (1, 0, 2, 2),     # seat 1 unifies kings of seats 0 and 2: seat 2 is first after 1
    (2, 0, 1, 0),     # seat 2 unifies kings of seats 0 and 1: seat 0 is first after 2
    (0, 2, 1, 1),     # seat 0 unifies kings of seats 2 and 1: seat 1 is first after 0
])
def test_first_owner_after_active_player_attacks_R_WAR_2(impl, owner, left, right, attacker):
    diagram = KINGS.replace("0k", f"{left}k").replace("1k", f"{right}k")
    s = impl.position(diagram, players=3, turn_owner=owner, hands=["kkkkkk"] * 3)
    play(s, "tile k h5")
    c = s.snapshot()["conflict"]
    assert c["attacker"] == attacker and c["defender"] == ({left, right} - {attacker}).pop()
    assert s.to_act == attacker and s.phase == "war_attack"
    play(s, "commit 0")
    assert s.to_act == c["defender"] and s.phase == "war_defend"


def test_supporters_are_the_side_without_unification_tile_R_WAR_3(impl):
    # left side: d5 and e5 black (d5 not adjacent to the king); right side: k5.
    # The unification tile (black) supports nobody; the red tiles do not count.
    s = impl.position("""
        d  e  f  g  h  i  j  k
    5   k  k  0k r  .  r  1k k
    6   .  .  .  .  .  r  .  .
    """, hands=["kkkkkk", "kkkkkk"])
    play(s, "tile k h5", "commit 0", "commit 0")     # 2 v 1
    snap = s.snapshot()
    assert snap["leaders"][1][0] == -1 and snap["leaders"][0][0] == sq("f5")
    assert snap["scores"] == [[2, 0, 0, 0], [0] * 4]  # the leader + k5
    assert show(snap, "d5:k6") == norm("""
        d  e  f  g  h  i  j  k
    5   k  k  0k r  k  r  .  .
    6   .  .  .  .  .  r  .  .
    """)


def test_unification_tile_is_nobodys_supporter_R_WAR_3(impl):
    s = impl.position(KINGS, hands=["kkkkkk", "kkkkkk"])
    play(s, "tile k h5", "commit 0", "commit 0")     # 1 v 1: tie to the defender
    snap = s.snapshot()
    assert snap["leaders"][0][0] == -1 and snap["leaders"][1][0] == sq("j5")
    assert snap["scores"] == [[0] * 4, [2, 0, 0, 0]]
    assert at(snap, "e5") == "." and at(snap, "h5") == "k"


@pytest.mark.parametrize("a_commit,d_commit,attacker_wins", [
    (2, 1, True), (1, 1, False), (0, 2, False), (2, 2, False), (2, 0, True)])
def test_commit_war_colour_loser_supporters_leave_R_WAR_4(impl, a_commit, d_commit, attacker_wins):
    s = impl.position(KINGS, hands=["kkkrrb", "kkrrbb"])
    play(s, "tile k h5")
    assert legal(s) == ["commit 0", "commit 1", "commit 2"]     # black tiles only
    play(s, f"commit {a_commit}")
    assert legal(s) == ["commit 0", "commit 1", "commit 2"]
    play(s, f"commit {d_commit}")
    snap = s.snapshot()
    assert snap["discarded"] == [1 + a_commit + d_commit, 0, 0, 0]
    assert snap["hands"][0] == [2 - a_commit, 2, 1, 0]
    assert snap["hands"][1] == [2 - d_commit, 2, 2, 0]
    assert snap["committed"] == [a_commit > 0, d_commit > 0]
    if attacker_wins:
        assert snap["scores"] == [[2, 0, 0, 0], [0] * 4]
        assert snap["leaders"][1][0] == -1 and at(snap, "k5") == "." and at(snap, "e5") == "k"
    else:
        assert snap["scores"] == [[0] * 4, [2, 0, 0, 0]]
        assert snap["leaders"][0][0] == -1 and at(snap, "e5") == "." and at(snap, "k5") == "k"
    assert (snap["phase"], snap["to_act"], snap["actions_left"], snap["unification"]) == ("action", 0, 1, -1)


def test_red_war_keeps_treasure_and_leader_adjacent_temples_R_WAR_5(impl):
    # seat 1 unifies on j7. Seat 0's side: g7 (next to the king f7), h6 (next only
    # to the losing priest), h5 (next to no leader), i7 (treasure): 4 supporters.
    s = impl.position("""
        e  f  g  h  i  j  k  l
    5   .  .  .  r  .  .  .  .
    6   .  .  .  r  .  .  .  r
    7   .  0k r  0r r$ .  r  1r
    8   ~  ~  ~  .  .  .  .  .
    """, turn_owner=1, hands=[None, "rrrkkb"])
    play(s, "tile k j7")
    assert s.phase == "war_attack" and s.to_act == 1
    play(s, "commit 3")
    assert legal(s) == ["commit 0"]            # seat 0 holds no red tile
    play(s, "commit 0")                         # 2 + 3 v 4
    snap = s.snapshot()
    assert snap["leaders"][0][1] == -1
    assert snap["leaders"][0][0] == sq("f7")    # the king keeps g7
    assert snap["scores"] == [[0] * 4, [0, 3, 0, 0]]   # the leader + h6 + h5
    assert snap["discarded"] == [0, 5, 0, 0]
    assert show(snap, "e5:l8") == norm("""
        e  f  g  h  i  j  k  l
    5   .  .  .  .  .  .  .  .
    6   .  .  .  .  .  .  .  r
    7   .  0k r  .  r$ k  r  1r
    8   ~  ~  ~  .  .  .  .  .
    """)


def test_red_war_keeps_temple_next_to_any_other_leader_R_WAR_5(impl):
    # seat 0 unifies on j7 and wins. Seat 1's side: l7 touches seat 0's king on
    # l6 (stays), k8 touches only the losing priest (leaves).
    s = impl.position("""
        g  h  i  j  k  l  m
    6   .  .  r  .  .  0k .
    7   .  0r r$ .  1r r  ~
    8   ~  .  .  .  r  .  ~
    """, hands=["rkkkkk", "kkkkkk"])
    play(s, "tile k j7")
    assert (s.phase, s.to_act) == ("war_attack", 0)
    play(s, "commit 1", "commit 0")            # 2 + 1 v 2
    snap = s.snapshot()
    assert snap["leaders"][1][1] == -1
    assert snap["scores"] == [[0, 2, 0, 0], [0] * 4]
    assert snap["discarded"] == [0, 2, 0, 0]
    assert show(snap, "g6:m8") == norm("""
        g  h  i  j  k  l  m
    6   .  .  r  .  .  0k .
    7   .  0r r$ k  .  r  ~
    8   ~  .  .  .  .  .  ~
    """)


def test_second_war_when_still_joined_R_WAR_6(impl):
    s = impl.position(KINGS_TRADERS, hands=["kkkggr", "kkrrbb"])
    play(s, "tile r h5", "war g", "commit 0", "commit 0")   # traders 0 v 0: seat 1 wins
    snap = s.snapshot()
    assert snap["leaders"][0][3] == -1 and snap["scores"] == [[0] * 4, [0, 0, 0, 1]]
    # the kings still share the kingdom: their war follows with no choice
    assert snap["phase"] == "war_attack" and snap["to_act"] == 0
    assert snap["conflict"]["colour"] == 0 and snap["unification"] == sq("h5")
    play(s, "commit 1", "commit 0")                          # kings 2 v 1: seat 0 wins
    snap = s.snapshot()
    assert snap["leaders"][1][0] == -1
    assert snap["scores"] == [[2, 0, 0, 0], [0, 0, 0, 1]]
    assert (snap["phase"], snap["unification"], snap["actions_left"]) == ("action", -1, 1)


def test_ex2_traders_first_removal_splits_kingdom_EX_2_R_WAR_6(impl):
    s = impl.position("""
        e  f  g  h  i  j  k  l  m  n
    4   .  .  .  .  .  .  .  .  .  ~
    5   0k r  0g g  .  g  1g g  1k r$
    6   .  .  .  .  .  .  r  .  .  .
    """, hands=["gggggk", "gkkbbb"])
    play(s, "tile g i5")
    assert s.phase == "war_choice" and legal(s) == ["war k", "war g"]
    play(s, "war g")
    assert legal(s) == [f"commit {n}" for n in range(5)]
    play(s, "commit 4")                          # lion: 1 supporter + 4 = 5
    assert s.to_act == 1 and legal(s) == ["commit 0", "commit 1"]
    play(s, "commit 1")                          # pot: 2 supporters + 1 = 3
    snap = s.snapshot()
    assert snap["scores"] == [[0, 0, 0, 3], [0] * 4]
    assert snap["discarded"] == [0, 0, 0, 7]     # 2 supporters + 5 committed
    assert (snap["phase"], snap["to_act"], snap["actions_left"]) == ("action", 0, 1)
    assert snap["unification"] == -1 and snap["conflict"] is None
    assert show(snap, "e4:n6") == norm("""
        e  f  g  h  i  j  k  l  m  n
    4   .  .  .  .  .  .  .  .  .  ~
    5   0k r  0g g  g  .  .  .  1k r$
    6   .  .  .  .  .  .  r  .  .  .
    """)


def test_ex3_first_round_four_players_EX_3(impl):
    # A, B, D, K are seats 0..3 on the starting board
    s = impl.position(None, players=4,
                      hands=["rrkkbb", "bkkggg", "rkkbbg", "rrrrkb"])
    play(s, "leader k m5", "leader r h7")        # A: two kingdoms (n5, i7)
    play(s, "leader b n6", "tile b o6")          # B: farmer joins the king; farm: 1 blue
    assert s.snapshot()["scores"][1] == [0, 0, 1, 0]
    play(s, "leader k e10", "tile r e9")         # D: new kingdom; temple: 1 red to the king
    assert s.snapshot()["scores"][2] == [0, 1, 0, 0]
    play(s, "leader r j7")                       # K: revolt against A's priest, 1 v 1
    assert s.phase == "revolt_attack" and s.to_act == 3
    play(s, "commit 3")
    assert s.to_act == 0 and legal(s) == ["commit 0", "commit 1", "commit 2"]
    play(s, "commit 0")                          # 4 v 1
    snap = s.snapshot()
    assert snap["leaders"][0][1] == -1 and snap["leaders"][3][1] == sq("j7")
    assert snap["scores"][3] == [0, 1, 0, 0]
    play(s, "tile r j6")                         # her fourth temple: another red
    snap = s.snapshot()
    assert snap["scores"] == [[0] * 4, [0, 0, 1, 0], [0, 1, 0, 0], [0, 2, 0, 0]]
    assert snap["discarded"] == [0, 3, 0, 0]
    assert snap["turn_owner"] == 0 and all(sum(h) == 6 for h in snap["hands"])
