"""The 2015 edition's variants (docs/rules.md §14): english commitments, buildings, the wonder.

Each variant is switched on alone (``variants=[...]``) unless the test is about
their interplay; every variant also has a test that with it off none of its
decisions ever appears. Decision model: docs/engine.md, "Variants".
"""
from __future__ import annotations

import pytest

from diagram import TOTALS, assert_illegal, at, legal, norm, play, show, sq, tile_totals

ENG = ["english"]
BLD = ["buildings"]
WON = ["wonder"]
ALL_COLOURS = ["wonderpoint k", "wonderpoint r", "wonderpoint b", "wonderpoint g"]


# =============================================================================
# new_game and the snapshot fields
# =============================================================================

def test_variants_listed_in_canonical_order_fields_empty_at_setup_R_VAR_ENGLISH_R_VAR_BLD_1_R_VAR_WONDER_1(impl):
    s = impl.new_game(3, 11, "standard", variants=["wonder", "english", "buildings"])
    snap = s.snapshot()
    assert snap["variants"] == ["english", "buildings", "wonder"]
    assert snap["buildings"] == [-1, -1, -1, -1] and snap["wonder"] == -1
    assert impl.new_game(2, 0).snapshot()["variants"] == []
    assert impl.new_game(2, 0, variants=["wonder"]).snapshot()["variants"] == ["wonder"]


@pytest.mark.parametrize("variants", [["english"], ["buildings"], ["wonder"],
                                      ["english", "buildings", "wonder"]])
def test_setup_draws_identical_with_or_without_variants_R_VAR_ENGLISH_R_VAR_BLD_1_R_VAR_WONDER_1(impl, variants):
    base = impl.new_game(4, 5).snapshot()
    var = impl.new_game(4, 5, variants=variants).snapshot()
    assert var["variants"] == variants
    for key in base:
        if key != "variants":
            assert var[key] == base[key], key


def test_unknown_variant_name_is_an_error_R_VAR_ENGLISH(impl):
    with pytest.raises(ValueError):
        impl.new_game(2, 0, variants=["castles"])


def test_snapshot_round_trips_buildings_and_wonder_R_VAR_BLD_1_R_VAR_WONDER_1(impl):
    s = impl.position("""
        g  h  i  j  k  l
    2   .  .  .  .  W  .
    3   k@ k  k  W  W  W
    4   .  .  .  .  W  .
    """, variants=["buildings", "wonder"], wonder_colour="g")
    snap = s.snapshot()
    assert snap["variants"] == ["buildings", "wonder"]
    assert snap["buildings"] == [sq("g3"), -1, -1, -1]
    assert snap["wonder"] == sq("k3")
    assert [snap["cells"][sq(x)] for x in ("k2", "j3", "k3", "l3", "k4")] == [10] * 5
    assert tile_totals(snap) == list(TOTALS)
    assert impl.from_snapshot(snap).snapshot() == snap


# =============================================================================
# R-VAR-ENGLISH
# =============================================================================

# seat 1 (turn owner) puts its priest on j7: base 1 (i7). Seat 0's priest on
# h7 touches h6, g7 and i7: base 3. So the attacker needs exactly 3.
ENG_REVOLT = """
    g  h  i  j  k
6   .  r  .  .  .
7   r  0r r$ .  .
8   ~  .  .  .  .
"""


def test_attacker_commits_exact_number_to_exceed_or_none_R_VAR_ENGLISH(impl):
    s = impl.position(ENG_REVOLT, turn_owner=1, variants=ENG, hands=["rrkkbb", "rrrrkk"])
    play(s, "leader r j7")
    assert s.phase == "revolt_attack" and s.to_act == 1
    assert legal(s) == ["commit 0", "commit 3"]
    for n in (1, 2, 4):
        assert_illegal(s, f"commit {n}")
    play(s, "commit 3")                                  # 1 + 3 = 4 against 3
    assert s.phase == "revolt_defend" and s.to_act == 0
    assert legal(s) == ["commit 0", "commit 1"]          # only the exact tie: 3 + 1
    assert_illegal(s, "commit 2")
    play(s, "commit 1")
    snap = s.snapshot()
    assert snap["leaders"][0][1] == sq("h7") and snap["leaders"][1][1] == -1   # tie: defender
    assert snap["scores"] == [[0, 1, 0, 0], [0, 0, 0, 0]]
    assert snap["discarded"] == [0, 4, 0, 0]
    assert snap["hands"] == [[2, 1, 2, 0], [2, 1, 0, 0]]


def test_attacker_lacking_tiles_may_only_commit_zero_R_VAR_ENGLISH(impl):
    s = impl.position(ENG_REVOLT, turn_owner=1, variants=ENG, hands=["rrrrrr", "rrkkkk"])
    play(s, "leader r j7")
    assert legal(s) == ["commit 0"]                      # needs 3, holds 2
    assert_illegal(s, "commit 2")
    play(s, "commit 0")
    assert legal(s) == ["commit 0"]                      # the defender already wins 3 v 1
    assert_illegal(s, "commit 1")
    play(s, "commit 0")
    snap = s.snapshot()
    assert snap["leaders"][1][1] == -1 and snap["scores"] == [[0, 1, 0, 0], [0] * 4]


# the attacker on j7 touches j6, i7, k7, j8: 4; the defender on h7 touches i7: 1
ENG_STRONG_ATTACKER = """
    g  h  i  j  k
6   .  .  .  r  .
7   .  0r r$ .  r
8   ~  .  .  r  .
"""


@pytest.mark.parametrize("defender_hand,expected", [
    ("rrrkkb", ["commit 0", "commit 3"]),     # ties 4 - 4 with exactly 3
    ("rrkkbb", ["commit 0"]),                 # needs 3, holds 2
])
def test_defender_commits_exact_tie_or_none_R_VAR_ENGLISH(impl, defender_hand, expected):
    s = impl.position(ENG_STRONG_ATTACKER, turn_owner=1, variants=ENG,
                      hands=[defender_hand, "rrrrrk"])
    play(s, "leader r j7")
    assert legal(s) == ["commit 0"]                      # already stronger: nothing to exceed
    play(s, "commit 0")
    assert s.phase == "revolt_defend"
    assert legal(s) == expected
    assert_illegal(s, "commit 1")
    play(s, expected[-1])
    snap = s.snapshot()
    if expected[-1] == "commit 3":                       # tie: the defender keeps its priest
        assert snap["leaders"][0][1] == sq("h7") and snap["leaders"][1][1] == -1
        assert snap["scores"] == [[0, 1, 0, 0], [0] * 4]
    else:
        assert snap["leaders"][0][1] == -1 and snap["leaders"][1][1] == sq("j7")
        assert snap["scores"] == [[0] * 4, [0, 1, 0, 0]]


# kings: seat 0 on f5 with one supporter (e5), seat 1 on j5 with three (k4 k5 k6)
ENG_WAR = """
    e  f  g  h  i  j  k
4   .  .  .  .  .  .  k
5   k  0k r  .  r  1k k
6   .  .  .  .  .  .  k
"""


def test_war_attacker_exact_defender_tie_R_VAR_ENGLISH(impl):
    s = impl.position(ENG_WAR, variants=ENG, hands=["kkkkkr", "kkrrbb"])
    play(s, "tile k h5")
    assert (s.phase, s.to_act) == ("war_attack", 0)
    assert legal(s) == ["commit 0", "commit 3"]          # 1 + 3 > 3
    assert_illegal(s, "commit 4")
    play(s, "commit 3")
    assert (s.phase, s.to_act) == ("war_defend", 1)
    assert legal(s) == ["commit 0", "commit 1"]          # 3 + 1 ties 4
    assert_illegal(s, "commit 2")
    play(s, "commit 0")                                  # 4 v 3: the attacker wins
    snap = s.snapshot()
    assert snap["leaders"][1][0] == -1 and snap["leaders"][0][0] == sq("f5")
    assert snap["scores"] == [[4, 0, 0, 0], [0] * 4]     # 1 + 3 removed supporters
    assert show(snap, "e4:k6") == norm("""
        e  f  g  h  i  j  k
    4   .  .  .  .  .  .  .
    5   k  0k r  k  r  .  .
    6   .  .  .  .  .  .  .
    """)


def test_war_attacker_lacking_tiles_only_zero_R_VAR_ENGLISH(impl):
    s = impl.position(ENG_WAR, variants=ENG, hands=["kkkrrb", "kkkkbb"])
    play(s, "tile k h5")                                 # 2 black left, 3 needed
    assert legal(s) == ["commit 0"]
    play(s, "commit 0")
    assert legal(s) == ["commit 0"]                      # 3 v 1: the defender wins anyway
    play(s, "commit 0")
    snap = s.snapshot()
    assert snap["leaders"][0][0] == -1 and snap["scores"] == [[0] * 4, [2, 0, 0, 0]]


def test_without_english_commitments_are_unrestricted_R_VAR_ENGLISH(impl):
    s = impl.position(ENG_REVOLT, turn_owner=1, hands=["rrkkbb", "rrrrkk"])
    play(s, "leader r j7")
    assert legal(s) == ["commit 0", "commit 1", "commit 2", "commit 3", "commit 4"]
    play(s, "commit 1")
    assert legal(s) == ["commit 0", "commit 1", "commit 2"]
    w = impl.position(ENG_WAR, hands=["kkkkkr", "kkrrbb"])
    play(w, "tile k h5")
    assert legal(w) == ["commit 0", "commit 1", "commit 2", "commit 3", "commit 4"]


def test_other_variants_leave_commitments_unrestricted_R_VAR_ENGLISH(impl):
    s = impl.position(ENG_REVOLT, turn_owner=1, variants=["buildings", "wonder"],
                      hands=["rrkkbb", "rrrrkk"])
    play(s, "leader r j7")
    assert legal(s) == ["commit 0", "commit 1", "commit 2", "commit 3", "commit 4"]


# =============================================================================
# R-VAR-BLD-1 / R-VAR-BLD-2: offering and placing a building
# =============================================================================

LINE = """
    f  g  h  i  j
4   .  .  .  .  .
5   .  {c}  {c}  .  .
6   .  .  .  .  .
"""


@pytest.mark.parametrize("c", ["k", "r", "g"])
def test_each_land_colour_has_its_building_R_VAR_BLD_1(impl, c):
    s = impl.position(LINE.format(c=c), variants=BLD, hands=[c * 6])
    play(s, f"tile {c} i5")
    snap = s.snapshot()
    assert (snap["phase"], snap["to_act"], snap["placed"]) == ("building", 0, sq("i5"))
    assert legal(s) == [f"building {c} g5", f"building {c} h5", f"building {c} i5", "nobuilding"]
    other = "k" if c != "k" else "r"
    assert_illegal(s, f"building {other} g5")
    play(s, f"building {c} h5")
    snap = s.snapshot()
    col = "krbg".index(c)
    assert snap["buildings"] == [sq("h5") if i == col else -1 for i in range(4)]
    assert at(snap, "h5") == f"{c}@" and at(snap, "g5") == c
    assert (snap["phase"], snap["actions_left"], snap["placed"]) == ("action", 1, -1)


def test_blue_building_on_a_river_line_R_VAR_BLD_1(impl):
    s = impl.position("""
        a  b  c  d
    4   b  b  ~  ~
    """, variants=BLD, hands=["bbbkkk"])
    play(s, "tile b c4")
    assert legal(s) == ["building b a4", "building b b4", "building b c4", "nobuilding"]
    play(s, "building b a4")
    assert s.snapshot()["buildings"] == [-1, -1, sq("a4"), -1]


def test_one_building_per_colour_others_independent_R_VAR_BLD_1(impl):
    # the black building already stands on g5 (line of 3): a new black line of 3
    # cannot take it (not longer), but a red line takes the red building from
    # supply (the temple i7 is a red tile of that line)
    s = impl.position("""
        f  g  h  i  j
    3   r$ k  k  .  .
    4   .  .  .  .  .
    5   .  k@ k  k  .
    6   .  .  .  .  .
    7   r  r  .  r$ .
    """, variants=BLD, hands=["kkkrrr"])
    assert s.snapshot()["buildings"] == [sq("g5"), -1, -1, -1]
    play(s, "tile k i3")
    snap = s.snapshot()
    assert (snap["phase"], snap["actions_left"]) == ("action", 1)
    assert snap["buildings"] == [sq("g5"), -1, -1, -1]
    play(s, "tile r h7")
    assert legal(s) == ["building r f7", "building r g7", "building r h7", "building r i7",
                        "nobuilding"]
    play(s, "building r i7")
    snap = s.snapshot()
    assert snap["buildings"] == [sq("g5"), sq("i7"), -1, -1]
    assert at(snap, "i7") == "r$@" and at(snap, "g5") == "k@"


def test_vertical_line_R_VAR_BLD_2(impl):
    s = impl.position("""
        f  g  h
    4   .  k  .
    5   .  k  .
    6   .  .  .
    """, variants=BLD, hands=["kkkkkk"])
    play(s, "tile k g6")
    assert legal(s) == ["building k g4", "building k g5", "building k g6", "nobuilding"]


def test_placed_tile_inside_a_line_of_four_any_tile_of_it_R_VAR_BLD_2(impl):
    s = impl.position("""
        f  g  h  i  j  k
    5   .  k  k  .  k  .
    """, variants=BLD, hands=["kkkkkk"])
    play(s, "tile k i5")
    assert legal(s) == ["building k g5", "building k h5", "building k i5", "building k j5",
                        "nobuilding"]
    play(s, "building k j5")
    assert s.snapshot()["buildings"][0] == sq("j5")


def test_two_new_lines_through_the_placed_tile_all_their_tiles_R_VAR_BLD_2(impl):
    # g5 completes the vertical g4-g6 and the horizontal g5-i5 (a T, not a cross)
    s = impl.position("""
        f  g  h  i  j
    4   .  k  .  .  .
    5   .  .  k  k  .
    6   .  k  .  .  .
    """, variants=BLD, hands=["kkkkkk"])
    play(s, "tile k g5")
    assert legal(s) == ["building k g4", "building k g5", "building k h5", "building k i5",
                        "building k g6", "nobuilding"]


@pytest.mark.parametrize("diagram,placed", [
    ("""
        f  g  h  i
    5   .  k  k  .
    6   .  .  .  .
    """, "h6"),                                  # L-shape g5 h5 h6
    ("""
        f  g  h  i  j  k
    5   .  k  k  .  .  .
    """, "j5"),                                  # gap: g5 h5 . j5
    ("""
        f  g  h  i  j
    5   .  k  k  r  .
    """, "j5"),                                  # another colour in between
    ("""
        f  g  h  i  j
    5   .  k  k  k  .
    6   .  .  .  .  .
    """, "g6"),                                  # a line exists but not through the placed tile
    ("""
        f  g  h  i  j
    5   .  K  K  .  .
    6   .  K  K  .  .
    """, "i5"),                                  # face-down tiles make no line
])
def test_no_straight_line_of_three_no_building_R_VAR_BLD_2(impl, diagram, placed):
    mons = {"kr": "g5"} if "K" in diagram else None
    s = impl.position(diagram, variants=BLD, hands=["kkkkkk"], monuments=mons)
    play(s, f"tile k {placed}")
    snap = s.snapshot()
    assert (snap["phase"], snap["actions_left"], snap["placed"]) == ("action", 1, -1)
    assert snap["buildings"] == [-1] * 4
    assert_illegal(s, "building k g5")


def test_nobuilding_declines_next_line_offers_again_R_VAR_BLD_2(impl):
    s = impl.position(LINE.format(c="k"), variants=BLD, hands=["kkkkkk"])
    play(s, "tile k i5", "nobuilding")
    snap = s.snapshot()
    assert snap["buildings"] == [-1] * 4
    assert (snap["phase"], snap["to_act"], snap["actions_left"]) == ("action", 0, 1)
    play(s, "tile k j5")                         # a new line of 4 through the new tile
    assert legal(s) == ["building k g5", "building k h5", "building k i5", "building k j5",
                        "nobuilding"]


# the black building stands on g10, on the line g10-i10 (3)
BUILT = """
    a  b  c  d  e  f  g  h  i  j
10  .  .  .  .  .  .  k@ k  k  .
11  .  k  k  {d}  .  .  .  .  .  .
"""


def test_building_on_board_not_moved_to_equal_line_R_VAR_BLD_2(impl):
    s = impl.position(BUILT.format(d="."), variants=BLD, hands=["kkkkkk"],
                      outside="empty")
    play(s, "tile k d11")                         # a line of 3: not longer than 3
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["buildings"][0] == sq("g10")


def test_building_moved_to_longer_line_R_VAR_BLD_2(impl):
    s = impl.position(BUILT.format(d="k"), variants=BLD, hands=["kkkkkk"],
                      outside="empty")
    play(s, "tile k e11")                         # a line of 4 > 3
    assert legal(s) == ["building k b11", "building k c11", "building k d11", "building k e11",
                        "nobuilding"]
    play(s, "building k c11")
    snap = s.snapshot()
    assert snap["buildings"] == [sq("c11"), -1, -1, -1]
    assert show(snap, "f10:i10") == norm("""
        f  g  h  i
    10  .  k  k  k
    """)
    assert at(snap, "c11") == "k@"


def test_extending_the_buildings_own_line_offers_nothing_R_VAR_BLD_2(impl):
    s = impl.position(BUILT.format(d="."), variants=BLD, hands=["kkkkkk"],
                      outside="empty")
    play(s, "tile k j10")                         # g10-j10 is now 4, and the building is on it
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["buildings"][0] == sq("g10")


# the building stands on g5 at the crossing of g5-i5 (3) and g3-g6 (4)
CROSSING = """
    f  g  h  i  j  k  l
2   .  .  k  k  k  {e}  .
3   r$ k  .  .  .  .  .
4   .  k  .  .  .  .  .
5   .  k@ k  k  .  .  .
6   .  k  .  .  .  .  .
"""


def test_building_at_crossing_not_moved_to_line_longer_than_one_R_VAR_BLD_2(impl):
    s = impl.position(CROSSING.format(e="."), variants=BLD, hands=["kkkkkk"])
    play(s, "tile k k2")                          # 4: longer than 3 but not than 4
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["buildings"][0] == sq("g5")


def test_building_at_crossing_moved_to_line_longer_than_both_R_VAR_BLD_2(impl):
    s = impl.position(CROSSING.format(e="k"), variants=BLD, hands=["kkkkkk"])
    play(s, "tile k l2")                          # 5 > 4
    assert legal(s) == ["building k h2", "building k i2", "building k j2", "building k k2",
                        "building k l2", "nobuilding"]
    play(s, "building k l2")
    assert s.snapshot()["buildings"][0] == sq("l2")


def test_building_only_to_squares_of_a_long_enough_new_line_R_VAR_BLD_2(impl):
    # the building is on l2 (line l2-l5, 4). h5 completes h2-h6 (5) and g5-i5 (3):
    # only the squares of the line of 5 are longer than 4
    s = impl.position("""
        f  g  h  i  j  k  l
    2   .  .  k  .  .  .  k@
    3   r$ .  k  .  .  .  k
    4   .  .  k  .  .  .  k
    5   .  k  .  k  .  .  k
    6   .  .  k  .  .  .  .
    """, variants=BLD, hands=["kkkkkk"])
    play(s, "tile k h5")
    assert legal(s) == ["building k h2", "building k h3", "building k h4", "building k h5",
                        "building k h6", "nobuilding"]
    play(s, "building k h3")
    snap = s.snapshot()
    assert snap["buildings"][0] == sq("h3") and at(snap, "l2") == "k"


def test_building_check_after_the_war_R_VAR_BLD_2(impl):
    # h5 unifies the kings and completes the vertical h4-h6 line
    s = impl.position("""
        e  f  g  h  i  j  k
    4   .  .  .  k  .  .  .
    5   k  0k r  .  r  1k k
    6   .  .  .  k  .  .  .
    """, variants=BLD, hands=["kkkrrb", "kkrrbb"])
    play(s, "tile k h5")
    assert s.phase == "war_attack"
    play(s, "commit 0", "commit 0")               # 1 v 1: the defender wins
    snap = s.snapshot()
    assert snap["leaders"][0][0] == -1 and snap["scores"] == [[0] * 4, [2, 0, 0, 0]]
    assert (snap["phase"], snap["to_act"], snap["unification"]) == ("building", 0, -1)
    assert legal(s) == ["building k h4", "building k h5", "building k h6", "nobuilding"]


def test_without_buildings_a_line_gives_no_building_phase_R_VAR_BLD_2(impl):
    for variants in ([], ["english", "wonder"]):
        s = impl.position(LINE.format(c="k"), variants=variants, hands=["kkkkkk"])
        play(s, "tile k i5")
        snap = s.snapshot()
        assert (snap["phase"], snap["actions_left"]) == ("action", 1)
        assert snap["buildings"] == [-1] * 4
        assert_illegal(s, "building k g5")
        assert_illegal(s, "nobuilding")


# =============================================================================
# R-VAR-BLD-3: double tile scoring
# =============================================================================

def test_tile_in_kingdom_with_its_building_scores_two_R_VAR_BLD_3(impl):
    # seat 0's kingdom e7-i7 holds the black building; seat 1's (m5, n5) does not
    s = impl.position("""
        e  f  g  h  i  j  k  l  m  n
    5   .  .  .  .  .  .  .  .  1k r$
    6   .  .  .  .  .  .  .  .  .  .
    7   k@ k  k  0k r$ .  .  .  ~  ~
    8   ~  ~  ~  .  .  .  .  .  ~  .
    """, variants=BLD, hands=["kkrrbb"])
    play(s, "tile k h8")                          # 2 black for the king's owner
    assert s.snapshot()["scores"] == [[2, 0, 0, 0], [0] * 4]
    play(s, "tile k l5")                          # seat 1's kingdom: no building, 1
    assert s.snapshot()["scores"] == [[2, 0, 0, 0], [1, 0, 0, 0]]


def test_only_the_tiles_colour_building_doubles_R_VAR_BLD_3(impl):
    s = impl.position("""
        e  f  g  h  i  j
    6   .  .  .  .  .  .
    7   k@ k  k  0k r$ .
    8   ~  ~  ~  .  .  .
    """, variants=BLD, hands=["kkrrgg"])
    play(s, "tile r j7", "tile g h6")             # red and green: the king's owner, 1 each
    assert s.snapshot()["scores"] == [[0, 1, 0, 1], [0] * 4]


def test_building_joined_by_the_placed_tile_doubles_R_VAR_BLD_3(impl):
    # the building's line e7-g7 is a region until h7 joins it to the king on j7
    s = impl.position("""
        e  f  g  h  i  j
    7   k@ k  k  .  r$ 0k
    8   ~  ~  ~  .  .  .
    """, variants=BLD, hands=["kkrrbb"])
    play(s, "tile k j8")                          # the king's kingdom, no building: 1
    assert s.snapshot()["scores"] == [[1, 0, 0, 0], [0] * 4]
    play(s, "tile k h7")                          # joins the building's region: 2
    assert s.snapshot()["scores"] == [[3, 0, 0, 0], [0] * 4]


def test_tile_that_brings_the_building_scores_one_R_VAR_BLD_3(impl):
    s = impl.position("""
        d  e  f  g  h  i
    7   ~  .  k  k  0k r$
    8   ~  ~  ~  ~  .  .
    """, variants=BLD, hands=["kkrrbb"])
    play(s, "tile k e7")                          # scored before the building arrives
    assert s.snapshot()["scores"] == [[1, 0, 0, 0], [0] * 4]
    play(s, "building k e7")
    play(s, "tile k h8")                          # now the kingdom holds it
    assert s.snapshot()["scores"] == [[3, 0, 0, 0], [0] * 4]


def test_revolt_reward_not_doubled_R_VAR_BLD_3(impl):
    # the red building (g5-i5, joined through i6) is in the priests' kingdom
    s = impl.position("""
        g  h  i  j  k
    5   r@ r  r  .  .
    6   .  .  r  .  .
    7   .  0r r$ .  .
    8   ~  .  .  .  .
    """, turn_owner=1, variants=BLD, hands=["rrkkbb", "rrkkbb"])
    play(s, "leader r j7", "commit 1", "commit 0")    # 2 v 1
    snap = s.snapshot()
    assert snap["leaders"][1][1] == sq("j7") and snap["leaders"][0][1] == -1
    assert snap["scores"] == [[0] * 4, [0, 1, 0, 0]]


def test_war_reward_and_unification_tile_not_doubled_R_VAR_BLD_3(impl):
    # the black building is on the winner's side (c5-e5); seat 1 has 2 supporters
    s = impl.position("""
        c  d  e  f  g  h  i  j  k
    5   k@ k  k  0k r  .  r  1k k
    6   .  .  .  .  .  .  .  .  k
    """, variants=BLD, hands=["kkkrrb", "kkrrbb"])
    play(s, "tile k h5")
    assert s.snapshot()["scores"] == [[0] * 4, [0] * 4]
    play(s, "commit 0", "commit 0")               # 3 v 2
    snap = s.snapshot()
    assert snap["leaders"][1][0] == -1
    assert snap["scores"] == [[3, 0, 0, 0], [0] * 4]   # 1 + 2 removed, not doubled


def test_monument_points_not_doubled_R_VAR_BLD_3(impl):
    s = impl.position("""
        e  f  g  h  i  j
    5   .  K  K  .  .  .
    6   .  K  K  .  .  .
    7   k@ k  k  0k r$ .
    8   ~  ~  ~  .  .  .
    """, variants=BLD, monuments={"kr": "f5"}, hands=["kkrrb"], actions_left=1,
        draws="g")
    play(s, "pass")
    assert s.snapshot()["scores"][0] == [1, 0, 0, 0]


# =============================================================================
# R-VAR-BLD-4 / R-VAR-BLD-5: the tile under a building in conflicts
# =============================================================================

# seat 1's side: k5 (building) l5 m5 = 3 supporters; seat 0's side: e5 = 1
WAR_BLD = """
    e  f  g  h  i  j  k  l  m
5   k  0k r  .  r  1k k@ k  k
6   .  .  .  .  .  .  .  .  .
"""


def test_tile_under_building_is_a_supporter_R_VAR_BLD_4(impl):
    s = impl.position(WAR_BLD, variants=BLD, hands=["kkkkkk", "kkrrbb"])
    play(s, "tile k h5", "commit 2", "commit 0")     # 1 + 2 v 3: tie
    snap = s.snapshot()
    assert snap["leaders"][0][0] == -1 and snap["leaders"][1][0] == sq("j5")
    assert snap["scores"] == [[0] * 4, [2, 0, 0, 0]]  # leader + e5


def test_tile_under_building_is_a_temple_in_a_revolt_R_VAR_BLD_4(impl):
    # the defender on h7 touches h6 (red building) and i7: 2; the attacker on j7: 1
    s = impl.position("""
        g  h  i  j  k
    6   r  r@ r  .  .
    7   .  0r r$ .  .
    8   ~  .  .  .  .
    """, turn_owner=1, variants=BLD, hands=["rrkkbb", "rrkkbb"])
    play(s, "leader r j7", "commit 1", "commit 0")    # 2 v 2: tie
    snap = s.snapshot()
    assert snap["leaders"][1][1] == -1 and snap["leaders"][0][1] == sq("h7")
    assert snap["scores"] == [[0, 1, 0, 0], [0] * 4]


def test_war_does_not_remove_tile_under_building_R_VAR_BLD_5(impl):
    s = impl.position(WAR_BLD, variants=BLD, hands=["kkkkkk", "kkrrbb"])
    play(s, "tile k h5", "commit 3", "commit 0")     # 4 v 3
    snap = s.snapshot()
    assert snap["leaders"][1][0] == -1
    assert snap["scores"] == [[3, 0, 0, 0], [0] * 4]  # leader + l5 + m5, k5 stays
    assert snap["buildings"] == [sq("k5"), -1, -1, -1]
    assert snap["discarded"] == [5, 0, 0, 0]          # 3 committed + 2 removed
    assert show(snap, "e5:m5") == norm("""
        e  f  g  h  i  j  k  l  m
    5   k  0k r  k  r  .  k@ .  .
    """)


def test_red_war_keeps_temple_under_building_R_VAR_BLD_5_R_WAR_5(impl):
    # seat 1's side: i5 k5 (touch only its priest), l5 (building), m5: 4 supporters
    # (the temple n5 has lost its tile)
    s = impl.position("""
        e  f  g  h  i  j  k  l  m  n
    4   .  .  .  .  .  .  .  .  .  ~
    5   r  0r r  .  r  1r r  r@ r  .
    6   .  .  .  .  .  .  .  .  .  .
    """, variants=BLD, hands=["rrrrkk", "kkkbbb"])
    play(s, "tile r h5", "commit 3", "commit 0")     # 2 + 3 v 4
    snap = s.snapshot()
    assert snap["leaders"][1][1] == -1 and snap["leaders"][0][1] == sq("f5")
    assert snap["scores"] == [[0, 4, 0, 0], [0] * 4]  # 1 + i5 k5 m5
    assert show(snap, "e5:m5") == norm("""
        e  f  g  h  i  j  k  l  m
    5   r  0r r  r  .  .  .  r@ .
    """)


def test_no_catastrophe_on_tile_under_building_R_VAR_BLD_5_R_CAT_1(impl):
    s = impl.position("""
        f  g  h  i  j
    5   .  k@ k  k  .
    """, variants=BLD, hands=["kkkkkk"])
    assert "cat g5" not in legal(s) and "cat h5" in legal(s)
    assert_illegal(s, "cat g5")
    play(s, "cat h5")                               # its neighbour may go
    snap = s.snapshot()
    assert at(snap, "h5") == "x" and snap["buildings"][0] == sq("g5")


def test_monument_on_building_returns_it_to_supply_R_VAR_BLD_5(impl):
    s = impl.position("""
        f  g  h  i  j
    5   .  k@ k  k  .
    6   .  k  .  .  .
    """, variants=BLD, hands=["kkkkkk"])
    play(s, "tile k h6")                            # no line through h6; completes g5-h6
    assert legal(s) == ["monument kr g5", "monument kb g5", "monument kg g5", "nomonument"]
    play(s, "monument kb g5")
    snap = s.snapshot()
    assert snap["buildings"] == [-1] * 4
    assert show(snap, "f5:j6") == norm("""
        f  g  h  i  j
    5   .  K  K  k  .
    6   .  K  K  .  .
    """)
    assert (snap["phase"], snap["actions_left"]) == ("action", 1)


def test_building_then_monument_on_it_returns_it_R_VAR_BLD_5_R_VAR_BLD_2(impl):
    # i5 completes the line g5-i5 and the block h5-i6: building first, then monument
    s = impl.position("""
        f  g  h  i  j
    5   .  k  k  .  .
    6   .  .  k  k  .
    """, variants=BLD, hands=["kkkkkk"])
    play(s, "tile k i5")
    assert s.phase == "building"
    play(s, "building k i5")
    assert s.phase == "monument" and s.snapshot()["buildings"][0] == sq("i5")
    assert legal(s) == ["monument kr h5", "monument kb h5", "monument kg h5", "nomonument"]
    play(s, "monument kr h5")
    snap = s.snapshot()
    assert snap["buildings"] == [-1] * 4 and at(snap, "i5") == "K"
    assert (snap["phase"], snap["actions_left"]) == ("action", 1)


def test_wonder_on_building_returns_it_to_supply_R_VAR_BLD_5_R_VAR_WONDER_1(impl):
    # h6 completes the cross at h5; the building's line g5-i5 is part of it
    s = impl.position("""
        f  g  h  i  j
    4   .  .  k  .  .
    5   .  k@ k  k  .
    6   .  .  .  .  .
    """, variants=["buildings", "wonder"], hands=["kkkkkk"])
    play(s, "tile k h6")                            # h4-h6 is 3, not longer than 3
    assert s.phase == "wonder"
    assert legal(s) == ["wonder h5", "nowonder"]
    play(s, "wonder h5")
    snap = s.snapshot()
    assert snap["buildings"] == [-1] * 4 and snap["wonder"] == sq("h5")


# =============================================================================
# R-VAR-WONDER-1: building the wonder
# =============================================================================

CROSS_ARM = """
    f  g  h  i  j
3   .  .  .  .  .
4   .  .  k  .  .
5   .  k  k  k  .
6   .  .  .  .  .
7   .  .  .  r$ .
"""

BUILT_WONDER = """
    f  g  h  i  j
3   .  .  .  .  .
4   .  .  W  .  .
5   .  W  W  W  .
6   .  .  W  .  .
7   .  .  .  r$ .
"""


def test_cross_completed_by_arm_offers_wonder_R_VAR_WONDER_1(impl):
    s = impl.position(CROSS_ARM, variants=WON, hands=["kkkrbb"])
    before = s.snapshot()
    play(s, "tile k h6")
    snap = s.snapshot()
    assert (snap["phase"], snap["to_act"], snap["placed"]) == ("wonder", 0, sq("h6"))
    assert legal(s) == ["wonder h5", "nowonder"]
    assert_illegal(s, "wonder h6")
    play(s, "wonder h5")
    snap = s.snapshot()
    assert show(snap, "f3:j7") == norm(BUILT_WONDER)
    assert snap["wonder"] == sq("h5")
    assert snap["discarded"] == [before["discarded"][0] + 5] + before["discarded"][1:]
    assert tile_totals(snap) == list(TOTALS)
    assert (snap["phase"], snap["actions_left"], snap["placed"]) == ("action", 1, -1)


def test_cross_completed_by_centre_offers_wonder_R_VAR_WONDER_1(impl):
    s = impl.position("""
        f  g  h  i  j
    4   .  .  g  .  .
    5   .  g  .  g  .
    6   .  .  g  .  .
    """, variants=WON, hands=["ggkrbb"])
    play(s, "tile g h5")
    assert legal(s) == ["wonder h5", "nowonder"]
    play(s, "wonder h5")
    snap = s.snapshot()
    assert snap["wonder"] == sq("h5") and snap["discarded"] == [0, 0, 0, 5]
    assert show(snap, "f4:j6") == norm("""
        f  g  h  i  j
    4   .  .  W  .  .
    5   .  W  W  W  .
    6   .  .  W  .  .
    """)


def test_two_crosses_completed_at_once_choose_one_R_VAR_WONDER_1(impl):
    # h5 completes the cross at h4 and the cross at h6
    s = impl.position("""
        f  g  h  i  j
    3   .  .  k  .  .
    4   .  k  k  k  .
    5   .  .  .  .  .
    6   .  k  k  k  .
    7   .  .  k  r$ .
    """, variants=WON, hands=["kkkrbb"])
    play(s, "tile k h5")
    assert legal(s) == ["wonder h4", "wonder h6", "nowonder"]
    play(s, "wonder h6")
    snap = s.snapshot()
    assert snap["wonder"] == sq("h6")
    assert show(snap, "f3:j7") == norm("""
        f  g  h  i  j
    3   .  .  k  .  .
    4   .  k  k  k  .
    5   .  .  W  .  .
    6   .  W  W  W  .
    7   .  .  W  r$ .
    """)


def test_treasure_moves_onto_the_wonder_R_VAR_WONDER_1(impl):
    # the red cross at i6 includes the temple i7 and its treasure
    s = impl.position("""
        g  h  i  j  k
    5   .  .  r  .  .
    6   .  r  .  r  .
    7   .  .  r$ .  .
    8   ~  .  .  .  .
    """, variants=WON, hands=["rrkkbb"])
    before = s.snapshot()
    play(s, "tile r i6", "wonder i6")
    snap = s.snapshot()
    assert at(snap, "i7") == "W$" and sq("i7") in snap["treasures"]
    assert snap["treasures"] == before["treasures"]
    assert snap["treasures_taken"] == before["treasures_taken"]
    assert snap["discarded"] == [0, 5, 0, 0]


def test_nowonder_declines_and_the_chance_is_lost_R_VAR_WONDER_1_R_VAR_WONDER_3(impl):
    s = impl.position(CROSS_ARM, variants=WON, hands=["kkkrbb"])
    play(s, "tile k h6", "nowonder")
    snap = s.snapshot()
    assert snap["wonder"] == -1 and (snap["phase"], snap["actions_left"]) == ("action", 1)
    assert show(snap, "g4:i6") == norm("""
        g  h  i
    4   .  k  .
    5   k  k  k
    6   .  k  .
    """)
    play(s, "tile k h7")                           # next to the cross, completes nothing
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["turn_owner"] == 1 and snap["wonder"] == -1


def test_not_a_cross_without_four_neighbours_on_the_board_R_VAR_WONDER_1(impl):
    # b1 on the top edge with a1, c1 and b2 around it: only four tiles
    s = impl.position("""
        a  b  c
    1   r  .  r
    2   .  r$ .
    """, variants=WON, hands=["rrkkbb"])
    play(s, "tile r b1")
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["wonder"] == -1


def test_mixed_colours_make_no_cross_R_VAR_WONDER_1(impl):
    s = impl.position("""
        g  h  i
    4   .  k  .
    5   k  k  g
    6   .  .  .
    """, variants=WON, hands=["kkkrbb"])
    play(s, "tile k h6")
    assert s.phase == "action" and s.snapshot()["wonder"] == -1


def test_only_one_wonder_per_game_R_VAR_WONDER_1(impl):
    s = impl.position("""
        f  g  h  i  j  k  l
    2   .  .  .  .  .  W  .
    3   .  .  .  .  W  W  W
    4   .  .  k  .  .  W  .
    5   .  k  k  k  .  .  .
    6   .  .  .  .  .  .  .
    """, variants=WON, wonder_colour="r", hands=["kkkrbb"])
    play(s, "tile k h6")
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["wonder"] == sq("k3")
    assert_illegal(s, "wonder h5")


def test_monument_check_before_wonder_check_R_VAR_WONDER_3(impl):
    # h5 completes the block g4-h5 and the cross at h5
    diagram = """
        f  g  h  i  j
    4   .  k  k  .  .
    5   .  k  .  k  .
    6   .  .  k  .  .
    """
    s = impl.position(diagram, variants=WON, hands=["kkkrbb"])
    play(s, "tile k h5")
    assert legal(s) == ["monument kr g4", "monument kb g4", "monument kg g4", "nomonument"]
    play(s, "nomonument")
    assert legal(s) == ["wonder h5", "nowonder"]
    # building the monument turns the placed tile face down: no cross remains
    s = impl.position(diagram, variants=WON, hands=["kkkrbb"])
    play(s, "tile k h5", "monument kg g4")
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["wonder"] == -1


def test_building_then_monument_then_wonder_R_VAR_BLD_2_R_VAR_WONDER_3(impl):
    s = impl.position("""
        f  g  h  i  j
    4   .  k  k  .  .
    5   .  k  .  k  .
    6   .  .  k  .  .
    """, variants=["english", "buildings", "wonder"], hands=["kkkrbb"])
    play(s, "tile k h5")
    assert s.phase == "building"
    assert legal(s) == ["building k h4", "building k g5", "building k h5", "building k i5",
                        "building k h6", "nobuilding"]
    play(s, "building k h5")
    assert s.phase == "monument"
    play(s, "nomonument")
    assert s.phase == "wonder"
    play(s, "wonder h5")
    snap = s.snapshot()
    assert snap["buildings"] == [-1] * 4 and snap["wonder"] == sq("h5")
    assert at(snap, "g4") == "k"


def test_without_wonder_a_cross_gives_no_wonder_phase_R_VAR_WONDER_1(impl):
    for variants in ([], ["english"]):
        s = impl.position(CROSS_ARM, variants=variants, hands=["kkkrbb"])
        play(s, "tile k h6")
        snap = s.snapshot()
        assert (snap["phase"], snap["actions_left"]) == ("action", 1)
        assert snap["wonder"] == -1 and at(snap, "h5") == "k"
        assert_illegal(s, "wonder h5")
        assert_illegal(s, "nowonder")


def test_buildings_alone_cross_gives_building_but_no_wonder_R_VAR_WONDER_1_R_VAR_BLD_2(impl):
    s = impl.position(CROSS_ARM, variants=BLD, hands=["kkkrbb"])
    play(s, "tile k h6")
    assert legal(s) == ["building k h4", "building k h5", "building k h6", "nobuilding"]
    play(s, "nobuilding")
    snap = s.snapshot()
    assert (snap["phase"], snap["actions_left"], snap["wonder"]) == ("action", 1, -1)


# =============================================================================
# R-VAR-WONDER-2: the wonder on the board
# =============================================================================

def test_wonder_connects_like_tiles_R_VAR_WONDER_2(impl):
    # the king on i6 touches the temple i7 and the wonder
    s = impl.position("""
        e  f  g  h  i  j
    3   ~  .  .  .  .  .
    4   .  .  .  W  .  .
    5   .  .  W  W  W  .
    6   .  .  .  W  0k .
    7   .  .  .  .  r$ .
    """, variants=WON, wonder_colour="k", hands=["kkrrbb"])
    play(s, "tile k f5")                          # next to the wonder: in the kingdom
    assert s.snapshot()["scores"] == [[1, 0, 0, 0], [0] * 4]
    play(s, "tile r h3")
    assert s.snapshot()["scores"] == [[1, 1, 0, 0], [0] * 4]


def test_wonder_unifies_is_no_supporter_never_removed_R_VAR_WONDER_2(impl):
    # f5 joins seat 0's kingdom (through the black-made wonder) to seat 1's king f4
    s = impl.position("""
        e  f  g  h  i
    3   ~  r$ .  .  .
    4   k  1k .  W  .
    5   .  .  W  W  W
    6   .  .  .  W  0k
    7   .  .  .  .  r$
    """, variants=WON, wonder_colour="k", hands=["kkrrbb", "kkrrbb"])
    play(s, "tile k f5")
    snap = s.snapshot()
    assert snap["phase"] == "war_attack" and snap["unification"] == sq("f5")
    assert snap["conflict"]["attacker_leader"] == sq("i6")
    assert snap["conflict"]["defender_leader"] == sq("f4")
    play(s, "commit 1", "commit 0")               # 0 + 1 v 1: tie, the defender wins
    snap = s.snapshot()
    assert snap["leaders"][0][0] == -1 and snap["leaders"][1][0] == sq("f4")
    assert snap["scores"] == [[0] * 4, [1, 0, 0, 0]]   # nothing removed
    assert snap["wonder"] == sq("h5")
    assert show(snap, "e3:i7") == norm("""
        e  f  g  h  i
    3   ~  r$ .  .  .
    4   k  1k .  W  .
    5   .  k  W  W  W
    6   .  .  .  W  .
    7   .  .  .  .  r$
    """)


def test_wonder_is_no_temple_leader_goes_to_supply_R_VAR_WONDER_2_R_LEAD_5(impl):
    # the priest on j5 touches only i5, which becomes part of the wonder;
    # the king on j6 keeps the temple j7
    s = impl.position("""
        g  h  i  j  k
    4   .  r  .  .  .
    5   r  .  r  0r .
    6   .  r  .  0k .
    7   .  .  .  r  .
    """, variants=WON, hands=["rrkkbb"])
    play(s, "tile r h5")
    assert s.snapshot()["scores"][0] == [0, 1, 0, 0]
    play(s, "wonder h5")
    snap = s.snapshot()
    assert snap["leaders"][0] == [sq("j6"), -1, -1, -1]
    assert_illegal(s, "leader r j5")              # touches only the wonder
    assert_illegal(s, "leader r i4")


def test_no_catastrophe_tile_or_leader_on_the_wonder_R_VAR_WONDER_2(impl):
    # the wonder at g4; f4 touches the temple f3
    s = impl.position("""
        e  f  g  h  i
    2   ~  .  .  .  .
    3   ~  r$ W  .  .
    4   .  W  W  W  .
    5   .  .  W  .  .
    """, variants=WON, wonder_colour="k", hands=["kkrrbb"])
    for text in ("cat g4", "cat f4", "cat g5", "tile k g4", "tile r h4", "leader k f4",
                 "leader r g3"):
        assert_illegal(s, text)
    assert "leader k f2" in legal(s) and "cat f5" in legal(s) and "tile k f5" in legal(s)


def test_treasure_on_the_wonder_counts_in_its_kingdom_R_VAR_WONDER_2(impl):
    # the wonder (centre g3) holds f3's treasure; tiles i3-k2 lead to the temple k1
    s = impl.position("""
        e  f  g  h  i  j  k  l
    1   ~  ~  ~  ~  ~  .  r$ .
    2   ~  .  W  .  .  .  k  .
    3   ~  W$ W  W  k  k  k  .
    4   .  .  W  .  .  .  .  .
    """, variants=WON, wonder_colour="k", hands=["ggkkbb"])
    play(s, "leader g j1")                        # k1 + the wonder's treasure
    snap = s.snapshot()
    assert (snap["phase"], snap["to_act"]) == ("treasure", 0)
    assert legal(s) == ["treasure k1", "treasure f3"]
    play(s, "treasure f3")
    snap = s.snapshot()
    assert at(snap, "f3") == "W" and sq("f3") not in snap["treasures"]
    assert snap["treasures_taken"] == [1, 0]


def test_wonder_squares_extend_no_line_R_VAR_WONDER_2(impl):
    s = impl.position("""
        f  g  h  i  j  k
    4   .  .  W  .  .  .
    5   .  W  W  W  k  .
    6   .  .  W  .  .  .
    """, variants=["buildings", "wonder"], wonder_colour="k", hands=["kkkkkk"])
    play(s, "tile k k5")                          # i5 is wonder: the run is j5-k5
    assert s.phase == "action" and s.snapshot()["buildings"] == [-1] * 4


# =============================================================================
# R-VAR-WONDER-3: monument rules, but no monument scoring
# =============================================================================

def test_wonder_scores_no_monument_points_R_VAR_WONDER_3(impl):
    # the trader on i6 is in the kingdom of a green-made wonder: no R-MON-4 point,
    # no wonder point (no king)
    s = impl.position("""
        g  h  i  j
    4   .  W  .  .
    5   W  W  W  .
    6   .  W  0g .
    7   .  .  r$ .
    """, variants=WON, wonder_colour="g", hands=["kkrrb"], actions_left=1, draws="g")
    play(s, "pass")
    snap = s.snapshot()
    assert snap["scores"] == [[0] * 4, [0] * 4]
    assert (snap["phase"], snap["turn_owner"]) == ("action", 1)


# =============================================================================
# R-VAR-WONDER-4: the wonder point
# =============================================================================

KING_AT_WONDER = """
    g  h  i  j  k
4   .  W  .  .  .
5   W  W  W  .  .
6   .  W  {s}k .  .
7   .  .  r$ .  .
"""


def test_wonder_point_choice_of_colour_then_refill_R_VAR_WONDER_4_R_TURN_3(impl):
    s = impl.position(KING_AT_WONDER.format(s=0), variants=WON, wonder_colour="k",
                      hands=["kkrrb"], actions_left=1, draws="g")
    play(s, "pass")
    snap = s.snapshot()
    assert (snap["phase"], snap["to_act"], snap["turn_owner"]) == ("wonder_point", 0, 0)
    assert snap["hands"][0] == [2, 2, 1, 0]       # not refilled yet
    assert legal(s) == ALL_COLOURS
    assert_illegal(s, "pass")
    play(s, "wonderpoint b")
    snap = s.snapshot()
    assert snap["scores"] == [[0, 0, 1, 0], [0] * 4]
    assert snap["hands"][0] == [2, 2, 1, 1]       # refilled after the point
    assert (snap["phase"], snap["turn_owner"], snap["to_act"]) == ("action", 1, 1)


def test_wonder_point_after_second_action_and_monument_points_R_VAR_WONDER_4_R_TURN_3(impl):
    # the kr monument on j7-k8 touches the temple i7: 1 black for the king first
    s = impl.position("""
        g  h  i  j  k
    4   .  W  .  .  .
    5   W  W  W  .  .
    6   .  W  0k .  .
    7   .  .  r$ K  K
    8   ~  .  .  K  K
    """, variants=WON, wonder_colour="g", monuments={"kr": "j7"},
        hands=["kkrrbb"], actions_left=1, draws="r")
    play(s, "tile r j6")                          # 1 red (no priest: the king)
    snap = s.snapshot()
    assert snap["phase"] == "wonder_point"
    assert snap["scores"][0] == [1, 1, 0, 0]      # monument point already scored
    assert snap["hands"][0] == [2, 1, 2, 0]
    play(s, "wonderpoint k")
    snap = s.snapshot()
    assert snap["scores"][0] == [2, 1, 0, 0]
    assert snap["hands"][0] == [2, 2, 2, 0] and snap["turn_owner"] == 1


def test_no_wonder_point_when_king_elsewhere_R_VAR_WONDER_4(impl):
    # the king on j7 touches i7, which does not touch the wonder
    s = impl.position("""
        g  h  i  j  k
    4   .  W  .  .  .
    5   W  W  W  .  .
    6   .  W  .  .  .
    7   .  .  r$ 0k .
    """, variants=WON, wonder_colour="k", hands=["kkrrb"], actions_left=1, draws="g")
    play(s, "pass")
    snap = s.snapshot()
    assert (snap["phase"], snap["turn_owner"]) == ("action", 1)
    assert snap["scores"] == [[0] * 4, [0] * 4] and sum(snap["hands"][0]) == 6


def test_wonder_point_only_for_the_turn_owner_R_VAR_WONDER_4(impl):
    s = impl.position(KING_AT_WONDER.format(s=1), variants=WON, wonder_colour="k",
                      hands=["kkrrb", "kkrrbb"], actions_left=1, draws="gg")
    play(s, "pass")                                # seat 0 has no king there
    snap = s.snapshot()
    assert (snap["phase"], snap["turn_owner"], snap["to_act"]) == ("action", 1, 1)
    play(s, "pass")
    snap = s.snapshot()
    assert (snap["phase"], snap["to_act"]) == ("wonder_point", 1)
    play(s, "wonderpoint r")
    assert s.snapshot()["scores"] == [[0] * 4, [0, 1, 0, 0]]
    assert s.turn_owner == 0


def test_wonder_point_before_the_end_of_game_check_R_VAR_WONDER_4_R_TURN_3(impl):
    # only one treasure left on the board: the game ends at this turn's end
    s = impl.position(KING_AT_WONDER.format(s=0), variants=WON, wonder_colour="k",
                      hands=["kkrrb"], actions_left=1, draws="g", outside="empty")
    play(s, "pass")
    assert s.phase == "wonder_point"
    play(s, "wonderpoint g")
    snap = s.snapshot()
    assert (snap["phase"], snap["end_reason"], snap["to_act"]) == ("over", "treasures", -1)
    assert snap["scores"][0] == [0, 0, 0, 1]


# =============================================================================
# a variant off: none of its decisions ever appears
# =============================================================================

VARIANT_KINDS = {"buildings": {"building", "nobuilding"},
                 "wonder": {"wonder", "nowonder", "wonderpoint"}}
VARIANT_PHASES = {"buildings": {"building"}, "wonder": {"wonder", "wonder_point"}}


@pytest.mark.parametrize("variants", [[], ["english"], ["buildings"], ["wonder"],
                                      ["english", "buildings"], ["english", "wonder"]])
def test_random_games_never_show_decisions_of_variants_off_R_VAR_BLD_2_R_VAR_WONDER_1_R_VAR_WONDER_4(impl, variants):
    import random
    from engine.actions import kind
    off = [v for v in ("buildings", "wonder") if v not in variants]
    banned_kinds = set().union(*(VARIANT_KINDS[v] for v in off)) if off else set()
    banned_phases = set().union(*(VARIANT_PHASES[v] for v in off)) if off else set()
    rng = random.Random(len(variants) * 7 + len("".join(variants)))
    for game in range(2):
        s = impl.new_game(2, game, variants=variants)
        for _ in range(300):
            if s.is_terminal():
                break
            assert s.phase not in banned_phases
            acts = s.legal_actions()
            assert not {kind(a) for a in acts} & banned_kinds
            tiles = [a for a in acts if kind(a) == "tile"]
            s.apply(rng.choice(tiles if tiles and rng.random() < 0.8 else acts))
        snap = s.snapshot()
        if "buildings" in off:
            assert snap["buildings"] == [-1] * 4
        if "wonder" in off:
            assert snap["wonder"] == -1 and 10 not in snap["cells"]
