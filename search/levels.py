"""Playing levels 1-10: the one table of how weak each level plays, and the decision it takes.

A level plays like a person of that strength rather than a search cut
short: it searches a smaller budget, then draws its decision from the
root's visit distribution with a temperature (visits ** (1 / temperature),
so a hot level plays the second-best move now and then, and seldom a poor
one), and with a small chance overlooks everything and plays a random
legal decision (an oversight). Level 10 is the shipped search at full
strength: its default budget, the most visited decision, no oversight.

Every draw comes from a generator seeded by the decision's own seed
(`decision_rng`), so the same seed at the same level gives the same
decision. docs/strength.md ("Levels") has each level's measured Elo
against greedy; `python -m bench.levels` measures it again.
"""
from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import Optional

from search.agent import Agent, Limits, SearchError
from search.ismcts import ISMCTSAgent, SearchResult, world_from_observation

LEVELS_RANGE = (1, 10)
FULL_STRENGTH = 10
DEFAULT_ITERATIONS = 1000      # level 10: the budget of a search given no limit (tne-ai bot, the arena)


@dataclass(frozen=True)
class Level:
    """How one level plays: its search budget, the temperature of its final draw, its chance of an oversight."""

    level: int
    iterations: int             # search iterations a decision
    temperature: float          # 0: the most visited decision; higher draws further down the visits
    oversight: float            # chance of a uniformly random legal decision instead


# Set so that neighbours stand about 200 Elo apart (so their intervals part), by interpolating
# each setting between the points an earlier ladder measured, then checked by pilots of 60
# games a neighbour pair. docs/strength.md, "Levels", holds what the ladder measured.
LEVELS = (
    Level(1, 8, 2.77, 0.76),
    Level(2, 12, 2.42, 0.64),
    Level(3, 17, 2.09, 0.52),
    Level(4, 23, 1.8, 0.42),
    Level(5, 33, 1.47, 0.31),
    Level(6, 48, 1.2, 0.235),
    Level(7, 80, 0.9, 0.13),
    Level(8, 140, 0.6, 0.062),
    Level(9, 300, 0.36, 0.027),
    Level(FULL_STRENGTH, DEFAULT_ITERATIONS, 0.0, 0.0),
)


def check_levels(levels=LEVELS) -> None:
    """Raise SearchError unless the table has levels 1..10 in order, growing budgets, cooling temperatures, fewer oversights."""
    lo, hi = LEVELS_RANGE
    if [lv.level for lv in levels] != list(range(lo, hi + 1)):
        raise SearchError(f"the level table must hold levels {lo}..{hi} in order")
    for a, b in zip(levels, levels[1:]):
        if not (a.iterations <= b.iterations and a.temperature >= b.temperature and a.oversight >= b.oversight):
            raise SearchError(f"level {b.level} must be no weaker than level {a.level} in every setting")
    for lv in levels:
        if lv.iterations < 1 or lv.temperature < 0 or not 0 <= lv.oversight <= 1:
            raise SearchError(f"level {lv.level}: iterations >= 1, temperature >= 0, oversight in [0, 1]")
    top = levels[-1]
    if (top.iterations, top.temperature, top.oversight) != (DEFAULT_ITERATIONS, 0.0, 0.0):
        raise SearchError(f"level {hi} must be the full-strength search")


def level_of(value) -> Level:
    """Return the Level of a number 1..10 (an int or its text; a Level is itself); SearchError says what is wrong otherwise."""
    if isinstance(value, Level):
        return value
    lo, hi = LEVELS_RANGE
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str):
        try:
            text = int(text)
        except ValueError:
            raise SearchError(f"level must be a whole number from {lo} to {hi}, got {value!r}") from None
    if isinstance(text, bool) or not isinstance(text, int):
        raise SearchError(f"level must be a whole number from {lo} to {hi}, got {value!r}")
    if not lo <= text <= hi:
        raise SearchError(f"level must be from {lo} (weakest) to {hi} (full strength), got {text}")
    return LEVELS[text - lo]


def decision_seed(seed: int, decision: int) -> int:
    """Return the seed of a game's `decision`-th decision (from 0) for an agent seeded `seed`."""
    return (seed * 1_000_003 + decision) & ((1 << 64) - 1)


def decision_rng(seed: int) -> random.Random:
    """Return the generator of a level's draws for the decision searched with `seed` (apart from the search's own)."""
    digest = hashlib.sha256(f"level:{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def sample_visits(candidates: list, temperature: float, rng: random.Random) -> int:
    """Return the action drawn from root candidates with weights visits ** (1 / temperature) (0: the first, the search's choice)."""
    if not candidates:
        raise SearchError("no candidates to choose from")
    if temperature <= 0:
        return candidates[0].action
    top = max(c.visits for c in candidates)
    # weights relative to the most visited one, so no power overflows
    weights = [math.exp(math.log(c.visits / top) / temperature) for c in candidates]
    return rng.choices([c.action for c in candidates], weights=weights)[0]


def level_decision(level: Level, result: SearchResult, observation: dict, seat: int, seed: int) -> int:
    """Return the decision a level plays given its search's result: an oversight, or a draw from the visits."""
    if level.temperature <= 0 and level.oversight <= 0:
        return result.best
    rng = decision_rng(seed)
    if rng.random() < level.oversight:
        return rng.choice(world_from_observation(observation, seat, seed).legal_actions())
    return sample_visits(result.candidates, level.temperature, rng)


class LevelAgent(Agent):
    """An Agent playing at one level: the search at the level's budget, its decision drawn as the level says."""

    def __init__(self, seed: int = 0, level: int = FULL_STRENGTH, **search):
        """Create the agent; `search`: more ISMCTSAgent arguments (params, workers)."""
        self.level = level_of(level)
        self.name = f"level-{self.level.level}"
        self.seed = seed
        self.search = ISMCTSAgent(seed=seed, limits=Limits(iterations=self.level.iterations), **search)
        self.last_result: Optional[SearchResult] = None
        self._decisions = 0

    def new_game(self, seat: int, observation: dict) -> None:
        """Start a game as `seat`."""
        super().new_game(seat, observation)
        self.search.new_game(seat, observation)
        self._decisions = 0

    def apply(self, action: int, observation: dict) -> None:
        """Note a decision."""
        super().apply(action, observation)
        self.search.apply(action, observation)

    def choose(self, limits: Optional[Limits] = None) -> int:
        """Return the level's decision; a level always searches its own budget, whatever `limits` say."""
        self.check_turn()
        seed = decision_seed(self.seed, self._decisions)
        self._decisions += 1
        self.search.choose(Limits(iterations=self.level.iterations))
        self.last_result = self.search.last_result
        return level_decision(self.level, self.last_result, self.observation, self.seat, seed)

    def stop(self) -> None:
        """Stop a running search."""
        self.search.stop()


check_levels()
