"""Monuments, treasures, end of game and ranking, information (docs/rules.md §10-§13), EX-4."""
from __future__ import annotations

import pytest

from diagram import assert_illegal, at, legal, norm, play, position, show, sq

# --- R-MON -------------------------------------------------------------------

BLOCK = """
    f  g  h  i
5   .  r  r  .
6   .  r  .  .
7   .  .  0k r$
"""


def test_monument_offered_and_built_R_MON_1(impl):
    s = impl.position(BLOCK, hands=["rrkkbb"])
    play(s, "tile r h6")                       # completes g5-h6; scores for the king
    snap = s.snapshot()
    assert snap["scores"][0] == [0, 1, 0, 0]
    assert (snap["phase"], snap["to_act"], snap["placed"]) == ("monument", 0, sq("h6"))
    assert legal(s) == ["monument kr g5", "monument rb g5", "monument rg g5", "nomonument"]
    assert_illegal(s, "monument kb g5")        # no red in it
    assert_illegal(s, "monument kr h5")        # not a complete block
    play(s, "monument kr g5")
    snap = s.snapshot()
    assert snap["monuments"] == [sq("g5"), -1, -1, -1, -1, -1]
    assert show(snap, "f5:i7") == norm("""
        f  g  h  i
    5   .  R  R  .
    6   .  R  R  .
    7   .  .  0k r$
    """)
    assert (snap["phase"], snap["actions_left"], snap["placed"]) == ("action", 1, -1)
    assert snap["leaders"][0][0] == sq("h7")   # the king still touches i7


def test_monument_declined_R_MON_1(impl):
    s = impl.position(BLOCK, hands=["rrkkbb"])
    play(s, "tile r h6", "nomonument")
    snap = s.snapshot()
    assert snap["monuments"] == [-1] * 6 and at(snap, "g5") == "r" and at(snap, "h6") == "r"
    assert (snap["phase"], snap["actions_left"]) == ("action", 1)
    play(s, "tile k f7")                       # another tile elsewhere: the chance is gone
    assert s.phase == "action" and s.turn_owner == 1


def test_monument_choices_every_block_and_unbuilt_monument_R_MON_1(impl):
    # h6 completes two red blocks (g5 and h5 top-left); kr is already built
    s = impl.position("""
        c  d  e  f  g  h  i
    5   R  R  .  .  r  r  r
    6   R  R  .  .  r  .  r
    7   ~  ~  .  .  .  0k r$
    """, monuments={"kr": "c5"}, hands=["rrkkbb"])
    play(s, "tile r h6")
    assert legal(s) == ["monument rb g5", "monument rb h5", "monument rg g5", "monument rg h5",
                        "nomonument"]
    play(s, "monument rg h5")
    snap = s.snapshot()
    assert snap["monuments"] == [sq("c5"), -1, -1, -1, sq("h5"), -1]
    assert at(snap, "g5") == "r" and at(snap, "g6") == "r" and at(snap, "i6") == "R"


@pytest.mark.parametrize("d_commit,monument", [(0, True), (3, False)])
def test_monument_check_after_the_wars_R_MON_1_R_WAR_6(impl, d_commit, monument):
    # h5 unifies the kings and completes the black block g5-h6 (3 supporters v 1)
    s = impl.position("""
        e  f  g  h  i  j  k
    4   .  r  .  .  .  r  .
    5   .  0k k  .  k  1k .
    6   .  .  k  k  .  .  .
    """, hands=["kkkkkk", "kkkkkk"])
    play(s, "tile k h5")
    assert s.phase == "war_attack"
    play(s, "commit 0", f"commit {d_commit}")
    snap = s.snapshot()
    assert snap["unification"] == -1
    if monument:                              # seat 0 won: the block still stands
        assert snap["scores"] == [[2, 0, 0, 0], [0] * 4]
        assert (snap["phase"], snap["to_act"], snap["placed"]) == ("monument", 0, sq("h5"))
        assert legal(s) == ["monument kr g5", "monument kb g5", "monument kg g5", "nomonument"]
        play(s, "monument kb g5")
        assert s.snapshot()["monuments"] == [-1, sq("g5"), -1, -1, -1, -1]
    else:                                     # seat 0 lost g5, g6, h6: no block left
        assert snap["scores"] == [[0] * 4, [4, 0, 0, 0]]
        assert at(snap, "g5") == "." and at(snap, "h5") == "k"
    snap = s.snapshot()
    assert (snap["phase"], snap["actions_left"]) == ("action", 1)


def test_no_monument_for_a_block_without_the_placed_tile_R_MON_1(impl):
    s = impl.position("""
        f  g  h  i
    5   r  r  .  .
    6   r  r  .  .
    7   .  .  0k r$
    """, hands=["rrkkbb"])
    play(s, "tile r h6")                       # touches the block but is not in it
    assert s.phase == "action" and s.snapshot()["actions_left"] == 1


def test_face_down_tiles_not_in_a_new_block_not_temples_R_MON_2(impl):
    s = impl.position("""
        f  g  h  i
    5   R  R  r  .
    6   R  R  .  .
    7   .  .  0k r$
    """, monuments={"rb": "f5"}, hands=["rrkkbb"])
    assert_illegal(s, "leader r e5")           # next to face-down red only
    play(s, "tile r h6")                       # g5-h6 would hold face-down tiles
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["scores"][0] == [0, 1, 0, 0]
    assert_illegal(s, "leader r g7")           # g7 touches only the face-down g6


def test_face_down_tiles_are_not_supporters_R_MON_2(impl):
    s = impl.position("""
        c  d  e  f  g  h  i  j  k
    5   K  K  k  0k r  .  r  1k k
    6   K  K  .  .  .  .  .  .  .
    """, monuments={"kb": "c5"}, hands=["kkkkkk", "kkkkkk"])
    play(s, "tile k h5", "commit 0", "commit 0")   # 1 v 1 (the four face-down tiles count nothing)
    snap = s.snapshot()
    assert snap["leaders"][0][0] == -1 and snap["scores"] == [[0] * 4, [2, 0, 0, 0]]
    assert show(snap, "c5:f6") == norm("""
        c  d  e  f
    5   K  K  .  .
    6   K  K  .  .
    """)                                        # a monument is never removed


def test_treasure_stays_on_monument_leaders_lose_temple_R_MON_3(impl):
    s = impl.position("""
        g  h  i  j
    6   .  r  r  .
    7   .  .  r$ 0k
    8   ~  r  1g .
    """, hands=["rrkkbb"])
    play(s, "tile r h7")
    assert legal(s) == ["monument kr h6", "monument rb h6", "monument rg h6", "nomonument"]
    play(s, "monument rg h6")
    snap = s.snapshot()
    assert at(snap, "i7") == "R$" and sq("i7") in snap["treasures"]
    assert snap["leaders"][0][0] == -1          # the king touched only i7
    assert snap["leaders"][1][3] == sq("i8")    # the trader still touches h8
    assert len(snap["treasures"]) == 10


MON4 = """
    f  g  h  i  j
5   r  R  R  .  .
6   0k R  R  0r .
7   .  0b r  r$ 1g
"""


@pytest.mark.parametrize("pair,seat0,seat1", [
    ("kr", [1, 1, 0, 0], [0, 0, 0, 0]),   # king and priest
    ("rb", [0, 1, 1, 0], [0, 0, 0, 0]),   # priest and farmer; the king scores nothing
    ("rg", [0, 1, 0, 0], [0, 0, 0, 1]),   # seat 1's trader scores at the end of seat 1's turn
])
def test_monument_points_per_leader_colour_at_end_of_turn_R_MON_4(impl, pair, seat0, seat1):
    s = impl.position(MON4, monuments={pair: "g5"})
    play(s, "pass")
    assert s.snapshot()["scores"] == [seat0, [0] * 4]   # only the turn owner's leaders
    play(s, "pass")
    assert s.snapshot()["scores"] == [seat0, seat1]
    play(s, "pass")
    assert s.snapshot()["scores"] == [[2 * x for x in seat0], seat1]


def test_monument_outside_the_leaders_kingdom_scores_nothing_R_MON_4(impl):
    s = impl.position("""
        e  f  g  h  i
    5   .  R  R  .  .
    6   .  R  R  .  .
    7   .  .  .  0k r$
    """, monuments={"kr": "f5"})
    play(s, "pass")
    assert s.snapshot()["scores"] == [[0] * 4, [0] * 4]


# --- R-TRE -------------------------------------------------------------------

CHAIN = """
    e  f  g  h  i  j  k  l
9   .  .  ~  ~  ~  ~  ~  ~
10  .  r$ g  g  g  .  .  .
11  .  .  .  .  .  {t}g r$ .
"""


@pytest.mark.parametrize("trader", [0, 1])
def test_trader_takes_all_but_one_choosing_R_TRE_1(impl, trader):
    s = impl.position(CHAIN.replace("{t}", str(trader)), hands=["ggkkbb", None])
    taken = s.snapshot()["treasures_taken"]
    play(s, "tile g j10")                      # f10 and k11 now in the trader's kingdom
    snap = s.snapshot()
    assert snap["scores"][trader] == [0, 0, 0, 1]
    assert (snap["phase"], snap["to_act"], snap["turn_owner"]) == ("treasure", trader, 0)
    assert legal(s) == ["treasure f10", "treasure k11"]
    assert_illegal(s, "treasure i7")
    play(s, "treasure k11")
    snap = s.snapshot()
    assert at(snap, "k11") == "r" and at(snap, "f10") == "r$"
    assert snap["treasures_taken"][trader] == taken[trader] + 1
    assert snap["treasures_taken"][1 - trader] == taken[1 - trader]
    assert (snap["phase"], snap["to_act"], snap["actions_left"]) == ("action", 0, 1)


def test_treasure_taken_after_leader_placement_R_TRE_1(impl):
    s = impl.position(CHAIN.replace("{t}g", " .").replace("g  g  g  .  .", "g  g  g  g  g"))
    play(s, "leader g j11")
    assert s.phase == "treasure" and legal(s) == ["treasure f10", "treasure k11"]


def test_no_trader_no_taking_R_TRE_1(impl):
    s = impl.position(CHAIN.replace("{t}g", "0k"), hands=["ggkkbb"])
    play(s, "tile g j10")
    snap = s.snapshot()
    assert snap["phase"] == "action" and len(snap["treasures"]) == 10
    assert snap["scores"][0] == [0, 0, 0, 1]   # the king's owner


def test_special_treasure_taken_first_without_asking_R_TRE_1(impl):
    s = impl.position("""
        a  b  c  d  e  f
    8   .  r$ .  ~  ~  ~
    9   .  k  k  k  .  .
    10  .  .  .  .  0g r$
    """, hands=["kkkkkk"])
    taken = s.snapshot()["treasures_taken"][0]
    play(s, "tile k e9")
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["actions_left"] == 1
    assert at(snap, "b8") == "r" and at(snap, "f10") == "r$"
    assert snap["treasures_taken"][0] == taken + 1


TWO_SPECIALS = """
    a  b  c  d  e  f
2   .  r$ .  .  ~  .
3   .  r  .  ~  ~  r$
4   ~  b  ~  ~  .  .
5   .  r  .  .  .  .
6   .  r  .  .  .  .
7   ~  b  ~  ~  .  .
8   .  r$ .  ~  ~  ~
9   .  k  k  k  .  .
10  .  .  .  .  0g r$
"""


def test_all_specials_taken_when_they_must_all_go_R_TRE_1(impl):
    s = impl.position(TWO_SPECIALS, hands=["kkkkkk"])
    taken = s.snapshot()["treasures_taken"][0]
    play(s, "tile k e9")                       # b2*, b8*, f10: two must go, both special
    snap = s.snapshot()
    assert snap["phase"] == "action"
    assert at(snap, "b2") == "r" and at(snap, "b8") == "r" and at(snap, "f10") == "r$"
    assert snap["treasures_taken"][0] == taken + 2


def test_choice_among_specials_R_TRE_1(impl):
    s = impl.position("""
        a  b  c  d  e  f
    2   .  r$ .  .  ~  .
    3   .  r  .  ~  ~  r$
    4   ~  b  ~  ~  .  .
    5   .  r  .  .  .  .
    6   .  r  .  .  .  .
    7   ~  ~  ~  ~  .  .
    8   0g r$ .  ~  ~  ~
    """, hands=["bkkkkk"])
    play(s, "tile b b7")                       # joins b2* and b8*: one of two specials
    assert (s.phase, s.to_act) == ("treasure", 0)
    assert legal(s) == ["treasure b2", "treasure b8"]
    play(s, "treasure b2")
    snap = s.snapshot()
    assert at(snap, "b8") == "r$" and at(snap, "b2") == "r" and snap["phase"] == "action"


def _final(impl, scores, taken):
    """A finished game (bag ran out) with these scores and treasures taken."""
    players = len(scores)
    snap = position(None, players=players, phase="over", end_reason="bag", bag_size=0,
                    scores=scores, treasures_taken=taken)
    snap["treasures"] = snap["treasures"][sum(taken):]
    s = impl.from_snapshot(snap)
    s.check_consistency()
    assert s.is_terminal()
    return s


def test_treasures_are_wild_points_at_final_scoring_R_TRE_2(impl):
    s = _final(impl, [[3, 3, 2, 2], [3, 3, 3, 2]], [2, 0])
    assert s.scores() == [[3, 3, 2, 2, 2], [3, 3, 3, 2, 0]]
    assert s.result() == [0, 1]                # 3,3,3,3 beats 2,3,3,3
    assert _final(impl, [[3, 3, 2, 2], [3, 3, 3, 2]], [0, 0]).result() == [1, 0]
    s = _final(impl, [[3, 3, 2, 2], [3, 3, 3, 2]], [1, 0])
    assert s.result() == [0, 0]                # 3,3,3,2 v 3,3,3,2: a complete tie


# --- R-END -------------------------------------------------------------------

THREE_TREASURES = """
    e  f  g  h  i  j  k  l
7   .  .  .  .  r$ .  .  .
8   ~  ~  ~  .  .  .  .  .
9   .  .  ~  ~  ~  ~  ~  ~
10  .  r$ g  g  g  .  .  .
11  .  .  .  .  .  0g r$ .
"""


def test_game_ends_at_end_of_turn_with_two_treasures_R_END_1(impl):
    s = impl.position(THREE_TREASURES, outside="empty", hands=["ggkkbb"])
    play(s, "tile g j10", "treasure f10")
    snap = s.snapshot()
    assert len(snap["treasures"]) == 2
    assert snap["phase"] == "action" and not s.is_terminal()   # only at the end of the turn
    play(s, "pass")
    snap = s.snapshot()
    assert (snap["phase"], snap["to_act"], snap["end_reason"]) == ("over", -1, "treasures")
    assert s.is_terminal() and s.legal_actions() == []
    assert sum(snap["hands"][0]) == 6          # the refill came first
    assert_illegal(s, "pass")


def test_three_treasures_game_goes_on_R_END_1(impl):
    s = impl.position(THREE_TREASURES, outside="empty", hands=["ggkkbb"])
    play(s, "tile k h8", "pass")
    assert s.phase == "action" and s.turn_owner == 1 and not s.is_terminal()


def test_empty_bag_at_refill_ends_game_R_END_1(impl):
    s = impl.position(None, hands=["kkkkk"], actions_left=1, bag_size=0)
    play(s, "pass")
    snap = s.snapshot()
    assert (snap["phase"], snap["to_act"], snap["end_reason"]) == ("over", -1, "bag")
    assert snap["turn_owner"] == 0


def test_exact_bag_refill_goes_on_R_END_1(impl):
    s = impl.position(None, hands=["kkkkk"], actions_left=1, bag_size=1, draws="g")
    play(s, "pass")
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["turn_owner"] == 1 and snap["bag"] == []
    assert snap["hands"][0] == [5, 0, 0, 1]


def test_empty_bag_for_committed_seat_ends_game_R_END_1(impl):
    s = impl.position(None, hands=["kkkkk", "kkk"], actions_left=1, bag_size=1, draws="r",
                      committed=[True, True])
    play(s, "pass")
    snap = s.snapshot()
    assert snap["hands"][0] == [5, 1, 0, 0]
    assert (snap["phase"], snap["end_reason"]) == ("over", "bag")


def test_bag_end_checked_before_treasure_end_R_END_1(impl):
    s = impl.position("""
        e  f  g
    10  .  r$ .
    11  .  .  .
    """, outside="empty", hands=["kkkkk"], actions_left=1, bag_size=0,
        treasures_taken=[5, 4])
    play(s, "pass")
    assert s.snapshot()["end_reason"] == "bag"


@pytest.mark.parametrize("scores,taken,ranks", [
    ([[5, 5, 5, 1], [2, 2, 2, 2]], [0, 0], [1, 0]),           # the weakest colour decides
    ([[2, 3, 9, 9], [2, 4, 4, 4]], [0, 0], [1, 0]),           # then the second weakest
    ([[1, 2, 3, 4], [4, 3, 2, 1]], [0, 0], [0, 0]),           # complete tie: shared win
    ([[4, 5, 6, 2], [4, 4, 4, 7]], [2, 0], [0, 1]),           # treasures fill the gap
])
def test_ranking_by_weakest_colour_R_END_2(impl, scores, taken, ranks):
    assert _final(impl, scores, taken).result() == ranks


def test_ranking_three_players_R_END_2(impl):
    s = _final(impl, [[3, 3, 3, 3], [3, 3, 3, 3], [1, 9, 9, 9]], [0, 0, 0])
    assert s.result() == [0, 0, 2]
    s = _final(impl, [[3, 3, 3, 3], [3, 4, 3, 3], [1, 9, 9, 9]], [0, 0, 2])
    assert s.result() == [2, 1, 0]             # seat 2: 3,9,9,9 with its treasures


def test_ex4_scoring_weakest_colour_then_next_EX_4(impl):
    # seat 0: 4,5,6,2 + 2 treasures -> 4,5,6,4 (4,4,5,6); seat 1: 4,4,4,7 (4,4,4,7);
    # seat 2: 9,9,9,3 (3,...): the weakest colour decides, ties go to the next.
    s = _final(impl, [[4, 5, 6, 2], [4, 4, 4, 7], [9, 9, 9, 3]], [2, 0, 0])
    assert s.scores()[0][4] == 2
    assert s.result() == [0, 1, 2]


# --- R-INFO-1 ----------------------------------------------------------------

def test_hidden_hands_and_swaps_public_counts_R_INFO_1(impl):
    from engine.info import observation
    diagram = """
        h  i  j
    7   .  r$ .
    """
    a = impl.position(diagram, hands=["rrkbbg", "kkggbb"], draws="ggk")
    b = impl.position(diagram, hands=["kkbbbg", "kkggbb"], draws="rrk")
    play(a, "swap rk")           # different hidden tiles, same public facts
    play(b, "swap bk")
    sa, sb = a.snapshot(), b.snapshot()
    assert sa["swapped"][0] == [1, 1, 0, 0] and sb["swapped"][0] == [1, 0, 1, 0]
    oa, ob = observation(sa, 1), observation(sb, 1)
    assert oa == ob                              # seat 1 cannot tell them apart
    assert oa["hand"] == [2, 0, 2, 2]
    assert oa["unseen"] == [30 - 2, 57 - 10, 36 - 2, 30 - 2]
    assert observation(sa, 0) != observation(sb, 0)
    assert observation(sa, 0)["own_swapped"] == [1, 1, 0, 0]
    # public: the board, scores, catastrophes left, hand sizes, committed
    for key in ("cells", "leaders", "scores", "catastrophes_left", "committed", "discarded"):
        assert oa[key] == sa[key]


def test_committed_tiles_are_public_R_INFO_1(impl):
    from engine.info import observation
    s = impl.position("""
        g  h  i  j  k
    6   .  r  .  r  .
    7   .  0r r$ .  .
    """, turn_owner=1, hands=["rrkbgg", "rrrkkb"])
    play(s, "leader r j7", "commit 2")
    o = observation(s.snapshot(), 0)
    assert o["conflict"]["attacker_commit"] == 2          # the defender sees the commitment
    play(s, "commit 1")
    o = observation(s.snapshot(), 0)
    assert o["discarded"] == [0, 3, 0, 0] and o["committed"] == [True, True]
