"""Regenerate tests/data/perft.tsv: fixed positions found by seeded random play.

Run from the repository root: `python tests/data/make_perft.py`. The counts
are computed by the Cython engine; tests/test_perft.py checks that both the
Cython engine and the pure-Python reference reproduce them. Regenerate only
when a rules change is intended, and say why in the commit.
"""
import random
from pathlib import Path

from engine import new_game
from engine.actions import kind
from engine.boards import SQUARES, neighbours
from engine.position import format_position
from engine.state import perft

OUT = Path(__file__).with_name("perft.tsv")
ALL = ["english", "buildings", "wonder"]


def find(predicate, players, board="standard", seeds=range(2000), before_end=None):
    """Return the first state of seeded random games that satisfies predicate."""
    for seed in seeds:
        s = new_game(players, seed, board)
        rng = random.Random(seed)
        while not s.is_terminal():
            if predicate(s):
                return s
            prev = s.clone()
            s.apply(rng.choice(s.legal_actions()))
            if before_end and s.is_terminal() and s.snapshot()["end_reason"] == before_end:
                return prev
    raise RuntimeError("no position found")


def find_variant(predicate, players, variants, board="standard", seeds=range(2000)):
    """Like find, with the 2015 variants on and play steered so that lines and crosses form."""
    for seed in seeds:
        s = new_game(players, seed, board, variants)
        rng = random.Random(seed)
        while not s.is_terminal():
            if predicate(s):
                return s
            legal = s.legal_actions()
            cells = s.snapshot()["cells"]
            build = [a for a in legal if kind(a) in ("building", "wonder")]
            grow = [a for a in legal if kind(a) == "tile"
                    and any(cells[n] == 1 + a // SQUARES for n in neighbours(a % SQUARES))]
            if build and rng.random() < 0.8:
                s.apply(rng.choice(build))
            elif grow and rng.random() < 0.7:
                s.apply(rng.choice(grow))
            else:
                s.apply(rng.choice(legal))
    raise RuntimeError("no position found")


def main() -> None:
    cats = lambda s: s.phase == "action" and sum(c == 9 for c in s.snapshot()["cells"]) >= 4
    positions = [
        ("start-2p", new_game(2, 1)),
        ("start-3p", new_game(3, 2)),
        ("start-4p", new_game(4, 3)),
        ("start-2p-advanced", new_game(2, 4, "advanced")),
        ("pending-revolt", find(lambda s: s.phase == "revolt_defend", 3)),
        ("war-attack", find(lambda s: s.phase == "war_attack", 2)),
        ("war-two-colours", find(lambda s: s.phase == "war_choice", 4)),
        ("monument-choice", find(lambda s: s.phase == "monument", 2)),
        ("treasure-choice", find(lambda s: s.phase == "treasure", 3)),
        ("after-catastrophes", find(cats, 4)),
        ("one-from-treasure-end", find(lambda s: False, 2, before_end="treasures")),
        ("one-from-bag-end", find(lambda s: False, 2, before_end="bag")),
        ("midgame-advanced-4p", find(lambda s: s.phase == "action" and len(s.snapshot()["bag"]) < 60, 4, "advanced")),
        # the 2015 variants (R-VAR-*)
        ("start-2p-all-variants", new_game(2, 5, "standard", ALL)),
        ("building-choice", find_variant(lambda s: s.phase == "building", 2, ["buildings"])),
        ("building-move", find_variant(lambda s: s.phase == "building"
                                       and s.snapshot()["buildings"][s.snapshot()["cells"][s.snapshot()["placed"]] - 1] >= 0,
                                       3, ["buildings"], "advanced")),
        ("wonder-choice", find_variant(lambda s: s.phase == "wonder", 2, ["wonder"])),
        ("wonder-point", find_variant(lambda s: s.phase == "wonder_point", 4, ["wonder"])),
        ("english-war-attack", find_variant(lambda s: s.phase == "war_attack" and len(s.legal_actions()) == 2,
                                            2, ["english"])),
        ("english-revolt-defend", find_variant(lambda s: s.phase == "revolt_defend" and len(s.legal_actions()) == 2,
                                               3, ["english"])),
        ("midgame-all-variants", find_variant(lambda s: s.phase == "action" and s.snapshot()["wonder"] >= 0
                                              and sum(b >= 0 for b in s.snapshot()["buildings"]) >= 2,
                                              3, ALL, "advanced")),
    ]
    lines = ["# name\tperft(1)\tperft(2)\tposition (with hidden part)"]
    for name, s in positions:
        lines.append(f"{name}\t{perft(s, 1)}\t{perft(s, 2)}\t{format_position(s.snapshot(), hidden=True)}")
        print(lines[-1][:100])
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
