"""The engine client (tne_ai/protocol/client.py) against a real `tne-ai bot`, the fake engines and scripted misbehaviour.

Searches are short and seeded (`go iterations N seed S`); the failures come
from tests/fake_engines (a crash, a silent engine, a hang with a child
process, a garbage bestmove) and from a scripted engine that answers canned
lines, so no test depends on how long anything takes.
"""
from __future__ import annotations

import doctest
import json
import os
import shlex
import sys
import threading
import time

import pytest

import engine
from engine.actions import parse_action
from engine.view import events_for_seat, letters
from tne_ai import __version__
from tne_ai.protocol.client import (AnalysisInfo, ClientError, Engine, EngineStartError, EngineTerminated, EngineTimeout,
                           GarbledReply, GoLimits, Option, OptionError, ProtocolErrorReply, WaitCancelled,
                           parse_info_candidate, parse_info_header, parse_option, position_line)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FAKES = os.path.join(HERE, "fake_engines")
BOT = ["tne-ai", "bot"]
QUIET = {"InfoInterval": 0}          # one info report per search: the last

# An engine that answers each command word with canned lines (latin-1, so a test can send a non-ASCII byte).
SCRIPTED = """
import json, sys
replies = json.loads(sys.argv[1])
for line in sys.stdin:
    word = (line.split() or [""])[0]
    if word == "quit":
        break
    for out in replies.get(word, []):
        sys.stdout.buffer.write(out.encode("latin-1") + b"\\n")
    sys.stdout.flush()
"""
HELLO = ["id name scripted", "option name Seed type spin default 0 min 0 max 100", "tneok"]


def fake(script: str, *args) -> list:
    """Return the argv of a fake engine script with flags."""
    return [sys.executable, os.path.join(FAKES, script), *args]


def scripted(**replies) -> list:
    """Return the argv of an engine answering each command word with the given lines."""
    replies.setdefault("tne", HELLO)
    replies.setdefault("isready", ["readyok"])
    return [sys.executable, "-c", SCRIPTED, json.dumps(replies)]


def process_left(pid: int):
    """Return why a process counts as left behind (alive, or our unreaped zombie), else None."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    state, ppid = fields[0], int(fields[1])
    if state == "Z":
        return f"pid {pid} is a zombie of the tests' process" if ppid == os.getpid() else None
    return f"pid {pid} still runs"


def children_of(pid: int) -> list:
    """Return the pids whose parent is `pid`."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if int(open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(name))
            except (FileNotFoundError, ProcessLookupError, IndexError):
                pass
    return out


def assert_closed(eng: Engine, others=()) -> None:
    """Check the engine (and the other pids given) left no process, zombie or pipe thread behind."""
    assert eng.returncode is not None
    # SIGKILL to the group is delivered asynchronously: a grandchild may show as running
    # for a moment after close() returns, under load; give it time to die, not to be killed
    deadline = time.monotonic() + 10
    while True:
        left = [p for p in (process_left(pid) for pid in [eng.proc.pid, *others]) if p]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert left == []
    assert [t.name for t in threading.enumerate() if t.name.startswith(eng.label + ":")] == []


@pytest.fixture
def bot():
    """Yield a `tne-ai bot` after the handshake, with one info report per search; close it after."""
    eng = Engine.popen(BOT)
    eng.configure(QUIET)
    yield eng
    eng.close()
    assert_closed(eng)


# ---------------------------------------------------------------- a real engine

def test_the_handshake_reads_id_and_options(bot):
    """`tne` ... `tneok`: identity and every option typed, looked up in any case."""
    assert (bot.id.name, bot.id.version, bot.id.author) == ("tne-ai", __version__, "the tne-ai developers")
    assert list(bot.options)[:2] == ["Workers", "Exploration"]
    assert bot.options["Workers"] == Option("Workers", "spin", 1, 1, 64)
    assert bot.options["Exploration"] == Option("Exploration", "string", "auto")
    assert bot.options["ReuseTree"].default is True
    assert bot.find_option("candidates") is bot.options["Candidates"] and bot.find_option("Nope") is None
    bot.is_ready()


def test_an_option_set_takes_effect(bot):
    """`Candidates` decides how many candidates the reports list."""
    bot.new_game()
    bot.set_position(first=0, hand="kkrbgg")
    for n in (2, 4):
        bot.set_option("candidates", n)
        assert len(bot.analyse(GoLimits(iterations=200, seed=1)).candidates) == n


def test_a_bad_option_raises_with_the_error_code(bot):
    """The client refuses what the advertised options refuse; the engine's refusals carry their code."""
    for options, message in (({"Workers": 0}, "outside 1..64"), ({"Bogus": 1}, "offers no option 'Bogus'"),
                             ({"ReuseTree": "maybe"}, "true or false"), ({"Seed": "x"}, "an integer")):
        with pytest.raises(OptionError, match=message):
            bot.configure(options)
    with pytest.raises(ProtocolErrorReply) as bad_value:
        bot.configure({"Exploration": "lots"})
    assert bad_value.value.code == "bad-value" and "Exploration" in bad_value.value.text
    with pytest.raises(ProtocolErrorReply) as unknown:
        bot.configure({"Bogus": 1}, check=False)
    assert unknown.value.code == "unknown-option" and unknown.value.line.startswith("error unknown-option ")
    bot.is_ready()                          # the engine lives on and the pipe is in step


def test_play_a_few_decisions_of_a_game(tmp_path):
    """Two bots play the first decisions of a game, each told its own share; every bestmove is legal."""
    state = engine.new_game(players=2, seed=5)
    start = state.snapshot()
    seats = [Engine.popen(BOT, transcript=str(tmp_path / f"seat{s}.log")) for s in range(2)]
    try:
        events = [[], []]
        for s, eng in enumerate(seats):
            eng.configure(QUIET)
            eng.new_game(players=2, board="standard", seat=s)
        for ply in range(6):
            seat = state.to_act
            eng = seats[seat]
            eng.set_position(first=start["to_act"], hand=letters(start["hands"][seat]), moves=events[seat])
            result = eng.play(GoLimits(iterations=60, seed=ply))
            assert result.action == parse_action(result.move) and result.action in state.legal_actions()
            assert result.info.iterations == 60 and result.info.best.move == result.move
            assert result.elapsed >= 0
            before = state.snapshot()
            state.apply(result.action)
            for s in range(2):
                events[s].extend(events_for_seat(before, result.action, state.snapshot(), s))
    finally:
        for eng in seats:
            eng.close()
    for s, eng in enumerate(seats):
        assert_closed(eng)
        log = (tmp_path / f"seat{s}.log").read_text().splitlines()
        assert log[0].split(" ", 2)[1:] == ["#", f"started pid {eng.proc.pid}: tne-ai bot"]
        assert {ln.split(" ", 2)[1] for ln in log} <= {"#", ">", "<", "!"}
        assert any(" > go iterations 60 seed " in ln for ln in log) and log[-1].endswith("# ended with status 0")


def test_analyse_reports_candidates_whose_visits_add_up(bot):
    """Candidates best first, visits at most the iterations in all, bounds around the mean, a PV per move."""
    bot.configure({"Candidates": 64})
    bot.new_game(players=3, seat=1)
    bot.set_position(first=0, hand="krbggg", moves=["tile k a1", "pass"])
    info = bot.analyse(GoLimits(iterations=400, seed=3))
    assert info.iterations == 400 and info.nodes > 1 and len(info.value) == 3
    # every seat's chance of winning, beside the raw values
    assert len(info.win) == 3 and all(0 <= w <= 1 for w in info.win)
    assert 1 < len(info.candidates) <= 64
    visits = [c.visits for c in info.candidates]
    assert visits == sorted(visits, reverse=True) and 0 < sum(visits) <= info.iterations
    legal = set(bot.legal_moves())
    for rank, c in enumerate(info.candidates, 1):
        assert c.rank == rank and c.move in legal and c.pv[0] == c.move and c.action == parse_action(c.move)
        assert c.avail >= c.visits and c.low <= c.mean <= c.high


@pytest.mark.slow
def test_the_same_seed_gives_the_same_bestmove():
    """`go iterations N seed S` is reproducible across processes (and differs from another seed's tree)."""
    def search(seed):
        with Engine.popen(BOT) as eng:
            eng.configure(QUIET)
            eng.new_game(players=2, seat=1)
            eng.set_position(first=0, hand="kkbbrg", moves=["leader k p1", "pass"])
            r = eng.play(GoLimits(iterations=300, seed=seed))
            return r.move, [(c.move, c.visits) for c in r.info.candidates]
    first = search(7)
    assert search(7) == first
    assert search(8) != first


def test_a_fen_position_and_streamed_reports(bot):
    """`position fen` with the hidden part; on_info streams the reports and may stop an infinite search."""
    state = engine.new_game(players=2, seed=9)
    bot.new_game(players=2, seat=state.to_act)
    bot.set_position(fen=state.position(hidden=True))
    assert bot.play(GoLimits(iterations=50, seed=1)).action in state.legal_actions()
    bot.set_position(fen=state.position(), hand=letters(state.snapshot()["hands"][state.to_act]), swapped="0,0,0,0")
    bot.set_option("InfoInterval", 10)
    reports = []

    def on_info(report: AnalysisInfo) -> None:
        reports.append(report)
        if len(reports) == 2:
            bot.stop()

    result = bot.play(GoLimits(infinite=True), on_info=on_info)
    assert len(reports) >= 2 and result.action in state.legal_actions()
    assert all(isinstance(r, AnalysisInfo) and r.iterations > 0 for r in reports)
    assert result.info.iterations >= reports[-1].iterations
    bot.stop()                              # no search: nothing is sent
    bot.is_ready()


def test_an_error_to_go_leaves_the_engine_usable(bot):
    """An `error` reply to go (or to the position before it) raises; the next calls find the pipe in step."""
    bot.new_game(players=2, seat=0)
    bot.set_position(first=0, hand="kkrbgg", moves=["pass"])
    with pytest.raises(ProtocolErrorReply) as not_to_act:
        bot.play(GoLimits(iterations=20))
    assert not_to_act.value.code == "not-to-act"
    bot.set_position(first=0, hand="kkrbgg", moves=["leader k z99"])
    with pytest.raises(ProtocolErrorReply) as bad_event:
        bot.play(GoLimits(iterations=20, seed=1))           # go's own answer, for the old position, is dropped
    assert bad_event.value.code in ("bad-event", "bad-position")
    bot.set_position(first=0, hand="kkrbgg")
    assert bot.play(GoLimits(iterations=20, seed=1)).move in bot.legal_moves()


@pytest.mark.slow
def test_close_leaves_no_process_behind():
    """close() ends the engine's whole process group, search workers included, and reaps the engine."""
    eng = Engine.popen(BOT)
    eng.configure({"Workers": 2})                         # starts the worker processes before readyok
    workers = children_of(eng.proc.pid)
    assert workers, "Workers 2 should have started worker processes"
    eng.close()
    eng.close()                                           # twice is harmless
    assert_closed(eng, workers)
    with pytest.raises(EngineTerminated, match="closed"):
        eng.is_ready()


# ---------------------------------------------------------------- failures

def test_an_engine_that_cannot_start_or_exits_at_once():
    """A missing program, or one that exits on `tne`: typed errors with the status and the last stderr line."""
    with pytest.raises(EngineStartError, match="cannot start '/nonexistent/engine'"):
        Engine.popen("/nonexistent/engine")
    with pytest.raises(EngineTerminated) as exited:
        Engine.popen(fake("good_engine.py", "--handshake", "exit"))
    assert exited.value.returncode == 1 and exited.value.stderr == ["fake: refusing to start"]
    assert str(exited.value) == "crashed (exited with status 1); stderr: fake: refusing to start"


def test_a_silent_engine_times_out():
    """An engine that never answers `tne` raises EngineTimeout, and popen kills it."""
    with pytest.raises(EngineTimeout) as silent:
        Engine.popen(fake("mute_engine.py"), timeout=0.5)
    assert silent.value.expected == "tneok" and silent.value.allowed == 0.5
    assert isinstance(silent.value, TimeoutError)


@pytest.mark.slow
def test_a_crash_and_a_hang_during_a_search(tmp_path):
    """A crash mid-search raises EngineTerminated; a hang raises EngineTimeout and close() kills its child too."""
    with Engine.popen(fake("crash_engine.py", "--crash-at", "1")) as eng:
        eng.new_game()
        eng.set_position(first=0, hand="kkrbgg")
        with pytest.raises(EngineTerminated, match=r"exited with status 3\); stderr: fake: crashing on purpose"):
            eng.play(GoLimits(iterations=5))
        with pytest.raises(EngineTerminated):
            eng.is_ready()
    logs = str(tmp_path / "logs")
    eng = Engine.popen(fake("hang_engine.py", "--log-dir", logs))
    eng.new_game()
    eng.set_position(first=0, hand="kkrbgg")
    with pytest.raises(EngineTimeout) as hung:
        eng.play(GoLimits(iterations=5), timeout=0.5)
    assert hung.value.expected == "bestmove"
    eng.close()
    children = [int(ln.split()[1]) for fn in os.listdir(logs)
                for ln in open(os.path.join(logs, fn)).read().splitlines() if ln.startswith("child ")]
    assert children
    assert_closed(eng, children)


def test_garbled_replies_name_the_line():
    """A bestmove that is no move, a line that is no reply, a malformed info line, a non-ASCII line."""
    with Engine.popen(fake("garbage_engine.py", "--garbage-at", "1")) as eng:
        eng.new_game()
        eng.set_position(first=0, hand="kkrbgg")
        with pytest.raises(GarbledReply, match=r"garbled move 'tile z99 !!'") as bad_move:
            eng.play()
        assert bad_move.value.move == "tile z99 !!" and bad_move.value.line == "bestmove tile z99 !!"
    with Engine.popen(fake("good_engine.py", "--noise-at", "1")) as eng:
        eng.new_game()
        eng.set_position(first=0, hand="kkrbgg")
        with pytest.raises(GarbledReply, match=r"garbled reply 'hello, I am not sure what to do'"):
            eng.play()
    bad_info = scripted(go=["info iterations many nps 1 nodes 1 time 0 value 0.5/0.5", "bestmove pass"])
    with Engine.popen(bad_info) as eng:
        with pytest.raises(GarbledReply, match=r"'info iterations many .*'many' is not an integer"):
            eng.play()
    with Engine.popen(bad_info, strict=False) as eng:      # the referee's choice: statistics are not the game
        result = eng.play()
        assert (result.move, result.info) == ("pass", None)
    with Engine.popen(scripted(go=["bestmove pass\u00e9"])) as eng:
        with pytest.raises(GarbledReply, match="not ASCII"):
            eng.play()


def test_what_comes_before_tneok():
    """Banners are skipped; a malformed option line is garbled (skipped if not strict); `error` raises."""
    banner = ["Hello from a banner", "id name scripted", "id author someone else",
              "option name Style type combo default a var a var b", "option name Skill Level type spin default 3",
              "tneok"]
    with Engine.popen(scripted(tne=banner)) as eng:
        assert (eng.id.name, eng.id.version, eng.id.author) == ("scripted", None, "someone else")
        assert eng.options["Style"] == Option("Style", "combo", "a", var=("a", "b"))
        assert eng.options["Skill Level"].default == 3
        with pytest.raises(OptionError, match="one of a, b"):
            eng.set_option("Style", "c")
    broken = ["option name Depth type spin default deep", "tneok"]
    with pytest.raises(GarbledReply, match="'option name Depth type spin default deep'"):
        Engine.popen(scripted(tne=broken))
    with Engine.popen(scripted(tne=broken), strict=False) as eng:
        assert eng.options == {}
    with pytest.raises(ProtocolErrorReply) as refused:
        Engine.popen(scripted(tne=["error unknown-command tne"]))
    assert (refused.value.code, refused.value.text) == ("unknown-command", "tne")


@pytest.mark.slow
def test_a_cancel_event_ends_a_wait():
    """Setting the cancel event makes a waiting call raise WaitCancelled."""
    cancel = threading.Event()
    with Engine.popen(fake("hang_engine.py"), cancel=cancel) as eng:
        eng.new_game()
        eng.set_position(first=0, hand="kkrbgg")
        threading.Timer(0.2, cancel.set).start()
        with pytest.raises(WaitCancelled):
            eng.play(GoLimits(iterations=5), timeout=600)
    assert issubclass(WaitCancelled, ClientError)


# ---------------------------------------------------------------- formats

def test_limits_and_commands():
    """GoLimits map to `go`; positions and options are formatted and parsed as docs/protocol.md writes them."""
    assert GoLimits().command() == "go"
    assert GoLimits(iterations=500, seed=1).command() == "go iterations 500 seed 1"
    assert GoLimits(movetime=200, clocks=[1000, 640], incs=[100, 100]).command() == \
        "go movetime 200 clock0 1000 clock1 640 inc0 100 inc1 100"
    assert GoLimits(infinite=True).command() == "go infinite"
    for bad in (dict(iterations=0), dict(infinite=True, iterations=5), dict(clocks=[-1]), dict(seed=1.5)):
        with pytest.raises(ValueError):
            GoLimits(**bad)
    assert position_line(first=1, hand="kkrbgg", moves=["tile k a1", "draw r"]) == \
        "position startpos first 1 hand kkrbgg moves tile k a1; draw r"
    assert position_line(fen="standard 2 x", hand="kr", swapped=(0, 1, 0, 0)) == \
        "position fen standard 2 x hand kr swapped 0,1,0,0"
    for bad in (dict(first=0), dict(first=0, hand="kk", moves=["a; b"]), dict(fen="x", first=0)):
        with pytest.raises(ValueError):
            position_line(**bad)
    assert parse_option("option name Seed type spin default 0 min 0 max 9") == Option("Seed", "spin", 0, 0, 9)
    header = parse_info_header("info iterations 12000 nps 19500 nodes 48210 time 615 value 0.6120/0.3880")
    assert (header.iterations, header.nps, header.nodes, header.time, header.value) == \
        (12000, 19500, 48210, 615, [0.612, 0.388])
    assert header.win == []                 # an engine without win chances leaves the field out
    header = parse_info_header("info iterations 5 nps 1 nodes 6 time 1 value 0.6/0.4 win 0.5710/0.4010")
    assert (header.value, header.win) == ([0.6, 0.4], [0.571, 0.401])
    with pytest.raises(GarbledReply, match="win"):
        parse_info_header("info iterations 5 nps 1 nodes 6 time 1 value 0.6/0.4 win 0.5/most")
    c = parse_info_candidate("info candidate 1 visits 5120 avail 5121 mean 0.6120 low 0.6050 high 0.6190 "
                             "move tile k a1 pv tile k a1; leader r f3")
    assert (c.rank, c.move, c.action, c.visits, c.pv) == (1, "tile k a1", parse_action("tile k a1"), 5120,
                                                          ["tile k a1", "leader r f3"])
    with pytest.raises(GarbledReply, match="no mean"):
        parse_info_candidate("info candidate 1 visits 5 avail 5 low 0 high 1 move pass pv pass")


def test_the_client_guide_runs():
    """docs/client.md's examples run as doctests against a real `tne-ai bot`."""
    guide = os.path.join(ROOT, "docs", "client.md")
    result = doctest.testfile(guide, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 20
    assert result.failed == 0


def test_the_command_may_be_a_string():
    """A command string is split as a shell would, without a shell."""
    with Engine.popen(" ".join(shlex.quote(a) for a in fake("good_engine.py", "--passer"))) as eng:
        assert eng.id.name == "fake" and "Seed" in eng.options
