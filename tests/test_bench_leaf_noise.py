"""bench.leaf_noise: the spread of one iteration's reward around a root decision's mean, and the gaps between the means.

Iteration limits only: every figure is a function of the options.
"""
import json

import pytest

from bench import leaf_noise

TINY = ["--players", "2", "--positions", "6", "--iterations", "400", "--seed", "3"]


@pytest.fixture(scope="module")
def blended(tmp_path_factory):
    path = tmp_path_factory.mktemp("noise") / "mix0.json"
    path.write_text(json.dumps({"format": "tne-ai params 1", "params": {"leaf_mix": 0.0}}))
    return str(path)


def test_the_same_options_give_the_same_figures(blended, capsys):
    first = leaf_noise.main(TINY + ["--params", blended])
    out = capsys.readouterr().out
    assert leaf_noise.main(TINY + ["--params", blended]) == first
    assert list(first) == ["defaults", blended]
    assert "6 positions, 2 players, 400 iterations" in out and "spread" in out and blended in out
    for m in first.values():
        assert 0 < m["spread"] < 0.5 and m["gap"] >= 0 and 0 < m["error"] < m["spread"]


def test_a_leaf_valued_where_the_tree_stopped_spreads_less(blended):
    """Without the rollout's ε-greedy decisions and draws in a leaf's value, the rewards spread less."""
    figures = leaf_noise.main(TINY + ["--params", blended])
    assert figures[blended]["spread"] < figures["defaults"]["spread"]


def test_a_bad_params_file_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "tne-ai params 1", "params": {"leaf_mix": 2.0}}))
    with pytest.raises(SystemExit) as e:
        leaf_noise.main(TINY + ["--params", str(bad)])
    assert e.value.code == 2
    assert "leaf_mix" in capsys.readouterr().err


def test_paired_worlds_narrow_the_difference_of_two_decisions_means(capsys):
    """--pairs: over seeds, the two candidates' mean difference spreads less when their visits meet the same worlds."""
    options = ["--pairs", "12", "--positions", "12", "--iterations", "200", "--seed", "3"]
    first = leaf_noise.main(options)
    out = capsys.readouterr().out
    assert leaf_noise.main(options) == first
    assert "200 iterations, 12 seeds" in out and "paired / independent" in out
    assert first["positions"] >= 10 and len(first["ratios"]) == first["positions"]
    assert first["paired"] < first["independent"] and first["ratio"] < 1


def test_pairs_refuses_too_few_seeds_and_params_files(blended, capsys):
    for bad in (["--pairs", "2"], ["--pairs", "10", "--params", blended]):
        with pytest.raises(SystemExit) as e:
            leaf_noise.main(bad)
        assert e.value.code == 2
        assert "--pairs takes 3 seeds or more, and no --params" in capsys.readouterr().err
