"""Bad numbers never leak OverflowError/ValueError from the Cython core or str().

`State.apply(x)` of any Python int outside the action space (negative, past
2**31, 2**63, 2**64, or with more digits than `str()` will print) raises
IllegalActionError naming the value, in both implementations, with the state
unchanged. Objects that are not ints keep today's typed error
(IllegalActionError); bool is rejected on purpose although it subclasses int
(`apply(True)` silently meaning action 1 would hide a bug). Objects with
`__index__` (numpy ints; here a stand-in class, numpy being no dependency)
are ints to both implementations.

A snapshot (or position string) with an out-of-range number in any numeric
field raises PositionError naming the field, from `engine.State.from_snapshot`,
`engine.position.check_snapshot` and `engine.reference.State.from_snapshot`
alike. Scores in a snapshot are capped at MAX_SCORE (10**9 per colour); the
core stores them as int32 (it stored int16, and 32,768 raised OverflowError
from the struct load), so play past 32,767 stays exact
(tests/test_score_width.py).
"""
import copy

import pytest

from engine import IllegalActionError, PositionError
from engine import reference as R
from engine.actions import NUM_ACTIONS, NotationError, format_action, kind
from engine.position import MAX_SCORE, check_snapshot
from engine.state import State

class IndexInt:
    """An int-like object as numpy's integers are: it has __index__ and is no int."""

    def __init__(self, value: int):
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"IndexInt({self.value})"


class FloatLike:
    """A number that is no int and has no __index__ (numpy's float64 is such)."""

    def __float__(self) -> float:
        return 2.0

    def __repr__(self) -> str:
        return "FloatLike()"


HUGE = 10 ** 5000          # str() of it raises ValueError (4,300-digit limit)
BAD_INTS = [-1, -2 ** 31, -2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 63, 2 ** 64, 10 ** 30, -10 ** 30,
            NUM_ACTIONS, HUGE, -HUGE]
NOT_INTS = [True, False, 3.0, "tile k a1", None, [1], FloatLike()]
IMPLS = {"core": State.new_game, "reference": R.new_game}


def _id(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return f"int{v.bit_length()}bits{'-' if v < 0 else '+'}"
    return repr(v)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("bad", BAD_INTS, ids=_id)
def test_apply_out_of_range_int_is_illegal_and_keeps_the_state(impl, bad):
    s = IMPLS[impl](2, seed=3)
    before = s.snapshot()
    with pytest.raises(IllegalActionError) as e:
        s.apply(bad)
    msg = str(e.value)
    assert "\n" not in msg and len(msg) < 200
    if abs(bad) < 10 ** 40:
        assert str(bad) in msg
    else:
        assert "bits" in msg
    assert s.snapshot() == before


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("bad", NOT_INTS, ids=_id)
def test_apply_non_int_is_illegal_and_keeps_the_state(impl, bad):
    s = IMPLS[impl](2, seed=3)
    before = s.snapshot()
    with pytest.raises(IllegalActionError):
        s.apply(bad)
    assert s.snapshot() == before


@pytest.mark.parametrize("impl", IMPLS)
def test_index_ints_are_ints_to_both(impl):
    s = IMPLS[impl](2, seed=3)
    legal = s.legal_actions()[0]
    s.apply(IndexInt(legal))
    with pytest.raises(IllegalActionError):
        s.apply(IndexInt(-1))
    with pytest.raises(IllegalActionError):
        s.apply(IndexInt(2 ** 64 - 1))


@pytest.mark.parametrize("bad", BAD_INTS + NOT_INTS, ids=_id)
def test_format_action_and_kind_raise_notation_error(bad):
    for f in (format_action, kind):
        with pytest.raises(NotationError) as e:
            f(bad)
        assert "\n" not in str(e.value) and len(str(e.value)) < 200


def _conflict(**kw):
    cf = {"kind": "revolt", "colour": 0, "attacker": 0, "defender": 1,
          "attacker_leader": 0, "defender_leader": 1, "attacker_commit": -1}
    cf.update(kw)
    return cf


def _set(path, value):
    def mutate(snap):
        *head, last = path
        target = snap
        for key in head:
            target = target[key]
        target[last] = value
    return mutate


# (field named in the message, mutation)
BAD_SNAPSHOTS = [
    ("scores", _set(("scores", 0, 0), 10 ** 20)),
    ("scores", _set(("scores", 1, 2), 2 ** 31)),           # int32 overflow in the core
    ("scores", _set(("scores", 1, 3), MAX_SCORE + 1)),
    ("scores", _set(("scores", 0, 0), -1)),
    ("scores", _set(("scores", 0, 2), HUGE)),
    ("hands", _set(("hands", 0, 0), -1)),
    ("hands", _set(("hands", 1, 2), 2 ** 64)),
    ("swapped", _set(("swapped", 0, 0), 10 ** 20)),
    ("swapped", _set(("swapped", 0, 0), -HUGE)),
    ("discarded", _set(("discarded", 0), -5)),
    ("discarded", _set(("discarded", 1), 2 ** 63)),
    ("treasures_taken", _set(("treasures_taken", 0), 2 ** 40)),
    ("treasures_taken", _set(("treasures_taken", 1), -1)),
    ("catastrophes_left", _set(("catastrophes_left", 0), -1)),
    ("catastrophes_left", _set(("catastrophes_left", 0), 2 ** 64)),
    ("actions_left", _set(("actions_left",), 2 ** 63)),
    ("actions_left", _set(("actions_left",), HUGE)),
    ("bag", _set(("bag", 0), 99)),
    ("bag", _set(("bag", 5), -2 ** 70)),
    ("cells", _set(("cells", 0), 256)),
    ("cells", _set(("cells", 7), 2 ** 64)),
    ("cells", _set(("cells", 0), -1)),
    ("cells", _set(("cells", 0), HUGE)),
    ("leaders", _set(("leaders", 0, 0), 10 ** 9)),
    ("leaders", _set(("leaders", 1, 3), -10 ** 9)),
    ("monuments", _set(("monuments", 0), 10 ** 9)),
    ("treasures", _set(("treasures", 0), 10 ** 9)),
    ("turn_owner", _set(("turn_owner",), 2 ** 63)),
    ("to_act", _set(("to_act",), -2 ** 63)),
    ("placed", _set(("placed",), 10 ** 9)),
    ("unification", _set(("unification",), -10 ** 9)),
    ("players", _set(("players",), 2 ** 64)),
    ("wonder", _set(("wonder",), 2 ** 64)),
    ("buildings", _set(("buildings", 0), 2 ** 64)),
    ("conflict", _set(("conflict",), _conflict(colour=2 ** 40))),
    ("conflict", _set(("conflict",), _conflict(attacker=10 ** 20))),
    ("conflict", _set(("conflict",), _conflict(defender=-HUGE))),
    ("conflict", _set(("conflict",), _conflict(attacker_leader=10 ** 9))),
    ("conflict", _set(("conflict",), _conflict(defender_leader=-2 ** 63))),
    ("conflict", _set(("conflict",), _conflict(attacker_commit=2 ** 63))),
]
LOADERS = {"core": State.from_snapshot, "reference": R.State.from_snapshot,
           "check_snapshot": check_snapshot}


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("field,mutate", BAD_SNAPSHOTS, ids=[f"{f}{i}" for i, (f, _) in enumerate(BAD_SNAPSHOTS)])
def test_snapshot_out_of_range_number_is_a_position_error(loader, field, mutate):
    snap = State.new_game(2, seed=5).snapshot()
    snap = copy.deepcopy(snap)
    mutate(snap)
    with pytest.raises(PositionError) as e:
        LOADERS[loader](snap)
    msg = str(e.value)
    assert field in msg
    assert "\n" not in msg and len(msg) < 300


@pytest.mark.parametrize("loader", ["core", "reference"])
def test_top_score_loads_and_plays_in_both(loader):
    snap = State.new_game(2, seed=5).snapshot()
    snap["scores"][0] = [MAX_SCORE] * 4
    s = LOADERS[loader](snap)
    assert s.snapshot()["scores"][0] == [MAX_SCORE] * 4
    check_snapshot(snap)


@pytest.mark.parametrize("score", ["1000000001", "2147483648", "99999999999", "9" * 30])
def test_position_string_with_a_huge_score_is_a_position_error(score):
    text = State.new_game(2, seed=5).position(hidden=True)
    words = text.split()
    assert words[5] == "0,0,0,0/0,0,0,0"               # the scores field
    words[5] = f"0,{score},0,0/0,0,0,0"
    with pytest.raises(PositionError) as e:
        State.from_position(" ".join(words))
    assert "scores" in str(e.value)
