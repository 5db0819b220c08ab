"""bench.value_labels: a search's values as targets for the learned value, mixed with the outcomes.

Iteration limits only: the labels are a function of the options.
"""
import json
import os
import tarfile

import pytest

from bench import value_labels

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHIVE = os.path.join(ROOT, "tests", "data", "records", "sprt-2p-vs8bcfdea-seed63400.tar.xz")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Eight finished 2-player records of a kept SPRT."""
    folder = tmp_path_factory.mktemp("labels")
    with tarfile.open(ARCHIVE) as tar:
        names = sorted(m for m in tar.getnames() if m.endswith(".txt") and "/game" in m)[:8]
        tar.extractall(folder, members=[tar.getmember(n) for n in names],
                       **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return [str(folder / n) for n in names]


def test_the_same_options_give_the_same_labels(records):
    first = value_labels.label(records[:2], iterations=40, every=12)
    assert value_labels.label(records[:2], iterations=40, every=12, jobs=2) == first
    for rows in first.values():
        assert rows, "a finished record has labelled positions"
        for ply, seat, chosen, visited in rows:
            assert ply >= value_labels.SKIP and ply % 12 == 0 and seat in (0, 1)
            assert 0.0 <= visited <= 1.0 and 0.0 <= chosen <= 1.0


def test_the_fit_follows_its_targets(records, tmp_path, capsys):
    """On the search's targets alone the fit predicts them better than on outcomes alone; at weight 1 the targets are the outcomes."""
    labels = tmp_path / "labels.json"
    value_labels.main(["label", str(labels), *records, "--iterations", "40", "--every", "6"])
    _, m0 = value_labels.main(["fit", str(labels), "--outcome-weight", "0", "--out", str(tmp_path / "w0.json")])
    _, m1 = value_labels.main(["fit", str(labels), "--outcome-weight", "1", "--out", str(tmp_path / "w1.json")])
    assert m0["fitted"]["targets"] < m1["fitted"]["targets"]
    assert m1["fitted"]["targets"] == m1["fitted"]["outcomes"] != m0["fitted"]["outcomes"]
    doc = json.loads((tmp_path / "w0.json").read_text())
    assert doc["format"] == "tne-ai value 1" and doc["players"] == 2 and doc["self_play"]["outcome_weight"] == 0
    assert "held-out Brier" in capsys.readouterr().out


def test_bad_options_are_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        value_labels.main(["fit", str(tmp_path / "none.json"), "--outcome-weight", "2", "--out", str(tmp_path / "w")])
    assert "--outcome-weight must be in 0..1" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        value_labels.main(["label", str(tmp_path / "l.json"), str(tmp_path / "missing")])
    assert "no such file or folder" in str(e.value)
