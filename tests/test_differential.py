"""Differential test: the Cython engine against the pure-Python reference.

Along seeded random games (2-4 players, both boards) both must offer the same
legal decisions, reach the same snapshot after every decision (board, hands,
bag, scores, phase, conflict) and the same final result: 300 base games, and
100 games with each 2015 variant alone and with all of them on.
"""
import random
from collections import Counter

import pytest

import engine
from engine import reference
from engine.actions import format_action, kind
from engine.boards import SQUARES, neighbours

GAMES = 300


def first_difference(a: dict, b: dict) -> str:
    """Name the first field where two snapshots differ."""
    for k in a:
        if a[k] != b.get(k):
            return f"{k}: cython {a[k]!r} != reference {b.get(k)!r}"
    return "keys differ"


def play_in_lockstep(players: int, game: int, board: str, choose, variants=()) -> Counter:
    """Play one game on both engines, comparing snapshots and legal lists after every decision.

    `choose(rng, legal, snapshot)` picks each decision; returns the count of
    decisions played per kind.
    """
    fast = engine.new_game(players, game, board, variants)
    ref = reference.new_game(players, game, board, variants)
    rng = random.Random(game + (1000 if variants else 0))
    history, kinds = [], Counter()
    where = f"{'+'.join(variants) or 'base'} game {game}"
    while True:
        sf, sr = fast.snapshot(), ref.snapshot()
        assert sf == sr, f"{where} after {history[-3:]}: {first_difference(sf, sr)}"
        legal = fast.legal_actions()
        assert legal == ref.legal_actions(), f"{where} after {history[-3:]}: legal decisions differ"
        if fast.is_terminal():
            assert ref.is_terminal()
            assert fast.result() == ref.result()
            assert fast.scores() == ref.scores()
            return kinds
        cf = sf["conflict"]
        if sf["phase"] in ("revolt_attack", "revolt_defend", "war_attack", "war_defend"):
            colour = 1 if cf["kind"] == "revolt" else cf["colour"]
            if sf["hands"][sf["to_act"]][colour] >= 2 and len(legal) <= 2:
                kinds["restricted commitment"] += 1      # only R-VAR-ENGLISH leaves out counts
        a = choose(rng, legal, sf)
        kinds[kind(a)] += 1
        history.append(format_action(a))
        fast.apply(a)
        ref.apply(a)


def test_a_base_game_and_a_variant_game_match_in_lockstep():
    """The fast tier's small case of the two tests below: one random game, one with every variant on."""
    play_in_lockstep(3, 1, "advanced", lambda rng, legal, snap: rng.choice(legal))
    seen = play_in_lockstep(2, 2, "standard", lambda rng, legal, snap: variant_move(rng, legal, snap["cells"]),
                            VARIANT_SETS[-1])
    assert seen["building"] > 0 and seen["restricted commitment"] > 0


@pytest.mark.parametrize("chunk", range(10))
@pytest.mark.slow
def test_cython_matches_reference_along_random_games(chunk):
    for game in range(chunk, GAMES, 10):
        board = "standard" if game % 2 == 0 else "advanced"
        play_in_lockstep(2 + game % 3, game, board, lambda rng, legal, snap: rng.choice(legal))


# ------------------------------------------------------------------ the 2015 variants

VARIANT_SETS = (("english",), ("buildings",), ("wonder",), ("english", "buildings", "wonder"))
VARIANT_GAMES = 100          # per variant set, boards alternating


def variant_move(rng: random.Random, legal: list, cells: list) -> int:
    """Pick a decision that steers random play into the variants' rules.

    Uniform play almost never completes a cross of five, so buildings and the
    wonder are taken when offered, and tiles next to a tile of their colour
    are preferred (lines and crosses then form in most games).
    """
    build = [a for a in legal if kind(a) in ("building", "wonder")]
    if build and rng.random() < 0.8:
        return rng.choice(build)
    grow = [a for a in legal if kind(a) == "tile"
            and any(cells[n] == 1 + a // SQUARES for n in neighbours(a % SQUARES))]
    if grow and rng.random() < 0.7:
        return rng.choice(grow)
    return rng.choice(legal)


@pytest.mark.parametrize("variants", VARIANT_SETS, ids=["+".join(v) for v in VARIANT_SETS])
@pytest.mark.parametrize("chunk", range(4))
@pytest.mark.slow
def test_cython_matches_reference_with_variants(variants, chunk):
    seen = Counter()
    for game in range(chunk, VARIANT_GAMES, 4):
        board = "standard" if game % 2 == 0 else "advanced"
        seen += play_in_lockstep(2 + game % 3, game, board,
                                 lambda rng, legal, snap: variant_move(rng, legal, snap["cells"]), variants)
    # the variants' rules were exercised, not just switched on
    if "buildings" in variants:
        assert seen["building"] > 0
    if "wonder" in variants:
        assert seen["wonder"] > 0 and seen["wonderpoint"] > 0
    assert (seen["restricted commitment"] > 0) == ("english" in variants)
