"""The learned value's hidden units: the kernel's tanh layer over value_features, its weights file and its fit
(`tne-ai tune value --hidden N`)."""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import engine
from ext.search import evaluation
from ext.search.tree import Tree
from search.agent import Limits, SearchError
from search.ismcts import ISMCTS
from search.learned_value import check_weights, load_weights, weights_fingerprint, weights_path
from search.params import SearchParams, params_from_dict
from tne_ai.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from diagram import position  # noqa: E402

NAMES = evaluation.VALUE_FEATURE_NAMES

# test_learned_value's diagram, two seats: seat 0 (red and green leaders in a red
# kingdom of 3 with a temple) against seat 1 (one black leader on its own)
from test_learned_value import THREE_SEATS as TWO_SEATS  # noqa: E402


def two_seats():
    return engine.State.from_snapshot(position(
        TWO_SEATS, players=2, turn_owner=1, hands=["rrrkkb", "kkkkgg"],
        scores=[[1, 5, 0, 2], [4, 0, 0, 0]], treasures_taken=[1, 0]))


def logits(state, value_weights):
    weights = SearchParams().eval_weights(state.players)
    return [math.log(r / (1 - r)) for r in evaluation.evaluate_of(state, weights, value_weights)]


def with_units(rows, bias, out):
    return {"linear": load_weights(2), "hidden": {"weights": rows, "bias": bias, "out": out}}


def test_a_hidden_unit_adds_its_output_times_the_tanh_of_its_input_to_each_seats_logit():
    s = two_seats()
    plain = logits(s, load_weights(2))
    zero = [0.0] * len(NAMES)
    # a unit whose output is 0 changes nothing
    assert logits(s, with_units([zero], [3.0], [0.0])) == pytest.approx(plain, abs=1e-9)
    # a constant unit: out * tanh(bias) on every seat
    shifted = logits(s, with_units([zero], [1.0], [0.5]))
    assert [a - b for a, b in zip(shifted, plain)] == pytest.approx([0.5 * math.tanh(1.0)] * 2, abs=1e-4)
    # a unit reading one feature: each seat's own value of it
    kings = NAMES.index("kings-best")
    row = [0.0] * len(NAMES)
    row[kings] = 0.3
    feats = evaluation.value_features_of(s, SearchParams().eval_weights(2))
    assert feats[0][kings] != feats[1][kings]
    read = logits(s, with_units([row, zero], [0.0, 0.0], [-2.0, 7.0]))
    want = [p - 2.0 * math.tanh(0.3 * f[kings]) for p, f in zip(plain, feats)]
    assert read == pytest.approx(want, abs=1e-4)


@pytest.mark.parametrize("bad, says", [
    ({"linear": [0.0] * len(NAMES)}, 'is {"linear": [...], "hidden": {...}}'),
    ({"linear": [0.0] * len(NAMES), "hidden": [1]}, 'the hidden units are {"weights": rows'),
    ({"linear": [0.0] * len(NAMES), "hidden": {"weights": [], "bias": [], "out": []}}, "1 to 32 hidden units, got 0"),
    ({"linear": [0.0] * len(NAMES), "hidden": {"weights": [[0.0] * len(NAMES)] * 33, "bias": [0.0] * 33,
                                               "out": [0.0] * 33}}, "1 to 32 hidden units, got 33"),
    ({"linear": [0.0] * len(NAMES), "hidden": {"weights": [[0.0] * 5], "bias": [0.0], "out": [0.0]}},
     f"expected {len(NAMES)} hidden-unit weights, got 5"),
    ({"linear": [0.0] * len(NAMES), "hidden": {"weights": [[0.0] * len(NAMES)], "bias": [0.0, 1.0], "out": [0.0]}},
     "expected 1 hidden-unit biases, got 2"),
    ({"linear": [0.0] * len(NAMES), "hidden": {"weights": [[0.0] * len(NAMES)], "bias": [0.0], "out": ["x"]}},
     "hidden-unit outputs must be 1 numbers"),
    ({"linear": [0.0] * len(NAMES), "hidden": {"weights": [[float("inf")] * len(NAMES)], "bias": [0.0],
                                               "out": [0.0]}}, "hidden-unit weights must be finite"),
    ({"linear": [0.0] * 3, "hidden": {"weights": [[0.0] * len(NAMES)], "bias": [0.0], "out": [0.0]}},
     f"expected {len(NAMES)} learned-value weights, got 3"),
])
def test_bad_hidden_units_are_refused_naming_what_is_wrong_and_leave_the_search_as_it_was(bad, says):
    tree = Tree()
    SearchParams().configure(tree, 2)
    s = two_seats()
    before = logits(s, load_weights(2))
    with pytest.raises(ValueError, match=re.escape(says)):
        tree.set_value_weights(bad)
    assert tree.learned_value()
    with pytest.raises(ValueError, match=re.escape(says)):
        logits(s, bad)
    assert logits(s, load_weights(2)) == before


def hidden_file(tmp_path, units=2, name="h.json"):
    doc = json.loads(open(weights_path(2)).read())
    rows = [[0.0] * len(NAMES) for _ in range(units)]
    rows[0][NAMES.index("handcrafted_logit")] = 0.5
    doc["hidden"] = {"weights": rows, "bias": [0.1] * units, "out": [0.8] + [0.0] * (units - 1)}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path, doc


def test_a_weights_file_with_hidden_units_drives_a_seeded_search_and_a_bad_one_is_refused_naming_it(tmp_path):
    path, doc = hidden_file(tmp_path)
    kernel = load_weights(2, str(path))
    assert kernel == {"linear": doc["weights"], "hidden": doc["hidden"]}
    assert check_weights(json.loads(open(weights_path(2)).read()), "2p.json") == load_weights(2)   # a list still
    assert weights_fingerprint(2, str(path)) != weights_fingerprint(2)
    params = params_from_dict({"value_weights": str(path)})
    s = engine.new_game(2, 3)
    obs = s.observation(s.to_act)

    def stats(p):
        r = ISMCTS(p).search(obs, s.to_act, Limits(iterations=300), seed=5)
        return [(c.action, c.visits, round(c.mean, 6)) for c in r.candidates]

    assert stats(params) == stats(params)
    assert stats(params) != stats(SearchParams())
    doc["hidden"]["bias"] = [0.0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(SearchError, match=re.escape(f'{bad}: "hidden": expected 2 hidden-unit biases, got 1')):
        params_from_dict({"value_weights": str(bad)})


def test_the_search_with_hidden_units_never_peeks_at_hidden_tiles(tmp_path):
    path, _ = hidden_file(tmp_path)
    params = params_from_dict({"value_weights": str(path)})
    a = engine.State.from_snapshot(position(TWO_SEATS, players=2, turn_owner=0, hands=["rrrkkb", "kkkkgg"]))
    b = engine.State.from_snapshot(position(TWO_SEATS, players=2, turn_owner=0, hands=["rrrkkb", "bbgggg"]))

    def stats(state):
        r = ISMCTS(params).search(state.observation(0), 0, Limits(iterations=200), seed=2)
        return [(c.action, c.visits, c.mean) for c in r.candidates]

    assert stats(a) == stats(b)


def test_tune_value_with_hidden_units_fits_them_from_the_same_seed_to_the_same_file(tmp_path, monkeypatch):
    import tarfile
    # 653 games of a kept 2-player SPRT: enough for the units to predict better than the logistic they start from
    with tarfile.open(Path(__file__).parent / "data" / "records" / "sprt-2p-value-seed53200.tar.xz") as tar:
        tar.extractall(tmp_path, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    monkeypatch.chdir(tmp_path)
    args = ["tune", "value", "--records", "sprt-2p-value-seed53200", "--players", "2", "--hidden", "3"]
    res = CliRunner().invoke(main, args + ["--out", "v.json"])
    assert res.exit_code == 0, res.output
    assert re.search(r"^3 hidden units \(epoch [1-9]\d* kept\), \d+ training rows", res.output, re.M), res.output
    fitted = json.loads((tmp_path / "v.json").read_text())
    kernel = check_weights(fitted, "v.json")
    assert len(kernel["hidden"]["weights"]) == 3 and fitted["measures"]["hidden"] == 3
    assert fitted["measures"]["learned_log_loss"] < fitted["measures"]["handcrafted_log_loss"]
    # the file predicts the held-out games as well as the fit measured (the kernel's weights are the fitted ones)
    from search.tuning import value as value_fit
    from search.tuning.calibrate import split_games
    games, _ = value_fit.games_of_records(["sprt-2p-value-seed53200"], 2)
    pos = value_fit.positions_of(sorted(games, key=lambda g: g["game"]))
    _, held = split_games(pos.game, 0.25, 0, "value-holdout")
    z = fitted["measures"]["handcrafted_weight"] * value_fit.kernel_logits(pos.x[held], kernel["linear"], kernel["hidden"])
    brier = float(((1 / (1 + np.exp(-z)) - pos.y[held]) ** 2).mean())
    assert brier == pytest.approx(fitted["measures"]["learned_brier"], rel=1e-9)
    s = engine.new_game(2, 5)
    s.apply(s.legal_actions()[0])
    feats = evaluation.value_features_of(s, SearchParams().eval_weights(2))
    assert logits(s, kernel) == pytest.approx(list(value_fit.kernel_logits(np.array(feats), kernel["linear"],
                                                                              kernel["hidden"])), abs=1e-4)
    # the units were fitted: they moved from their start (outputs at 0)
    assert any(v != 0.0 for v in kernel["hidden"]["out"])
    # the columns the fit leaves out (the progress and its product with the logit) stay 0 in every unit
    for row in kernel["hidden"]["weights"]:
        assert row[NAMES.index("progress")] == 0.0 and row[NAMES.index("handcrafted_logit*progress")] == 0.0
    again = CliRunner().invoke(main, args + ["--out", "w.json"])
    assert again.exit_code == 0 and (tmp_path / "w.json").read_text() == (tmp_path / "v.json").read_text()
    # the file plays
    r = ISMCTS(params_from_dict({"value_weights": str(tmp_path / "v.json")})).search(
        engine.new_game(2, 1).observation(1), 1, Limits(iterations=50))
    assert r.iterations == 50


def test_tune_value_refuses_a_count_of_hidden_units_the_kernel_cannot_hold(tmp_path):
    res = CliRunner().invoke(main, ["tune", "value", "--records", str(tmp_path), "--players", "2", "--hidden", "33"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "--hidden" in res.output and "33" in res.output
