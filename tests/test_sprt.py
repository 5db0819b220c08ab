"""search.arena.sprt: the GSPRT's LLR against values worked out by hand, the bounds, the deal scoring and the stopping rule."""
import math

import pytest

from search.arena.sprt import (DealScorer, Sprt, SprtSpec, bounds, llr_pentanomial, llr_trinomial,
                         logistic_score, mle_with_mean)


def elo_of(s: float) -> float:
    """The logistic Elo whose expected score is s (inverse of logistic_score)."""
    return 400 * math.log10(s / (1 - s))


def test_bounds_are_walds():
    # log(0.05 / 0.95) = -2.944439, log(0.95 / 0.05) = log 19 = 2.944439
    lo, hi = bounds(0.05, 0.05)
    assert lo == pytest.approx(-2.944439, abs=1e-6) and hi == pytest.approx(2.944439, abs=1e-6)
    # alpha 0.05, beta 0.1: log(0.1 / 0.95) = -2.251292, log(0.9 / 0.05) = log 18 = 2.890372
    assert bounds(0.05, 0.1) == pytest.approx((-2.251292, 2.890372), abs=1e-6)


def test_logistic_score():
    assert logistic_score(0) == 0.5
    # 10^(-400 log10(3) / 400) = 1/3, so L = 1 / (1 + 1/3) = 0.75
    assert logistic_score(400 * math.log10(3)) == pytest.approx(0.75)


def test_trinomial_llr_by_hand():
    # 2 losses, 1 draw, 7 wins: phat = (0.2, 0.1, 0.7) on scores (0, 0.5, 1), mean 0.75.
    # H1: elo1 = 400 log10 3, s1 = 0.75 = the observed mean, so the MLE under H1 is phat itself (x = 0).
    # H0: elo0 = 0, s0 = 0.5; a - s0 = (-0.5, 0, 0.5). The secular equation
    #   0.2 (-0.5) / (1 - 0.5x) + 0.7 (0.5) / (1 + 0.5x) = 0  =>  0.7 (1 - 0.5x) = 0.2 (1 + 0.5x)
    #   =>  0.5 = 0.45 x  =>  x = 10/9, so p0 = (0.2 / (1 - 5/9), 0.1, 0.7 / (1 + 5/9)) = (0.45, 0.1, 0.45).
    # LLR = N sum phat log(p1 / p0) = 10 (0.2 log(0.2/0.45) + 0.1 log 1 + 0.7 log(0.7/0.45))
    #     = 10 (0.2 (-0.810930) + 0.7 (0.441833)) = 10 (-0.162186 + 0.309283) = 1.470969
    assert llr_trinomial(2, 1, 7, 0, elo_of(0.75)) == pytest.approx(1.470969, abs=1e-5)
    # The MLE under H0 is the one computed above.
    p0 = [p for _, p in mle_with_mean([(0, 0.2), (0.5, 0.1), (1, 0.7)], 0.5)]
    assert p0 == pytest.approx([0.45, 0.1, 0.45])
    # Swapping the hypotheses negates the LLR.
    assert llr_trinomial(2, 1, 7, elo_of(0.75), 0) == pytest.approx(-1.470969, abs=1e-5)


def test_pentanomial_llr_by_hand():
    # 20 pairs scoring 0, 1/2, 1, 3/2, 2 points: counts (1, 3, 8, 5, 3), phat = (0.05, 0.15, 0.4, 0.25, 0.15)
    # on pair scores a = (0, 0.25, 0.5, 0.75, 1); mean = (0.25*3 + 0.5*8 + 0.75*5 + 3) / 20 = 11.5 / 20 = 0.575.
    # H1: s1 = 0.575 = the mean, so p1 = phat.
    # H0: s0 = 0.5, a - s0 = d = (-0.5, -0.25, 0, 0.25, 0.5). x = 1 solves the secular equation:
    #   phat / (1 + d) = (0.05/0.5, 0.15/0.75, 0.4, 0.25/1.25, 0.15/1.5) = (0.1, 0.2, 0.4, 0.2, 0.1),
    #   whose mean is 0.5 (symmetric) and sum 1, so p0 = (0.1, 0.2, 0.4, 0.2, 0.1) and p1/p0 = 1 + d.
    # LLR = 20 (0.05 log 0.5 + 0.15 log 0.75 + 0.4 log 1 + 0.25 log 1.25 + 0.15 log 1.5)
    #     = 20 (-0.034657 - 0.043152 + 0 + 0.055786 + 0.060820) = 20 (0.038796) = 0.775920
    assert llr_pentanomial([1, 3, 8, 5, 3], 0, elo_of(0.575)) == pytest.approx(0.775920, abs=1e-5)


def test_a_symmetric_table_between_symmetric_hypotheses_is_zero():
    # The table's mean is 0.5, equally far from L(-5) and L(5): both MLEs are mirror images of each
    # other on a mirror-image table, so the log ratios cancel pairwise.
    assert llr_pentanomial([3, 1, 0, 1, 3], -5, 5) == pytest.approx(0.0, abs=1e-12)


def test_empty_cells_are_regularized():
    # Five pairs all won: the empty cells count 1e-3 each, so the LLR is finite, positive and grows
    # with the number of pairs (about linearly: 0.0715 per 5 pairs at elo1 = 5).
    a, b = llr_pentanomial([0, 0, 0, 0, 5], 0, 5), llr_pentanomial([0, 0, 0, 0, 50], 0, 5)
    assert 0 < a < b < math.inf
    assert b == pytest.approx(10 * a, rel=0.01)
    assert llr_pentanomial([5, 0, 0, 0, 0], 0, 5) < 0


def test_spec_parse():
    spec = SprtSpec.parse("elo0=0 elo1=5 alpha=0.05 beta=0.1")
    assert (spec.elo0, spec.elo1, spec.alpha, spec.beta, spec.paired) == (0, 5, 0.05, 0.1, True)
    assert SprtSpec.parse("elo1=20 paired=no").paired is False
    assert SprtSpec.parse("").describe() == "elo0=0 elo1=5 alpha=0.05 beta=0.05"
    for bad in ("elo0=5 elo1=0", "alpha=0.7", "elo1=x", "foo=1", "elo1=3 elo1=4", "paired=maybe"):
        with pytest.raises(ValueError):
            SprtSpec.parse(bad)


def test_deal_scorer_two_players_is_pentanomial():
    sc = DealScorer("a", 2)
    # deal 0: a wins game 0 (rank 0) and draws game 1 (tie): 1 + 1/2 = 3/2 points -> outcome 3 of 0..4
    assert not sc.add(1, ["b", "a"], [0, 0])
    assert sc.add(0, ["a", "b"], [0, 1])
    # deal 1: a loses both -> outcome 0
    sc.add(2, ["a", "b"], [1, 0])
    sc.add(3, ["b", "a"], [0, 1])
    assert sc.counts == [1, 0, 0, 1, 0] and sc.units == 2


def test_deal_scorer_unpaired_is_trinomial():
    sc = DealScorer("a", 2, paired=False)
    assert sc.add(0, ["a", "b"], [0, 1]) and sc.add(1, ["b", "a"], [0, 1]) and sc.add(2, ["a", "b"], [0, 0])
    assert sc.counts == [1, 1, 1]


def test_deal_scorer_three_players_scores_the_deal_on_a_finer_grid():
    # Lineup a b b: m = 1 x 2 pairings a game, k = 3 games a deal -> 2*2*3 = 12 half-points, 13 outcomes.
    sc = DealScorer("a", 3)
    sc.add(0, ["a", "b", "b"], [0, 1, 2])      # a beats both: 2 + 2 = 4 half-points
    sc.add(1, ["b", "a", "b"], [0, 1, 2])      # a beats one, loses to one: 0 + 2 = 2
    assert sc.add(2, ["b", "b", "a"], [1, 2, 0])   # 4: deal total 10 of 12
    assert len(sc.counts) == 13 and sc.counts[10] == 1


def test_sprt_stops_at_the_bounds():
    t = Sprt(SprtSpec(elo0=0, elo1=100, alpha=0.05, beta=0.05), "a", 2)
    # Every deal a 2-0 for a: the LLR climbs (about 0.25 a deal at elo1 = 100, regularized) until it crosses log 19.
    n = 0
    while t.add(2 * n, ["a", "b"], [0, 1]) is None and t.add(2 * n + 1, ["b", "a"], [1, 0]) is None:
        n += 1
        assert n < 100
    assert t.decision == "H1" and t.llr >= t.upper
    assert t.scorer.units == n + 1 and n > 1
    assert "H1 accepted" in t.status() and "H1 accepted after" in t.summary()
    u = Sprt(SprtSpec(elo0=0, elo1=100), "a", 2)
    for n in range(100):
        u.add(2 * n, ["a", "b"], [1, 0])
        if u.add(2 * n + 1, ["b", "a"], [0, 1]):
            break
    assert u.decision == "H0" and u.llr <= u.lower


@pytest.mark.slow
def test_a_seeded_match_stops_early_on_h1_for_the_stronger_agent():
    from search.arena.runner import run_match
    from search.baselines import GreedyAgent, RandomAgent
    res = run_match({"greedy": GreedyAgent, "random": RandomAgent}, games=200, players=2, seed=3,
                    sprt=SprtSpec(elo0=0, elo1=100))
    assert res.sprt.decision == "H1" and res.sprt.llr >= res.sprt.upper
    # greedy wins every pair: each adds about 0.25 to the LLR, so 12 pairs cross log 19 = 2.94
    assert len(res.games) == 24 and res.sprt.scorer.counts == [0, 0, 0, 0, 12]
    assert "H1 accepted after 12 deals" in res.table()
