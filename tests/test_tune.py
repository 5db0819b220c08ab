"""Tuning: params files (search.params), SPSA with checkpoints (search.tuning.spsa), Texel fitting (search.tuning.texel), `tne-ai tune`."""
from __future__ import annotations

import json
import math
import sys

import pytest
from click.testing import CliRunner

from ext.search import evaluation
from search.agent import SearchError
from search.params import PARAMS_FORMAT, SearchParams, params_from_json
from search.tuning.spsa import Spsa, SpsaConfig, TunedField, _pair_score, gains
from tne_ai.protocol.bot import BotSession
from tne_ai.cli import main


def run(*args, input=None):
    """Invoke `tne-ai ARGS` in-process; return the click Result."""
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def one_error_line(res) -> str:
    """Assert a CLI refusal: exit status 2, no traceback, one `Error:` line; return that line."""
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    errors = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, res.output
    return errors[0]


def params_doc(params: dict, **top) -> str:
    return json.dumps({"format": PARAMS_FORMAT, "params": params, **top})


# ---------------------------------------------------------------- params files

def test_a_params_file_round_trips(tmp_path):
    p = SearchParams(exploration=1.25, rollout_depth=5, rollout_rounds=1.5, rollout_policy="uniform",
                     tau=4.5, reuse_tree=False, tree_memory_mb=64)
    path = tmp_path / "p.json"
    p.save(str(path), comment="hand made")
    assert SearchParams.load(str(path)) == p
    doc = json.loads(path.read_text())
    assert doc["format"] == PARAMS_FORMAT and doc["comment"] == "hand made"
    assert set(doc["params"]) == set(SearchParams().to_dict())


def test_a_params_file_may_name_some_fields_only():
    p = params_from_json(params_doc({"leader": 2, "rollout_rounds": None}))
    assert p == SearchParams(leader=2.0)
    assert isinstance(p.leader, float)


def test_weights_left_null_are_the_defaults_for_the_player_count():
    from search.params import DEFAULT_WEIGHTS, WEIGHT_FIELDS
    p = params_from_json(params_doc({"leader": None, "tau": 4.0}))
    assert p.leader is None and p.tau == 4.0
    for players in (2, 3, 4):
        r = p.resolved(players)
        assert r.tau == 4.0 and r.leader == DEFAULT_WEIGHTS[players]["leader"]
        assert all(getattr(r, n) is not None for n in WEIGHT_FIELDS)
        assert r.eval_weights(players) == p.eval_weights(players)
    with pytest.raises(SearchError, match="players must be 2, 3 or 4"):
        p.resolved(5)


BAD_FILES = [
    ("{", "bad JSON"),
    (params_doc({"tau": 5.0})[:-7], "bad JSON"),                       # a truncated file
    ("[1, 2]", "expected a JSON object"),
    (json.dumps({"format": "tne-ai params 9", "params": {}}), "format"),
    (json.dumps({"format": PARAMS_FORMAT}), "no \"params\""),
    (json.dumps({"format": PARAMS_FORMAT, "params": [1]}), "\"params\" must be an object"),
    (params_doc({}, extra=1), "unknown key 'extra'"),
    (params_doc({"tua": 5.0}), "unknown field 'tua' (did you mean 'tau'?)"),
    (params_doc({"tau": True}), "'tau' must be a number"),
    (params_doc({"tau": "5"}), "'tau' must be a number"),
    (params_doc({"rollout_epsilon": None}), "'rollout_epsilon' must be a number"),
    (params_doc({"rollout_depth": 3.0}), "'rollout_depth' must be an integer"),
    (params_doc({"reuse_tree": 1}), "'reuse_tree' must be true or false"),
    (params_doc({"rollout_to_turn": "yes"}), "'rollout_to_turn' must be true or false"),
    (params_doc({"rollout_to_turn": 0}), "'rollout_to_turn' must be true or false"),
    (params_doc({"rollout_policy": "best"}), "'rollout_policy' must be one of greedy, uniform"),
    ('{"format": "tne-ai params 1", "params": {"tau": NaN}}', "NaN is not a number JSON allows"),
    ('{"format": "tne-ai params 1", "params": {"king": Infinity}}', "Infinity is not a number JSON allows"),
    ('{"format": "tne-ai params 1", "params": {"king": 1e400}}', "'king' must be finite"),
    (params_doc({"tau": 0}), "'tau' = 0.0 is out of range"),
    (params_doc({"eval_scale": -1}), "'eval_scale' = -1.0 is out of range"),
    (params_doc({"rollout_epsilon": 1.5}), "'rollout_epsilon' = 1.5 is out of range"),
    (params_doc({"opponents_max": -0.1}), "'opponents_max' = -0.1 is out of range"),
    (params_doc({"tree_memory_mb": 0}), "'tree_memory_mb' = 0 is out of range"),
    (params_doc({"rollout_depth": 10 ** 12}), "'rollout_depth' = 1000000000000 is out of range"),
    (params_doc({"exploration": -0.5}), "'exploration' = -0.5 is out of range"),
]


@pytest.mark.parametrize("text, expected", BAD_FILES, ids=[e for _, e in BAD_FILES])
def test_a_bad_params_file_is_refused_naming_what_is_wrong(tmp_path, text, expected):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SearchError) as err:
        SearchParams.load(str(path))
    assert expected in str(err.value) and str(path) in str(err.value)


def test_a_bool_knob_set_by_the_player_count_takes_null(tmp_path):
    """rollout_to_turn's default is by the player count: null in a file means that default, true or false sets it."""
    from search.params import KNOB
    path = tmp_path / "p.json"
    path.write_text(params_doc({"rollout_to_turn": None}))
    loaded = SearchParams.load(str(path))
    assert loaded.rollout_to_turn is None
    assert [loaded.resolved(n).rollout_to_turn for n in (2, 3, 4)] == [KNOB["rollout_to_turn"].by_players[n]
                                                                       for n in (2, 3, 4)]
    path.write_text(params_doc({"rollout_to_turn": True}))
    assert all(SearchParams.load(str(path)).resolved(n).rollout_to_turn is True for n in (2, 3, 4))


def test_an_unreadable_params_file_is_refused(tmp_path):
    with pytest.raises(SearchError, match="cannot read params file"):
        SearchParams.load(str(tmp_path / "missing.json"))
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(SearchError, match="cannot read params file"):
        SearchParams.load(str(tmp_path / "bin.json"))


def test_the_bot_searches_with_a_params_file_and_its_options_override_it(tmp_path):
    params = SearchParams(exploration=1.3, rollout_depth=5, tau=4.0, reuse_tree=False)
    session = BotSession(lambda lines: None, {}, params=params)
    assert session.options["Exploration"] == 1.3 and session.options["RolloutDepth"] == 5
    assert session.options["ReuseTree"] is False
    assert session._params().tau == 4.0 and session._params().exploration == 1.3
    session.close()
    session = BotSession(lambda lines: None, {"Exploration": "0.9"}, params=params)
    assert session._params().exploration == 0.9 and session._params().rollout_depth == 5
    session.close()


def test_the_bot_and_analyze_refuse_a_bad_params_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(params_doc({"tua": 1.0}))
    for command in ("bot", "analyze"):
        assert "unknown field 'tua'" in one_error_line(run(command, "--params", bad))
    deep = tmp_path / "deep.json"
    SearchParams(rollout_depth=100).save(str(deep))       # a valid params file the bot's option cannot hold
    assert "RolloutDepth" in one_error_line(run("bot", "--params", deep))


def test_analyze_searches_and_explains_with_the_params_file(tmp_path):
    path = tmp_path / "p.json"
    SearchParams(leader=3.0).save(str(path))
    args = ["analyze", "--iterations", 50, "--json", "--explain"]
    plain = json.loads(run(*args).output)
    tuned = json.loads(run(*args, "--params", path).output)
    assert plain["explain"]["seats"][0]["value"] != tuned["explain"]["seats"][0]["value"]


# ---------------------------------------------------------------- SPSA

def test_field_specs_are_parsed_and_checked():
    f = TunedField.parse("exploration:0.2:2.0:0.1")
    assert (f.name, f.low, f.high, f.step) == ("exploration", 0.2, 2.0, 0.1)
    for spec, expected in [("exploration:0.2:2.0", "NAME:LOW:HIGH:STEP"),
                           ("exploration:a:2:0.1", "must be numbers"),
                           ("exploraton:0.2:2.0:0.1", "did you mean 'exploration'"),
                           ("rollout_policy:0:1:0.1", "cannot be tuned"),
                           ("reuse_tree:0:1:0.1", "cannot be tuned"),
                           ("exploration:2:1:0.1", "must be below HIGH"),
                           ("exploration:0.2:2.0:0", "STEP 0.0 must be > 0"),
                           ("exploration:0.2:2.0:5", "at most HIGH - LOW"),
                           ("exploration:0.2:inf:0.1", "finite"),
                           ("tau:0:2:0.1", "bound 0.0 is not a valid value")]:
        with pytest.raises(SearchError, match=expected.replace("(", r"\(")):
            TunedField.parse(spec)
    # an integer field that may also be null (the player count's default) takes integer bounds
    tail = TunedField.parse("rollout_tail_after:0:8:1")
    assert (tail.low, tail.high, tail.value(2.6)) == (0, 8, 3)
    with pytest.raises(SearchError, match="start value 0.35 is outside"):      # 2 players' exploration
        SpsaConfig((TunedField.parse("exploration:1.0:2.0:0.1"),))
    with pytest.raises(SearchError, match="named twice"):
        SpsaConfig((f, f))


def test_spall_gains_and_the_pair_score():
    cfg = SpsaConfig((TunedField.parse("exploration:0.2:2.0:0.1"),), iterations=10)
    assert cfg.A == 1.0 and cfg.a == pytest.approx(2 ** 0.602)
    a0, c0 = gains(cfg, 0)
    assert a0 == pytest.approx(1.0) and c0 == 1.0
    a3, c3 = gains(cfg, 3)
    assert a3 == pytest.approx(cfg.a / 5 ** 0.602) and c3 == pytest.approx(4 ** -0.101)
    assert _pair_score([0, 1], (1, -1)) == 1.0 and _pair_score([0, 1], (-1, 1)) == -1.0
    assert _pair_score([0, 0], (1, -1)) == 0.0
    assert _pair_score([1, 1, 2], (1, -1, 1)) == pytest.approx(2 * 0.25 - 1)   # a tie and a loss


# tiny runs: two iterations of one pair at 20 search iterations a decision, a big gain so theta
# moves a lot and the bounds (narrow on purpose) clip it
FIELDS = ("exploration:0.3:1.1:0.2", "rollout_depth:1:5:1", "leader:1.0:2.0:0.25")


def tiny_config(**kw) -> SpsaConfig:
    return SpsaConfig(tuple(TunedField.parse(s) for s in FIELDS), iterations=2, pairs=1, budget=20,
                      seed=9, a=4.0, **kw)


@pytest.fixture(scope="module")
def straight():
    run_ = Spsa(tiny_config())
    params = run_.run()
    return run_, params


@pytest.mark.slow
def test_spsa_is_deterministic_and_moves_theta_within_its_bounds(straight):
    run_, params = straight
    again = Spsa(tiny_config())
    assert again.run() == params and again.history == run_.history
    assert run_.theta != Spsa(tiny_config()).theta            # the seeded games did move it
    assert any(run_.theta[f.name] in (f.low, f.high) for f in run_.config.fields)   # and a bound clipped it
    for entry in run_.history:
        for f in run_.config.fields:
            for key in ("plus", "minus", "theta", "before"):
                assert f.low <= entry[key][f.name] <= f.high
    assert params.rollout_depth == round(run_.theta["rollout_depth"])
    assert isinstance(params.rollout_depth, int)


@pytest.mark.slow
def test_spsa_resumed_from_its_checkpoint_equals_the_uninterrupted_run(straight, tmp_path):
    ck = str(tmp_path / "ck.json")
    first = Spsa(tiny_config())
    first.run(checkpoint=ck, until=1)
    assert json.load(open(ck))["k"] == 1
    resumed = Spsa.resume(ck)
    params = resumed.run(checkpoint=ck)
    run_, expected = straight
    assert params == expected and resumed.theta == run_.theta and resumed.history == run_.history
    assert Spsa.resume(ck).k == 2


def test_a_bad_checkpoint_is_refused(straight, tmp_path):
    run_, _ = straight
    good = run_.checkpoint()
    ck = tmp_path / "ck.json"
    text = json.dumps(good)
    cases = [(text[: len(text) // 2], "bad JSON, truncated"),
             (json.dumps({**good, "format": "x"}), "not an SPSA checkpoint"),
             (json.dumps({**good, "spare": 1}), "unknown key 'spare'"),
             (json.dumps({**good, "k": 1}), "history must list the 1 iterations"),
             (json.dumps({**good, "theta": {**good["theta"], "exploration": 9.0}}), "theta exploration = 9.0"),
             (json.dumps({**good, "theta": {"tau": 1.0}}), "theta must give exactly"),
             (json.dumps({**good, "config": {**good["config"], "pairs": 0}}), "pairs must be an integer >= 1"),
             (json.dumps({**good, "config": {**good["config"], "base": {"tau": -1}}}), "'tau' = -1.0 is out of range")]
    for body, expected in cases:
        ck.write_text(body)
        with pytest.raises(SearchError, match=expected.replace("(", r"\(")):
            Spsa.resume(str(ck))


@pytest.mark.slow
def test_tune_spsa_command_writes_params_and_resumes(tmp_path):
    out, ck = tmp_path / "out.json", tmp_path / "ck.json"
    res = run("tune", "spsa", "--param", "exploration:0.3:1.1:0.2", "--iterations", 1, "--budget", 10,
              "--seed", 1, "--out", out, "--checkpoint", ck)
    assert res.exit_code == 0, res.output
    assert "iteration 1/1" in res.output and f"wrote {out}" in res.output
    assert 0.3 <= SearchParams.load(str(out)).exploration <= 1.1
    res = run("tune", "spsa", "--resume", ck, "--iterations", 2, "--out", out)
    assert res.exit_code == 0, res.output
    assert "iteration 2/2" in res.output and "iteration 1/" not in res.output
    assert Spsa.resume(str(ck)).k == 2


def test_tune_spsa_command_refuses_bad_input(tmp_path):
    assert "name a field to tune" in one_error_line(run("tune", "spsa"))
    assert "NAME:LOW:HIGH:STEP" in one_error_line(run("tune", "spsa", "--param", "tau:1:2"))
    assert "cannot read SPSA checkpoint" in one_error_line(run("tune", "spsa", "--resume", tmp_path / "none.json"))
    assert "leave out --param" in one_error_line(
        run("tune", "spsa", "--resume", tmp_path / "none.json", "--param", "tau:1:9:1"))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert "bad JSON" in one_error_line(run("tune", "spsa", "--param", "tau:1:9:1", "--params", bad))
    assert "needs --backend ray" in one_error_line(
        run("tune", "spsa", "--param", "tau:1:9:1", "--ray-address", "x:1"))


# ---------------------------------------------------------------- Texel

@pytest.fixture(scope="module")
def records():
    from search.tuning.texel import self_play
    return self_play(4, seed=2)


@pytest.mark.slow
def test_the_numpy_rewards_are_the_kernels(records):
    from search.tuning.texel import Evaluator, sample_positions
    ev = Evaluator(sample_positions(records, per_game=5, seed=1))
    w = list(SearchParams(tau=3.0, opponents_max=0.3).eval_weights(2))
    ours = ev.rewards(w)
    for s, row in zip(ev.states, ours):
        assert list(row) == pytest.approx(evaluation.evaluate_of(s, w), abs=1e-5)


def test_texel_lowers_the_training_loss(records):
    from search.tuning.texel import fit, sample_positions, split_games
    positions = sample_positions(records, per_game=8, seed=1)
    assert positions == positions and len(positions) == 32
    assert [p.state.position(hidden=True) for p in positions] == \
        [p.state.position(hidden=True) for p in sample_positions(records, per_game=8, seed=1)]
    train, held = split_games(positions, 0.25, seed=1)
    assert len(held) == 8 and {p.game for p in train}.isdisjoint({p.game for p in held})
    result = fit(train, held, iterations=8)
    assert result.train_loss[1] < result.train_loss[0]
    assert all(math.isfinite(x) for x in result.held_loss)
    assert "opponents_max" in result.unused          # two players: the best opponent is the mean
    assert result.after.tau > 0 and result.after.eval_scale > 0
    assert "training loss (MSE)" in result.report()


def test_texel_refuses_fields_it_cannot_fit():
    from search.tuning.texel import check_fields
    for name, expected in [("eval_centre", "search root"), ("exploration", "not an evaluation weight"),
                           ("leadr", "did you mean 'leader'")]:
        with pytest.raises(SearchError, match=expected):
            check_fields([name])


def test_tune_texel_command(tmp_path, records):
    out = tmp_path / "t.json"
    res = run("tune", "texel", "--games", 2, "--per-game", 6, "--iterations", 3, "--seed", 4, "--out", out)
    assert res.exit_code == 0, res.output
    assert "training loss (MSE)" in res.output and "held-out loss (MSE)" in res.output
    SearchParams.load(str(out))
    rec_dir = tmp_path / "games"
    rec_dir.mkdir()
    for i, text in enumerate(records):
        (rec_dir / f"g{i}.txt").write_text(text)
    res = run("tune", "texel", "--records", rec_dir, "--per-game", 4, "--iterations", 2, "--field", "leader",
              "--out", out)
    assert res.exit_code == 0, res.output
    assert "4 game records read" in res.output
    (rec_dir / "g9.txt").write_text(records[0].replace("[players 2]", "[players 7]"))
    assert "g9.txt" in one_error_line(run("tune", "texel", "--records", rec_dir, "--out", out))
    assert "search root" in one_error_line(run("tune", "texel", "--field", "endgame", "--out", out))


def test_tune_texel_without_numpy_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "numpy", None)        # import numpy now raises ImportError
    line = one_error_line(run("tune", "texel", "--out", tmp_path / "t.json"))
    assert "needs numpy" in line and ".[tune]" in line


def test_the_kept_spsa_runs_read_back_to_the_params_their_sprts_played(tmp_path, monkeypatch):
    """docs/strength.md's SPSA runs: each checkpoint resumes, and its theta is the params file its SPRT played."""
    import tarfile
    from pathlib import Path
    from search import params
    from search.tuning.spsa import Spsa
    # they ran with the handcrafted value, the default before the learned one
    for players in (2, 4):
        monkeypatch.setitem(params.KNOB["value"].by_players, players, "handcrafted")
    kept = Path(__file__).parent / "data" / "records" / "spsa-2p-4p.tar.xz"
    with tarfile.open(kept) as tar:
        tar.extractall(tmp_path, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    run2 = Spsa.resume(str(tmp_path / "spsa2p-checkpoint.json"))
    assert (run2.k, run2.config.players, sum(e["games"] for e in run2.history)) == (300, 2, 1200)
    assert run2.params() == SearchParams.load(str(tmp_path / "spsa2p.json")).resolved(2)
    run4 = Spsa.resume(str(tmp_path / "spsa4p-checkpoint.json"))
    assert (run4.k, run4.config.players, sum(e["games"] for e in run4.history)) == (244, 4, 976)
    played = SearchParams.load(str(tmp_path / "spsa4p.json"))
    for f in run4.config.fields:
        assert getattr(played, f.name) == pytest.approx(f.value(run4.theta[f.name]), abs=5e-4), f.name
