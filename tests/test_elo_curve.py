"""bench.elo_curve: a curve's budgets run apart give the rows they give together, and the rows file keeps them."""
import json

import pytest

from bench import elo_curve


def _cells(row):
    return row[:6]          # all but the wall seconds


def test_budgets_run_apart_give_the_rows_of_one_run(tmp_path, capsys):
    rows = tmp_path / "rows.json"
    args = ["--players", "2", "--opponent", "random", "--games", "2", "--seed", "7", "--jobs", "1"]
    elo_curve.main(args + ["--budgets", "4,8"])
    together = capsys.readouterr().out
    elo_curve.main(args + ["--budgets", "8", "--rows", str(rows)])
    elo_curve.main(args + ["--budgets", "4", "--rows", str(rows), "--table", str(tmp_path / "t.md")])
    doc = json.loads(rows.read_text())
    assert [r[0] for r in doc["rows"]] == [4, 8]
    table = (tmp_path / "t.md").read_text()
    # the same cells as the run of both budgets at once, wall seconds aside
    strip = lambda text: [line.rsplit("|", 2)[0] for line in text.splitlines() if line.startswith("| 4 ")
                          or line.startswith("| 8 ")]
    assert strip(table) == strip(together) and len(strip(table)) == 2


def test_the_curve_plays_its_params_file_and_refuses_forfeits(tmp_path, monkeypatch):
    from search.params import SearchParams
    path = tmp_path / "p.json"
    SearchParams(exploration=0.9).save(str(path))
    made = []
    real = elo_curve.ISMCTSAgent

    def spy(*args, **kwargs):
        made.append(kwargs.get("params"))
        return real(*args, **kwargs)
    monkeypatch.setattr(elo_curve, "ISMCTSAgent", spy)
    rows = elo_curve.curve([4], "random", 2, 2, 7, 1, params=SearchParams.load(str(path)))
    assert made and all(p == SearchParams(exploration=0.9) for p in made)
    assert rows[0][1] == 2

    def broken(*args, **kwargs):
        agent = real(*args, **kwargs)
        agent.choose = lambda *a, **k: -1          # an illegal decision: a forfeit
        return agent
    monkeypatch.setattr(elo_curve, "ISMCTSAgent", broken)
    with pytest.raises(SystemExit, match="forfeit"):
        elo_curve.curve([4], "random", 2, 2, 7, 1)


def test_a_rows_file_of_other_settings_is_refused(tmp_path):
    rows = tmp_path / "rows.json"
    args = ["--players", "2", "--opponent", "random", "--seed", "7", "--jobs", "1", "--budgets", "4"]
    elo_curve.main(args + ["--games", "2", "--rows", str(rows)])
    with pytest.raises(SystemExit, match="made with other settings"):
        elo_curve.main(args + ["--games", "4", "--rows", str(rows)])
    assert [r[0] for r in json.loads(rows.read_text())["rows"]] == [4]
