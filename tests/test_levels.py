"""Playing levels (search.levels): the table, the draw from the visits, the oversights, and --level everywhere."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from click.testing import CliRunner

import engine
from engine.info import observation
from search.agent import Limits, SearchError
from search.arena.runner import agent_factory, run_match
from search.ismcts import Candidate, ISMCTS
from search.levels import (FULL_STRENGTH, LEVELS, Level, LevelAgent, check_levels, decision_rng, level_decision,
                           level_of, sample_visits)
from tne_ai.cli import main


def start(seed: int = 3, players: int = 2):
    state = engine.new_game(players, seed)
    return state, observation(state.snapshot(), state.to_act)


def cands(*visits):
    return [Candidate(action=i, move=str(i), visits=v, availability=100, mean=0.5, low=0.4, high=0.6)
            for i, v in enumerate(visits)]


def test_the_table_goes_from_weak_to_the_full_search():
    check_levels()
    assert [lv.level for lv in LEVELS] == list(range(1, 11))
    top = LEVELS[-1]
    assert (top.iterations, top.temperature, top.oversight) == (1000, 0.0, 0.0)
    assert all(a.iterations < b.iterations for a, b in zip(LEVELS, LEVELS[1:]))
    assert LEVELS[0].oversight > 0 and LEVELS[0].temperature > 0


def test_a_table_out_of_order_or_a_weak_top_is_refused():
    swapped = list(LEVELS)
    swapped[2], swapped[3] = swapped[3], swapped[2]
    with pytest.raises(SearchError, match="levels 1..10 in order"):
        check_levels(swapped)
    weaker = list(LEVELS)
    weaker[5] = Level(6, 10_000, 0.0, 0.0)          # stronger than level 7 in budget
    with pytest.raises(SearchError, match="no weaker than level 6"):
        check_levels(weaker)
    sampled_top = list(LEVELS[:-1]) + [Level(10, 1000, 0.1, 0.0)]
    with pytest.raises(SearchError, match="full-strength"):
        check_levels(sampled_top)


@pytest.mark.parametrize("bad", [0, 11, -1, "x", "3.5", 2.0, True, None, ""])
def test_a_level_outside_1_to_10_is_refused_by_name(bad):
    with pytest.raises(SearchError, match="level"):
        level_of(bad)


def test_a_level_by_number_or_text():
    assert level_of(3) is LEVELS[2] and level_of(" 10 ") is LEVELS[9]


def test_temperature_zero_is_the_search_choice_and_a_hot_one_follows_the_visits():
    rng = random.Random(1)
    assert all(sample_visits(cands(90, 10), 0.0, rng) == 0 for _ in range(50))
    drawn = Counter(sample_visits(cands(90, 10), 1.0, rng) for _ in range(4000))
    assert 0.07 < drawn[1] / 4000 < 0.13                # visits ** 1: one draw in ten
    cooler = Counter(sample_visits(cands(90, 10), 0.5, rng) for _ in range(4000))
    assert cooler[1] < drawn[1] / 3                     # visits ** 2: one in 82


def test_same_seed_same_decision_and_the_level_agent_replays_a_game_exactly():
    _, obs = start()
    result = ISMCTS().search(obs, obs["seat"], Limits(iterations=64), seed=9)
    picks = {level_decision(LEVELS[1], result, obs, obs["seat"], 9) for _ in range(5)}
    assert len(picks) == 1
    assert decision_rng(9).random() == decision_rng(9).random()

    def game(seed):
        res = run_match({"level-2": lambda s: LevelAgent(s, level=2), "level-4": lambda s: LevelAgent(s, level=4)},
                        2, 2, seed, jobs=1)
        return [g.record for g in res.games]
    assert game(5) == game(5)


def test_a_low_level_plays_other_decisions_than_level_10_on_a_fixed_position():
    """On one opening position, over 20 seeds, level 2 leaves the search's choice: it draws, it does not only search less."""
    _, obs = start()
    seat = obs["seat"]
    differs = oversights = 0
    for seed in range(20):
        r = ISMCTS().search(obs, seat, Limits(iterations=LEVELS[1].iterations), seed=seed)
        picked = level_decision(LEVELS[1], r, obs, seat, seed)
        differs += picked != r.best
        oversights += picked not in [c.action for c in r.candidates]
        assert picked in engine.State.from_snapshot(start()[0].snapshot()).legal_actions()
    assert differs >= 3
    full = ISMCTS().search(obs, seat, Limits(iterations=1000), seed=0)
    assert level_decision(LEVELS[-1], full, obs, seat, 0) == full.best     # level 10 is the search's own choice


def test_level_10_plays_as_the_plain_search():
    state, _ = start(seed=4)
    agent, plain = LevelAgent(7, level=FULL_STRENGTH), agent_factory("ismcts")[1](7)
    for a in (agent, plain):
        a.new_game(state.to_act, observation(state.snapshot(), state.to_act))
    assert agent.choose() == plain.choose(Limits(iterations=1000))


def test_the_arena_knows_level_agents():
    name, factory = agent_factory("level-3")
    assert name == "level-3" and factory(1).level is LEVELS[2]
    for bad in ("level-0", "level-11", "level-x"):
        with pytest.raises(ValueError, match="level"):
            agent_factory(bad)


@pytest.mark.parametrize("args", [["bot", "--level", "11"], ["bot", "--level", "0"],
                                  ["play", "--level", "11"], ["play", "--level", "0"],
                                  ["serve", "--level", "11"], ["serve", "--level", "x"]])
def test_level_out_of_range_is_refused_on_the_command_line(args):
    res = CliRunner().invoke(main, args, input="")
    assert res.exit_code == 2 and "level" in res.output.lower(), res.output


def test_play_refuses_a_level_with_a_budget_and_records_the_level(tmp_path):
    res = CliRunner().invoke(main, ["play", "--level", "3", "--iterations", "50"], input="")
    assert res.exit_code == 2 and "--level 3 sets the engines' budget" in res.output
    path = tmp_path / "g.txt"
    res = CliRunner().invoke(main, ["play", "--level", "3", "--seed", "4", "--seat", "1", "--record", str(path)],
                             input="quit\n")
    assert res.exit_code == 0, res.output
    text = path.read_text()
    assert "[level 3]" in text and "[engines 0:ismcts]" in text
    assert len([ln for ln in text.splitlines() if ln and not ln.startswith(("#", "["))]) >= 1   # level 3 moved


def test_bot_setoption_level_3_searches_the_level_budget_and_same_seed_same_bestmove():
    from tne_ai.protocol.bot import BotSession

    def bestmove(level_line):
        lines = []
        bot = BotSession(lambda ls: lines.extend(ls))
        for line in (level_line, "newgame", "position startpos first 0 hand kkrbgg", "go seed 11"):
            bot.handle(line)
        bot.wait(60)
        bot.finish()
        assert not [ln for ln in lines if ln.startswith("error")], lines
        infos = [ln for ln in lines if ln.startswith("info iterations")]
        return int(infos[-1].split()[2]), lines[-1]
    its, move = bestmove("setoption name Level value 3")
    assert its == LEVELS[2].iterations and move.startswith("bestmove ")
    assert bestmove("setoption name level value 3") == (its, move)
    assert bestmove("setoption name Level value 10")[0] == 1000


def test_the_ladder_fit_recovers_known_elo_and_chained_levels_are_less_sure():
    from bench.levels import fit_elo, median_ms, histogram, svg, table, verdict
    share = 1 / (1 + 10 ** (100 / 400))             # the first of a pair 100 Elo weaker
    rows = [{"a": "greedy", "b": "level-1", "games": 200, "points_a": 200 * share},
            {"a": "level-1", "b": "level-2", "games": 200, "points_a": 200 * share}]
    fit = fit_elo(rows)
    assert fit["level-1"][0] == pytest.approx(100, abs=1e-6) and fit["level-2"][0] == pytest.approx(200, abs=1e-6)
    lo1, hi1 = fit["level-1"][1:]
    lo2, hi2 = fit["level-2"][1:]
    assert lo1 < 100 < hi1 and hi2 - lo2 > hi1 - lo1  # two links from greedy: a wider interval
    assert median_ms(histogram([0.001, 0.002, 0.010])) == pytest.approx(2.0, rel=0.02)
    doc = {"seed": 1, "rows": [dict(r, share=share, elo=-100, low=-150, high=-50,
                                                 times={"level-1": histogram([0.004])}) for r in rows],
           "levels": [{"level": 1, "iterations": 16, "temperature": 2.0, "oversight": 0.5},
                      {"level": 2, "iterations": 32, "temperature": 1.5, "oversight": 0.3}],
           "fit": fit}
    text = table(doc)
    assert "| 1 | 16 | 2 | 0.5 | +100 |" in text and "4.0 |" in text
    assert "Steps under 100 Elo" not in verdict(doc) and "intervals overlap: 1-2." in verdict(doc)
    assert svg(doc).startswith("<svg") and svg(doc).count("<circle") == 2


def test_the_levels_table_in_the_docs_is_the_records():
    """docs/strength.md quotes the ladder's table as bench.levels draws it from bench/data/levels-2p.json."""
    import json
    from pathlib import Path
    from bench.levels import finish, table
    root = Path(__file__).resolve().parent.parent
    doc = finish(json.loads((root / "bench" / "data" / "levels-2p.json").read_text()))
    assert doc["levels"] == [vars(lv) for lv in LEVELS]            # measured with today's table
    assert table(doc) in (root / "docs" / "strength.md").read_text()


def test_the_ladder_plays_neighbours_pairs_two_apart_and_greedy_with_more_games_low_down():
    from bench.levels import ladder_games, ladder_pairs
    pairs = ladder_pairs()
    assert pairs[:9] == [(f"level-{k}", f"level-{k + 1}") for k in range(1, 10)]
    assert pairs[9:17] == [(f"level-{k}", f"level-{k + 2}") for k in range(1, 9)]
    assert pairs[17:] == [("greedy", f"level-{k}") for k in range(6, 11)]
    assert [ladder_games(*p) for p in (("level-1", "level-2"), ("level-5", "level-6"), ("level-6", "level-7"),
                                       ("level-4", "level-6"), ("level-5", "level-7"), ("greedy", "level-9"))] == \
        [400, 400, 300, 300, 200, 300]


def test_runs_on_two_cores_sharing_one_record_keep_each_others_rows(tmp_path):
    from bench.levels import load_doc, save_doc
    path = str(tmp_path / "ladder.json")
    settings = {"format": "tne-ai-levels-1", "players": 2, "seed": 5, "levels": []}
    first, second = load_doc(path, settings), load_doc(path, settings)     # both started before either wrote
    first["rows"].append({"a": "level-1", "b": "level-2", "games": 4, "points_a": 1.0})
    save_doc(path, first)
    second["rows"].append({"a": "level-3", "b": "level-4", "games": 4, "points_a": 3.0})
    save_doc(path, second)
    rows = load_doc(path, settings)["rows"]
    assert sorted((r["a"], r["b"]) for r in rows) == [("level-1", "level-2"), ("level-3", "level-4")]
    with pytest.raises(SystemExit, match="other settings"):
        load_doc(path, dict(settings, seed=6))
