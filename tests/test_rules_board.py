"""Regions, turns, leaders, tiles, catastrophes, swaps (docs/rules.md §2-§7)."""
from __future__ import annotations

from diagram import assert_illegal, at, board_of, legal, norm, play, show, sq
from engine.actions import kind
from engine.boards import neighbours


def scores(s):
    return s.snapshot()["scores"]


# --- R-KING ------------------------------------------------------------------

def test_diagonal_does_not_connect_edge_does_R_KING_1(impl):
    s = impl.position("""
        g  h  i  j
    6   .  .  .  .
    7   .  0k r$ .
    8   ~  .  .  .
    """, hands=["kkkkkk"])
    play(s, "tile k g6")                 # diagonal to the king: a lone region
    assert scores(s) == [[0, 0, 0, 0], [0, 0, 0, 0]]
    play(s, "tile k h8")                 # edge-adjacent to the king
    assert scores(s) == [[1, 0, 0, 0], [0, 0, 0, 0]]


def test_catastrophe_does_not_connect_R_KING_1(impl):
    s = impl.position("""
        f  g  h  i
    7   .  x  0k r$
    """, hands=["kkkkkk"])
    play(s, "tile k f7")
    assert scores(s) == [[0, 0, 0, 0], [0, 0, 0, 0]]


def test_face_down_tiles_connect_R_KING_1(impl):
    s = impl.position("""
        f  g  h  i  j
    5   .  .  .  .  .
    6   .  K  K  .  .
    7   .  K  K  r$ 0k
    """, monuments={"kb": "g6"}, hands=["kkkkkk"])
    play(s, "tile k f6")                 # joins the king through the monument's tiles
    assert scores(s) == [[1, 0, 0, 0], [0, 0, 0, 0]]


def test_region_scores_nothing_leader_makes_kingdom_R_KING_2(impl):
    s = impl.position("""
        g  h  i  j  k  l
    5   .  .  .  .  .  .
    6   .  k  .  .  .  .
    7   .  k  r$ .  r  .
    """, hands=["kkkkkk"])
    play(s, "tile k h5")                 # into a region: no leader, no score
    assert scores(s) == [[0, 0, 0, 0], [0, 0, 0, 0]]
    play(s, "leader k j7")               # joins two regions into one kingdom
    assert s.turn_owner == 1
    play(s, "pass")
    play(s, "tile k l7")                 # l7 joins k7, now in the king's kingdom
    assert scores(s) == [[1, 0, 0, 0], [0, 0, 0, 0]]
    play(s, "tile k g6")                 # the other end of the joined kingdom
    assert scores(s) == [[2, 0, 0, 0], [0, 0, 0, 0]]


# --- R-TURN ------------------------------------------------------------------

def test_two_actions_then_next_player_R_TURN_1(impl):
    s = impl.position(None, hands=["kkkkkk"])
    play(s, "tile k g5")
    snap = s.snapshot()
    assert (snap["turn_owner"], snap["to_act"], snap["actions_left"]) == (0, 0, 1)
    play(s, "tile k h5")                 # the same kind twice
    snap = s.snapshot()
    assert (snap["turn_owner"], snap["to_act"], snap["actions_left"]) == (1, 1, 2)
    assert at(snap, "g5") == "k" and at(snap, "h5") == "k"


def test_pass_ends_turn_early_R_TURN_1(impl):
    s = impl.position(None, hands=["kkkkkk"])
    play(s, "tile k g5", "pass")
    snap = s.snapshot()
    assert (snap["turn_owner"], snap["to_act"], snap["actions_left"], snap["phase"]) == (1, 1, 2, "action")
    assert sum(snap["hands"][0]) == 6              # refilled
    play(s, "pass")                                # a whole turn passed
    assert s.turn_owner == 0


def test_action_kinds_R_TURN_2(impl):
    s = impl.position("""
        h  i
    7   0k r$
    """, hands=["kkrbgg"])
    kinds = {kind(a) for a in s.legal_actions()}
    assert kinds == {"tile", "leader", "withdraw", "cat", "swap", "pass"}
    s2 = impl.position("""
        a  b
    1   x  x
    """, hands=["kkrbgg"])
    assert {kind(a) for a in s2.legal_actions()} == {"tile", "leader", "swap", "pass"}


def test_action_complete_only_after_its_revolt_R_TURN_2(impl):
    s = impl.position("""
        g  h  i  j
    7   .  0r r$ .
    """, turn_owner=1, hands=["rrkkbb", "rrkkbb"])
    play(s, "leader r j7")
    snap = s.snapshot()
    assert snap["phase"] == "revolt_attack" and snap["actions_left"] == 2
    play(s, "commit 0")
    assert s.snapshot()["actions_left"] == 2 and s.phase == "revolt_defend"
    play(s, "commit 0")
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["actions_left"] == 1 and snap["to_act"] == 1


def test_end_of_turn_refills_owner_then_committed_seats_in_order_R_TURN_3(impl):
    # seat 1 ends its turn; seats 2 and 0 committed tiles in a conflict this turn
    s = impl.position(None, players=3, turn_owner=1, actions_left=1,
                      hands=["bbb", "kkkk", "bbbbb"], committed=[True, False, True],
                      draws="rrgkkk")
    play(s, "pass")
    snap = s.snapshot()
    assert snap["hands"][1] == [4, 2, 0, 0]        # the active player first: r r
    assert snap["hands"][2] == [0, 0, 5, 1]        # then seat 2 (after seat 1): g
    assert snap["hands"][0] == [3, 0, 3, 0]        # then seat 0: k k k
    assert snap["committed"] == [False, False, False]
    assert (snap["turn_owner"], snap["phase"]) == (2, "action")


def test_seat_that_did_not_commit_is_not_refilled_R_TURN_3(impl):
    s = impl.position(None, players=3, turn_owner=0, actions_left=1,
                      hands=["kkkk", "bbbbb", "kkkkkk"], committed=[False, True, False],
                      draws="rrgkkk")
    play(s, "pass")
    snap = s.snapshot()
    assert snap["hands"] == [[4, 2, 0, 0], [0, 0, 5, 1], [6, 0, 0, 0]]


def test_monument_points_at_end_of_turn_not_before_R_TURN_3(impl):
    s = impl.position("""
        f  g  h  i  j
    5   r  R  R  .  .
    6   0k R  R  0r .
    7   .  .  .  r$ .
    """, monuments={"kr": "g5"}, hands=["kkkkkk"])
    play(s, "tile k j5")
    assert scores(s)[0] == [0, 0, 0, 0]
    play(s, "tile k j6")                # j6 joins the kingdom: +1 black to the king
    assert scores(s)[0] == [1 + 1, 1, 0, 0]   # then at end of turn the monument: king +1, priest +1


# --- R-LEAD ------------------------------------------------------------------

def test_place_from_supply_R_LEAD_1(impl):
    s = impl.position(None)
    play(s, "leader g j7")
    snap = s.snapshot()
    assert snap["leaders"][0] == [-1, -1, -1, sq("j7")]
    assert snap["actions_left"] == 1


def test_move_is_lift_then_place_no_self_revolt_R_LEAD_1(impl):
    s = impl.position("""
        g  h  i  j
    7   .  0k r$ .
    """)
    assert_illegal(s, "leader k h7")           # must move to another square
    play(s, "leader k j7")                     # same kingdom: no revolt with itself
    snap = s.snapshot()
    assert snap["phase"] == "action" and snap["actions_left"] == 1
    assert at(snap, "h7") == "." and at(snap, "j7") == "0k"


def test_move_judged_without_the_lifted_leader_R_LEAD_1(impl):
    s = impl.position("""
        f  g  h  i
    5   .  1r .  .
    6   .  r  .  .
    7   .  .  0k r$
    8   ~  ~  .  .
    """)
    # g7 touches the king's kingdom (h7) and seat 1's kingdom (g6): a new
    # trader there would join two kingdoms ...
    assert_illegal(s, "leader g g7")
    # ... but the king itself, lifted first, joins only seat 1's kingdom
    play(s, "leader k g7")
    snap = s.snapshot()
    assert snap["leaders"][0][0] == sq("g7") and at(snap, "h7") == "."
    assert snap["phase"] == "action" and snap["actions_left"] == 1


def test_withdraw_R_LEAD_1(impl):
    s = impl.position("""
        h  i
    7   0k r$
    """)
    assert_illegal(s, "withdraw r")            # the priest is not on the board
    play(s, "withdraw k")
    snap = s.snapshot()
    assert snap["leaders"][0] == [-1, -1, -1, -1] and snap["actions_left"] == 1
    assert scores(s) == [[0] * 4, [0] * 4]


def test_leader_needs_empty_land_next_to_face_up_temple_R_LEAD_2(impl):
    s = impl.position(None)
    b = board_of("standard")
    snap = s.snapshot()
    expect = {x for x in range(176)
              if snap["cells"][x] == 0 and x not in b.river
              and any(snap["cells"][n] == 2 for n in neighbours(x))}
    for c in range(4):
        got = {a - 704 - 176 * c for a in s.legal_actions() if 704 + 176 * c <= a < 704 + 176 * (c + 1)}
        assert got == expect
    assert_illegal(s, "leader k n4")      # river next to the n5 temple
    assert_illegal(s, "leader k o5")      # river next to the n5 temple
    assert_illegal(s, "leader k m4")      # only diagonal to n5
    assert_illegal(s, "leader k n5")      # on the temple itself
    play(s, "leader k m5")


def test_leader_not_on_occupied_square_R_LEAD_2(impl):
    s = impl.position("""
        h  i  j
    6   .  x  .
    7   0k r$ .
    8   .  .  .
    """, hands=[None, None])
    assert_illegal(s, "leader r h7")      # another leader stands there
    assert_illegal(s, "leader r i6")      # catastrophe
    play(s, "leader r j7")


def test_leader_may_not_join_two_kingdoms_R_LEAD_3(impl):
    for trader_owner in (0, 1):
        s = impl.position(f"""
            g  h  i  j  k
        6   0k r  .  r  {trader_owner}g
        7   .  .  r$ .  .
        """)
        assert_illegal(s, "leader r i6")      # between two kingdoms
        play(s, "leader r h7")                # one kingdom + the i7 region: fine
        snap = s.snapshot()
        assert snap["leaders"][0][1] == sq("h7") and snap["phase"] == "action"


def test_leader_joins_regions_into_new_kingdom_R_LEAD_3(impl):
    s = impl.position("""
        h  i  j  k
    6   .  .  r  .
    7   r  r$ .  r
    """, hands=["gggkkk"])
    play(s, "leader g j7")                    # touches three regions: legal
    play(s, "tile g k8")                      # k8 joins k7: in the new kingdom
    assert scores(s)[0] == [0, 0, 0, 1]


def test_same_colour_leader_starts_revolt_R_LEAD_4(impl):
    s = impl.position("""
        g  h  i  j
    7   .  0r r$ .
    """, turn_owner=1, hands=["rrkkbb", "rrrkbb"])
    play(s, "leader r j7")
    snap = s.snapshot()
    assert snap["phase"] == "revolt_attack" and snap["to_act"] == 1 == s.to_act
    assert snap["conflict"] == {"kind": "revolt", "colour": 1, "attacker": 1, "defender": 0,
                                "attacker_leader": sq("j7"), "defender_leader": sq("h7"),
                                "attacker_commit": -1}
    assert legal(s) == ["commit 0", "commit 1", "commit 2", "commit 3"]


def test_other_colour_leader_no_revolt_R_LEAD_4(impl):
    s = impl.position("""
        g  h  i  j
    7   .  0r r$ .
    """, turn_owner=1)
    play(s, "leader k j7")
    assert s.phase == "action" and s.snapshot()["conflict"] is None


def test_leader_without_temple_returns_after_catastrophe_R_LEAD_5(impl):
    s = impl.position("""
        f  g  h  i  j
    6   .  r  0k r  .
    7   .  .  1r r$ .
    """)
    play(s, "cat g6")                     # the king still touches i6
    snap = s.snapshot()
    assert snap["leaders"][0][0] == sq("h6")
    play(s, "cat i6")                     # no face-up temple left next to the king
    snap = s.snapshot()
    assert snap["leaders"][0][0] == -1
    assert snap["leaders"][1][1] == sq("h7")   # the priest still touches i7
    assert show(snap, "f6:j7") == norm("""
        f  g  h  i  j
    6   .  x  .  x  .
    7   .  .  1r r$ .
    """)


def test_placing_leader_scores_nothing_R_LEAD_6(impl):
    s = impl.position("""
        g  h  i  j
    6   k  r  g  .
    7   .  .  r$ .
    """)
    play(s, "leader k h7", "leader g j7")
    assert scores(s) == [[0] * 4, [0] * 4]


# --- R-TILE ------------------------------------------------------------------

def test_tile_terrain_and_empty_square_R_TILE_1(impl):
    s = impl.position("""
        g  h  i
    6   k  x  .
    7   .  0k r$
    8   ~  .  .
    """, hands=["kkbbgg"])
    assert_illegal(s, "tile r h8")        # no red tile in hand
    assert_illegal(s, "tile k g6")        # a tile is there
    assert_illegal(s, "tile k h6")        # a catastrophe is there
    assert_illegal(s, "tile k h7")        # a leader is there
    assert_illegal(s, "tile k i7")        # a temple is there
    assert_illegal(s, "tile k g8")        # black on river
    assert_illegal(s, "tile b h8")        # blue on land
    assert "tile k h8" in legal(s) and "tile g h8" in legal(s)
    play(s, "tile b g8")
    snap = s.snapshot()
    assert at(snap, "g8") == "b" and snap["hands"][0] == [2, 0, 1, 2]


def test_tile_may_not_join_three_kingdoms_R_TILE_2(impl):
    s = impl.position("""
        g  h  i  j  k  l
    4   .  .  .  0r .  .
    5   .  .  .  r  .  .
    6   .  .  .  .  r  1k
    7   .  .  r$ 0k .  .
    8   ~  .  .  .  .  .
    """, hands=["kkrrgg"])
    for c in "krg":
        assert_illegal(s, f"tile {c} j6")
    play(s, "tile k k5")                  # joins exactly two kingdoms: allowed
    assert s.phase == "action"


def test_unification_tile_scores_nothing_R_TILE_3(impl):
    s = impl.position("""
        g  h  i  j  k
    5   .  .  .  .  .
    6   0k r  .  r  1g
    7   .  .  r$ .  .
    """, hands=["rrgggg"])
    play(s, "tile r i6")                  # joins the king's and the trader's kingdoms
    snap = s.snapshot()
    assert snap["scores"] == [[0] * 4, [0] * 4]
    assert snap["phase"] == "action" and snap["unification"] == -1 and snap["actions_left"] == 1
    play(s, "tile g i5")                  # now one kingdom: the trader's owner scores
    assert scores(s) == [[0] * 4, [0, 0, 0, 1]]


def test_tile_scores_leader_of_colour_else_king_R_TILE_4(impl):
    s = impl.position("""
        g  h  i  j
    6   .  .  .  .
    7   .  0k r$ 1g
    8   ~  .  .  .
    """, hands=["rkbggg"])
    play(s, "tile g j8")                  # the trader's owner (not the active player)
    assert scores(s) == [[0] * 4, [0, 0, 0, 1]]
    play(s, "tile r h6")                  # no priest: the king's owner
    assert scores(s) == [[0, 1, 0, 0], [0, 0, 0, 1]]


def test_tile_without_king_or_matching_leader_scores_nothing_R_TILE_4(impl):
    s = impl.position("""
        h  i  j
    7   .  r$ 1r
    8   .  .  .
    """, hands=["rrkkkk"])
    play(s, "tile k h7")                  # in a kingdom, but no king and no black leader
    assert scores(s) == [[0] * 4, [0] * 4]
    play(s, "tile r i8")                  # the priest's owner scores during seat 0's turn
    assert scores(s) == [[0] * 4, [0, 1, 0, 0]]


def test_points_kept_per_colour_R_TILE_5(impl):
    s = impl.position("""
        g  h  i
    6   .  .  .
    7   .  0k r$
    8   ~  .  .
    """, hands=["krbgkk"], treasures_taken=[0, 0])
    play(s, "tile g h8", "tile k g7")
    assert s.snapshot()["scores"][0] == [1, 0, 0, 1]
    assert s.scores()[0][:4] == [1, 0, 0, 1]
    assert len(s.scores()[0]) == 5


# --- R-CAT -------------------------------------------------------------------

def test_catastrophe_targets_R_CAT_1(impl):
    s = impl.position("""
        f  g  h  i  j
    5   .  R  R  .  .
    6   k  R  R  .  .
    7   x  .  0k r$ .
    8   ~  ~  .  .  .
    """, monuments={"rb": "g5"})
    assert s.snapshot()["catastrophes_left"] == [1, 2]
    for target in ("h7", "f7", "g5", "h6", "i7"):   # leader, catastrophe, face-down, face-down, treasure
        assert_illegal(s, f"cat {target}")
    for target in ("f6", "h8", "g8", "f5"):          # face-up tile, land, river, land
        assert f"cat {target}" in legal(s)
    play(s, "cat f6")
    snap = s.snapshot()
    assert at(snap, "f6") == "x"
    assert snap["discarded"] == [1, 0, 0, 0]
    assert snap["catastrophes_left"] == [0, 2]


def test_catastrophe_on_river_R_CAT_1(impl):
    s = impl.position("""
        f  g  h
    8   b  ~  .
    """)
    play(s, "cat g8", "cat f8")
    snap = s.snapshot()
    assert at(snap, "g8") == "x" and at(snap, "f8") == "x"
    assert snap["discarded"] == [0, 0, 1, 0]


def test_catastrophe_splits_kingdom_and_stays_R_CAT_2(impl):
    s = impl.position("""
        g  h  i  j  k  l
    6   .  .  .  .  r  .
    7   .  0k r$ g  1g .
    8   ~  .  .  .  .  .
    """, hands=["gggggg"])
    play(s, "cat j7")
    play(s, "tile g h8")                  # the king's half no longer holds the trader
    assert scores(s) == [[0, 0, 0, 1], [0] * 4]
    play(s, "pass")                       # seat 1
    for a in ("tile g j7", "leader k j7", "cat j7"):
        assert_illegal(s, a)
    assert at(s.snapshot(), "j7") == "x"


# --- R-SWAP ------------------------------------------------------------------

def test_swap_discards_hidden_and_draws_R_SWAP_1(impl):
    s = impl.position(None, hands=["kkrrbg"], draws="ggb")
    bag = len(s.snapshot()["bag"])
    assert_illegal(s, "swap rrr")
    play(s, "swap kkr")
    snap = s.snapshot()
    assert snap["hands"][0] == [0, 1, 2, 3]
    assert snap["swapped"][0] == [2, 1, 0, 0]
    assert snap["discarded"] == [0, 0, 0, 0]
    assert len(snap["bag"]) == bag - 3
    assert snap["actions_left"] == 1 and snap["phase"] == "action"


def test_swap_with_short_bag_ends_game_R_SWAP_1(impl):
    s = impl.position(None, hands=["kkrrbg"], draws="g", bag_size=1)
    play(s, "swap kk")
    snap = s.snapshot()
    assert snap["phase"] == "over" and snap["to_act"] == -1 and s.is_terminal()
    assert snap["end_reason"] == "bag"
    assert snap["bag"] == []
    assert s.legal_actions() == []
