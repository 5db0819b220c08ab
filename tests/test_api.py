"""The Python face: bad input, determinism, clones, information sets, the rule-id index."""
import ast
import random
import re
from pathlib import Path

import pytest

import engine
from engine import IllegalActionError, PositionError
from engine.actions import NUM_ACTIONS, PASS

TESTS = Path(__file__).parent
RULES = TESTS.parent / "docs" / "rules.md"                # the repository's copy of the rules contract
SHARED_RULES = TESTS.parent.parent / "shared" / "rules" / "RULES.md"


def midgame(players=3, seed=11, decisions=80, board="standard"):
    s = engine.new_game(players, seed, board)
    rng = random.Random(seed)
    for _ in range(decisions):
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 10 ** 9, "pass", None, 1.0, True])
def test_garbage_actions_raise_and_keep_the_state(bad):
    s = midgame()
    before = s.snapshot()
    with pytest.raises(IllegalActionError):
        s.apply(bad)
    assert s.snapshot() == before


def test_illegal_action_error_names_the_action():
    s = engine.new_game(2, 3)
    with pytest.raises(IllegalActionError, match="commit 2"):
        s.apply_text("commit 2")


def test_no_action_is_legal_after_the_end():
    s = engine.new_game(2, 1)
    s.random_playout(5)
    assert s.is_terminal() and s.legal_actions() == [] and s.to_act == -1
    with pytest.raises(IllegalActionError, match="over"):
        s.apply(PASS)


@pytest.mark.parametrize("players,seed,board", [(1, 0, "standard"), (5, 0, "standard"),
                                                (2, "x", "standard"), (2, 0, "moon")])
def test_new_game_rejects_bad_arguments(players, seed, board):
    with pytest.raises(ValueError):
        engine.new_game(players, seed, board)


def test_clone_is_independent():
    s = midgame()
    c = s.clone()
    before = s.snapshot()
    c.random_playout(3)
    assert s.snapshot() == before and c.is_terminal()


@pytest.mark.parametrize("field,value", [
    ("players", 9), ("cells", [0] * 10), ("phase", "dancing"), ("to_act", 7),
    ("hands", [[9, 0, 0, 0]] * 3), ("bag", [0, 1, 5]), ("treasures", [3, 3]),
    ("conflict", {"kind": "revolt"}), ("end_reason", "boredom"),
])
def test_malformed_snapshot_names_the_field(field, value):
    snap = midgame().snapshot()
    snap[field] = value
    with pytest.raises(PositionError, match=field.split("[")[0]):
        engine.State.from_snapshot(snap)


def test_snapshot_breaking_an_invariant_is_refused():
    snap = midgame().snapshot()
    snap["bag"] = snap["bag"][:-1]          # a tile vanishes: 152 tiles
    with pytest.raises(PositionError, match="tiles accounted"):
        engine.State.from_snapshot(snap)
    snap = engine.new_game(2, 1).snapshot()
    river_square = 4                         # e1 is river on the standard board
    assert snap["cells"][river_square] == 0
    snap["leaders"][0][0] = river_square     # a king on the river, far from any temple
    with pytest.raises(PositionError, match="leader"):
        engine.State.from_snapshot(snap)


def test_determinize_keeps_the_observation_and_conserves_tiles():
    s = midgame(players=4, seed=5, decisions=120)
    for seat in range(4):
        for k in range(5):
            world = s.determinize(seat, random.Random(k))
            world.check_consistency()
            assert world.observation(seat) == s.observation(seat)
            assert world.snapshot()["hands"][seat] == s.snapshot()["hands"][seat]
    worlds = {str(s.determinize(0, random.Random(k)).snapshot()["hands"]) for k in range(10)}
    assert len(worlds) > 1


def test_observation_does_not_depend_on_other_hands():
    s = midgame(players=2, seed=9)
    snap = s.snapshot()
    world = s.determinize(0, random.Random(3))
    assert world.snapshot()["hands"][1] != snap["hands"][1] or world.snapshot()["bag"] != snap["bag"]
    assert world.observation(0) == s.observation(0)


def rule_ids() -> list:
    """Rule ids of docs/rules.md sections 1-13 plus R-VAR-ADV-BOARD, and EX-1..4."""
    text = RULES.read_text()
    base = text.split("## 14.")[0]
    ids = sorted(set(re.findall(r"\*\*(R-[A-Z]+-\d+)\*\*", base)))
    return ids + ["R-VAR-ADV-BOARD", "EX-1", "EX-2", "EX-3", "EX-4"]


def all_test_names():
    names = set()
    for path in TESTS.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                names.add(node.name)
    return names


def test_rules_copy_matches_the_shared_contract():
    if not SHARED_RULES.exists():
        pytest.skip(f"no shared rules beside the repository ({SHARED_RULES})")
    assert RULES.read_text() == SHARED_RULES.read_text(), "refresh docs/rules.md from ../shared/rules/RULES.md"


def test_every_rule_id_has_a_test_named_after_it():
    names = all_test_names()
    missing = [rid for rid in rule_ids() if not any(rid.replace("-", "_") in n for n in names)]
    assert len(rule_ids()) > 40
    assert missing == []
