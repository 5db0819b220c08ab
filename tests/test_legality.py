"""Illegal-move reasons (engine/legality.py): exact words on small diagrams, never against legal_actions()."""
from __future__ import annotations

import random

import pytest

import engine
from diagram import act, position
from engine.actions import NUM_ACTIONS, NotationError, kind
from engine.info import observation
from engine.legality import Judge, why_illegal

# Three kingdoms around h6: seat 0's king (h4-h5), seat 1's king (f6-g6), seat 0's priest (i6-j6, i7).
KINGDOMS = """
        f  g  h  i  j
    4   .  .  0k .  .
    5   .  .  r  .  .
    6   1k r  .  r  0r
    7   .  .  .  r$ .
"""

MONUMENT = """
        a  b  c  d
    5   K  K  .  .
    6   K  K  x  x
"""

REVOLT = """
        f  g  h
    5   .  r  .
    6   0r r  1r
"""

# seat 0's trader beside b2 in a kingdom of two special treasures (b2, b8): it takes one of them
TREASURES = """
        a  b  c
    1   .  .  .
    2   0g r$ .
    3   .  k  .
    4   ~  b  ~
    5   .  k  .
    6   .  k  .
    7   ~  b  ~
    8   .  r$ .
"""

# g6 just placed, completing a 2x2 block of red tiles
BLOCK = """
        e  f  g  h
    5   .  r  r  .
    6   .  r  r  .
"""

# g6 just placed: a line of three red tiles (f6-h6) and a cross of five (g5, f6-h6, g7)
LINE_AND_CROSS = """
        e  f  g  h  i
    5   .  .  r  .  .
    6   .  r  r  r  .
    7   .  .  r  .  .
"""

CASES = [
    (dict(diagram=KINGDOMS), "tile k h6", "a tile on h6 would join three kingdoms: two at most (R-TILE-2)"),
    (dict(diagram=KINGDOMS), "leader g g5", "a leader on g5 would join two kingdoms (R-LEAD-3)"),
    (dict(diagram=KINGDOMS), "leader b h6", "a leader on h6 would join three kingdoms (R-LEAD-3)"),
    (dict(diagram=KINGDOMS), "tile k g6", "g6 holds a temple"),
    (dict(diagram=KINGDOMS), "tile r h6", "you hold no red tile"),
    (dict(diagram=KINGDOMS), "tile k e1", "e1 is a river square: only blue tiles go there (R-TILE-1)"),
    (dict(diagram=KINGDOMS), "tile b f7", "f7 is land: a blue tile goes only on a river square (R-TILE-1)"),
    (dict(diagram=KINGDOMS), "leader b f7", "a leader must stand beside a temple: f7 touches none (R-LEAD-2)"),
    (dict(diagram=KINGDOMS), "leader b e1", "e1 is a river square: a leader goes only on land (R-LEAD-2)"),
    (dict(diagram=KINGDOMS), "leader k f6", "f6 holds seat 1's king"),
    (dict(diagram=KINGDOMS), "leader k h4", "your king already stands on h4"),
    (dict(diagram=KINGDOMS), "withdraw b", "your farmer is not on the board: there is nothing to withdraw"),
    (dict(diagram=KINGDOMS), "cat h4", "h4 holds your king: a catastrophe never goes on a leader (R-CAT-1)"),
    (dict(diagram=KINGDOMS), "cat i7", "i7 holds a treasure: a catastrophe never goes on one (R-CAT-1)"),
    (dict(diagram=KINGDOMS), "swap rr", "'swap rr' gives away 2 red tiles: you hold no red tiles (R-SWAP-1)"),
    (dict(diagram=KINGDOMS, hands=["kkbbgr"]), "swap rr",
     "'swap rr' gives away 2 red tiles: you hold only 1 red tile (R-SWAP-1)"),
    (dict(diagram=KINGDOMS), "commit 1", "a commitment is not a choice now: the choices are an action "
                                         "(tile, leader, withdraw, cat, swap) or pass"),
    (dict(diagram=MONUMENT, monuments={"kb": "a5"}), "tile k a5", "a5 holds a monument"),
    (dict(diagram=MONUMENT, monuments={"kb": "a5"}, catastrophes_left=[1, 1]), "cat b6",
     "b6 holds a monument (R-CAT-1)"),
    (dict(diagram=MONUMENT, monuments={"kb": "a5"}, catastrophes_left=[1, 1]), "cat c6",
     "c6 holds a catastrophe (R-CAT-1)"),
    (dict(diagram=MONUMENT, monuments={"kb": "a5"}), "tile k c6", "c6 holds a catastrophe"),
    (dict(diagram=MONUMENT, monuments={"kb": "a5"}), "cat f7",
     "you have no catastrophe tile left (two per player, R-COMP-3)"),
    (dict(diagram=REVOLT, hands=["rrkkbg"], phase="revolt_attack",
          conflict={"kind": "revolt", "colour": "r", "attacker": 0, "defender": 1,
                    "attacker_leader": "f6", "defender_leader": "h6"}),
     "commit 3", "you hold only 2 red tiles: commit 0 to 2"),
    (dict(diagram=REVOLT, hands=["rrkkbg"], phase="revolt_attack",
          conflict={"kind": "revolt", "colour": "r", "attacker": 0, "defender": 1,
                    "attacker_leader": "f6", "defender_leader": "h6"}),
     "tile k a1", "a tile is not a choice now: the choices are commit 0 to 2 (red tiles)"),
    (dict(diagram=REVOLT, hands=["rrkkbg"], phase="revolt_attack", variants=["english"],
          conflict={"kind": "revolt", "colour": "r", "attacker": 0, "defender": 1,
                    "attacker_leader": "f6", "defender_leader": "h6"}),
     "commit 2", "English commitments (R-VAR-ENGLISH): commit 0 or commit 1 (exactly 1 to beat the defender, "
                 "or none)"),
    (dict(diagram=TREASURES, phase="treasure"), "treasure f3",
     "the treasure on f3 is not in the kingdom of your trader on a2, which takes treasures now: the choices "
     "are b2, b8 (R-TRE-1)"),
    (dict(diagram=TREASURES, phase="treasure"), "treasure c2", "c2 holds no treasure"),
    (dict(diagram=TREASURES, phase="treasure"), "pass",
     "'pass' is not a choice now: the choices are treasure b2, treasure b8"),
    (dict(diagram=BLOCK, phase="monument", placed="g6"), "monument kb f5",
     "the kb monument has no red: the block is red (R-MON-1)"),
    (dict(diagram=BLOCK, phase="monument", placed="g6"), "monument kr e5",
     "the block e5-f6 does not hold the tile just placed on g6 (R-MON-1)"),
    (dict(diagram=BLOCK, phase="monument", placed="g6"), "monument kr g5",
     "the block g5-h6 is not four face-up red tiles (R-MON-1)"),
    (dict(diagram=LINE_AND_CROSS, phase="building", placed="g6", variants=["buildings", "wonder"]),
     "building k g6", "only the red building can go up now: the tile just placed on g6 is red (R-VAR-BLD-2)"),
    (dict(diagram=LINE_AND_CROSS, phase="building", placed="g6", variants=["buildings", "wonder"]),
     "building r i6", "i6 is not on the new line of three or more red tiles through g6 (R-VAR-BLD-2)"),
    (dict(diagram=LINE_AND_CROSS, phase="wonder", placed="g6", variants=["buildings", "wonder"]),
     "wonder a1", "the wonder's cross must hold the tile just placed on g6: a cross centred on a1 does not "
                  "(R-VAR-WONDER-1)"),
    (dict(diagram=LINE_AND_CROSS, phase="wonder", placed="g6", variants=["buildings", "wonder"]),
     "wonder f6", "the cross centred on f6 is not five face-up red tiles (R-VAR-WONDER-1)"),
    (dict(diagram=LINE_AND_CROSS, phase="wonder", placed="g6", variants=["buildings", "wonder"]),
     "nobuilding", "'nobuilding' is not a choice now: the choices are wonder g6, nowonder"),
]


@pytest.mark.parametrize("setup,text,reason", CASES, ids=[f"{c[1]}" for c in CASES])
def test_the_reason_on_a_diagram(setup, text, reason):
    setup = dict(setup)
    snap = position(setup.pop("diagram"), **setup)
    state = engine.State.from_snapshot(snap)          # the diagram is a real position
    assert act(text) not in state.legal_actions()
    assert why_illegal(snap, act(text)) == reason
    assert why_illegal(observation(snap, snap["to_act"]), act(text)) == reason
    with pytest.raises(engine.IllegalActionError) as e:
        state.apply(act(text))
    assert str(e.value) == f"illegal action {text!r}: {reason}"
    assert state.snapshot() == snap


def test_a_legal_decision_has_no_reason():
    snap = position(KINGDOMS)
    for a in engine.State.from_snapshot(snap).legal_actions():
        assert why_illegal(snap, a) is None


def test_the_game_over_and_actions_that_do_not_exist():
    s = engine.new_game(2, seed=1)
    s.random_playout(5)
    assert why_illegal(s.snapshot(), act("pass")) == "the game is over"
    snap = engine.new_game(2, seed=1).snapshot()
    assert why_illegal(snap, NUM_ACTIONS) == f"action {NUM_ACTIONS} does not exist (0..{NUM_ACTIONS - 1})"
    assert why_illegal(snap, "pass") == "action must be an int, got 'pass'"


def _every_action():
    out = []
    for a in range(NUM_ACTIONS):
        try:
            kind(a)
        except NotationError:          # a swap code of 0 or 7+ tiles names no decision
            continue
        out.append(a)
    return out


@pytest.mark.parametrize("variants", [(), ("english",), ("buildings",), ("wonder",),
                                      ("english", "buildings", "wonder")])
@pytest.mark.slow
def test_a_reason_exactly_for_what_legal_actions_leaves_out(variants):
    """Seeded random games: at sampled positions (every one outside the action phase), every action."""
    actions = _every_action()
    checked = 0
    for seed in range(3):
        players = 2 + seed
        s = engine.new_game(players, seed, "standard" if seed != 1 else "advanced", variants)
        rng = random.Random(seed)
        n = 0
        while not s.is_terminal() and checked < 12 * (seed + 1):
            if n % 41 == 0 or s.phase != "action":
                snap = s.snapshot()
                legal = set(s.legal_actions())
                judges = [Judge(snap), Judge(observation(snap, s.to_act))]
                for a in actions:
                    for judge in judges:
                        reason = judge.why(a)
                        if a in legal:
                            assert reason is None, (s.position(hidden=True), a, reason)
                        else:
                            assert isinstance(reason, str) and reason, (s.position(hidden=True), a)
                checked += 1
            s.apply(rng.choice(s.legal_actions()))
            n += 1
    assert checked >= 12
