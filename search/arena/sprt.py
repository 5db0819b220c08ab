"""Sequential probability ratio test (SPRT) of a match: stop as soon as "A is elo1 stronger" or "only elo0" is accepted.

The statistic is fishtest's generalized SPRT in logistic Elo
(official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py,
LLR_logistic): the outcomes are scores on an evenly spaced grid
0, 1/(n-1), ..., 1, observed `counts[i]` times; H0 and H1 say the
expected score is s0 = L(elo0) and s1 = L(elo1), L(e) = 1 / (1 + 10^(-e/400));
under each the distribution is the maximum-likelihood one with that
expectation (p_i = phat_i / (1 + x (a_i - s)), x solving the secular
equation sum phat_i (a_i - s) / (1 + x (a_i - s)) = 0), and the LLR is
N * sum phat_i log(p1_i / p0_i). Empty cells count 1e-3, as in fishtest, so
the LLR stays finite. Logistic, not normalized, Elo: the match table's Elo
(search.arena.runner.elo_from_share) is logistic too, so elo0/elo1 read on the
same scale.

What is scored (`DealScorer`): the candidate (the lineup's first agent)
against the other agent(s), pairwise: in each game every seat of the
candidate meets every seat of another agent and scores 1, 1/2 or 0 by rank
(search.arena.runner.MatchResult.pair_score's rule). A match plays each deal under
every seat rotation, so the games of one deal are scored together, as
fishtest scores a pair of games with colours reversed:

- 2 players: a deal is a pair; its score 0, 1/2, 1, 3/2 or 2 points is the
  pentanomial outcome (grid of 5). `paired=False` scores each game alone:
  the trinomial (loss, draw, win).
- 3 or 4 players (e.g. lineup `a b b`): a game is worth m = (candidate
  seats) x (other seats) pairings, so its score is a multiple of 1/(2m);
  a deal of k = players games sums to a multiple of 1/(2mk), i.e. one of
  2mk + 1 outcomes (13 for `a b b`, 25 for `a b b b`), and the same GSPRT
  runs on that multinomial. elo0/elo1 are then the Elo of the candidate's
  expected pairwise score against the field, the scale of the table's
  `Elo` line; the deal grouping keeps the correlation of one deal's
  rotations inside one outcome, as the pentanomial does for pairs.

A deal counts once all its games are in, in any order; games of a deal cut
short by the stop never count.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

REGULARIZE = 1e-3        # count given to an empty outcome (fishtest's regularize)


def logistic_score(elo: float) -> float:
    """Return the expected score of an Elo difference: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def bounds(alpha: float, beta: float) -> tuple:
    """Return the LLR bounds (lower, upper) = (log(beta / (1 - alpha)), log((1 - beta) / alpha))."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _secular(pdf: list) -> float:
    """Return x solving sum p_i a_i / (1 + x a_i) = 0 (the a_i of both signs), by bisection."""
    lo_a = min(a for a, p in pdf)
    hi_a = max(a for a, p in pdf)
    # 1 + x a_i > 0 for every i confines x to (-1/hi_a, -1/lo_a); f falls monotonically across it.
    lo, hi = -1.0 / hi_a, -1.0 / lo_a
    eps = 1e-12 * (hi - lo)
    lo, hi = lo + eps, hi - eps

    def f(x):
        return sum(p * a / (1.0 + x * a) for a, p in pdf)

    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return 0.5 * (lo + hi)


def mle_with_mean(pdf: list, s: float) -> list:
    """Return the maximum-likelihood distribution on pdf's values with expectation s, given the observed [(a_i, p_i)]."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [(a, p / (1.0 + x * (a - s))) for a, p in pdf]


def llr(counts, elo0: float, elo1: float) -> float:
    """Return the generalized log-likelihood ratio of H1 (elo1) over H0 (elo0) for outcome counts on a 0..1 grid."""
    counts = [c if c > 0 else REGULARIZE for c in counts]
    n = sum(counts)
    k = len(counts)
    if k < 2:
        raise ValueError("at least two outcomes")
    pdf = [(i / (k - 1), c / n) for i, c in enumerate(counts)]
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    p0 = mle_with_mean(pdf, s0)
    p1 = mle_with_mean(pdf, s1)
    return n * sum(p * (math.log(q1) - math.log(q0)) for (_, p), (_, q0), (_, q1) in zip(pdf, p0, p1))


def llr_trinomial(losses: int, draws: int, wins: int, elo0: float, elo1: float) -> float:
    """Return the LLR of unpaired games: counts of losses, draws and wins."""
    return llr([losses, draws, wins], elo0, elo1)


def llr_pentanomial(pairs, elo0: float, elo1: float) -> float:
    """Return the LLR of game pairs: counts of pairs scoring 0, 1/2, 1, 3/2 and 2 points."""
    if len(pairs) != 5:
        raise ValueError("a pentanomial has 5 counts")
    return llr(list(pairs), elo0, elo1)


# ---------------------------------------------------------------- the test

@dataclass(frozen=True)
class SprtSpec:
    """The hypotheses and error rates of a test: H0 elo0, H1 elo1 (logistic Elo), alpha, beta."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    paired: bool = True          # score whole deals (pentanomial for 2 players); False: game by game

    def __post_init__(self):
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 ({self.elo1:g}) must be above elo0 ({self.elo0:g})")
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0.0 < v < 0.5:
                raise ValueError(f"{name} must be in (0, 0.5), got {v:g}")

    @classmethod
    def parse(cls, text: str) -> "SprtSpec":
        """Parse `elo0=0 elo1=5 alpha=0.05 beta=0.05 [paired=no]` (any subset, in any order); ValueError if bad."""
        fields = {}
        for tok in text.replace(",", " ").split():
            key, eq, value = tok.partition("=")
            if not eq or key not in ("elo0", "elo1", "alpha", "beta", "paired"):
                raise ValueError(f"sprt {text!r}: {tok!r} is not one of elo0= elo1= alpha= beta= paired=")
            if key in fields:
                raise ValueError(f"sprt {text!r}: {key}= given twice")
            if key == "paired":
                if value.lower() not in ("yes", "no", "true", "false", "1", "0"):
                    raise ValueError(f"sprt {text!r}: paired= is yes or no")
                fields[key] = value.lower() in ("yes", "true", "1")
                continue
            try:
                fields[key] = float(value)
            except ValueError:
                raise ValueError(f"sprt {text!r}: {key}={value!r} is not a number") from None
        return cls(**fields)

    def describe(self) -> str:
        """Return the test as text, e.g. `elo0=0 elo1=5 alpha=0.05 beta=0.05`."""
        extra = "" if self.paired else " paired=no"
        return f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}{extra}"


@dataclass
class DealScorer:
    """Turn finished games into SPRT outcomes: the candidate's pairwise score per deal (or per game)."""

    candidate: str
    players: int
    paired: bool = True
    pending: dict = field(default_factory=dict)   # deal number -> {game index: half-points}
    counts: list = field(default_factory=list)
    grid: int = 0                                 # half-points a unit is out of (len(counts) - 1)

    def add(self, index: int, names: list, ranks: list) -> bool:
        """Score game `index` (seat names and ranks); return True when it completed a unit (a deal or a game)."""
        mine = [s for s, nm in enumerate(names) if nm == self.candidate]
        others = [s for s, nm in enumerate(names) if nm != self.candidate]
        if not mine or not others:
            raise ValueError(f"{self.candidate!r} has no opponent in game {index}")
        half = sum(2 if ranks[i] < ranks[j] else 1 if ranks[i] == ranks[j] else 0
                   for i in mine for j in others)
        m = len(mine) * len(others)
        group = self.players if self.paired else 1
        if not self.counts:
            self.grid = 2 * m * group
            self.counts = [0] * (self.grid + 1)
        deal = index // group
        games = self.pending.setdefault(deal, {})
        games[index] = half
        if len(games) < group:
            return False
        del self.pending[deal]
        self.counts[sum(games.values())] += 1
        return True

    @property
    def units(self) -> int:
        """Return how many deals (or games, unpaired) have been scored."""
        return sum(self.counts)


class Sprt:
    """A running SPRT over a match's games: feed each finished game, read the LLR and the decision."""

    def __init__(self, spec: SprtSpec, candidate: str, players: int):
        """Test `candidate` (the lineup's first agent) against the rest of a `players`-seat lineup."""
        self.spec = spec
        self.scorer = DealScorer(candidate, players, spec.paired)
        self.lower, self.upper = bounds(spec.alpha, spec.beta)
        self.llr = 0.0
        self.decision: Optional[str] = None     # "H0" or "H1" once accepted

    def add(self, index: int, names: list, ranks: list) -> Optional[str]:
        """Score finished game `index`; return "H0" or "H1" when that hypothesis is now accepted, else None."""
        if self.decision is not None:
            return self.decision
        if self.scorer.add(index, names, ranks):
            self.llr = llr(self.scorer.counts, self.spec.elo0, self.spec.elo1)
            if self.llr >= self.upper:
                self.decision = "H1"
            elif self.llr <= self.lower:
                self.decision = "H0"
        return self.decision

    def status(self) -> str:
        """Return `LLR 1.23 [-2.94, 2.94]` with the decision once there is one."""
        text = f"LLR {self.llr:.2f} [{self.lower:.2f}, {self.upper:.2f}]"
        if self.decision is not None:
            text += f" {self.decision} accepted"
        return text

    def summary(self) -> str:
        """Return the test's line for a results table."""
        unit = "deals" if self.spec.paired else "games"
        verdict = f"{self.decision} accepted" if self.decision else "no decision"
        counts = " ".join(map(str, self.scorer.counts)) or "none"
        return (f"SPRT {self.spec.describe()} ({self.scorer.candidate}): LLR {self.llr:.2f} "
                f"[{self.lower:.2f}, {self.upper:.2f}], {verdict} after {self.scorer.units} {unit} "
                f"(outcome counts {counts})")
