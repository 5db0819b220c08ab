"""Position strings (engine/position.py): round trips, public part, malformed fields."""
from __future__ import annotations

import random

import pytest

from diagram import position
from engine.actions import VARIANTS
from engine.boards import COLS, ROWS, SQUARES, load_board
from engine.errors import PositionError
from engine.position import (PHASES, PUBLIC_FIELDS, SNAPSHOT_KEYS, TILE_TOTALS, check_snapshot,
                             format_position, parse_position, public_snapshot)

START_PUBLIC = ("standard 2 10R*5/1R*13R*/5R*10/16/13R*2/16/8R*7/1R*14/14R*1/5R*10/10R*5 "
                "-/- - 0,0,0,0/0,0,0,0 0/0 2/2 6/6 131 0/0 0,0,0,0 1 2 action 1 - - - 0/0 -")


def rich_snapshot() -> dict:
    """A snapshot using every feature: leaders, monument, catastrophe, conflict, flags."""
    return position("""
        e  f  g  h  i
    9   .  .  ~  ~  ~
    10  .  r$ 0r 1r .
    11  x  k  k  .  .
    """, players=3, hands=["kkrbgg", "rr", [0, 0, 0, 0]], swapped=["", "kb", "gggg"],
        discarded="rrk", draws="bgr", scores=[[1, 2, 3, 4], [0, 10, 0, 0], [5, 0, 0, 7]],
        treasures_taken=[0, 1, 0],
        turn_owner=2, to_act=1, actions_left=1, phase="revolt_defend", placed="g10",
        conflict={"kind": "revolt", "colour": "r", "attacker": 0, "defender": 1,
                  "attacker_leader": "g10", "defender_leader": "h10", "attacker_commit": 2},
        committed=[True, False, False])


def monument_snapshot() -> dict:
    """A snapshot with a built monument (face-down block) and a war pending."""
    return position("""
        a  b  c  d
    5   K  K  .  .
    6   K  K  0k .
    7   ~  ~  ~  ~
    """, hands=["rrrgg", "kb"], monuments={"kb": "a5"}, phase="war_attack", unification="c5",
        conflict={"kind": "war", "colour": "k", "attacker": 0, "defender": 1,
                  "attacker_leader": "c6", "defender_leader": "c6", "attacker_commit": -1},
        end_reason=None)


def random_snapshot(rng: random.Random) -> dict:
    """A structurally valid (not necessarily reachable) snapshot with random contents."""
    players = rng.randint(2, 4)
    board = rng.choice(["standard", "advanced"])
    pool = [c for c in range(4) for _ in range(TILE_TOTALS[c])]
    rng.shuffle(pool)
    squares = list(range(SQUARES))
    rng.shuffle(squares)
    cells = [0] * SQUARES
    for sq in squares[:rng.randint(0, 60)]:
        cells[sq] = 9 if rng.random() < 0.05 else pool.pop() + rng.choice([1, 1, 1, 5])
    leader_squares = squares[60:60 + 4 * players]
    leaders = [[leader_squares[4 * s + c] if rng.random() < 0.5 else -1 for c in range(4)]
               for s in range(players)]
    hands = []
    for _ in range(players):
        h = [0] * 4
        for _ in range(rng.randint(0, 6)):
            h[pool.pop()] += 1
        hands.append(h)
    swapped, discarded = [], [0] * 4
    for _ in range(players):
        s = [0] * 4
        for _ in range(rng.randint(0, 8)):
            s[pool.pop()] += 1
        swapped.append(s)
    for _ in range(rng.randint(0, 20)):
        discarded[pool.pop()] += 1
    bag = pool[:rng.randint(0, len(pool))]
    tops = [r * COLS + c for r in range(ROWS - 1) for c in range(COLS - 1)]
    phase = rng.choice(PHASES)
    conflict = None
    if phase in ("revolt_attack", "revolt_defend", "war_attack", "war_defend"):
        conflict = {"kind": rng.choice(["revolt", "war"]), "colour": rng.randrange(4),
                    "attacker": rng.randrange(players), "defender": rng.randrange(players),
                    "attacker_leader": rng.randrange(SQUARES),
                    "defender_leader": rng.randrange(SQUARES),
                    "attacker_commit": rng.randint(-1, 6)}
    variants = [v for v in VARIANTS if rng.random() < 0.4]
    wonder = -1
    if "wonder" in variants and rng.random() < 0.5:
        wonder = rng.randrange(1, ROWS - 1) * COLS + rng.randrange(1, COLS - 1)
        for w in (wonder, wonder - 1, wonder + 1, wonder - COLS, wonder + COLS):
            cells[w] = 10
    buildings = [-1] * 4
    if "buildings" in variants:
        for c in range(4):
            on = [sq for sq in range(SQUARES) if cells[sq] == 1 + c]
            if on and rng.random() < 0.6:
                buildings[c] = rng.choice(on)
    return {
        "players": players,
        "board": board,
        "variants": variants,
        "cells": cells,
        "buildings": buildings,
        "wonder": wonder,
        "treasures": sorted(rng.sample(range(SQUARES), rng.randint(0, 14))),
        "leaders": leaders,
        "monuments": [rng.choice(tops) if rng.random() < 0.3 else -1 for _ in range(6)],
        "hands": hands,
        "bag": bag,
        "swapped": swapped,
        "discarded": discarded,
        "scores": [[rng.randint(0, 40) for _ in range(4)] for _ in range(players)],
        "treasures_taken": [rng.randint(0, 3) for _ in range(players)],
        "catastrophes_left": [rng.randint(0, 2) for _ in range(players)],
        "turn_owner": rng.randrange(players),
        "actions_left": rng.randint(0, 2),
        "phase": phase,
        "to_act": rng.randrange(-1, players),
        "placed": rng.randrange(-1, SQUARES),
        "unification": rng.randrange(-1, SQUARES),
        "conflict": conflict,
        "committed": [rng.random() < 0.3 for _ in range(players)],
        "end_reason": rng.choice(["treasures", "bag"]) if phase == "over" else None,
    }


# --- round trips ---------------------------------------------------------------

def test_start_position_public_part_is_as_documented():
    s = position(hands=["kkrbgg", "krrbbg"], turn_owner=1)
    assert format_position(s) == START_PUBLIC
    full = format_position(s, hidden=True)
    assert full.startswith(START_PUBLIC + " | kkrbgg/krrbbg ")
    assert full.endswith(" 0,0,0,0/0,0,0,0")
    assert parse_position(full) == s


@pytest.mark.parametrize("make", [rich_snapshot, monument_snapshot])
def test_full_round_trip_of_hand_built_positions(make):
    s = make()
    text = format_position(s, hidden=True)
    assert "\n" not in text and text.count("|") == 1
    assert parse_position(text) == s
    assert format_position(parse_position(text), hidden=True) == text


def test_rich_snapshot_fields_are_readable():
    text = format_position(rich_snapshot())
    fields = dict(zip(PUBLIC_FIELDS, text.split()))
    assert fields["leaders"] == "r:g10/r:h10/-"
    assert fields["cells"].split("/")[9] == "5R*10"
    assert fields["cells"].split("/")[10] == "4XKK3R*5"
    assert fields["scores"] == "1,2,3,4/0,10,0,0/5,0,0,7"
    assert fields["conflict"] == "revolt:r:0:1:g10:h10:2"
    assert fields["committed"] == "1/0/0"
    assert fields["swapped_sizes"] == "0/2/4"
    assert fields["hand_sizes"] == "6/2/0"
    assert fields["discarded"] == "1,2,0,0"
    text = format_position(monument_snapshot())
    fields = dict(zip(PUBLIC_FIELDS, text.split()))
    assert fields["monuments"] == "kb:a5"
    assert fields["cells"].split("/")[4] == "kk11R*2"
    assert fields["conflict"] == "war:k:0:1:c6:c6:-"
    assert fields["unification"] == "c5"


@pytest.mark.slow
def test_random_snapshots_round_trip_exactly():
    rng = random.Random(7)
    for _ in range(300):
        s = random_snapshot(rng)
        check_snapshot(s)
        text = format_position(s, hidden=True)
        assert parse_position(text) == s
        pub = format_position(s)
        assert parse_position(pub) == public_snapshot(s)
        assert format_position(parse_position(pub)) == pub


def test_bag_runs_are_compressed():
    s = position(hands=["kkrbgg", "krrbbg"])
    s["bag"] = [0, 0, 0, 1, 2, 2, 3, 3, 3, 3]
    s["discarded"] = [24, 43, 31, 23]      # the rest of the 153 tiles
    text = format_position(s, hidden=True)
    assert text.split(" | ")[1].split()[1] == "3krbb4g"
    assert parse_position(text)["bag"] == s["bag"]


def test_public_part_parses_to_a_public_snapshot():
    s = rich_snapshot()
    pub = parse_position(format_position(s))
    assert pub["hands"] is None and pub["bag"] is None and pub["swapped"] is None
    assert pub["hand_sizes"] == [6, 2, 0]
    assert pub["bag_size"] == len(s["bag"])
    assert pub["swapped_sizes"] == [0, 2, 4]
    for k in SNAPSHOT_KEYS:
        if k not in ("hands", "bag", "swapped"):
            assert pub[k] == s[k]
    with pytest.raises(PositionError, match="hands"):
        format_position(pub, hidden=True)


@pytest.mark.slow
def test_positions_along_random_games_round_trip(impl):
    rng = random.Random(3)
    for seed in range(3):
        state = impl.new_game(players=2 + seed, seed=seed)
        for _ in range(120):
            if state.is_terminal():
                break
            snap = state.snapshot()
            text = format_position(snap, hidden=True)
            back = parse_position(text)
            assert back == snap
            assert impl.from_snapshot(back).snapshot() == snap
            assert parse_position(format_position(snap)) == public_snapshot(snap)
            state.apply(rng.choice(state.legal_actions()))


# --- malformed strings -------------------------------------------------------------

GOOD = format_position(rich_snapshot(), hidden=True)


def replace_field(text: str, name: str, value: str) -> str:
    public, hidden = text.split(" | ")
    words = public.split()
    if name in PUBLIC_FIELDS:
        words[PUBLIC_FIELDS.index(name)] = value
    else:
        h = hidden.split()
        h[("hands", "bag", "swapped").index(name)] = value
        hidden = " ".join(h)
    return " ".join(words) + " | " + hidden


BAD_FIELDS = [
    ("board", "huge"), ("board", "Standard"),
    ("players", "5"), ("players", "1"), ("players", "x"), ("players", "-2"), ("players", "²"),
    ("cells", "16/16"), ("cells", "16/16/16/16/16/16/16/16/16/16/16/16"),
    ("cells", "17/16/16/16/16/16/16/16/16/16/16"), ("cells", "15/16/16/16/16/16/16/16/16/16/16"),
    ("cells", "Q15/16/16/16/16/16/16/16/16/16/16"), ("cells", "0K15/16/16/16/16/16/16/16/16/16/16"),
    ("cells", "/16/16/16/16/16/16/16/16/16/16"), ("cells", "99999999999999/16/16/16/16/16/16/16/16/16/16"),
    ("cells", "*16/16/16/16/16/16/16/16/16/16/16"), ("cells", "K**15/16/16/16/16/16/16/16/16/16/16"),
    ("leaders", "r:g10/r:h10"), ("leaders", "r:g10/r:h10/-/-"), ("leaders", "rg10/r:h10/-"),
    ("leaders", "q:g10/r:h10/-"), ("leaders", "r:z10/r:h10/-"), ("leaders", "r:g12/r:h10/-"),
    ("leaders", "r:g10,r:a1/r:h10/-"), ("leaders", "r:g10/r:g10/-"), ("leaders", "r:g0/-/-"),
    ("monuments", "kk:a1"), ("monuments", "kr"), ("monuments", "kr:p1"), ("monuments", "kr:a11"),
    ("monuments", "kr:a1,rk:b1"), ("monuments", "xr:a1"),
    ("scores", "1,2,3/0,0,0,0/0,0,0,0"), ("scores", "1,2,3,4/0,0,0,0"),
    ("scores", "1,2,3,x/0,0,0,0/0,0,0,0"), ("scores", "1,2,3,1234567/0,0,0,0/0,0,0,0"),
    ("treasures_taken", "0/1"), ("treasures_taken", "0/99/0"),
    ("catastrophes_left", "3/2/2"), ("catastrophes_left", "2/2"),
    ("hand_sizes", "7/2/0"), ("hand_sizes", "6/2"), ("hand_sizes", "5/2/0"),
    ("bag_size", "154"), ("bag_size", "-"), ("bag_size", "1"),
    ("swapped_sizes", "0/2"), ("swapped_sizes", "0/2/5"),
    ("discarded", "1,2,0"), ("discarded", "1,2,0,0,0"), ("discarded", "99,0,0,0"),
    ("turn_owner", "3"), ("turn_owner", "-"),
    ("actions_left", "3"),
    ("phase", "Action"), ("phase", "war"),
    ("to_act", "3"), ("to_act", "-1"),
    ("placed", "q1"), ("placed", "a12"), ("placed", "12"),
    ("unification", "a0"),
    ("conflict", "revolt:r:0:1:g10:h10"), ("conflict", "fight:r:0:1:g10:h10:2"),
    ("conflict", "revolt:x:0:1:g10:h10:2"), ("conflict", "revolt:r:3:1:g10:h10:2"),
    ("conflict", "revolt:r:0:1:g10:h10:7"), ("conflict", "revolt:r:0:1:g10:z10:2"),
    ("committed", "1/0"), ("committed", "1/0/2"), ("committed", "yes/no/no"),
    ("end_reason", "draw"),
    ("hands", "kkrbgg/rr"), ("hands", "kkrbg/rr/-"), ("hands", "kkrbgx/rr/-"),
    ("hands", "kkrbgg/rrr/-"),
    ("bag", "k"), ("bag", "3"), ("bag", "x"), ("bag", "0k"), ("bag", "999k"),
    ("swapped", "0,0,0,0/1,0,1,0"), ("swapped", "0,0,0,0/1,0,1,0/0,0,0,4/0,0,0,0"),
    ("swapped", "0,0,0,0/1,0,1,0/0,0,0,3"), ("swapped", "0,0,0,0/1,0,1,0/0,0,0,x"),
]


@pytest.mark.parametrize("field,value", BAD_FIELDS)
def test_malformed_field_raises_position_error_naming_it(field, value):
    text = replace_field(GOOD, field, value)
    with pytest.raises(PositionError) as err:
        parse_position(text)
    assert repr(field) in str(err.value), str(err.value)


def test_too_few_too_many_fields():
    words = GOOD.split(" | ")[0].split()
    for n in range(len(PUBLIC_FIELDS)):
        with pytest.raises(PositionError, match=repr(PUBLIC_FIELDS[n])):
            parse_position(" ".join(words[:n]))
    with pytest.raises(PositionError, match="'variants'"):
        parse_position(" ".join(words + ["extra"]))
    with pytest.raises(PositionError, match="'buildings'"):
        parse_position(" ".join(words + ["wonder"]))
    with pytest.raises(PositionError, match="'buildings'"):
        parse_position(" ".join(words + ["wonder", "-", "extra"]))
    hidden = GOOD.split(" | ")[1].split()
    with pytest.raises(PositionError, match="'bag'"):
        parse_position(" ".join(words) + " | " + hidden[0])
    with pytest.raises(PositionError, match="'swapped'"):
        parse_position(" ".join(words) + " | " + " ".join(hidden[:2]))
    with pytest.raises(PositionError, match="'hands'"):
        parse_position(" ".join(words) + " | ")
    with pytest.raises(PositionError, match="'hands'"):
        parse_position(GOOD + " | x")


def test_non_string_and_empty_inputs():
    for bad in (None, 3, b"standard", ["standard"]):
        with pytest.raises(PositionError):
            parse_position(bad)
    with pytest.raises(PositionError, match="'board'"):
        parse_position("")


def test_too_many_tiles_of_a_colour_is_rejected():
    s = rich_snapshot()
    s["discarded"][1] += 57
    with pytest.raises(PositionError):
        format_position(s, hidden=True)
    text = replace_field(GOOD, "discarded", "1,57,0,0")
    with pytest.raises(PositionError, match="'bag'"):
        parse_position(text)


def test_random_corruptions_raise_only_position_error():
    rng = random.Random(11)
    alphabet = "0123456789krbgKRBGX.*/,:-| abcpq~\t"
    for _ in range(3000):
        chars = list(GOOD)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(chars))
            op = rng.randrange(3)
            if op == 0:
                chars[i] = rng.choice(alphabet)
            elif op == 1:
                del chars[i]
            else:
                chars.insert(i, rng.choice(alphabet))
        text = "".join(chars)
        try:
            snap = parse_position(text)
        except PositionError:
            continue
        check_snapshot(snap)
        assert parse_position(format_position(snap, hidden=snap["hands"] is not None)) == snap


# --- malformed snapshots (format_position validates before writing) -------------------

BAD_SNAPSHOTS = [
    ("players", lambda s: s.update(players=5)),
    ("players", lambda s: s.update(players=True)),
    ("board", lambda s: s.update(board="huge")),
    ("cells", lambda s: s.update(cells=s["cells"][:-1])),
    ("cells", lambda s: s["cells"].__setitem__(3, 11)),
    ("variants", lambda s: s.update(variants=["tea"])),
    ("variants", lambda s: s.update(variants=["wonder", "english"])),
    ("variants", lambda s: s.pop("variants")),
    ("buildings", lambda s: s.update(buildings=[-1, -1, -1])),
    ("buildings", lambda s: s.update(variants=["buildings"], buildings=[-1, 0, -1, -1])),
    ("buildings", lambda s: s.update(buildings=[-1, -1, -1, 5])),
    ("wonder", lambda s: s.update(variants=["wonder"], wonder=40)),
    ("wonder", lambda s: s["cells"].__setitem__(3, 10)),
    ("treasures", lambda s: s.update(treasures=[5, 3])),
    ("treasures", lambda s: s.update(treasures=[176])),
    ("leaders", lambda s: s["leaders"].pop()),
    ("leaders", lambda s: s["leaders"][0].__setitem__(0, 200)),
    ("monuments", lambda s: s["monuments"].__setitem__(0, 15)),
    ("hands", lambda s: s["hands"][0].__setitem__(0, 7)),
    ("hands", lambda s: s.update(bag=None)),
    ("bag", lambda s: s["bag"].append(4)),
    ("swapped", lambda s: s["swapped"][0].__setitem__(0, -1)),
    ("discarded", lambda s: s.update(discarded=[0, 0, 0])),
    ("scores", lambda s: s["scores"][0].__setitem__(1, "3")),
    ("treasures_taken", lambda s: s.update(treasures_taken=[0])),
    ("catastrophes_left", lambda s: s["catastrophes_left"].__setitem__(0, 3)),
    ("turn_owner", lambda s: s.update(turn_owner=3)),
    ("actions_left", lambda s: s.update(actions_left=-1)),
    ("phase", lambda s: s.update(phase="lunch")),
    ("to_act", lambda s: s.update(to_act=-2)),
    ("placed", lambda s: s.update(placed=176)),
    ("unification", lambda s: s.update(unification=None)),
    ("conflict", lambda s: s.update(conflict={"kind": "revolt"})),
    ("conflict", lambda s: s["conflict"].update(attacker_commit=7)),
    ("committed", lambda s: s["committed"].__setitem__(0, 1)),
    ("end_reason", lambda s: s.update(end_reason="boredom")),
    ("end_reason", lambda s: s.pop("end_reason")),
]


@pytest.mark.parametrize("field,mutate", BAD_SNAPSHOTS, ids=[f for f, _ in BAD_SNAPSHOTS])
def test_malformed_snapshot_raises_position_error_naming_the_field(field, mutate):
    s = rich_snapshot()
    mutate(s)
    with pytest.raises(PositionError) as err:
        format_position(s, hidden=True)
    assert repr(field) in str(err.value), str(err.value)


def test_treasure_on_an_empty_square_round_trips():
    s = position(hands=["k", "r"])
    t = load_board("standard").temples[0]
    s["cells"][t] = 0
    s["discarded"][1] += 1
    text = format_position(s, hidden=True)
    assert ".*" in text
    assert parse_position(text) == s


# --- one validator: State.from_snapshot and the readers of snapshots refuse alike ----------

def _descending_treasures(s):
    s["treasures"] = sorted(s["treasures"], reverse=True)   # the old State check let this through


def _over_without_a_reason(s):
    s["phase"], s["to_act"] = "over", -1                   # the old check_snapshot let this through


def _conflict_out_of_its_phase(s):
    s["conflict"] = {"kind": "revolt", "colour": 1, "attacker": 0, "defender": 1,
                     "attacker_leader": 3, "defender_leader": 4, "attacker_commit": -1}


def test_state_has_no_validator_of_its_own():
    import engine.state
    assert not hasattr(engine.state, "validate_snapshot")


@pytest.mark.parametrize("field,mutate", [("treasures", _descending_treasures),
                                          ("end_reason", _over_without_a_reason),
                                          ("conflict", _conflict_out_of_its_phase)])
def test_one_snapshot_validator_refuses_alike_everywhere(field, mutate):
    from engine import State
    from engine.info import observation
    from engine.render import render
    snap = State.new_game(2, seed=5).snapshot()
    mutate(snap)
    for use in (check_snapshot, State.from_snapshot, render, lambda s: observation(s, 0),
                lambda s: format_position(s, hidden=True)):
        with pytest.raises(PositionError, match=repr(field)):
            use(snap)


def test_state_from_a_public_snapshot_names_the_hidden_part():
    from engine import State
    pub = public_snapshot(State.new_game(2, seed=5).snapshot())
    check_snapshot(pub)
    with pytest.raises(PositionError, match="'hands'"):
        State.from_snapshot(pub)
