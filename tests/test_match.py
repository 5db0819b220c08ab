"""The referee (tne_ai/referee/match.py): seats told only their share, forfeits, clocks, rotation, records, clean-up.

The engines are the fake engines of tests/fake_engines (small protocol
speakers that play random legal moves from their own view, or misbehave on
purpose), so every game is seeded and quick; the last test runs `tne-ai bot`.
"""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

import engine
from engine.actions import parse_action
from engine.record import replay_record
from engine.state import rank_scores
from engine.view import letters
from search.arena import runner as arena
from search.baselines import RandomAgent
from tne_ai.cli import main as cli_main
from tne_ai.referee.match import (Control, EngineSpec, MatchAborted, newgame_line, normal_variants, parse_engine, parse_tc,
                          plan_match, play_engine_game, run_engine_match, unique_names)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FAKES = os.path.join(HERE, "fake_engines")
COMMANDS = {"tne", "setoption", "newgame", "isready", "position", "go", "quit"}


def game_records(rec) -> list:
    """Return the game record files of a record directory, sorted (not its match.json)."""
    return sorted(f for f in os.listdir(rec) if f.startswith("game"))

def fake_cmd(script: str, *args) -> str:
    """Return the command line running a fake engine script with flags."""
    return " ".join(shlex.quote(x) for x in (sys.executable, os.path.join(FAKES, script)) + args)


def fake(name: str, script: str, *args, options: str = "") -> EngineSpec:
    """Return the EngineSpec of a fake engine."""
    return parse_engine(f"name={name} cmd={shlex.quote(fake_cmd(script, *args))} {options}")


# ---------------------------------------------------------------- reading logs and records

def read_logs(log_dir: str) -> dict:
    """Return {pid: [lines received]} and the child pids the fakes reported, from their logs."""
    logs, children = {}, []
    for fn in os.listdir(log_dir):
        if not fn.endswith(".log") or not fn[:-4].isdigit():
            continue
        lines = open(os.path.join(log_dir, fn)).read().splitlines()
        logs[int(fn[:-4])] = [ln[2:] for ln in lines if ln.startswith("> ")]
        children += [int(ln.split()[1]) for ln in lines if ln.startswith("child ")]
    return {"logs": logs, "children": children}


def record_body(text: str) -> list:
    """Return the decision and draw lines of a record."""
    out = []
    for ln in text.splitlines():
        ln = ln.split("#", 1)[0].strip()
        if ln and not ln.startswith("[") and not ln.startswith("result"):
            out.append(ln)
    return out


def expected_views(g) -> list:
    """Return per seat (the `position startpos` head, [events before each of its decisions]) from the record alone.

    Written independently of engine.view.events_for_seat: a seat sees every
    decision, another seat's swap as `swap n`, and only its own draw lines.
    """
    st = engine.new_game(g.players, g.seed, g.board)
    snap = st.snapshot()
    heads = [f"position startpos first {snap['to_act']} hand {letters(snap['hands'][s])}" for s in range(g.players)]
    seen = [[] for _ in range(g.players)]
    asked = [[] for _ in range(g.players)]
    for line in record_body(g.record):
        if line.startswith("draw "):
            _, seat, tiles = line.split()
            seen[int(seat)].append(f"draw {tiles}")
            continue
        actor = st.to_act
        asked[actor].append(list(seen[actor]))
        st.apply(parse_action(line))
        for s in range(g.players):
            seen[s].append(f"swap {len(line.split()[1])}" if line.startswith("swap ") and s != actor else line)
    return [(heads[s], asked[s]) for s in range(g.players)]


def told(lines: list) -> tuple:
    """Return (seat from newgame, [(position head, events)]) of one engine's received lines."""
    seat = None
    positions = []
    for ln in lines:
        if ln.startswith("newgame"):
            seat = int(ln.split("seat")[1].split()[0])
        if ln.startswith("position"):
            head, _, moves = ln.partition(" moves ")
            positions.append((head, [e.strip() for e in moves.split(";")] if moves else []))
    return seat, positions


def proc_problem(pid: int):
    """Return why a process counts as left behind (alive, or our unreaped zombie), else None."""
    try:
        stat = open(f"/proc/{pid}/stat").read()
        cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()
    state, ppid = fields[0], int(fields[1])
    if state == "Z":
        return f"pid {pid} is a zombie of the tests' process" if ppid == os.getpid() else None
    if b"fake_engines" in cmdline or cmdline.startswith(b"sleep"):
        return f"pid {pid} still runs: {cmdline!r}"
    return None                       # the pid was reused by an unrelated process


def assert_all_gone(log_dir: str) -> None:
    """Check that no fake engine (nor a child it started) outlived the match."""
    info = read_logs(log_dir)
    assert info["logs"], "the fakes should have logged"
    problems = [proc_problem(p) for p in list(info["logs"]) + info["children"]]
    assert [p for p in problems if p] == []


def assert_replays(g) -> None:
    """Check that a game's record replays to the same end: decisions, scores, and the result if finished."""
    state, actions = replay_record(g.record, engine.new_game)
    assert len(actions) == g.decisions
    assert state.scores() == g.scores
    if g.end_reason in ("treasures", "bag"):
        assert state.is_terminal() and state.result() == g.ranks
    else:
        assert not state.is_terminal()


# ---------------------------------------------------------------- configuration

def test_parse_engine_specs():
    """Engine specs are shell-quoted key=value words: cmd required, option.X in order, names checked."""
    sp = parse_engine("name=fast cmd='tne-ai bot --json' option.Workers=1 option.Exploration=0.9 dir=/tmp")
    assert (sp.name, sp.argv, sp.options, sp.cwd) == ("fast", ("tne-ai", "bot", "--json"),
                                                      (("Workers", "1"), ("Exploration", "0.9")), "/tmp")
    assert parse_engine("cmd='python3 /x/my_bot.py -v'").name == "my_bot"
    assert parse_engine("cmd=tne-ai").name == "tne-ai"
    for bad, match in (("name=x", "cmd= is required"), ("name=x cmd=a speed=3", "unknown key"),
                       ("name=a/b cmd=x", "may use only"), ("cmd=x junk", "not key=value"),
                       ("cmd='x", "quotation")):
        with pytest.raises(ValueError, match=match):
            parse_engine(bad)
    names = [sp.name for sp in unique_names([parse_engine("cmd=bot"), parse_engine("cmd=bot"),
                                             parse_engine("name=bot-2 cmd=y")])]
    assert len(set(names)) == 3 and names[0] == "bot"


def test_time_controls_and_go_commands():
    """`--tc base+inc` is seconds; `go` carries every seat's clock and increment, or movetime and iterations."""
    assert parse_tc("60+0.5") == (60000, 500) and parse_tc("2") == (2000, 0) and parse_tc(".5+.1") == (500, 100)
    for bad in ("", "abc", "0+1", "1+-1", "60/40"):
        with pytest.raises(ValueError):
            parse_tc(bad)
    c = Control(base_ms=1000, inc_ms=100, iterations=50, grace_ms=20)
    assert c.go([1000.0, 640.4]) == "go iterations 50 clock0 1000 clock1 640 inc0 100 inc1 100"
    assert c.allowance_ms(640.0) == 660.0
    m = Control(movetime_ms=300, grace_ms=50)
    assert m.go(None) == "go movetime 300" and m.allowance_ms(None) == 350
    assert Control(iterations=9, move_timeout_ms=5000).allowance_ms(None) == 5000
    with pytest.raises(ValueError, match="not both"):
        Control(base_ms=1000, movetime_ms=100)


@pytest.mark.slow
def test_plan_rotates_seats_over_paired_deals_like_the_arena():
    """The referee's plan is search.arena.runner.run_match's: same deals, same seat for every slot."""
    for players, lineup in ((2, ["a", "b"]), (3, ["a", "b", "b"])):
        plan = plan_match(lineup, 2 * players, seed=5)
        res = arena.run_match({"a": RandomAgent, "b": RandomAgent}, 2 * players, players, seed=5,
                              lineup=lineup, limits=arena.Limits(iterations=1))
        assert [pg.seat_names for pg in plan] == [g.names for g in res.games]
        assert [pg.deal for pg in plan] == [g.seed for g in res.games]
        for k in range(2):                # each deal under every rotation: slot "a" visits every seat
            deal_games = plan[k * players:(k + 1) * players]
            assert len({pg.deal for pg in deal_games}) == 1
            assert sorted(pg.seat_names.index("a") for pg in deal_games) == list(range(players))


# ---------------------------------------------------------------- hidden information

@pytest.mark.parametrize("players,games,jobs", [(2, 2, 2), (3, 1, 1), (4, 1, 1)])
@pytest.mark.slow
def test_engines_are_told_only_their_own_seat(tmp_path, players, games, jobs):
    """Each engine receives only its own start hand and draws, other swaps as counts, never a position string."""
    logs = str(tmp_path / "logs")
    engines = [fake("a", "logging_engine.py", "--log-dir", logs), fake("b", "logging_engine.py", "--log-dir", logs)]
    res = run_engine_match(engines, games, players, seed=11, control=Control(base_ms=60_000, inc_ms=1000),
                           jobs=jobs)
    assert [g.forfeit for g in res.games] == [None] * games       # a bad event would make a fake answer error
    assert all(g.end_reason in ("treasures", "bag") for g in res.games)
    expected = {(i, s): v for i, g in enumerate(res.games) for s, v in enumerate(expected_views(g))}
    matched = []
    for pid, lines in read_logs(logs)["logs"].items():
        assert {ln.split()[0] for ln in lines if ln} <= COMMANDS, lines[:5]
        assert not any("fen" in ln or "|" in ln for ln in lines)
        seat, positions = told(lines)
        assert f"newgame players {players} board standard seat {seat}" in lines
        hits = [key for key, (head, asked) in expected.items()
                if key[1] == seat and positions == [(head, ev) for ev in asked]]
        assert len(hits) == 1, f"engine {pid} (seat {seat}) was told what no seat of any game saw"
        matched += hits
        for ln in lines:
            if ln.startswith("go"):
                assert re.fullmatch(" ".join(f"clock{s} \\d+" for s in range(players)) + " "
                                    + " ".join(f"inc{s} 1000" for s in range(players)), ln[3:]), ln
        if positions and positions[0][1] == []:         # this seat began: nobody's clock has run yet
            first_go = next(ln for ln in lines if ln.startswith("go"))
            assert re.findall(r"clock\d (\d+)", first_go) == ["60000"] * players
    assert sorted(matched) == sorted(expected)          # every seat of every game had one engine
    for g in res.games:
        assert_replays(g)
    assert_all_gone(logs)


# ---------------------------------------------------------------- forfeits

def run_with_bad(tmp_path, bad_script, *flags, games=2, control=Control(), options=""):
    """Play `games` 2-player games of a good fake against a bad one (both logging); return (result, log dir)."""
    logs = str(tmp_path / "logs")
    good = fake("good", "good_engine.py", "--log-dir", logs)
    bad = fake("bad", bad_script, "--log-dir", logs, *flags, options=options)
    res = run_engine_match([good, bad], games, 2, seed=3, control=control, record_dir=str(tmp_path / "rec"))
    assert len(res.games) == games                       # the match always goes on to the end
    return res, logs


def check_forfeits(res, n_forfeits: int, kind: str, reason: str) -> None:
    """Check the forfeited games (bad loses, reason recorded) and that the others finished normally."""
    lost = [g for g in res.games if g.forfeit]
    assert len(lost) == n_forfeits
    for g in lost:
        seat = g.forfeit["seat"]
        assert g.names[seat] == "bad" and g.forfeit["kind"] == kind
        assert re.search(reason, g.forfeit["reason"]), g.forfeit["reason"]
        assert g.end_reason == "forfeit" and g.ranks[seat] == g.players - 1 and g.ranks[1 - seat] == 0
        assert f"# forfeit: seat {seat} (bad): {kind}: " in g.record
        assert_replays(g)
    for g in res.games:
        if not g.forfeit:
            assert g.end_reason in ("treasures", "bag")
            assert_replays(g)
    assert res.stats["bad"].forfeits == n_forfeits and res.stats["good"].forfeits == 0


FORFEITS = [
    # (script and flags, control, games forfeited of 2, kind, reason)
    (("crash_engine.py", "--only-seat", "0"), Control(), 1, "crash", r"exited with status 3.*crashing on purpose"),
    (("illegal_engine.py", "--only-seat", "1"), Control(), 1, "illegal",
     r"illegal move 'war k' \(seat 1 to act, phase action\): a war colour is not a choice now: the choices are "),
    (("garbage_engine.py", "--only-seat", "1"), Control(), 1, "garbled", r"garbled move 'tile z99 !!'"),
    (("good_engine.py", "--noise-at", "2", "--only-seat", "0"), Control(), 1, "garbled",
     r"garbled reply 'hello, I am not sure"),
    (("hang_engine.py", "--only-seat", "0"), Control(base_ms=1000, inc_ms=500), 1, "time",
     r"lost on time: no bestmove within the 1000 ms left on its clock"),
    (("hang_engine.py", "--only-seat", "1"), Control(movetime_ms=800), 1, "time", r"movetime 800 ms"),
    # sleeps 1.5 s a move on 2 s + 0.1 s a move: the clock falls by its second move, however fast the
    # machine; the good engine, which answers at once, has 2 s a move to spare
    (("good_engine.py", "--slow-ms", "1500", "--only-seat", "0"), Control(base_ms=2000, inc_ms=100), 1, "time",
     r"lost on time: no bestmove within the \d+ ms left on its clock"),
]


@pytest.mark.parametrize("args,control,n,kind,reason", FORFEITS, ids=[f[0][0] + "-" + f[3] for f in FORFEITS])
@pytest.mark.slow
def test_a_misbehaving_engine_forfeits_and_the_match_goes_on(tmp_path, args, control, n, kind, reason):
    """Crash, hang, late reply, illegal or garbled move: that engine loses with the reason recorded."""
    res, logs = run_with_bad(tmp_path, *args, control=control)
    check_forfeits(res, n, kind, reason)
    saved = game_records(tmp_path / "rec")
    assert len(saved) == 2
    for g, fn in zip(res.games, saved):
        assert open(tmp_path / "rec" / fn).read() == g.record
    assert_all_gone(logs)                           # the hang engine's `sleep` child included


@pytest.mark.slow
def test_a_silent_engine_fails_the_handshake(tmp_path):
    """An engine that never answers `tne` in its first game stops the match when the handshake timeout passes."""
    logs = str(tmp_path / "logs")
    good, bad = fake("good", "good_engine.py", "--log-dir", logs), fake("bad", "mute_engine.py", "--log-dir", logs)
    with pytest.raises(MatchAborted, match=r"engine 'bad' \(game 1, seat 1\): .*no tneok within the handshake") as e:
        run_engine_match([good, bad], 2, 2, seed=3, control=Control(handshake_ms=10000))
    assert e.value.result.games == []
    assert_all_gone(logs)


def test_an_unknown_option_or_command_fails_the_handshake(tmp_path):
    """A setoption the engine rejects, or a command that cannot start: the match stops (one game: a forfeit)."""
    good = fake("good", "good_engine.py")
    bogus = fake("bad", "good_engine.py", options="option.Bogus=3")
    with pytest.raises(MatchAborted, match=r"answered 'error unknown-option setoption name Bogus value 3'") as e:
        run_engine_match([good, bogus], 2, 2, record_dir=str(tmp_path / "rec"))
    assert (e.value.name, e.value.game_no, e.value.seat) == ("bad", 1, 1)
    assert game_records(tmp_path / "rec") == []
    missing = parse_engine("name=bad cmd=/nonexistent/tne-engine")
    with pytest.raises(MatchAborted, match=r"cannot start '/nonexistent/tne-engine'"):
        run_engine_match([good, missing], 2, 2, jobs=2)
    g = play_engine_game([missing, good], 0)             # play_engine_game alone: a forfeit, as before
    assert (g.forfeit["kind"], g.forfeit["seat"], g.end_reason) == ("handshake", 0, "forfeit")
    assert "cannot start '/nonexistent/tne-engine'" in g.forfeit["reason"]


def test_a_stalled_game_is_capped_and_ranked_on_the_scores(tmp_path):
    """Engines that pass for ever reach the decision cap: end reason cap, ranked on the scores so far."""
    passer = fake("p", "good_engine.py", "--passer")
    res = run_engine_match([passer, fake("q", "good_engine.py", "--passer")], 1, 2, max_decisions=40)
    g = res.games[0]
    assert (g.end_reason, g.decisions, g.forfeit) == ("cap", 40, None)
    assert g.ranks == rank_scores(g.scores)
    assert "# stopped after 40 decisions" in g.record
    assert_replays(g)


# ---------------------------------------------------------------- the match

@pytest.mark.slow
def test_a_resumed_match_reads_back_forfeits_and_plays_only_the_missing_games(tmp_path):
    good, bad = fake("good", "good_engine.py"), fake("bad", "crash_engine.py", "--only-seat", "0")
    rec = tmp_path / "rec"
    whole = run_engine_match([good, bad], 4, 2, seed=3, record_dir=str(rec))
    os.remove(rec / "game0003-good-bad.txt")
    seen = []
    again = run_engine_match([good, bad], 4, 2, seed=3, record_dir=str(rec), resume=True,
                             progress=lambda i, g: seen.append((i, g.resumed)))
    assert seen == [(0, True), (1, True), (3, True), (2, False)]
    assert [(g.names, g.ranks, g.scores, g.end_reason, g.forfeit) for g in again.games] == \
        [(g.names, g.ranks, g.scores, g.end_reason, g.forfeit) for g in whole.games]
    assert [g.forfeit["kind"] for g in again.games if g.forfeit] == ["crash", "crash"]
    with pytest.raises(ValueError, match=r"other settings \(control: .*'movetime_ms': None.*'movetime_ms': 500"):
        run_engine_match([good, bad], 4, 2, seed=3, record_dir=str(rec), resume=True,
                         control=Control(movetime_ms=500))
    with pytest.raises(ValueError, match="resume needs the record directory"):
        run_engine_match([good, bad], 4, 2, seed=3, resume=True)


@pytest.mark.slow
def test_rotation_statistics_records_and_determinism(tmp_path):
    """Seats rotate over paired deals; the statistics add up; records replay; jobs do not change results."""
    a, b = fake("a", "good_engine.py"), fake("b", "good_engine.py")
    rec = tmp_path / "rec"
    seen = []
    res = run_engine_match([a, b], 4, 2, seed=7, record_dir=str(rec), jobs=2,
                           progress=lambda i, g: seen.append(i))
    assert sorted(seen) == [0, 1, 2, 3]
    assert [g.names for g in res.games] == [["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]]
    deals = [g.seed for g in res.games]
    assert deals[0] == deals[1] != deals[2] == deals[3]
    assert game_records(rec) == ["game0001-a-b.txt", "game0002-b-a.txt", "game0003-a-b.txt", "game0004-b-a.txt"]
    for i, g in enumerate(res.games):
        text = (rec / game_records(rec)[i]).read_text()
        assert text == g.record
        assert f"[seat0 {g.names[0]}]" in text and f"[seat1 {g.names[1]}]" in text and f"[game {i + 1}]" in text
        assert_replays(g)
    sa, sb = res.stats["a"], res.stats["b"]
    assert sa.games == sb.games == 4
    assert sa.wins + sb.wins == pytest.approx(4.0)
    assert sa.wins == sum(g.win_share(g.names.index("a")) for g in res.games)
    assert sa.rank_sum == sum(g.ranks[g.names.index("a")] for g in res.games)
    assert sa.choices == sum(g.choices[g.names.index("a")] for g in res.games) > 0
    share, n = res.pair_score("a", "b")
    assert n == 4 and res.elo("a", "b")[0] == arena.elo_from_share(share)
    lo, hi = sa.win_interval
    assert lo <= sa.win_share <= hi
    table = res.table()
    assert "95% interval" in table and "Elo a - b" in table
    again = run_engine_match([a, b], 2, 2, seed=7, jobs=1)
    assert [g.record for g in again.games] == [g.record for g in res.games[:2]]
    assert [g.ranks for g in again.games] == [g.ranks for g in res.games[:2]]


@pytest.mark.slow
def test_the_match_command(tmp_path):
    """`tne-ai match` prints progress to stderr (not with --quiet), the table to stdout, and rejects bad usage."""
    runner = CliRunner()
    args = ["match", "--engine", f"name=a cmd={shlex.quote(fake_cmd('good_engine.py'))}",
            "--engine", f"name=b cmd={shlex.quote(fake_cmd('good_engine.py'))}",
            "--players", "3", "--seed", "2", "--tc", "60+1", "--record-dir", str(tmp_path / "rec")]
    r = runner.invoke(cli_main, args)
    assert r.exit_code == 0, r.output
    assert len(re.findall(r"^game \d/3 ranks ", r.stderr, re.M)) == 3
    assert "3 games, 3 players" in r.stdout and "lineup a b b" in r.stdout and "limits: tc 60+1" in r.stdout
    assert len(game_records(tmp_path / "rec")) == 3
    q = runner.invoke(cli_main, args[:-2] + ["--games", "1", "--quiet"])
    assert q.exit_code == 0 and "game 1/1" not in q.stderr and "1 games" in q.stdout
    for extra, message in ((["--engine", "name=c"], "cmd= is required"),
                           (["--movetime", "100"], "not both"),
                           (["--lineup", "a,zz,b"], "unknown engine 'zz'"),
                           (["--players", "2", "--engine", "name=c cmd=x"], "do not fit")):
        bad = runner.invoke(cli_main, args + extra)
        assert bad.exit_code == 2 and message in bad.output, bad.output


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.slow
def test_interrupting_a_match_kills_every_engine(tmp_path, sig):
    """Ctrl-C (or SIGTERM) mid-game stops the match with status 130 and leaves no engine or child behind."""
    logs = str(tmp_path / "logs")
    cmd = [sys.executable, "-m", "tne_ai", "match",
           "--engine", f"name=good cmd={shlex.quote(fake_cmd('good_engine.py', '--log-dir', logs))}",
           "--engine", f"name=hang cmd={shlex.quote(fake_cmd('hang_engine.py', '--log-dir', logs))}",
           "--games", "4", "--jobs", "2", "--move-timeout", "600"]
    ref = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # wait (without asserting how long it takes) until both games hang in a search
        for _ in range(600):
            texts = [open(os.path.join(logs, f)).read() for f in os.listdir(logs)] if os.path.isdir(logs) else []
            if sum("child " in t and "\n> go" in t for t in texts) >= 2:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the engines never started searching")
        ref.send_signal(sig)
        out, err = ref.communicate(timeout=60)
    finally:
        if ref.poll() is None:
            ref.kill()
            ref.communicate()
    assert ref.returncode == 130, err
    assert "interrupted after 0 of 4 games" in err
    assert_all_gone(logs)


@pytest.mark.slow
def test_a_short_match_between_two_tne_ai_bots(tmp_path):
    """Two `tne-ai bot` processes play a 2-game match through the command, with few iterations."""
    try:
        import tne_ai.protocol.bot  # noqa: F401
    except ImportError as e:
        pytest.skip(f"tne-ai bot is not available yet: {e}")
    runner = CliRunner()
    r = runner.invoke(cli_main, ["match", "--engine", "name=x cmd='tne-ai bot' option.Workers=1",
                                 "--engine", "name=y cmd='tne-ai bot' option.Workers=1 option.RolloutDepth=1",
                                 "--games", "2", "--iterations", "30", "--seed", "1",
                                 "--record-dir", str(tmp_path / "rec")])
    assert r.exit_code == 0, r.output
    assert "2 games, 2 players" in r.stdout and "Elo x - y" in r.stdout
    assert "forfeit" not in r.stderr, r.stderr
    for fn in game_records(tmp_path / "rec"):
        state, _ = replay_record((tmp_path / "rec" / fn).read_text(), engine.new_game)
        assert state.is_terminal() or "# stopped after" in (tmp_path / "rec" / fn).read_text()


# ---------------------------------------------------------------- the 2015 variants

def test_newgame_names_the_variants_only_when_some_are_on():
    """The base game's `newgame` is unchanged; variants are named in engine order; bad names are refused."""
    assert newgame_line(2, "standard", 1) == "newgame players 2 board standard seat 1"
    assert newgame_line(3, "advanced", 0, ("english", "wonder")) == \
        "newgame players 3 board advanced variants english,wonder seat 0"
    assert normal_variants(["wonder", "english"]) == ("english", "wonder")
    assert normal_variants("buildings,english") == ("english", "buildings")
    assert normal_variants(()) == ()
    for bad, message in ((["castles"], "unknown variant 'castles'"), (["wonder", "wonder"], "named twice")):
        with pytest.raises(ValueError, match=message):
            normal_variants(bad)
        with pytest.raises(ValueError, match=message):
            run_engine_match([fake("a", "good_engine.py"), fake("b", "good_engine.py")], 1, variants=bad)


@pytest.mark.slow
def test_a_variant_match_between_two_tne_ai_bots(tmp_path):
    """`--variants`: every engine is told them in newgame, the records carry and replay them, the table names them."""
    rec, logs = tmp_path / "rec", tmp_path / "logs"
    runner = CliRunner()
    r = runner.invoke(cli_main, ["match", "--engine", "name=x cmd='tne-ai bot' option.Workers=1",
                                 "--engine", "name=y cmd='tne-ai bot' option.Workers=1",
                                 "--games", "2", "--iterations", "20", "--seed", "3", "--max-decisions", "200",
                                 "--variants", "wonder,english,buildings", "--record-dir", str(rec),
                                 "--log-dir", str(logs)])
    assert r.exit_code == 0, r.output
    assert "forfeit" not in r.stderr, r.stderr
    assert r.stdout.startswith("2 games, 2 players, standard board, variants english,buildings,wonder, seed 3,")
    sent = [ln.split(" > ", 1)[1] for fn in sorted(os.listdir(logs))
            for ln in (logs / fn).read_text().splitlines() if " > newgame" in ln]
    assert sorted(sent) == sorted(f"newgame players 2 board standard variants english,buildings,wonder seat {s}"
                                  for s in (0, 1) for _ in range(2))
    decisions = []
    for fn in game_records(rec):
        text = (rec / fn).read_text()
        assert "[variants english,buildings,wonder]" in text
        state, actions = replay_record(text, engine.new_game)
        assert state.variants == ["english", "buildings", "wonder"]
        assert len(actions) == 200 or (state.is_terminal() and len(actions) < 200)   # capped, or over
        decisions += [engine.format_action(a).split()[0] for a in actions]
    assert {"building", "nobuilding"} & set(decisions)     # the engines made variant decisions


# ---------------------------------------------------------------- failing loudly

def match_args(bad_cmd: str, *extra, bad_options: str = "") -> list:
    """Return `tne-ai match` arguments: a good fake against an engine `bad` run by bad_cmd."""
    return ["match", "--engine", f"name=good cmd={shlex.quote(fake_cmd('good_engine.py'))}",
            "--engine", f"name=bad cmd={shlex.quote(bad_cmd)} {bad_options}", "--games", "2", *extra]


def check_aborted(r, why: str) -> None:
    """Check that the match stopped with status 1, one `Error:` line naming `bad` and why, and no table."""
    assert r.exit_code == 1, (r.exit_code, r.stdout, r.stderr)
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1, r.stderr
    assert "engine 'bad'" in errors[0] and re.search(why, errors[0]), errors[0]
    assert r.stdout == ""                                 # no results table of games never played
    assert not re.search(r"^game \d+/\d+ ranks", r.stderr, re.M), r.stderr


def test_an_engine_that_cannot_start_stops_the_match():
    """A command that does not exist: exit status 1 and one error line, not a table of forfeits."""
    r = CliRunner().invoke(cli_main, match_args("/nonexistent/tne-engine"))
    check_aborted(r, r"cannot start '/nonexistent/tne-engine'")


@pytest.mark.parametrize("how,extra,why", [
    ("exit", [], r"failed the handshake: crashed \(exited with status 1\); stderr: fake: refusing to start"),
    ("silent", ["--handshake-timeout", "10"], r"no tneok within the handshake timeout"),
])
@pytest.mark.slow
def test_an_engine_that_fails_its_first_handshake_stops_the_match(tmp_path, how, extra, why):
    """An engine that exits on `tne` or never answers it in its first game: exit status 1, killed, no table."""
    logs = str(tmp_path / "logs")
    script = "good_engine.py" if how == "exit" else "mute_engine.py"
    flags = ("--handshake", "exit") if how == "exit" else ()
    r = CliRunner().invoke(cli_main, match_args(fake_cmd(script, "--log-dir", logs, *flags), *extra))
    check_aborted(r, why)
    assert_all_gone(logs)


def test_a_rejected_option_stops_the_match(tmp_path):
    """`option.Bogus=3` that the engine answers `error` to: exit status 1 naming the option, no table."""
    logs = str(tmp_path / "logs")
    r = CliRunner().invoke(cli_main, match_args(fake_cmd("good_engine.py", "--log-dir", logs), "--jobs", "2",
                                                bad_options="option.Bogus=3"))
    check_aborted(r, r"answered 'error unknown-option setoption name Bogus value 3'")
    assert_all_gone(logs)


@pytest.mark.slow
def test_a_crash_in_a_later_game_is_a_forfeit_and_the_match_goes_on(tmp_path):
    """An engine that started well and crashes mid-game forfeits that game; the command still exits 0."""
    r = CliRunner().invoke(cli_main, match_args(fake_cmd("crash_engine.py", "--only-seat", "0"),
                                                "--record-dir", str(tmp_path / "rec")))
    assert r.exit_code == 0, r.stderr
    assert len(re.findall(r"^game \d/2 ranks ", r.stderr, re.M)) == 2
    assert "forfeit seat 0 (bad): crashed" in r.stderr and "forfeits: crash 1" in r.stdout
    assert len(game_records(tmp_path / "rec")) == 2
    resumed = CliRunner().invoke(cli_main, match_args(fake_cmd("crash_engine.py", "--only-seat", "0"),
                                                      "--record-dir", str(tmp_path / "rec"), "--resume"))
    assert resumed.exit_code == 0, resumed.stderr
    assert re.findall(r"^game (\d)/2 ranks .*?(resumed)", resumed.stderr, re.M) == [("1", "resumed"), ("2", "resumed")]
    summary = [[ln for ln in out.splitlines() if ln.startswith(("Elo", "end reasons", "forfeits"))]
               for out in (r.stdout, resumed.stdout)]
    assert len(summary[0]) == 3 and summary[0] == summary[1]
    no_dir = CliRunner().invoke(cli_main, match_args(fake_cmd("crash_engine.py"), "--resume"))
    assert no_dir.exit_code == 2 and "--resume needs the --record-dir" in no_dir.stderr


@pytest.mark.slow
def test_a_failed_handshake_after_a_good_one_is_a_forfeit(tmp_path):
    """Once an engine has completed a handshake, a later failed one forfeits that game only."""
    marker = tmp_path / "started"
    script = (f"if [ -e {shlex.quote(str(marker))} ]; then echo no >&2; exit 5; fi; "
              f"touch {shlex.quote(str(marker))}; exec {fake_cmd('good_engine.py')}")
    flaky = parse_engine(f"name=bad cmd={shlex.quote('sh -c ' + shlex.quote(script))}")
    res = run_engine_match([fake("good", "good_engine.py"), flaky], 2, 2, seed=3)
    assert res.games[0].forfeit is None
    f = res.games[1].forfeit
    assert f is not None and f["kind"] == "handshake" and res.games[1].names[f["seat"]] == "bad"


@pytest.mark.slow
def test_record_and_log_numbers_agree(tmp_path):
    """With --jobs 2, a game's record and its logs carry the same number, counted from 1 like `game 1/4`."""
    rec, logs = tmp_path / "rec", tmp_path / "logs"
    r = CliRunner().invoke(cli_main, ["match", "--engine", f"name=a cmd={shlex.quote(fake_cmd('good_engine.py'))}",
                                      "--engine", f"name=b cmd={shlex.quote(fake_cmd('good_engine.py'))}",
                                      "--games", "4", "--jobs", "2", "--record-dir", str(rec),
                                      "--log-dir", str(logs)])
    assert r.exit_code == 0, r.stderr
    records = {fn[4:8]: fn for fn in game_records(rec)}
    assert sorted(records) == ["0001", "0002", "0003", "0004"]
    for number, fn in records.items():
        seats = fn[:-4].split("-")[1:]
        assert f"[game {int(number)}]" in (rec / fn).read_text()
        assert sorted(f for f in os.listdir(logs) if f.startswith(f"game{number}-")) == \
            sorted(f"game{number}-seat{s}-{nm}.log" for s, nm in enumerate(seats))


# ---------------------------------------------------------------- per-engine limits, SPRT

@pytest.mark.slow
def test_per_engine_limits_override_the_match_limits(tmp_path):
    a = fake("a", "good_engine.py", options="iterations=500")
    assert (a.iterations, a.movetime_ms, a.limits_text()) == (500, None, "iterations 500")
    b = fake("b", "good_engine.py", options="movetime=70")
    for bad in ("iterations=0", "movetime=x", "iterations=-3"):
        with pytest.raises(ValueError):
            parse_engine(f"cmd=bot {bad}")
    logs = tmp_path / "logs"
    res = run_engine_match([a, b], 2, 2, seed=4, control=Control(iterations=20), log_dir=str(logs))
    gos = {}
    for fn in os.listdir(logs):
        name = fn.split("-")[-1][:-4]
        gos.setdefault(name, set()).update(ln.split(" ", 2)[-1] for ln in open(logs / fn).read().splitlines()
                                           if " > go " in ln)
    assert gos == {"a": {"go iterations 500"}, "b": {"go iterations 20 movetime 70"}}
    assert "[control iterations 20; a: iterations 500; b: movetime 70]" in res.games[0].record
    with pytest.raises(ValueError):      # a per-engine movetime under a time control
        run_engine_match([a, b], 2, 2, control=Control(base_ms=1000))


@pytest.mark.slow
def test_the_referee_stops_at_the_sprt_decision_and_shows_scores():
    from search.arena.sprt import SprtSpec
    good, bad = fake("good", "good_engine.py"), fake("bad", "illegal_engine.py")
    res = run_engine_match([good, bad], 100, 2, seed=1, control=Control(iterations=5),
                           sprt=SprtSpec(elo0=0, elo1=100), jobs=2)
    assert res.sprt.decision == "H1" and len(res.games) < 100
    table = res.table()
    assert "H1 accepted after" in table and "k/r/b/g" in table and "score" in table.splitlines()[1]
