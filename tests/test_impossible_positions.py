"""Impossible positions are refused (issue 14, point 4; docs/engine.md "Phases and who acts").

`State.from_snapshot` (Cython core) and `engine.reference.State.from_snapshot`
refuse, with a PositionError naming the field, every position the rules cannot
reach that these tests build: a pending phase that is not pending (`treasure`
without a kingdom holding two treasures and a trader, R-TRE-1; `war_choice`
with fewer than two wars, R-WAR-1; `monument` without a 2x2 block, R-MON-1), a
conflict whose kind does not fit the phase, a commitment larger than the
attacker's hand allowed (R-REV-3), counters that do not add up (treasures
taken, catastrophes left), an end reason the board contradicts (R-END-1).
`check_consistency` runs the same checks, so a state that is not over always
has a legal decision.

The differential test mutates positions from seeded games (phase, conflict,
commitments, counters, scores, ...) and requires the same verdict from both
implementations for every mutated position, and the same legal decisions for
every accepted one.
"""
from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

import engine
from diagram import position, sq
from engine import PositionError
from engine import reference as R
from engine.actions import kind
from engine.boards import SQUARES, neighbours
from engine.position import MAX_SCORE

LOADERS = {"cython": engine.State.from_snapshot, "reference": R.State.from_snapshot}


def refused_by_both(snap: dict, field: str) -> None:
    """Both engines raise PositionError naming `field` for this snapshot."""
    for name, load in LOADERS.items():
        with pytest.raises(PositionError) as e:
            load(copy.deepcopy(snap))
        assert f"'{field}'" in str(e.value) or str(e.value).startswith(f"{field}:"), (name, str(e.value))


def accepted_by_both(snap: dict) -> None:
    for load in LOADERS.values():
        load(copy.deepcopy(snap)).check_consistency()


# ---------------------------------------------------------------- one kind each

# kings on f5 (seat 0) and j5 (seat 1), each with a black tile; h5 unifies
KINGS = """
    e  f  g  h  i  j  k
4   .  .  .  .  .  .  .
5   k  0k r  {h} r  1k k
6   .  .  .  .  .  .  .
"""

# seat 0's priest on h7 (temples h6, i7); seat 1, the turn owner, on j7 (j6, i7)
REVOLT = """
    g  h  i  j  k
6   .  r  .  r  .
7   .  0r r$ 1r .
8   ~  .  .  .  .
"""


def revolt(phase: str = "revolt_attack", attacker_commit: int = -1, **kw) -> dict:
    cf = {"kind": "revolt", "colour": 1, "attacker": 1, "defender": 0,
          "attacker_leader": sq("j7"), "defender_leader": sq("h7"), "attacker_commit": attacker_commit}
    args = dict(turn_owner=1, to_act=1 if phase == "revolt_attack" else 0, phase=phase, conflict=cf)
    args.update(kw)
    return position(REVOLT, **args)


def test_treasure_phase_without_two_treasures_and_a_trader_R_TRE_1():
    snap = engine.new_game(2, 5).snapshot()
    snap["phase"] = "treasure"
    refused_by_both(snap, "phase")


def test_treasure_phase_asks_the_wrong_seat_R_TRE_1():
    # seat 0's trader on f2 is in the kingdom of the temples f3 and k1: seat 0 chooses one
    snap = position("""
        f  g  h  i  j  k
    1   ~  ~  ~  ~  .  r$
    2   0g .  .  .  .  k
    3   r$ k  k  k  k  k
    """, phase="treasure", to_act=0)
    accepted_by_both(snap)
    snap["to_act"] = 1
    refused_by_both(snap, "to_act")


def test_war_choice_with_one_war_R_WAR_1():
    # only the kings clash: the war starts at once (war_attack), there is nothing to choose
    war = {"kind": "war", "colour": 0, "attacker": 0, "defender": 1,
           "attacker_leader": "f5", "defender_leader": "j5", "attacker_commit": -1}
    accepted_by_both(position(KINGS.format(h="k"), phase="war_attack", placed="h5", unification="h5",
                              hands=["kkrrb", None], conflict=war))
    snap = position(KINGS.format(h="k"), phase="war_choice", placed="h5", unification="h5",
                    hands=["kkrrb", None])
    refused_by_both(snap, "phase")


def test_monument_phase_without_a_block_R_MON_1():
    snap = position(KINGS.format(h="."), phase="monument", placed="e5", hands=["kkrrb", None])
    refused_by_both(snap, "phase")


def test_conflict_kind_does_not_fit_the_phase():
    snap = revolt()
    accepted_by_both(snap)
    snap["conflict"]["kind"] = "war"
    refused_by_both(snap, "conflict")


def test_commitment_larger_than_the_hand_allowed_R_REV_3():
    # the attacker holds 4 tiles after committing 2: it held 6. Committing 3 it would have held 7.
    accepted_by_both(revolt("revolt_defend", 2, hands=["kkbbgg", "rkkb"], committed=[False, True],
                            discarded=[0, 2, 0, 0]))
    snap = revolt("revolt_defend", 3, hands=["kkbbgg", "rkkb"], committed=[False, True], discarded=[0, 3, 0, 0])
    refused_by_both(snap, "conflict")


def test_commitment_without_the_committed_flag_R_REV_3():
    snap = revolt("revolt_defend", 2, hands=["kkbbgg", "rkkb"], committed=[False, False], discarded=[0, 2, 0, 0])
    refused_by_both(snap, "committed")


def test_english_commitment_is_none_or_exactly_enough_R_VAR_ENGLISH():
    # 2 temples each: the attacker needs 1 to win; 2 is never offered
    ok = revolt("revolt_defend", 1, hands=["kkbbgg", "rkkbb"], committed=[False, True], discarded=[0, 1, 0, 0],
                variants=["english"])
    accepted_by_both(ok)
    snap = revolt("revolt_defend", 2, hands=["kkbbgg", "rkkb"], committed=[False, True], discarded=[0, 2, 0, 0],
                  variants=["english"])
    refused_by_both(snap, "conflict")


def test_treasures_taken_must_account_for_the_missing_treasures_R_TRE_1():
    snap = engine.new_game(2, 5).snapshot()
    snap["treasures_taken"] = [1, 0]
    refused_by_both(snap, "treasures_taken")


def test_catastrophes_left_must_account_for_the_board_R_CAT_1():
    snap = engine.new_game(2, 5).snapshot()
    snap["catastrophes_left"] = [1, 2]
    refused_by_both(snap, "catastrophes_left")


def test_a_hand_short_between_turns_without_a_commitment_R_TURN_3():
    snap = position(hands=[None, "kkbbg"], discarded=[0, 0, 0, 1])
    refused_by_both(snap, "hands")


def test_end_reasons_the_board_contradicts_R_END_1():
    snap = engine.new_game(2, 5).snapshot()
    snap.update(phase="over", to_act=-1, end_reason="bag")
    refused_by_both(snap, "end_reason")             # the bag still holds tiles
    snap["end_reason"] = "treasures"
    refused_by_both(snap, "end_reason")             # ten treasures still on the board


def test_an_accepted_state_that_is_not_over_has_a_legal_decision():
    # any phase forced on a real position: refused, or it has a decision to make
    for seed in range(6):
        real = engine.new_game(2 + seed % 3, seed, variants=["english", "buildings", "wonder"]).snapshot()
        for phase in PHASES:
            if phase in CONFLICT_PHASES or phase == "over":
                continue            # they need a conflict, or have no decision
            snap = dict(copy.deepcopy(real), phase=phase)
            for name, load in LOADERS.items():
                try:
                    state = load(copy.deepcopy(snap))
                except PositionError:
                    continue
                assert state.legal_actions(), f"{name} accepted phase {phase} without a legal decision"
                state.check_consistency()


# ---------------------------------------------------------------- differential verdicts

PHASES = R.PHASES
CONFLICT_PHASES = ("revolt_attack", "revolt_defend", "war_attack", "war_defend")


def seeded_positions(games: int = 15, every: int = 60) -> list:
    """Snapshots of seeded games (variants in turn): two of each pending phase met per game, every `every`-th decision."""
    out = []
    for g in range(games):
        variants = [(), ("english",), ("buildings",), ("wonder",), ("english", "buildings", "wonder")][g % 5]
        s = engine.new_game(2 + g % 3, g, "standard" if g % 2 == 0 else "advanced", variants)
        rng = random.Random(g)
        i = 0
        met = Counter()
        while True:
            snap = s.snapshot()
            if snap["phase"] != "action" and met[snap["phase"]] < 2 or i % every == 0:
                out.append(snap)
                met[snap["phase"]] += 1
            if s.is_terminal():
                break
            legal = s.legal_actions()
            build = [a for a in legal if kind(a) in ("building", "wonder", "monument")]
            grow = [a for a in legal if kind(a) == "tile"
                    and any(snap["cells"][n] == 1 + a // SQUARES for n in neighbours(a % SQUARES))]
            if build and rng.random() < 0.8:
                a = rng.choice(build)
            elif grow and rng.random() < 0.7:
                a = rng.choice(grow)
            else:
                a = rng.choice(legal)
            s.apply(a)
            i += 1
    return out


def mutations(snap: dict) -> list:
    """(name, mutated copy) pairs: the fields the rules tie together, changed one at a time."""
    out = []

    def m(name, f):
        s = copy.deepcopy(snap)
        if f(s) is not False:
            out.append((name, s))

    n = snap["players"]
    cf = snap["conflict"]
    for ph in PHASES:
        if ph == snap["phase"]:
            continue
        m(f"phase {ph}", lambda s, ph=ph: s.__setitem__("phase", ph))

        def fitted(s, ph=ph):
            # the phase changed, with to_act, end_reason and conflict made to fit it
            s["phase"] = ph
            if ph == "over":
                s.update(to_act=-1, end_reason="treasures" if len(s["treasures"]) <= 2 else "bag")
                return
            s["end_reason"] = None
            if ph in CONFLICT_PHASES:
                if s["conflict"] is None:
                    return False
                c = s["conflict"]
                c["kind"] = "revolt" if ph.startswith("revolt") else "war"
                c["attacker_commit"] = -1 if ph.endswith("attack") else max(c["attacker_commit"], 0)
                s["to_act"] = c["attacker"] if ph.endswith("attack") else c["defender"]
            else:
                s["conflict"] = None
                s["to_act"] = s["turn_owner"]
                if s["actions_left"] == 0 and ph != "wonder_point":
                    s["actions_left"] = 1
        m(f"phase {ph} fitted", fitted)
    if cf is not None:
        m("conflict kind flipped", lambda s: s["conflict"].update(kind="war" if cf["kind"] == "revolt" else "revolt"))
        for c in range(4):
            if c != cf["colour"]:
                m(f"conflict colour {c}", lambda s, c=c: s["conflict"].update(colour=c))
        m("conflict sides swapped", lambda s: s["conflict"].update(
            attacker=cf["defender"], defender=cf["attacker"],
            attacker_leader=cf["defender_leader"], defender_leader=cf["attacker_leader"]))
        if snap["phase"].endswith("defend"):
            for v in range(-1, 7):
                if v != cf["attacker_commit"]:
                    m(f"attacker_commit {v}", lambda s, v=v: s["conflict"].update(attacker_commit=v))
            colour = 1 if cf["kind"] == "revolt" else cf["colour"]
            beyond = 7 - sum(snap["hands"][cf["attacker"]])

            def over_the_hand(s):
                # committed more than the hand held, the tiles taken from the bag (conserved)
                extra = beyond - cf["attacker_commit"]
                if beyond > 6 or s["bag"].count(colour) < extra:
                    return False
                for _ in range(extra):
                    s["bag"].remove(colour)
                s["discarded"][colour] += extra
                s["conflict"]["attacker_commit"] = beyond
                s["committed"][cf["attacker"]] = True
            m("attacker_commit beyond the hand", over_the_hand)
        else:
            m("attacker_commit 0 in an attack", lambda s: s["conflict"].update(attacker_commit=0))
    if snap["phase"] != "over":
        m("to_act the next seat", lambda s: s.__setitem__("to_act", (s["to_act"] + 1) % n))
    for p in range(n):
        for v in (0, 1, 3, 11, 255, -1):
            if v != snap["treasures_taken"][p]:
                m(f"treasures_taken {v}", lambda s, p=p, v=v: s["treasures_taken"].__setitem__(p, v))
        for v in (-1, 0, 1, 2, 3):
            if v != snap["catastrophes_left"][p]:
                m(f"catastrophes_left {v}", lambda s, p=p, v=v: s["catastrophes_left"].__setitem__(p, v))
        m("swapped +1", lambda s, p=p: s["swapped"][p].__setitem__(1, s["swapped"][p][1] + 1))
        m("swapped 256", lambda s, p=p: s["swapped"][p].__setitem__(2, 256))
        m("committed flipped", lambda s, p=p: s["committed"].__setitem__(p, not s["committed"][p]))
        m("hand emptied into discarded", lambda s, p=p: (
            [s["discarded"].__setitem__(c, s["discarded"][c] + s["hands"][p][c]) for c in range(4)],
            s["hands"].__setitem__(p, [0, 0, 0, 0])))
    for v in (MAX_SCORE, MAX_SCORE + 1, 2 ** 15, 2 ** 31, 10 ** 20, -1):
        m(f"score {v}", lambda s, v=v: s["scores"][-1].__setitem__(0, v))
    for c in range(4):
        m("discarded +1", lambda s, c=c: s["discarded"].__setitem__(c, s["discarded"][c] + 1))
        m("discarded 65536", lambda s, c=c: s["discarded"].__setitem__(c, 65536))
    for v in range(4):
        if v != snap["actions_left"]:
            m(f"actions_left {v}", lambda s, v=v: s.__setitem__("actions_left", v))
    m("placed -1", lambda s: s.__setitem__("placed", -1))
    m("unification -1", lambda s: s.__setitem__("unification", -1))
    m("placed a tile", lambda s: s.__setitem__("placed", next(i for i, v in enumerate(s["cells"]) if 1 <= v <= 4)))
    m("end_reason bag", lambda s: s.__setitem__("end_reason", "bag"))
    m("end_reason treasures", lambda s: s.__setitem__("end_reason", "treasures"))
    if snap["bag"]:
        m("bag emptied", lambda s: ([s["discarded"].__setitem__(c, s["discarded"][c] + s["bag"].count(c))
                                     for c in range(4)], s.__setitem__("bag", [])))
    if len(snap["treasures"]) > 2:
        def two_treasures_left(s):
            s["treasures_taken"][0] += len(s["treasures"]) - 2
            s["treasures"] = s["treasures"][:2]
        m("two treasures left", two_treasures_left)
    return out


def verdict(load, snap):
    """None if accepted (then the legal decisions), else 'refused'."""
    try:
        state = load(copy.deepcopy(snap))
    except PositionError:
        return "refused"
    return state.legal_actions()


@pytest.mark.slow
def test_both_engines_give_the_same_verdict_on_mutated_positions():
    positions = seeded_positions()
    assert {p["phase"] for p in positions} == set(PHASES)
    total = refused = 0
    for snap in positions:
        assert verdict(LOADERS["cython"], snap) == verdict(LOADERS["reference"], snap) != "refused", \
            "a position reached by play was refused"
        for name, mutated in mutations(snap):
            fast = verdict(LOADERS["cython"], mutated)
            ref = verdict(LOADERS["reference"], mutated)
            where = f"{snap['phase']} position mutated by {name}"
            assert (fast == "refused") == (ref == "refused"), f"{where}: cython {fast!r:.60}, reference {ref!r:.60}"
            if fast == "refused":
                refused += 1
            else:
                assert fast == ref and (fast or mutated["phase"] == "over"), \
                    f"{where}: accepted with different or no legal decisions"
            total += 1
    print(f"{len(positions)} positions, {total} mutated, {refused} refused by both")
    assert total > 10_000 and total // 2 < refused < total


@pytest.mark.parametrize("variants", [["wonder", "english"], ["buildings", "english"], ["english", "english"]])
def test_variants_out_of_order_or_repeated_are_refused_by_both(variants):
    # a snapshot is canonical (docs/engine.md "Snapshot"); new_game takes them in any order
    snap = engine.new_game(2, 7, variants=sorted(set(variants))).snapshot()
    snap["variants"] = variants
    refused_by_both(snap, "variants")
    for impl in (engine, R):
        assert impl.new_game(2, 7, variants=variants).snapshot()["variants"] == sorted(
            set(variants), key=["english", "buildings", "wonder"].index)
