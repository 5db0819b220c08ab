"""Components, setup, boards and information (docs/rules.md §1, §13, R-VAR-ADV-BOARD)."""
from __future__ import annotations

import pytest

from diagram import assert_illegal, at, board_of, legal, play, sq, tile_totals
from engine.actions import MONUMENTS, parse_action
from engine.boards import neighbours

TOTALS = [30, 57, 36, 30]




# --- R-COMP ------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_153_tiles_in_four_colours_R_COMP_1(impl, players):
    snap = impl.new_game(players=players, seed=7).snapshot()
    assert tile_totals(snap) == TOTALS
    assert sum(TOTALS) == 153


def test_tile_conservation_after_play_R_COMP_1(impl):
    s = impl.new_game(players=2, seed=3)
    for _ in range(30):
        if s.is_terminal():
            break
        s.apply(s.legal_actions()[len(s.legal_actions()) // 3])
        assert tile_totals(s.snapshot()) == TOTALS
        s.check_consistency()


def test_four_leaders_per_dynasty_R_COMP_2(impl):
    s = impl.new_game(players=3, seed=1)
    snap = s.snapshot()
    assert snap["leaders"] == [[-1, -1, -1, -1]] * 3
    acts = legal(s)
    # every colour of leader can be placed next to a starting temple (j1 is next to k1)
    for c in "krbg":
        assert f"leader {c} j1" in acts


def test_each_dynasty_owns_its_own_four_leaders_R_COMP_2(impl):
    # seat 1 may place its king although seat 0's king stands on the board
    s = impl.position("""
        h  i  j  k
    7   .  r$ 0k .
    """, turn_owner=1)
    play(s, "leader k h7")
    snap = s.snapshot()
    assert snap["leaders"][1][0] == sq("h7")
    assert snap["leaders"][0][0] == sq("j7")
    assert snap["phase"] == "revolt_attack"   # two kings in one kingdom: R-LEAD-4


def test_two_catastrophes_each_and_six_monuments_R_COMP_3(impl):
    snap = impl.new_game(players=4, seed=5).snapshot()
    assert snap["catastrophes_left"] == [2, 2, 2, 2]
    assert snap["monuments"] == [-1] * 6
    assert MONUMENTS == ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def test_no_catastrophe_when_both_are_used_R_COMP_3(impl):
    s = impl.position("""
        g  h  i
    5   .  .  .
    6   x  .  x
    """, hands=["kkkkkk"])
    assert s.snapshot()["catastrophes_left"] == [0, 2]
    assert not any(a.startswith("cat") for a in legal(s))
    assert_illegal(s, "cat h5")


def test_catastrophes_run_out_after_two_R_COMP_3(impl):
    s = impl.position("""
        g  h  i
    5   .  .  .
    """, hands=["kkkkkk"])
    play(s, "cat g5", "cat i5")
    snap = s.snapshot()
    assert snap["catastrophes_left"] == [0, 2]
    assert snap["turn_owner"] == 1
    play(s, "pass")
    assert s.turn_owner == 0
    assert not any(a.startswith("cat") for a in legal(s))
    assert_illegal(s, "cat h5")


def test_standard_board_layout_R_COMP_4():
    b = board_of("standard")
    assert len(b.river) == 41
    assert len(b.temples) == 10
    assert len(b.special) == 4
    # the river squares form exactly two components that never touch
    seen, comps = set(), 0
    for r in b.river:
        if r in seen:
            continue
        comps += 1
        stack = [r]
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            stack.extend(n for n in neighbours(x) if n in b.river)
    assert comps == 2
    assert parse_action("tile r a1") == 176 + 0
    assert sq("p11") == 175 and sq("a1") == 0 and sq("b1") == 1 and sq("a2") == 16


def test_board_is_176_squares_and_blue_only_on_river_R_COMP_4(impl):
    s = impl.position(None, hands=["kkrbbg"])
    snap = s.snapshot()
    assert len(snap["cells"]) == 176
    river = board_of("standard").river
    tiles_b = {a - 2 * 176 for a in s.legal_actions() if 2 * 176 <= a < 3 * 176}
    tiles_k = {a for a in s.legal_actions() if a < 176}
    assert tiles_b == set(river)            # every river square is empty at the start
    assert not tiles_k & river
    assert len(tiles_k) == 176 - 41 - 10    # every empty land square


# --- R-SETUP-1 ---------------------------------------------------------------

def _splitmix(seed):
    mask = (1 << 64) - 1
    state = seed & mask
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def _expected_setup(players, seed, board="standard"):
    b = board_of(board)
    rng = _splitmix(seed)
    bag = [0] * 30 + [1] * (57 - len(b.temples)) + [2] * 36 + [3] * 30
    for i in range(len(bag) - 1, 0, -1):
        j = next(rng) % (i + 1)
        bag[i], bag[j] = bag[j], bag[i]
    first = next(rng) % players
    hands = []
    for _ in range(players):
        h = [0, 0, 0, 0]
        for _ in range(6):
            h[bag.pop()] += 1
        hands.append(h)
    return bag, first, hands


@pytest.mark.parametrize("players,seed", [(2, 0), (3, 12345), (4, 2**63 + 11)])
def test_setup_temples_bag_hands_first_player_R_SETUP_1(impl, players, seed):
    s = impl.new_game(players=players, seed=seed)
    snap = s.snapshot()
    b = board_of("standard")
    assert [i for i, v in enumerate(snap["cells"]) if v] == list(b.temples)
    assert all(snap["cells"][t] == 2 for t in b.temples)       # face-up red
    assert snap["treasures"] == list(b.temples)
    bag, first, hands = _expected_setup(players, seed)
    assert snap["bag"] == bag
    assert len(bag) == 143 - 6 * players
    assert snap["hands"] == hands
    assert snap["turn_owner"] == first == snap["to_act"] == s.to_act == s.turn_owner
    assert snap["actions_left"] == 2 and snap["phase"] == "action" == s.phase
    assert snap["scores"] == [[0] * 4] * players
    assert snap["treasures_taken"] == [0] * players
    assert snap["committed"] == [False] * players
    assert snap["end_reason"] is None and snap["conflict"] is None
    assert snap["placed"] == -1 and snap["unification"] == -1


def test_setup_is_deterministic_per_seed_R_SETUP_1(impl):
    assert impl.new_game(3, 99).snapshot() == impl.new_game(3, 99).snapshot()
    firsts = {impl.new_game(4, seed).turn_owner for seed in range(40)}
    assert firsts == {0, 1, 2, 3}   # a random player starts


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players_R_SETUP_1(impl, players):
    with pytest.raises(ValueError):   # EngineError is a ValueError
        impl.new_game(players=players, seed=0)


def test_turns_go_in_ascending_seat_order_R_SETUP_1(impl):
    s = impl.position(None, players=4, turn_owner=2)
    order = []
    for _ in range(5):
        order.append(s.turn_owner)
        play(s, "pass")
    assert order == [2, 3, 0, 1, 2]


# --- R-VAR-ADV-BOARD ---------------------------------------------------------

def test_advanced_board_has_14_temples_and_43_red_in_bag_R_VAR_ADV_BOARD(impl):
    b = board_of("advanced")
    assert len(b.temples) == 14 and len(b.special) == 6
    s = impl.new_game(players=2, seed=4, board="advanced")
    snap = s.snapshot()
    assert snap["board"] == "advanced" and s.board_name == "advanced"
    assert [i for i, v in enumerate(snap["cells"]) if v] == list(b.temples)
    assert snap["treasures"] == list(b.temples)
    red_in_bag_and_hands = snap["bag"].count(1) + sum(h[1] for h in snap["hands"])
    assert red_in_bag_and_hands == 43
    assert tile_totals(snap) == TOTALS
    bag, first, hands = _expected_setup(2, 4, "advanced")
    assert snap["bag"] == bag and snap["hands"] == hands and snap["turn_owner"] == first


def test_advanced_board_river_layout_drives_legality_R_VAR_ADV_BOARD(impl):
    # c1 is river on the advanced board (land on the standard one)
    s = impl.position("""
        a  b  c  d  e
    1   .  .  ~  ~  .
    2   .  .  ~  ~  .
    """, board="advanced", hands=["bkkkkk"])
    assert "tile b c1" in legal(s)
    assert_illegal(s, "tile k c1")
    assert "tile k b1" in legal(s)
    std = impl.position(None, hands=["bkkkkk"])
    assert "tile k c1" in legal(std)
    assert_illegal(std, "tile b c1")


def test_advanced_board_special_treasure_taken_first_R_VAR_ADV_BOARD(impl):
    # b3 is a special temple and d6 an ordinary one on the advanced board (on the
    # standard board neither is a temple): the engine reads them from the file.
    b = board_of("advanced")
    assert sq("b3") in b.special and sq("d6") in b.temples and sq("d6") not in b.special
    s = impl.position("""
        a  b  c  d
    3   0g r$ ~  ~
    4   .  k  ~  .
    5   .  k  ~  .
    6   .  k  ~  r$
    """, board="advanced", hands=["bkkkkk"])
    taken = s.snapshot()["treasures_taken"][0]
    play(s, "tile b c6")           # the farm joins d6 to the trader's kingdom: 2 treasures
    snap = s.snapshot()
    assert snap["phase"] == "action"                 # no choice: the special one goes first
    assert at(snap, "b3") == "r" and at(snap, "d6") == "r$"
    assert snap["treasures_taken"][0] == taken + 1
    assert len(snap["treasures"]) == 13


@pytest.mark.parametrize("players", [2, 3])
def test_swap_identities_hidden_counts_public_R_INFO_1(impl, players):
    """Public: hand sizes, bag size, how many tiles a seat swapped; hidden: which ones."""
    from engine.info import observation
    s = impl.position("""
        h  i  j
    7   .  r$ .
    """, players=players, hands=["rrkbbg", "kkggbb", "kkkkkk"][:players], draws="gg")
    play(s, "swap rk")
    snap = s.snapshot()
    # the swapped tiles are recorded apart from the tiles that left the game in view
    assert snap["swapped"][0] == [1, 1, 0, 0]
    assert snap["discarded"] == [0, 0, 0, 0]
    assert snap["hands"][0] == [0, 1, 2, 3]
    other = observation(snap, 1)
    assert other["hands"] is None and other["bag"] is None and other["swapped"] is None
    assert other["hand_sizes"] == [6] * players
    assert other["swapped_sizes"] == [2] + [0] * (players - 1)
    assert other["bag_size"] == len(snap["bag"])
    assert other["hand"] == snap["hands"][1]
    own = observation(snap, 0)
    assert own["hand"] == [0, 1, 2, 3] and own["own_swapped"] == [1, 1, 0, 0]
