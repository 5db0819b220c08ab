"""Win chance (search.calibration) and its fit (search.tuning.calibrate, `tne-ai tune calibrate`)."""
from __future__ import annotations

import glob
import json
import math
import os
import re

import pytest
from click.testing import CliRunner

import engine
from engine.info import observation
from search.agent import Limits, SearchError
from search.analysis import analyse
from search.calibration import (DATA_DIR, FEATURES, CalibrationMap, defaults_fingerprint, describe_chance,
                                load_map, map_path, position_facts, win_chance)
from search.ismcts import ISMCTS
from search.tuning import calibrate
from search.tuning.calibrate import value_weights_read
from tne_ai.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED = sorted(glob.glob(os.path.join(DATA_DIR, "*.json")))


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def facts(scores, treasures=None, bag=60, treasures_left=8, evaluation=None):
    """Public facts of a position: colour totals per seat (k r b g), treasures taken, the bag, treasures on the
    board, the handcrafted evaluation's reward per seat."""
    return {"scores": scores, "treasures_taken": treasures or [0] * len(scores), "bag": bag,
            "treasures_left": treasures_left, "eval": evaluation or [0.5] * len(scores)}


# ---------------------------------------------------------------- the shipped maps

def test_a_map_ships_for_every_player_count_on_the_standard_board():
    for players in (2, 3, 4):
        assert os.path.exists(map_path(players, "standard")), f"no map for {players} players"


@pytest.mark.parametrize("path", SHIPPED, ids=os.path.basename)
def test_the_shipped_map_was_fitted_for_todays_search_defaults(path):
    # refit with `tne-ai tune calibrate` (docs/tuning.md) whenever the evaluation or the defaults change
    with open(path) as f:
        cal = CalibrationMap.from_dict(json.load(f), path)
    assert cal.fingerprint == defaults_fingerprint(cal.players), (
        f"{os.path.basename(path)} was fitted for other search defaults: refit it (docs/tuning.md)")
    assert cal.iterations == 1000
    # the value the search read then: its learned weights are not among the defaults the fingerprint hashes
    assert cal.fitted.get("value_weights") == value_weights_read(cal.players), (
        f"{os.path.basename(path)} was fitted with the search reading other learned weights: refit it (docs/tuning.md)")
    assert os.path.basename(path) == f"{cal.players}p-{cal.board}.json"
    f = cal.fitted
    # measured on games held out of the fit
    assert f["held_games"] > 0 and f["train_games"] > 0


def test_the_fingerprint_changes_with_any_default_the_search_uses():
    from search.params import SearchParams
    base = defaults_fingerprint(3)
    assert defaults_fingerprint(3, SearchParams()) == base
    assert defaults_fingerprint(3, SearchParams(exploration=0.8)) != base
    assert defaults_fingerprint(3, SearchParams(leader=2.0)) != base       # an evaluation weight
    assert defaults_fingerprint(2) != base                                  # weights by player count


def test_a_default_set_by_the_player_count_changes_that_counts_fingerprint_only(monkeypatch):
    """The widening and the exploration are set by the count: the maps of the count that changed must be refitted, the others stand."""
    from search import params
    from search.params import SearchParams
    before = {players: defaults_fingerprint(players) for players in (2, 3, 4)}
    # the same search spelt out: the count's resolved values hash as the defaults do
    assert defaults_fingerprint(4, SearchParams(widen_coef=0.5, exploration=0.7)) == before[4]
    monkeypatch.setitem(params.DEFAULT_WIDEN_COEF, 2, 1.0)
    assert defaults_fingerprint(2) != before[2]
    assert defaults_fingerprint(3) == before[3] and defaults_fingerprint(4) == before[4]
    monkeypatch.setitem(params.KNOB["exploration"].by_players, 4, 0.35)
    assert defaults_fingerprint(4) != before[4] and defaults_fingerprint(3) == before[3]


@pytest.mark.parametrize("path", SHIPPED, ids=os.path.basename)
def test_chances_sum_to_one_and_rise_with_the_value_and_the_lead(path):
    with open(path) as f:
        cal = CalibrationMap.from_dict(json.load(f), path)
    n = cal.players
    behind = facts([[2, 3, 2, 4]] + [[6, 7, 8, 6]] * (n - 1), bag=40)
    level = facts([[6, 7, 8, 6]] * n, bag=40)
    ahead = facts([[9, 9, 9, 9]] + [[6, 7, 8, 6]] * (n - 1), bag=40)
    for fa in (behind, level, ahead):
        ranks = cal.rank_chances(fa, 0, 0.6)
        assert len(ranks) == n and all(p >= 0 for p in ranks) and math.isclose(sum(ranks), 1.0)
        assert cal.win_chance(fa, 0, 0.3) < cal.win_chance(fa, 0, 0.6) < cal.win_chance(fa, 0, 0.9)
    assert cal.win_chance(behind, 0, 0.6) < cal.win_chance(level, 0, 0.6) < cal.win_chance(ahead, 0, 0.6)
    # the handcrafted evaluation of the position itself, not centred on a root, counts too
    doubtful = facts([[6, 7, 8, 6]] * n, bag=40, evaluation=[0.2] + [0.6] * (n - 1))
    hopeful = facts([[6, 7, 8, 6]] * n, bag=40, evaluation=[0.8] + [0.4] * (n - 1))
    assert cal.win_chance(doubtful, 0, 0.6) < cal.win_chance(hopeful, 0, 0.6)


def test_a_seat_far_behind_is_shown_a_low_win_chance():
    # docs/examples/game.txt after decision 60: seat 1 has 0 points in every colour, seat 0 has 6/7/8/6
    res = run("analyze", os.path.join(ROOT, "docs", "examples", "game.txt"), "--ply", 60, "--seat", 1,
              "--iterations", 1000, "--json")
    assert res.exit_code == 0, res.output
    a = json.loads(res.output)["analyses"][0]
    chance = a["win_chance"]
    assert chance["low"] <= chance["win"] <= chance["high"]
    assert chance["win"] < 0.35, chance
    # the search's own value, centred on the root, reads far higher: that is why the map exists
    assert a["value"] > chance["win"] + 0.2
    text = run("analyze", os.path.join(ROOT, "docs", "examples", "game.txt"), "--ply", 60, "--seat", 1,
               "--iterations", 1000)
    assert f"seat 1 wins {100 * chance['win']:.0f}% of games from here" in text.output


def test_an_analysis_gives_each_candidate_its_win_chance_and_the_waiting_seat_one():
    state = engine.new_game(2, 5)
    obs = observation(state.snapshot(), state.to_act)
    a = analyse(ISMCTS(), obs, Limits(iterations=200), seed=1)
    assert a["win_chance"] is not None and 0 <= a["win_chance"]["win"] <= 1
    for c in a["candidates"]:
        w = c["win_chance"]
        assert w["low"] <= w["win"] <= w["high"]
    waiting = analyse(ISMCTS(), observation(state.snapshot(), 1 - state.to_act), Limits(iterations=200), seed=1,
                      samples=2)
    assert not waiting["to_act"] and 0 <= waiting["win_chance"]["win"] <= 1


def test_four_players_get_a_chance_of_each_rank():
    state = engine.new_game(4, 2)
    obs = observation(state.snapshot(), 0)
    c = win_chance(obs, 0, 0.5)
    assert len(c["ranks"]) == 4 and math.isclose(sum(c["ranks"]), 1.0) and c["ranks"][0] == c["win"]
    assert "by rank" in describe_chance(c, 0)


# ---------------------------------------------------------------- refusals

def test_a_map_that_is_not_one_is_refused_naming_what_is_wrong():
    good = {"players": 2, "board": "standard", "features": list(FEATURES), "coefficients": [[0.0] * len(FEATURES)],
            "iterations": 1000, "fingerprint": "x"}
    CalibrationMap.from_dict(good)
    with pytest.raises(SearchError, match="features"):
        CalibrationMap.from_dict({**good, "features": ["bias"]})
    with pytest.raises(SearchError, match="coefficients must be 1 rows"):
        CalibrationMap.from_dict({**good, "coefficients": [[0.0] * len(FEATURES)] * 2})
    with pytest.raises(SearchError, match="not a finite number"):
        CalibrationMap.from_dict({**good, "coefficients": [[float("nan")] * len(FEATURES)]})
    with pytest.raises(SearchError, match="not a calibration map"):
        CalibrationMap.from_dict({"players": 2})


def test_a_missing_map_file_is_named(tmp_path):
    with pytest.raises(SearchError, match="no calibration map at"):
        load_map(2, "standard", str(tmp_path / "none.json"))
    assert "no win chance" in describe_chance(None, 1)


def test_a_data_file_with_a_garbage_line_is_refused_with_its_line_number(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text('{"game": 0, "players": 2, "board": "standard", "iterations": 1000, "ended": false}\nnot json\n')
    res = run("tune", "calibrate", "--data", data, "--games", 0)
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"{data}:2: not a calibration game" in res.output


# ---------------------------------------------------------------- the fit

def test_self_play_notes_every_decision_and_is_seeded():
    a = list(calibrate.self_play(2, seed=3, players=2, iterations=20))
    b = list(calibrate.self_play(2, seed=3, players=2, iterations=20))
    assert a == b
    for g in a:
        assert g["ended"] and sorted(g["ranks"]) in ([0, 1], [0, 0])
        for d in g["decisions"]:
            assert d["low"] <= d["mean"] <= d["high"] and 0 <= d["value"] <= 1
            assert set(d["facts"]) == {"scores", "treasures_taken", "treasures_left", "bag", "eval"}


def test_calibrate_reproduces_its_map_from_the_same_seed_and_holds_out_whole_games(tmp_path):
    data = tmp_path / "data.jsonl"
    res = run("tune", "calibrate", "--data", data, "--games", 6, "--budget", 20, "--seed", 4,
              "--out", tmp_path / "a.json", "--svg", tmp_path / "r.svg", "--quiet")
    assert res.exit_code == 0, res.output
    assert "held out: ECE" in res.output
    # a second run plays nothing more and fits the same map
    res = run("tune", "calibrate", "--data", data, "--games", 6, "--budget", 20, "--seed", 4,
              "--out", tmp_path / "b.json", "--quiet")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()
    assert len(data.read_text().splitlines()) == 6
    assert (tmp_path / "r.svg").read_text().startswith("<svg")
    games = calibrate.read_games([str(data)])
    rows = calibrate.rows_of(games)
    train, held = calibrate.split_games(rows.game, 0.25, 4)
    assert not set(rows.game[train].tolist()) & set(rows.game[held].tolist())
    fitted = json.loads((tmp_path / "a.json").read_text())["fitted"]
    assert fitted["held_games"] + fitted["train_games"] == len(games)


def test_the_fit_recovers_a_known_logistic():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(20000), rng.normal(size=20000), rng.normal(size=20000)])
    w = np.array([0.3, 1.5, -0.7])
    y = (rng.random(20000) < 1 / (1 + np.exp(-x @ w))).astype(float)
    fitted = calibrate.fit_logistic(x, y, ridge=0.0)
    assert np.allclose(fitted, w, atol=0.08)


def test_ece_and_brier_measure_what_they_say():
    np = pytest.importorskip("numpy")
    p = np.array([0.1, 0.1, 0.9, 0.9])
    y = np.array([0.0, 1.0, 1.0, 1.0])
    # bins 0.1 (observed 0.5) and 0.9 (observed 1.0): |0.1-0.5|*2 + |0.9-1|*2 over 4
    assert math.isclose(calibrate.ece(p, y), 0.25)
    assert math.isclose(calibrate.brier(p, y), (0.01 + 0.81 + 0.01 + 0.01) / 4)


def test_position_facts_read_only_public_facts():
    state = engine.new_game(3, 1)
    snap = state.snapshot()
    for seat in range(3):
        assert position_facts(observation(snap, seat)) == position_facts(snap)
