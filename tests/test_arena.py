"""The arena (search/arena/runner.py): observations only, forfeits, seat rotation, statistics, determinism."""
from __future__ import annotations

import math
import os
import re
import sys
from collections import Counter

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:          # import `search` from this checkout even if not installed
    sys.path.insert(0, ROOT)

import engine  # noqa: E402
from engine.record import replay_record  # noqa: E402
from search.arena import runner as arena  # noqa: E402
from tne_ai.cli.arena import arena_command  # noqa: E402
from search.agent import Limits, SearchError  # noqa: E402
from search.baselines import GreedyAgent, RandomAgent  # noqa: E402
from search.arena.sprt import SprtSpec  # noqa: E402
from search.arena.runner import (derive_seed, elo_from_share, play_game, run_match,  # noqa: E402
                          wilson_interval)


class FirstLegal(RandomAgent):
    """Always the lowest legal decision (cheap and deterministic)."""

    name = "first"

    def choose(self, limits: Limits = Limits()) -> int:
        self.check_turn()
        w = engine.State.from_snapshot(engine.info.determinize(self.observation, self.seat, self.rng))
        return w.legal_actions()[0]


class Raiser(RandomAgent):
    """Raises on its 5th decision."""

    name = "raiser"

    def choose(self, limits: Limits = Limits()) -> int:
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == 5:
            raise RuntimeError("boom")
        return super().choose(limits)


class Cheater(RandomAgent):
    """Returns an illegal decision on its 3rd call (a war choice in the action phase, else a tile)."""

    name = "cheater"

    def choose(self, limits: Limits = Limits()) -> int:
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == 3:
            return 4000 if self.observation["phase"] == "action" else 1
        return super().choose(limits)


class Spy(RandomAgent):
    """Checks that it is only ever shown its own observation, and counts what it is told."""

    name = "spy"

    def new_game(self, seat, observation):
        super().new_game(seat, observation)
        self.applied = 0
        self._check(observation)

    def apply(self, action, observation):
        super().apply(action, observation)
        self.applied += 1
        self._check(observation)

    def _check(self, obs):
        assert obs["hands"] is None and obs["bag"] is None and obs["swapped"] is None
        assert obs["seat"] == self.seat and sum(obs["hand"]) == obs["hand_sizes"][self.seat]



def arena_cli(argv: list) -> int:
    """Run `tne-ai arena ARGV` in this process and return its exit code (output to stdout and stderr)."""
    try:
        arena_command.main(argv, prog_name="tne-ai arena")
    except SystemExit as e:
        return e.code
    return 0

def test_wilson_interval_known_values():
    lo, hi = wilson_interval(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson_interval(0.0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(1.0, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    lo, hi = wilson_interval(0.8, 50)
    assert lo == pytest.approx(0.6696, abs=1e-3) and hi == pytest.approx(0.8876, abs=1e-3)
    assert wilson_interval(0.3, 0) == (0.0, 1.0)


def test_elo_known_values():
    assert elo_from_share(0.5) == 0.0
    assert elo_from_share(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_share(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_from_share(10 / 11) == pytest.approx(400.0)
    assert elo_from_share(1.0) == math.inf and elo_from_share(0.0) == -math.inf


def test_match_elo_from_results():
    """A 3-1 record in four games: share 0.75, Elo ~ +191, the interval from Wilson."""
    res = arena.MatchResult(players=2, board="standard", seed=0, lineup=["a", "b"], games=[], stats={})
    for i, ranks in enumerate([[0, 1], [0, 1], [1, 0], [0, 1]]):
        names = ["a", "b"] if i % 2 == 0 else ["b", "a"]
        ranks = ranks if i % 2 == 0 else ranks[::-1]
        res.games.append(arena.GameResult(seed=i, players=2, board="standard", names=names, ranks=ranks,
                                          scores=[[0] * 5] * 2, end_reason="bag", decisions=0))
    res.stats = {"a": arena.AgentStats("a"), "b": arena.AgentStats("b")}
    assert res.pair_score("a", "b") == (0.75, 4)
    e, lo, hi = res.elo()
    assert e == pytest.approx(190.85, abs=0.01)
    wl, wh = wilson_interval(0.75, 4)
    assert lo == pytest.approx(elo_from_share(wl)) and hi == pytest.approx(elo_from_share(wh))


def test_an_elo_difference_that_rounds_to_zero_prints_plus_0(monkeypatch):
    """The Elo line signs every figure: a difference that rounds to 0 is +0, never -0."""
    res = arena.MatchResult(players=2, board="standard", seed=0, lineup=["a", "b"], games=[], stats={})
    for i, ranks in enumerate([[0, 1], [1, 0]]):
        res.games.append(arena.GameResult(seed=i, players=2, board="standard", names=["a", "b"], ranks=ranks,
                                          scores=[[0] * 5] * 2, end_reason="bag", decisions=0))
    res.stats = {"a": arena.AgentStats("a"), "b": arena.AgentStats("b")}
    monkeypatch.setattr(res, "elo", lambda a, b: (-0.3, -40.4, 0.2))
    assert "Elo a - b: +0  95% [-40, +0]  " in res.table()
    monkeypatch.setattr(res, "elo", lambda a, b: (-0.6, -math.inf, math.inf))
    assert "Elo a - b: -1  95% [-inf, +inf]  " in res.table()


def test_play_game_gives_only_observations():
    spies = [Spy(1), Spy(2), Spy(3)]
    g = play_game(spies, seed=4, players=3, board="advanced")
    assert g.forfeit is None and g.end_reason in ("bag", "treasures")
    assert all(sp.applied == g.decisions for sp in spies)
    assert sorted(g.ranks)[0] == 0 and sum(g.choices) == g.decisions


def test_record_replays_to_the_result():
    g = play_game([GreedyAgent(1), RandomAgent(2)], seed=9, players=2)
    state, actions = replay_record(g.record, engine.new_game, engine.State.from_snapshot)
    assert len(actions) == g.decisions and state.result() == g.ranks and state.scores() == g.scores


@pytest.mark.parametrize("bad", [Raiser, Cheater])
def test_a_failing_agent_forfeits_and_ranks_last(bad):
    for players in (2, 3):
        agents = [RandomAgent(0) for _ in range(players)]
        agents[1] = bad(0)
        g = play_game(agents, seed=3, players=players)
        assert g.end_reason == "forfeit" and g.forfeit["seat"] == 1
        assert g.ranks[1] == players - 1 and min(g.ranks) == 0
        want = ("RuntimeError: boom" if bad is Raiser       # the engine's reason (engine.legality)
                else "illegal decision 'war g': a war colour is not a choice now: the choices are an action")
        assert want in g.forfeit["reason"]
        assert "forfeit" in g.record


def test_match_goes_on_after_forfeits():
    res = run_match({"raiser": Raiser, "random": RandomAgent}, games=4, players=2, seed=1)
    assert len(res.games) == 4
    assert res.stats["raiser"].forfeits == 4 and res.stats["raiser"].win_share == 0.0
    assert res.stats["random"].win_share == 1.0
    assert "forfeit raiser" in res.table()


@pytest.mark.slow
def test_seat_rotation_two_players():
    res = run_match({"a": FirstLegal, "b": RandomAgent}, games=6, players=2, seed=7)
    seats = Counter((nm, s) for g in res.games for s, nm in enumerate(g.names))
    assert seats == {("a", 0): 3, ("a", 1): 3, ("b", 0): 3, ("b", 1): 3}
    # each deal is played under both rotations
    assert res.games[0].seed == res.games[1].seed != res.games[2].seed
    assert res.stats["a"].games == res.stats["b"].games == 6


@pytest.mark.slow
def test_seat_rotation_one_against_three():
    res = run_match({"x": FirstLegal, "r": RandomAgent}, games=8, players=4, seed=2,
                    lineup=["x", "r", "r", "r"])
    seats = Counter((nm, s) for g in res.games for s, nm in enumerate(g.names))
    for s in range(4):
        assert seats[("x", s)] == 2 and seats[("r", s)] == 6
    assert all(g.names.count("x") == 1 for g in res.games)
    assert res.stats["x"].games == 8 and res.stats["r"].games == 24
    total = res.stats["x"].wins + res.stats["r"].wins
    assert total == pytest.approx(8.0)                      # win shares add up to one per game
    share, n = res.pair_score("x", "r")
    assert n == 8 and 0.0 <= share <= 1.0
    assert "Elo x - r" in res.table()


def test_default_lineup():
    assert arena.default_lineup(["a", "b"], 2) == ["a", "b"]
    assert arena.default_lineup(["a", "b"], 4) == ["a", "b", "b", "b"]
    assert arena.default_lineup(["a", "b", "c"], 3) == ["a", "b", "c"]
    with pytest.raises(ValueError):
        run_match({"a": RandomAgent}, games=1, players=2, lineup=["a", "zz"])


@pytest.mark.slow
def test_same_seed_same_match(tmp_path):
    facs = {"greedy": GreedyAgent, "random": RandomAgent}
    r1 = run_match(facs, games=2, players=2, seed=42, record_dir=str(tmp_path / "one"))
    r2 = run_match(facs, games=2, players=2, seed=42, record_dir=str(tmp_path / "two"))
    r3 = run_match(facs, games=2, players=2, seed=43)
    assert [g.ranks for g in r1.games] == [g.ranks for g in r2.games]
    assert [g.scores for g in r1.games] == [g.scores for g in r2.games]
    assert [g.scores for g in r1.games] != [g.scores for g in r3.games]
    files = sorted(os.listdir(tmp_path / "one"))
    assert files == ["game0000-greedy-random.txt", "game0001-random-greedy.txt", "match.json"]
    assert files == sorted(os.listdir(tmp_path / "two"))
    for f in files:
        assert (tmp_path / "one" / f).read_text() == (tmp_path / "two" / f).read_text()


def _outcomes(res):
    return [(g.names, g.ranks, g.scores, g.end_reason, g.decisions, g.forfeit) for g in res.games]


@pytest.mark.slow
def test_a_resumed_match_plays_only_the_missing_games_and_ends_as_one_run(tmp_path):
    facs = {"greedy": GreedyAgent, "random": RandomAgent}
    spec = SprtSpec.parse("elo0=0 elo1=50")
    whole = run_match(facs, games=6, players=2, seed=11, record_dir=str(tmp_path), sprt=spec)
    for name in ("game0001-random-greedy.txt", "game0004-greedy-random.txt"):
        os.remove(tmp_path / name)
    seen = []
    again = run_match(facs, games=8, players=2, seed=11, record_dir=str(tmp_path), sprt=spec, resume=True,
                      progress=lambda i, g: seen.append((i, g.resumed)))
    assert seen[:4] == [(0, True), (2, True), (3, True), (5, True)]         # read back first, in game order
    assert sorted(seen[4:]) == [(1, False), (4, False), (6, False), (7, False)]
    assert _outcomes(again)[:6] == _outcomes(whole)
    assert again.sprt.llr == pytest.approx(
        run_match(facs, games=8, players=2, seed=11, sprt=spec).sprt.llr)
    assert len([f for f in os.listdir(tmp_path) if f.startswith("game")]) == 8


def test_a_resume_reads_forfeits_back(tmp_path):
    facs = {"raiser": Raiser, "random": RandomAgent}
    whole = run_match(facs, games=2, players=2, seed=1, record_dir=str(tmp_path))
    again = run_match(facs, games=2, players=2, seed=1, record_dir=str(tmp_path), resume=True)
    assert all(g.resumed for g in again.games) and _outcomes(again) == _outcomes(whole)
    assert again.stats["raiser"].forfeits == 2
    # nothing was timed in the resumed run: no ms/dec rather than 0.0
    assert [line.split()[-1] for line in again.table().splitlines()[2:4]] == ["-", "-"]
    assert [line.split()[-1] for line in whole.table().splitlines()[2:4]] != ["-", "-"]


@pytest.mark.slow
def test_a_resume_refuses_records_of_another_match(tmp_path):
    facs = {"greedy": GreedyAgent, "random": RandomAgent}
    run_match(facs, games=2, players=2, seed=11, record_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"other settings \(seed: 11 then, 12 now\)"):
        run_match(facs, games=2, players=2, seed=12, record_dir=str(tmp_path), resume=True)
    with pytest.raises(ValueError, match="lineup"):
        run_match(facs, games=2, players=2, seed=11, record_dir=str(tmp_path), resume=True,
                  lineup=["random", "greedy"])
    with pytest.raises(ValueError, match="resume needs the record directory"):
        run_match(facs, games=2, players=2, seed=11, resume=True)
    with pytest.raises(ValueError, match="already holds game records: resume that match"):
        run_match(facs, games=2, players=2, seed=11, record_dir=str(tmp_path))
    os.remove(tmp_path / "match.json")
    with pytest.raises(ValueError, match="no match.json"):
        run_match(facs, games=2, players=2, seed=11, record_dir=str(tmp_path), resume=True)
    # a record of another deal under this match's file name
    other = tmp_path / "other"
    run_match(facs, games=2, players=2, seed=99, record_dir=str(other))
    os.replace(other / "game0000-greedy-random.txt", other / "game0002-greedy-random.txt")
    with pytest.raises(ValueError, match="game0002-greedy-random.txt is not this match's game"):
        run_match(facs, games=4, players=2, seed=99, record_dir=str(other), resume=True)


def test_a_kept_match_without_a_knob_added_since_resumes_as_it_played_then(tmp_path):
    """A match.json written before the `value` knob existed meant the handcrafted value."""
    import json
    from search.arena.runner import match_settings_check
    from search.params import SearchParams

    def settings(params):
        return {"players": 2, "agents": {"ismcts": {"agent": "ISMCTSAgent", "params": params}}}

    old = SearchParams(value="handcrafted").resolved(2).to_dict()
    del old["value"]
    (tmp_path / "match.json").write_text(json.dumps(settings(old)))
    match_settings_check(str(tmp_path), settings(SearchParams(value="handcrafted").resolved(2).to_dict()), True)
    with pytest.raises(ValueError, match="'value': 'handcrafted'.*then.*'value': 'learned'.*now"):
        match_settings_check(str(tmp_path), settings(SearchParams(value="learned").resolved(2).to_dict()), True)


def test_a_resume_refuses_an_unfinished_record(tmp_path):
    facs = {"greedy": GreedyAgent, "random": RandomAgent}
    run_match(facs, games=2, players=2, seed=11, record_dir=str(tmp_path))
    path = tmp_path / "game0001-random-greedy.txt"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:40]))                  # half a game, as a crash mid-write would leave
    with pytest.raises(ValueError, match="game0001-random-greedy.txt is unfinished .* delete it to play the game again"):
        run_match(facs, games=2, players=2, seed=11, record_dir=str(tmp_path), resume=True)


def test_the_command_line_resumes_and_refuses_a_resume_without_records(tmp_path, capsys):
    argv = ["--a", "greedy", "--b", "random", "--games", "2", "--seed", "3", "--record-dir", str(tmp_path)]
    assert arena_cli(argv + ["--quiet"]) == 0
    os.remove(tmp_path / "game0001-random-greedy.txt")
    capsys.readouterr()
    assert arena_cli(argv + ["--resume"]) == 0
    out = capsys.readouterr().out
    assert "game 1/2 ranks greedy:0 random:1 (treasures, 179 decisions, resumed)" in out
    assert re.search(r"^game 2/2 ranks random:1 greedy:0 \(bag, 198 decisions, \d+s\)$", out, re.M)
    assert arena_cli(argv + ["--resume", "--iterations", "50"]) == 2
    assert "limits: [None, None] then, [50, None] now" in capsys.readouterr().err
    assert arena_cli(argv[:-2] + ["--resume"]) == 2
    assert "--resume needs the --record-dir" in capsys.readouterr().err


def test_derive_seed_is_stable_and_spread():
    assert derive_seed(1, "deal", 0) == derive_seed(1, "deal", 0)
    assert len({derive_seed(1, "deal", i) for i in range(100)}) == 100
    assert 0 <= derive_seed(2**70, "x") < 2**63


@pytest.mark.slow
def test_registry_and_main(capsys):
    assert {"random", "greedy"} <= set(arena.AGENTS)
    assert arena_cli(["--a", "random", "--b", "greedy", "--games", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "win share" in out and "Elo random - greedy" in out
    assert arena_cli(["--a", "nope", "--b", "random", "--games", "1"]) == 2
    assert "unknown agent" in capsys.readouterr().err


class Passer(RandomAgent):
    """Passes whenever it may, else decides at random."""

    name = "passer"

    def choose(self, limits: Limits = Limits()) -> int:
        self.check_turn()
        w = engine.State.from_snapshot(engine.info.determinize(self.observation, self.seat, self.rng))
        legal = w.legal_actions()
        return 3989 if 3989 in legal else self.rng.choice(legal)


def test_a_stalled_game_is_capped_and_adjudicated():
    g = play_game([Passer(0), Passer(1)], seed=1, players=2, max_decisions=50)
    assert g.end_reason == "cap" and g.decisions == 50 and g.forfeit is None
    assert g.ranks == engine.rank_scores(g.scores)
    assert "stopped after 50 decisions" in g.record


def test_greedy_breaks_a_passing_stall():
    """A deal where both greedy players once passed turn after turn for ever: now the game ends."""
    i = 58      # without the stall rule this deal runs to any cap (checked when the tie-break noise changed)
    deal = derive_seed(9, "deal", i // 2) % (1 << 62)
    agents = [GreedyAgent(derive_seed(9, "agent", i, 0), weights={"min_bonus": 1.5, "tau": 3.0}),
              GreedyAgent(derive_seed(9, "agent", i, 1))]
    g = play_game(agents, deal, players=2, max_decisions=1000)
    assert g.end_reason in ("bag", "treasures")
    lines = [ln for ln in g.record.splitlines() if not ln.startswith(("draw", "#", "["))]
    runs = max(len(r) for r in "".join("p" if ln == "pass" else "." for ln in lines).split("."))
    assert runs >= 2            # the stall did happen, and was broken


@pytest.mark.slow
def test_parallel_match_gives_the_same_results_as_sequential():
    from search.baselines import GreedyAgent, RandomAgent
    from search.arena.runner import run_match
    factories = {"greedy": GreedyAgent, "random": RandomAgent}
    one = run_match(factories, 4, 2, seed=3, jobs=1)
    two = run_match(factories, 4, 2, seed=3, jobs=2)
    assert [g.ranks for g in one.games] == [g.ranks for g in two.games]
    assert [g.scores for g in one.games] == [g.scores for g in two.games]


def test_one_match_summary_for_the_arena_and_the_referee():
    from tne_ai.referee import match
    assert match.summarise is arena.summarise           # tne-ai match keeps no copy of its own
    res = run_match({"a": FirstLegal, "b": Raiser}, games=4, players=2, seed=3, lineup=["b", "a"])
    again = arena.summarise(res.games, res.lineup, 2, "standard", 3, order=["a", "b"])
    assert again == res and again.table() == res.table()
    assert res.stats["b"].forfeits == 4 and res.stats["a"].win_share == 1.0
    # the referee's default order is the lineup's
    assert list(match.summarise(res.games, ["b", "a"], 2, "standard", 3).stats) == ["b", "a"]


def test_an_ismcts_agent_with_a_params_file_meets_the_defaults(tmp_path, capsys):
    """`ismcts:FILE` plays the file's params under the file's name; a bad file or kind is refused by name."""
    from search.arena.runner import agent_factory
    from search.params import SearchParams
    path = tmp_path / "tuned.json"
    SearchParams().with_changes(exploration=1.3).save(str(path))
    name, make = agent_factory(f"ismcts:{path}")
    assert name == "ismcts-tuned" and make(5).search_engine.params.exploration == 1.3
    assert agent_factory("ismcts")[0] == "ismcts"
    for bad, why in ((f"greedy:{path}", "only ismcts"), ("ismcts:", "give a params file"), ("alphazero", "unknown agent")):
        with pytest.raises(ValueError, match=why):
            agent_factory(bad)
    path.write_text('{"format": "tne-ai params 1", "params": {"explortion": 1}}')
    with pytest.raises(SearchError, match="explortion"):
        agent_factory(f"ismcts:{path}")
    assert arena_cli(["--a", f"ismcts:{path}", "--b", "greedy"]) == 2  # the command line names the field too
    assert "explortion" in capsys.readouterr().err


@pytest.mark.slow
def test_the_command_line_plays_a_params_file_and_aligns_long_names(tmp_path, capsys):
    from search.params import SearchParams
    ok = tmp_path / "quick.json"
    SearchParams().with_changes(rollout_depth=1).save(str(ok))
    assert arena_cli(["--a", f"ismcts:{ok}", "--b", "greedy", "--games", "2", "--iterations", "20",
                       "--quiet"]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("agent", "ismcts-quick", "greedy "))]
    end = rows[0].index("seats") + len("seats")         # the seats column ends under its heading
    assert len(rows) == 3 and all(ln[end - 1] == "2" and ln[end] == " " for ln in rows[1:])


def _unpack_records(tmp_path, name):
    import tarfile
    with tarfile.open(os.path.join(ROOT, "tests", "data", "records", name + ".tar.xz")) as tar:
        tar.extractall(tmp_path, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return tmp_path / name


def _read_back_sprt(records, monkeypatch, capsys, *args, sprt="elo0=0 elo1=10 alpha=0.05 beta=0.05"):
    """Resume a kept SPRT's records (the arena's options after --a/--b/... as `args`) and return what it prints."""
    monkeypatch.chdir(records)
    assert arena_cli([*map(str, args), "--sprt", sprt,
                      "--record-dir", "records", "--resume", "--quiet"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("seed, share", [(2041, "0.610"), (2042, "0.590")])
@pytest.mark.slow
def test_the_kept_records_of_the_4_player_defaults_against_greedy_read_back(tmp_path, monkeypatch, capsys, seed, share):
    """tests/data/records keeps the 4-player games against three greedy of the tail after 3 and half the widening (now the defaults): the same shares."""
    from search import params
    from search.params import SearchParams
    monkeypatch.chdir(_unpack_records(tmp_path, "4p-vs-greedy-tail3-widen05"))
    # they ran with the handcrafted value, the 4-player default before the learned one, and
    # with the rollout's value alone at the leaves, the default before leaf_mix 0.5
    monkeypatch.setitem(params.KNOB["value"].by_players, 4, "handcrafted")
    monkeypatch.setitem(params.KNOB["leaf_mix"].by_players, 4, 1.0)
    assert SearchParams.load("w05t3.json").resolved(4) == SearchParams().resolved(4)
    assert arena_cli(["--a", "ismcts:w05t3.json", "--b", "greedy", "--lineup", "a,b,b,b", "--players", "4",
                       "--iterations", "1000", "--games", "400", "--seed", str(seed), "--jobs", "2",
                       "--record-dir", f"seed{seed}", "--resume", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"400 games, 4 players, standard board, seed {seed}, lineup ismcts-w05t3 greedy")
    assert f"ismcts-w05t3    400      {share}" in out


KEPT_SPRTS = [
    # the 4-player fit (docs/strength.md, "The evaluation weights"): both sides from params files
    ("sprt-4p-texel4p-seed3500", ["ismcts:texel4p.json", "ismcts:old.json", "300", "6000", "3500"], None,
     "1312 games, 4 players, standard board, seed 3500, lineup ismcts-texel4p ismcts-old", "0.522",
     "LLR 2.99 [-2.94, 2.94], H1 accepted after 328 deals"),
    # the tail after 3 and half the widening: the baseline was the defaults of the
    # time, which match.json holds resolved, so they are set back for the read-back
    ("sprt-4p-tail3-widen05-seed3800", ["ismcts:w05t3.json", "ismcts", "1000", "4000", "3800"],
     ({2: -1, 3: -1, 4: 1}, {2: 1.0, 3: 1.0, 4: 1.0}),
     "876 games, 4 players, standard board, seed 3800, lineup ismcts-w05t3 ismcts", "0.528",
     "LLR 2.95 [-2.94, 2.94], H1 accepted after 219 deals"),
]


@pytest.mark.parametrize("name, args, old_defaults, head, share, decision", KEPT_SPRTS)
@pytest.mark.slow
def test_the_kept_records_of_the_4_player_sprts_accept_h1_again(tmp_path, monkeypatch, capsys, name, args,
                                                              old_defaults, head, share, decision):
    """tests/data/records keeps the games of the SPRTs that made 4-player defaults (docs/strength.md): read back, they decide as they did."""
    from search import params
    records = _unpack_records(tmp_path, name)
    # they ran with the handcrafted value, the 4-player default before the learned one, and
    # with the rollout's value alone at the leaves, the default before leaf_mix 0.5
    monkeypatch.setitem(params.KNOB["value"].by_players, 4, "handcrafted")
    monkeypatch.setitem(params.KNOB["leaf_mix"].by_players, 4, 1.0)
    if old_defaults:
        # the tables are the knobs' own (search.params.KNOBS): set their entries back, not the names
        for table, old in zip((params.DEFAULT_TAIL_AFTER, params.DEFAULT_WIDEN_COEF), old_defaults):
            for players, value in old.items():
                monkeypatch.setitem(table, players, value)
    a, b, iterations, games, seed = args
    out = _read_back_sprt(records, monkeypatch, capsys, "--a", a, "--b", b, "--players", 4, "--lineup", "a,b,a,b",
                          "--iterations", iterations, "--games", games, "--seed", seed)
    assert out.startswith(head)
    assert f"(pairwise score share {share})" in out
    assert decision in out


@pytest.mark.slow
def test_the_kept_records_of_the_3_player_fit_read_back_undecided(tmp_path, monkeypatch, capsys):
    """tests/data/records keeps the 3-player Texel fit's SPRT games (docs/strength.md): read back, no decision yet."""
    out = _read_back_sprt(_unpack_records(tmp_path, "sprt-3p-texel3p-seed3300"), monkeypatch, capsys,
                          "--a", "ismcts:texel3p.json", "--b", "ismcts", "--players", 3, "--lineup", "a,b,b",
                          "--iterations", 300, "--games", 629, "--seed", 3300)
    assert out.startswith("629 games, 3 players, standard board, seed 3300, lineup ismcts-texel3p ismcts ismcts")
    assert "Elo ismcts-texel3p - ismcts: +11  95% [-16, +38]  (pairwise score share 0.516)" in out
    assert "LLR 0.43 [-2.94, 2.94], no decision after 209 deals" in out


@pytest.mark.parametrize("players, lineup, head, elo, decision", [
    (2, "a,b", "590 games, 2 players, standard board, seed 26200, lineup ismcts-learned ismcts",
     "Elo ismcts-learned - ismcts: +66  95% [+37, +94]  (pairwise score share 0.593)",
     "LLR 2.99 [-2.94, 2.94], H1 accepted after 295 deals"),
    (4, "a,b,a,b", "416 games, 4 players, standard board, seed 26400, lineup ismcts-learned ismcts",
     "Elo ismcts-learned - ismcts: +62  95% [+28, +96]  (pairwise score share 0.588)",
     "LLR 2.95 [-2.94, 2.94], H1 accepted after 104 deals"),
])
@pytest.mark.slow
def test_the_kept_records_of_the_learned_value_sprts_accept_h1_again(tmp_path, monkeypatch, capsys, players, lineup,
                                                                     head, elo, decision):
    """tests/data/records keeps the games of the SPRTs that made the learned value the default (docs/strength.md): read back, they decide as they did."""
    from search import params
    records = _unpack_records(tmp_path, f"sprt-{players}p-learned-seed26{players}00")
    # the baseline was the handcrafted value, exploration 0.7 and (with 2) the full widening, the defaults when they ran
    monkeypatch.setitem(params.KNOB["value"].by_players, players, "handcrafted")
    monkeypatch.setitem(params.KNOB["exploration"].by_players, players, 0.7)
    monkeypatch.setitem(params.DEFAULT_WIDEN_COEF, 2, 1.0)
    monkeypatch.setitem(params.KNOB["rollout_to_turn"].by_players, 2, False)
    monkeypatch.setitem(params.KNOB["leaf_mix"].by_players, 4, 1.0)
    out = _read_back_sprt(records, monkeypatch, capsys, "--a", "ismcts:learned.json", "--b", "ismcts",
                          "--players", players, "--lineup", lineup, "--seconds", 0.02, "--games", 6000,
                          "--seed", f"26{players}00")
    assert out.startswith(head)
    assert elo in out
    assert decision in out


KEPT_2P_SPRTS = [
    # half the widening, the 2-player default since; its baseline the full widening
    ("sprt-2p-widen05-seed31100", "w05", "31100", {2: 1.0},
     "706 games, 2 players, standard board, seed 31100, lineup ismcts-w05 ismcts",
     "Elo ismcts-w05 - ismcts: +56  95% [+30, +82]  (pairwise score share 0.579)",
     "LLR 2.95 [-2.94, 2.94], H1 accepted after 353 deals"),
    # rollouts to the start of a turn, the 2-player default since
    ("sprt-2p-turn-seed35100", "turn", "35100", None,
     "2396 games, 2 players, standard board, seed 35100, lineup ismcts-turn ismcts",
     "Elo ismcts-turn - ismcts: +20  95% [+6, +34]  (pairwise score share 0.529)",
     "LLR 2.99 [-2.94, 2.94], H1 accepted after 1198 deals"),
]


@pytest.mark.parametrize("name, candidate, seed, old_widening, head, elo, decision", KEPT_2P_SPRTS)
@pytest.mark.slow
def test_the_kept_records_of_the_2_player_sprts_accept_h1_again(tmp_path, monkeypatch, capsys, name, candidate, seed,
                                                                old_widening, head, elo, decision):
    """tests/data/records keeps the games of the 2-player SPRTs at equal time (docs/strength.md): read back, they decide as they did."""
    from search import params
    records = _unpack_records(tmp_path, name)
    # the baselines were the defaults when they ran: rollouts not to a turn's start (and the widening then)
    monkeypatch.setitem(params.KNOB["rollout_to_turn"].by_players, 2, False)
    for players, coef in (old_widening or {}).items():
        monkeypatch.setitem(params.DEFAULT_WIDEN_COEF, players, coef)
    out = _read_back_sprt(records, monkeypatch, capsys, "--a", f"ismcts:{candidate}.json", "--b", "ismcts",
                          "--players", 2, "--seconds", 0.02, "--games", 6000, "--seed", seed)
    assert out.startswith(head)
    assert elo in out
    assert decision in out


@pytest.mark.slow
def test_the_kept_records_of_the_4_player_leaf_mix_sprt_accept_h1_again(tmp_path, monkeypatch, capsys):
    """tests/data/records keeps the SPRT that made leaf_mix 0.5 the 4-player default (docs/strength.md): read back, H1 again."""
    from search import params
    monkeypatch.setitem(params.KNOB["leaf_mix"].by_players, 4, 1.0)      # the baseline: the rollout's value alone
    out = _read_back_sprt(_unpack_records(tmp_path, "sprt-4p-mix05-seed43600"), monkeypatch, capsys,
                          "--a", "ismcts:mix05.json", "--b", "ismcts", "--players", 4, "--lineup", "a,b,a,b",
                          "--seconds", 0.02, "--games", 6000, "--seed", 43600)
    assert out.startswith("1180 games, 4 players, standard board, seed 43600, lineup ismcts-mix05 ismcts")
    assert "Elo ismcts-mix05 - ismcts: +19  95% [+0, +39]  (pairwise score share 0.528)" in out
    assert "LLR 2.99 [-2.94, 2.94], H1 accepted after 295 deals" in out


@pytest.mark.parametrize("players, seed, sprt, games, elo, deals", [
    (4, 63300, "elo0=25 elo1=35", 448, "+82  95% [+49, +115]  (pairwise score share 0.616)",
     "LLR 2.95 [-2.94, 2.94], H1 accepted after 112 deals"),
    (2, 63400, "elo0=50 elo1=60", 406, "+161  95% [+124, +199]  (pairwise score share 0.717)",
     "LLR 2.97 [-2.94, 2.94], H1 accepted after 203 deals"),
])
@pytest.mark.slow
def test_the_kept_records_of_the_defaults_against_those_of_8bcfdea_accept_the_gain_again(
        tmp_path, monkeypatch, capsys, players, seed, sprt, games, elo, deals):
    """tests/data/records keeps today's defaults against 8bcfdea's knob settings (docs/strength.md): read back, the same H1."""
    lineup = ["--lineup", "a,b,a,b"] if players == 4 else []
    out = _read_back_sprt(_unpack_records(tmp_path, f"sprt-{players}p-vs8bcfdea-seed{seed}"), monkeypatch, capsys,
                          "--a", "ismcts", "--b", f"ismcts:d8bcfdea-{players}p.json", "--players", players, *lineup,
                          "--seconds", 0.02, "--games", 6000, "--seed", seed, sprt=f"{sprt} alpha=0.05 beta=0.05")
    assert out.startswith(f"{games} games, {players} players, standard board, seed {seed}, "
                          f"lineup ismcts ismcts-d8bcfdea-{players}p")
    assert f"Elo ismcts - ismcts-d8bcfdea-{players}p: {elo}" in out
    assert deals in out


@pytest.mark.slow
def test_the_kept_records_of_the_turn_rollouts_at_0_05_s_accept_h0_for_rollouts_of_3_decisions(tmp_path, monkeypatch,
                                                                                                 capsys):
    """tests/data/records keeps the SPRT of rollouts of 3 decisions against today's turn rollouts at 0.05 s a decision (docs/strength.md): read back, H0 again."""
    out = _read_back_sprt(_unpack_records(tmp_path, "sprt-2p-noturn-seed37100"), monkeypatch, capsys,
                          "--a", "ismcts:no-turn.json", "--b", "ismcts", "--players", 2, "--seconds", 0.05,
                          "--games", 6000, "--seed", 37100)
    assert out.startswith("1378 games, 2 players, standard board, seed 37100, lineup ismcts-no-turn ismcts")
    assert "Elo ismcts-no-turn - ismcts: -20  95% [-39, -2]  (pairwise score share 0.471)" in out
    assert "LLR -2.97 [-2.94, 2.94], H0 accepted after 689 deals" in out
