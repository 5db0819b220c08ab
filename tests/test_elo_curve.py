"""bench.elo_curve: a curve's budgets run apart give the rows they give together, and the rows file keeps them."""
import json
import math

import pytest

from bench import elo_curve


def _cells(row):
    return row[:6]          # all but the wall seconds


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_rows_file_of_other_settings_is_refused(tmp_path):
    rows = tmp_path / "rows.json"
    args = ["--players", "2", "--opponent", "random", "--seed", "7", "--jobs", "1", "--budgets", "4"]
    elo_curve.main(args + ["--games", "2", "--rows", str(rows)])
    with pytest.raises(SystemExit, match="made with other settings"):
        elo_curve.main(args + ["--games", "4", "--rows", str(rows)])
    assert [r[0] for r in json.loads(rows.read_text())["rows"]] == [4]


def _row(budget, elo, half):
    return (budget, 40, 0.5, elo, elo - half, elo + half, 1.0)


def test_the_worth_of_a_doubling_is_fitted_over_every_budget():
    """Elo = 100 + 50·log2(b/250), each point ±98 (se 50): slope 50, standard error 50/√2, so ±69.3 at 95%."""
    rows = [_row(250, 100, 98), _row(500, 150, 98), _row(1000, 200, 98)]
    slope, lo, hi, _ = elo_curve.doubling_fit(rows)
    assert slope == pytest.approx(50)
    assert (lo, hi) == (pytest.approx(50 - 1.96 * 50 / 2 ** 0.5), pytest.approx(50 + 1.96 * 50 / 2 ** 0.5))
    assert "+50 Elo a doubling, 95% [-19, +119]" in elo_curve.table(rows, "greedy", 2, 1)


def test_a_wide_point_weighs_less_and_an_infinite_one_nothing():
    # the middle point sits 300 off the line; its interval is 10 times wider, so it weighs 1/100 as much
    line = [_row(250, 0, 98), _row(1000, 100, 98)]
    assert elo_curve.doubling_fit(line)[0] == pytest.approx(50)
    wide = line[:1] + [_row(500, 350, 980)] + line[1:]
    assert elo_curve.doubling_fit(wide)[0] == pytest.approx(50)       # the middle x moves no slope
    tilted = line[:1] + [_row(2000, 400, 980)] + line[1:]
    assert 50 < elo_curve.doubling_fit(tilted)[0] < 55
    capped = line + [(4000, 40, 1.0, math.inf, 300, math.inf, 1.0)]
    assert elo_curve.doubling_fit(capped)[:3] == elo_curve.doubling_fit(line)[:3]
    assert elo_curve.doubling_fit(line[:1]) is None
    assert "no fit" in elo_curve.table(line[:1], "greedy", 2, 1)


def test_kept_curves_replot_with_the_fits_the_docs_quote(capsys, tmp_path):
    """docs/strength.md's table quotes each kept curve's fitted worth of a doubling; --replot recomputes them from the rows."""
    from pathlib import Path
    kept = Path(__file__).parent / "data" / "records" / "elo-curves"
    quoted = {"2p-vs-greedy-seed2050.json": "+47 Elo a doubling, 95% [+2, +92]",
              "2p-vs-ismcts1000-seed2050.json": "+12 Elo a doubling, 95% [-9, +32]",
              "4p-vs-greedy-seed2060-2p-weights.json": "+35 Elo a doubling, 95% [+9, +61]",
              "4p-vs-greedy-seed2060-tail1.json": "+27 Elo a doubling, 95% [+2, +52]",
              "4p-vs-greedy-seed2060-tail3.json": "+3 Elo a doubling, 95% [-21, +27]",
              "4p-vs-greedy-seed2061-tail3.json": "+14 Elo a doubling, 95% [-9, +36]",
              "4p-vs-greedy-tail3-pooled.json": "+12 Elo a doubling, 95% [-4, +27]",
              "2p-half-seed29000.json": "+10 Elo a doubling, 95% [-18, +38]",
              "2p-half-widen05-seed29000.json": "+35 Elo a doubling, 95% [+10, +59]",
              "2p-half-turn-seed29000.json": "+30 Elo a doubling, 95% [+6, +54]",
              "2p-half-refit-seed29000.json": "+19 Elo a doubling, 95% [-5, +43]",
              "2p-half-refit2-seed29000.json": "+33 Elo a doubling, 95% [+9, +57]",
              "2p-half-turn-seed29100.json": "+28 Elo a doubling, 95% [-20, +76]",
              "2p-half-widen05-seed29100.json": "+45 Elo a doubling, 95% [-3, +94]",
              "2p-half-c020-seed29000.json": "+37 Elo a doubling, 95% [+2, +71]",
              "2p-half-twin-hands-seed29000.json": "+44 Elo a doubling, 95% [+19, +68]",
              "2p-half-halving-seed29000.json": "+55 Elo a doubling, 95% [+31, +79]",
              "4p-half-seed29400.json": "+9 Elo a doubling, 95% [-19, +37]"}
    strength = (Path(__file__).parent.parent / "docs" / "strength.md").read_text()
    for name, fit in quoted.items():
        assert elo_curve.main(["--replot", "--rows", str(kept / name), "--svg", str(tmp_path / "c.svg")]) == 0
        assert fit in capsys.readouterr().out
        slope, interval = fit.split(" Elo a doubling, 95% ")
        assert f"| {slope} | {interval} |" in strength, name
        picture = (tmp_path / "c.svg").read_text()     # a curve against half the budget: a mean of doublings
        assert ("fitted: " + fit.split(",")[0] in picture) != ("over the doublings: " + fit.split(",")[0] in picture)


def test_replot_refuses_what_is_not_a_rows_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    for text in ("not json", '{"settings": {}}', '{"settings": {"opponent": "greedy", "players": 2, "seed": 1}, '
                                                   '"rows": [[250, 40, "x", 1, 2, 3, 4]]}'):
        bad.write_text(text)
        with pytest.raises(SystemExit) as e:
            elo_curve.main(["--replot", "--rows", str(bad)])
        assert e.value.code == 2
        assert "not a rows file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        elo_curve.main(["--replot"])
    assert "--replot needs the --rows file" in capsys.readouterr().err


def test_against_half_the_budget_each_row_is_a_doubling(tmp_path):
    """--opponent half: self-play of each budget against half of it; the fit is the rows' weighted mean."""
    rows = elo_curve.curve([8, 16], "half", 2, 2, 7, 1, agent="twin-hands")
    assert [r[0] for r in rows] == [8, 16] and all(r[1] == 2 for r in rows)
    fit = elo_curve.doubling_fit([_row(1000, 100, 50), _row(2000, 40, 50)], half=True)
    assert fit[0] == pytest.approx(70) and fit[1] < 70 < fit[2]
    text = elo_curve.table([_row(1000, 100, 50), _row(2000, 40, 50)], "half", 2, 7, "ismcts")
    assert "| 2,000 | 1,000 |" in text and "+70 Elo a doubling" in text
    assert "Elo against half the budget" in elo_curve.svg([_row(1000, 100, 50)], "t", half=True)


@pytest.mark.slow
def test_a_stopped_step_resumed_from_its_records_gives_the_row_of_one_run(tmp_path):
    args = dict(budgets=[4], opponent="half", players=2, games=4, seed=7, jobs=1)
    whole = elo_curve.curve(**args)
    records = tmp_path / "records"
    elo_curve.curve(**args, record_dir=str(records))
    step = records / "ismcts-4-vs-ismcts-2"
    games = sorted(f for f in step.iterdir() if f.name.startswith("game"))
    assert len(games) == 4
    for f in games[2:]:             # the run stopped after two games
        f.unlink()
    resumed = elo_curve.curve(**args, record_dir=str(records), resume=True)
    assert _cells(resumed[0]) == _cells(whole[0])
    assert len([f for f in step.iterdir() if f.name.startswith("game")]) == 4
    # a resume with other settings would mix two matches' games: refused by name
    with pytest.raises(SystemExit, match="ismcts-4.*other settings"):
        elo_curve.curve(**args, record_dir=str(records), resume=True, params=elo_curve.SearchParams(exploration=0.9))
    # a new run into a folder of records would do the same
    with pytest.raises(SystemExit, match="already holds game records"):
        elo_curve.curve(**args, record_dir=str(records))


def test_resume_needs_the_record_folder(capsys):
    with pytest.raises(SystemExit):
        elo_curve.main(["--budgets", "4", "--opponent", "half", "--resume"])
    assert "--resume needs the --record-dir" in capsys.readouterr().err


def test_several_curves_replot_into_one_picture(tmp_path, capsys):
    """--replot with --rows given twice: both tables printed, both curves drawn, each with its legend and mean."""
    files = []
    for name, elos in (("a", (30, 50)), ("b", (90, 110))):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"settings": {"opponent": "half", "players": 2, "games": 40, "seed": 1,
                                                 "params": None, "agent": "twin-hands" if name == "b" else "ismcts"},
                                    "rows": [_row(1000, elos[0], 50), _row(2000, elos[1], 50)]}))
        files += ["--rows", str(path)]
    picture = tmp_path / "both.svg"
    assert elo_curve.main(["--replot", *files, "--label", "the search", "--label", "told the hands",
                           "--svg", str(picture), "--table", str(tmp_path / "both.md")]) == 0
    out = capsys.readouterr().out
    assert "ismcts against itself" in out and "twin-hands against itself" in out
    assert (tmp_path / "both.md").read_text() == out.rstrip("\n") + "\n"
    text = picture.read_text()
    assert "the search: +40 Elo a doubling" in text and "told the hands: +100 Elo a doubling" in text
    assert text.count("<circle") == 4
    with pytest.raises(SystemExit):
        elo_curve.main(["--replot", *files, "--label", "one"])
    assert "--label: 1 given for 2 --rows files" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        elo_curve.main(["--budgets", "4", *files])
    assert "give one file to play into" in capsys.readouterr().err
