"""bench.convergence: the agreement of two seeds and of budgets N and 2N, strictly and up to the referee's ties.

Iteration limits only: every figure here is a function of the seed.
"""
import json

import pytest

from bench import convergence as cv
from search.params import SearchParams

TINY = ["--players", "2", "--positions", "3", "--budgets", "50", "100", "--deep", "200", "--seed", "5",
        "--quiet"]
AGREEMENTS = ("seeds", "seeds_ties", "next_other", "next_other_ties", "next_same", "next_same_ties", "in_ties")


def _no_seconds(x):
    """The document without its wall-clock fields."""
    if isinstance(x, dict):
        return {k: _no_seconds(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [_no_seconds(v) for v in x]
    return x


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("conv") / "out.json"
    doc = cv.main(TINY + ["--json", str(out)])
    return doc, out


def test_the_kept_positions_files_are_action_phase_observations():
    for players in (2, 4):
        doc, sha = cv.load_positions(cv.positions_path(players))
        assert doc["players"] == players and len(doc["positions"]) >= 120 and len(sha) == 64
        for p in doc["positions"][:20]:
            obs = p["observation"]
            assert obs["phase"] == "action" and obs["seat"] == p["seat"] == obs["to_act"]
            assert obs["hands"] is None and obs["bag"] is None and len(obs["hand"]) == 4


def test_the_output_has_every_budget_and_agreement(tiny, capsys):
    doc, out = tiny
    assert json.loads(out.read_text()) == json.loads(json.dumps(doc))
    summary = doc["summary"]
    assert [r["budget"] for r in summary["rows"]] == [50, 100]
    assert summary["rows"][0]["doubled"] == 100 and summary["rows"][1]["doubled"] is None
    assert summary["rows"][1]["next_other"] is None                 # no 2N for the largest budget
    for row in summary["rows"]:
        for k in AGREEMENTS:
            s = row[k]
            if s is None:
                continue
            assert s["n"] == 3 and 0.0 <= s["low"] <= s["share"] <= s["high"] <= 1.0
        for strict in ("seeds", "next_other", "next_same"):
            if row[strict] is not None:
                assert row[strict]["share"] <= row[strict + "_ties"]["share"]
    ref = summary["referee"]
    assert 0.0 <= ref["second"]["share"] <= ref["second_ties"]["share"] <= 1.0
    assert ref["ties_mean"] >= 1
    assert len(doc["positions"]) == 3
    # the settings as played: a knob the player count decides is written resolved
    assert doc["params_values"] == SearchParams().resolved(2).to_dict()
    assert None not in (doc["params_values"]["widen_coef"], doc["params_values"]["exploration"])
    for rec in doc["positions"]:
        assert rec["referee"]["best"] == rec["referee"]["ties"][0]
        assert set(rec["searches"]) == {"50", "100"}


def test_the_same_seed_gives_the_same_numbers(tiny):
    doc, _ = tiny
    again = cv.main(TINY)
    assert _no_seconds(again["summary"]) == _no_seconds(doc["summary"])
    assert _no_seconds(again["positions"]) == _no_seconds(doc["positions"])


def test_the_table_prints_each_budget(capsys):
    cv.main(TINY + ["--no-second-referee"])
    text = capsys.readouterr().out
    assert "up to the referee's ties" in text and "two seeds at N" in text
    assert text.count("\n        50  ") == 3 and text.count("\n       100  ") == 3
    assert "two referees" not in text


def test_a_referee_is_taken_from_an_earlier_run(tiny, tmp_path):
    doc, out = tiny
    again = cv.main(TINY + ["--referee-from", str(out)])
    assert _no_seconds(again["summary"]["rows"]) == _no_seconds(doc["summary"]["rows"])
    assert [r["referee"] for r in again["positions"]] == [r["referee"] for r in doc["positions"]]
    with pytest.raises(SystemExit, match="deep"):
        cv.main(TINY[:-3] + ["--deep", "300", "--quiet", "--referee-from", str(out)])


def test_the_ties_rule():
    # choice 0.70 +- se 0.01; 0.69 is within the test, 0.60 is not, 0.695 with 5 visits is too few
    stats = [[1, 1000, 0.70, 0.01], [2, 900, 0.69, 0.01], [3, 800, 0.60, 0.01], [4, 5, 0.695, 0.05]]
    assert cv.referee_ties(stats, 0.005, 20) == [1, 2]
    # the tolerance floor: with tiny errors, means 0.004 apart are ties, 0.006 apart are not
    stats = [[1, 10**6, 0.900, 1e-5], [2, 10**6, 0.896, 1e-5], [3, 10**6, 0.894, 1e-5]]
    assert cv.referee_ties(stats, 0.005, 20) == [1, 2]
    assert cv.agree(2, 1, [1, 2]) and cv.agree(3, 3, [1, 2]) and not cv.agree(1, 3, [1, 2])


def test_made_positions_are_seeded():
    a = cv.make_positions(2, count=3, seed=1, iterations=20, spacing=5)
    b = cv.make_positions(2, count=3, seed=1, iterations=20, spacing=5)
    assert a == b and len(a["positions"]) == 3
    assert all(p["observation"]["phase"] == "action" for p in a["positions"])
    assert json.loads(cv.dump_positions(a)) == json.loads(json.dumps(a))


@pytest.mark.slow
def test_two_jobs_give_the_numbers_of_one():
    one = cv.main(TINY)
    two = cv.main(TINY + ["--jobs", "2"])
    assert _no_seconds(two["summary"]) == _no_seconds(one["summary"])


def test_one_world_deals_the_root_the_same_for_every_seed():
    from search.params import SearchParams
    doc, _ = cv.load_positions(cv.positions_path(2))
    obs = doc["positions"][0]["observation"]
    search = cv.OneWorld(SearchParams(), 7)
    assert search._world(obs, obs["seat"], 1).snapshot() == search._world(obs, obs["seat"], 2).snapshot()
    assert cv.ISMCTS()._world(obs, obs["seat"], 1).snapshot() != cv.ISMCTS()._world(obs, obs["seat"], 2).snapshot()
    out = cv.main(TINY + ["--same-world", "--no-second-referee"])
    assert out["same_world"] and [r["budget"] for r in out["summary"]["rows"]] == [50, 100]
