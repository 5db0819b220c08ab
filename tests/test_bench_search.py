"""bench.search_bench: the search's speed, and that of each params file beside the defaults'.

Speeds are printed, never asserted: the tests check what is printed and that bad input is named.
"""
import json

import pytest

from bench import search_bench


def test_a_params_file_gets_its_own_row_beside_the_defaults(tmp_path, capsys):
    path = tmp_path / "mix0-turn.json"
    path.write_text(json.dumps({"format": "tne-ai params 1", "params": {"leaf_mix": 0.0, "leaf_mix_at": "turn"}}))
    search_bench.main(["--iterations", "200", "--baseline", "2", "--params", str(path)])
    rows = [line for line in capsys.readouterr().out.splitlines() if "1 worker" in line]
    assert [r.split("|")[1].strip() for r in rows] == ["2", "2", "4", "4"]
    assert rows[0].endswith("|") and f"1 worker, {path} |" in rows[1] and rows[1].rstrip(" |").endswith("×)")


def test_a_bad_params_file_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "tne-ai params 1", "params": {"leaf_mix": 2.0}}))
    with pytest.raises(SystemExit) as e:
        search_bench.main(["--params", str(bad)])
    assert e.value.code == 2
    assert "leaf_mix" in capsys.readouterr().err
