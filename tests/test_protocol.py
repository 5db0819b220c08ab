"""The bot protocol (docs/protocol.md): golden transcripts, searching, stopping, determinism, time and tree use.

Golden transcripts live in tests/data/transcripts/ (their format: the
README there). Each is replayed against an in-process BotSession and a few
through the real `tne-ai bot` process. No test here asserts a duration:
speed is measured by bench/movetime_bench.py.

To print what the engine says to a transcript's lines (timing fields
already wildcarded), as a start for a new or changed transcript:

    python tests/test_protocol.py record tests/data/transcripts/NAME.txt
"""
from __future__ import annotations

import io
import json
import os
import queue
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import engine
from engine.info import observation
from engine.position import format_position
from engine.view import events_for_seat, letters
from search.agent import Limits
from search.ismcts import ISMCTS
from search.explain import explain
from search.params import SearchParams
from tne_ai.protocol.bot import BotSession, bot_command, clock_budget_ms, options_from_cli
from tne_ai.protocol.codec import (COMMANDS, ERROR_CODES, MAX_LINE_BYTES, ProtocolError, decode_line, parse_json,
                             parse_text, read_lines)

TRANSCRIPTS = Path(__file__).parent / "data" / "transcripts"
WILDCARD = "{*}"
BLOCK_TIMEOUT = 30.0            # seconds a transcript waits for one block of replies before failing
QUIET_SECONDS = 0.3             # an idle in-process session that said nothing this long will say nothing
ERROR_LINE = re.compile(r"error (%s) \S.*" % "|".join(re.escape(c) for c in ERROR_CODES))


# ---------------------------------------------------------------- transcripts


@dataclass
class Step:
    """One line sent to the engine and the replies expected before the next one is sent."""

    line: bytes
    expect: list = field(default_factory=list)     # [(repeat, pattern)]


def parse_transcript(text: str):
    """Return (command-line args, steps) of a transcript."""
    args, steps = [], []
    for no, raw in enumerate(text.splitlines(), 1):
        if no == 1 and raw.startswith("#!"):
            args = shlex.split(raw[2:])
        elif not raw.strip() or raw.startswith("#"):
            continue
        elif raw.startswith(">b "):
            steps.append(Step(raw[3:].encode("ascii").decode("unicode_escape").encode("latin-1")))
        elif raw.startswith("> ") or raw == ">":
            steps.append(Step(raw[2:].encode("ascii")))
        elif raw.startswith("<* "):
            steps[-1].expect.append((True, raw[3:]))
        elif raw.startswith("< ") or raw == "<":
            steps[-1].expect.append((False, raw[2:]))
        else:
            raise ValueError(f"transcript line {no}: expected '> ', '>b ', '< ', '<* ' or '#': {raw!r}")
    for st in steps:
        if st.expect and st.expect[-1][0]:
            raise ValueError(f"the replies to {st.line!r} must end with a '< ' line, not '<* '")
    return args, steps


def block_regex(expect: list):
    """Return a regex matching the joined reply lines ("line\\n" each) that a block allows."""
    parts = []
    for repeat, pattern in expect:
        body = "[^\n]*".join(re.escape(p) for p in pattern.split(WILDCARD)) + "\n"
        parts.append(f"(?:{body})*" if repeat else body)
    return re.compile("".join(parts))


def bot_argv(args=()) -> list:
    """Return the command line of the real `tne-ai bot` (the console script next to this Python)."""
    script = shutil.which("tne-ai", path=os.path.dirname(sys.executable))
    head = [script] if script else [sys.executable, "-m", "tne_ai"]
    return head + ["bot", *args]


class InProcessBot:
    """A BotSession fed line by line, its replies queued."""

    def __init__(self, args=()):
        ctx = bot_command.make_context("bot", list(args))
        self.replies = queue.Queue()
        self.session = BotSession(self._write, options_from_cli(ctx.params), ctx.params["json_mode"],
                                  ctx.params["agent"])

    def _write(self, lines):
        for line in lines:
            self.replies.put(line)

    def send(self, line: bytes) -> None:
        self.session.handle(line + b"\n")

    def idle(self) -> bool:
        return not self.session.searching

    def finish(self) -> list:
        self.session.wait(BLOCK_TIMEOUT)
        self.session.close()
        return drain(self.replies)


class SubprocessBot:
    """The real `tne-ai bot` process, its stdout lines queued by a thread (None at the end)."""

    def __init__(self, args=()):
        self.proc = subprocess.Popen(bot_argv(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.replies = queue.Queue()
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.replies.put(raw.decode("ascii").rstrip("\n"))
        self.replies.put(None)

    def _read_err(self):
        self.stderr = self.proc.stderr.read()

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def idle(self) -> bool:
        return False

    def finish(self) -> list:
        self.proc.stdin.close()
        assert self.proc.wait(BLOCK_TIMEOUT) == 0, self.stderr.decode(errors="replace")
        rest = []
        while True:
            line = self.replies.get(timeout=BLOCK_TIMEOUT)
            if line is None:
                return rest
            rest.append(line)


def drain(q: queue.Queue) -> list:
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


def wait_block(bot, step: Step) -> list:
    """Read replies until they match the step's block; fail on a mismatch, the end or a timeout."""
    rx = block_regex(step.expect)
    got = []
    deadline = time.monotonic() + BLOCK_TIMEOUT
    quiet_since = time.monotonic()
    while not rx.fullmatch("".join(line + "\n" for line in got)):
        try:
            line = bot.replies.get(timeout=0.02)
        except queue.Empty:
            now = time.monotonic()
            if now > deadline or (bot.idle() and now - quiet_since > QUIET_SECONDS):
                pytest.fail(mismatch(step, got))
            continue
        if line is None:
            pytest.fail(mismatch(step, got) + "\n(the engine exited)")
        got.append(line)
        quiet_since = time.monotonic()
    return got


def mismatch(step: Step, got: list) -> str:
    want = "\n".join(("<* " if r else "< ") + p for r, p in step.expect)
    have = "\n".join("< " + g for g in got)
    return f"after > {step.line!r}\nexpected:\n{want}\ngot:\n{have}"


def replay(bot, steps) -> None:
    """Send every step's line, check its replies; at the end no reply may be left over."""
    for step in steps:
        bot.send(step.line)
        if step.expect:
            wait_block(bot, step)
    rest = bot.finish()
    assert rest == [], f"replies nobody expected: {rest}"


def transcript_files():
    return sorted(TRANSCRIPTS.glob("*.txt"))


@pytest.mark.parametrize("path", transcript_files(), ids=lambda p: p.stem)
def test_golden_transcript_in_process(path):
    """Each golden transcript replays exactly against an in-process session."""
    args, steps = parse_transcript(path.read_text())
    replay(InProcessBot(args), steps)


@pytest.mark.parametrize("name", ["handshake", "go_iterations", "go_infinite_stop", "json_flag", "errors", "eval"])
def test_golden_transcript_through_the_real_process(name):
    """A few transcripts replay exactly through `tne-ai bot` over pipes, too."""
    args, steps = parse_transcript((TRANSCRIPTS / f"{name}.txt").read_text())
    replay(SubprocessBot(args), steps)


def test_every_command_and_error_code_has_a_transcript():
    """The transcripts send every command and draw every error code but `internal`."""
    sent, codes = set(), set()
    for path in transcript_files():
        text = path.read_text()
        args, steps = parse_transcript(text)
        for st in steps:
            head = st.line.split()[0].decode("latin-1") if st.line.split() else ""
            if head.startswith("{"):
                try:
                    head = json.loads(st.line).get("cmd", "")
                except ValueError:
                    continue
            sent.add(head)
        codes |= set(re.findall(r'^< (?:error |\{"type": "error", "code": ")([a-z-]+)', text, re.M))
    assert set(COMMANDS) <= sent
    assert set(ERROR_CODES) - {"internal"} <= codes


def test_transcript_patterns_match_only_what_they_say():
    """The matcher itself: a wildcard stays inside a line, `<*` takes zero or more lines."""
    _, steps = parse_transcript("> go\n<* info {*}\n< bestmove {*}\n")
    rx = block_regex(steps[0].expect)
    assert rx.fullmatch("bestmove pass\n")
    assert rx.fullmatch("info a\ninfo b\nbestmove tile k a1\n")
    assert not rx.fullmatch("info a\nreadyok\nbestmove pass\n")
    assert not rx.fullmatch("bestmove pass\nbestmove pass\n")
    with pytest.raises(ValueError):
        parse_transcript("> go\n<* info {*}\n")


# ---------------------------------------------------------------- helpers for the tests below


def mid_game(seed: int = 7, decisions: int = 40, players: int = 2, seat: int = 0,
             turn_start: bool = False) -> engine.State:
    """Return a seeded random game played on until `seat` is to act in the action phase (at its turn's start)."""
    s = engine.new_game(players, seed)
    rng = random.Random(seed)
    n = 0
    while (n < decisions or s.phase != "action" or s.to_act != seat
           or turn_start and s.actions_left != 2):
        s.apply(rng.choice(s.legal_actions()))
        n += 1
    return s


def seen_events(state: engine.State, moves: list, seat: int = 0):
    """Apply moves to a copy of a state; return it and the events `seat` sees of them."""
    st = state.clone()
    events = []
    for text in moves:
        before = st.snapshot()
        action = st.apply_text(text)
        events += events_for_seat(before, action, st.snapshot(), seat)
    return st, events


def public_fen(state: engine.State, seat: int = 0) -> str:
    """Return `position fen` with the public string and the seat's own tiles."""
    sn = state.snapshot()
    return (f"position fen {state.position()} hand {letters(sn['hands'][seat])} "
            f"swapped {','.join(map(str, sn['swapped'][seat]))}")


class Session:
    """A BotSession whose replies are collected in a list, for the tests below."""

    def __init__(self, **options):
        self.out = []
        self.lock = threading.Lock()
        self.bot = BotSession(self._write, options)

    def _write(self, lines):
        with self.lock:
            self.out.extend(lines)

    def __call__(self, *lines) -> list:
        """Send lines, wait for any search to end, return the replies they drew."""
        start = len(self.out)
        for line in lines:
            self.bot.handle(line)
        assert self.bot.wait(BLOCK_TIMEOUT)
        with self.lock:
            return self.out[start:]


def search_lines(replies: list) -> list:
    """Return the replies of a search without the timing fields."""
    return [re.sub(r"\b(nps|time) \d+", r"\1 _", r) for r in replies]


# ---------------------------------------------------------------- searching


def last_report(replies: list) -> list:
    """Return the last info report (its lines) and the bestmove, timing fields blanked."""
    start = max(i for i, r in enumerate(replies) if r.startswith("info iterations"))
    return search_lines(replies[start:])


def test_a_seed_and_an_iteration_limit_give_the_same_search_every_run():
    """Same seed and iterations: same bestmove and visit counts, whether reports come often or never."""
    pos = public_fen(mid_game())
    runs, reports = [], []
    for interval in (0, 1, 0):
        s = Session(InfoInterval=interval, Candidates=64)
        replies = s(pos, "go iterations 5000 seed 11")
        reports.append(sum(r.startswith("info iterations") for r in replies))
        runs.append(last_report(replies))
    assert reports[0] == reports[2] == 1 and reports[1] > 1     # the search ran in several slices
    assert runs[0] == runs[1] == runs[2]
    assert runs[0][0].startswith("info iterations 5000 ") and runs[0][-1].startswith("bestmove ")
    visits = [int(re.search(r" visits (\d+)", r).group(1)) for r in runs[0] if r.startswith("info candidate")]
    assert len(visits) > 5 and sum(visits) <= 5000
    other = Session(InfoInterval=0, Candidates=64)
    assert last_report(other(pos, "go iterations 5000 seed 12")) != runs[0]


def test_reports_while_a_search_runs_never_repeat_the_final_one():
    """Reports every millisecond: each counts more iterations than the one before, the last the limit."""
    pos = public_fen(mid_game())
    s = Session(InfoInterval=1)
    replies = s(pos, "go iterations 3000 seed 11")
    counts = [int(r.split()[2]) for r in replies if r.startswith("info iterations")]
    assert len(counts) > 1 and counts[-1] == 3000
    assert all(a < b for a, b in zip(counts, counts[1:]))


def test_go_seed_defaults_to_the_seed_option_plus_the_go_number():
    """Without `seed`, go n of a game searches with Seed + n: a game is reproducible from the option."""
    pos = public_fen(mid_game())
    s = Session(Seed=40)
    first = search_lines(s(pos, "go iterations 200"))
    second = search_lines(s("go iterations 200"))
    t = Session()
    assert search_lines(t(pos, "go iterations 200 seed 40")) == first
    assert search_lines(t("go iterations 200 seed 41")) == second
    assert s("newgame") == [] and search_lines(s(pos, "go iterations 200")) == first


def test_a_whole_position_is_searched_as_the_seat_sees_it():
    """`position fen` with the hidden part searches exactly as the public string plus the seat's tiles,
    whatever the other seat holds."""
    st = mid_game()
    sn = st.snapshot()
    # the other seat's hand and the bag dealt differently: the same view for seat 0
    pool = [c for c in range(4) for _ in range(sn["hands"][1][c])] + list(sn["bag"])
    random.Random(5).shuffle(pool)
    n = sum(sn["hands"][1])
    other = dict(sn, hands=[sn["hands"][0], [pool[:n].count(c) for c in range(4)]], bag=pool[n:])
    assert other["hands"][1] != sn["hands"][1]
    runs, shows = [], []
    for line in ("position fen " + st.position(hidden=True), public_fen(st),
                 "position fen " + format_position(other, hidden=True)):
        s = Session()
        assert s(line) == []
        shows.append(s("show"))
        runs.append(search_lines(s("go iterations 300 seed 3")))
    assert shows[0] == shows[1] == shows[2]
    assert runs[0] == runs[1] == runs[2]


def test_stop_before_the_first_iteration_still_answers_the_look_ahead_best():
    """A go whose time is gone at once answers one bestmove, no info: the look-ahead's first decision."""
    st = mid_game()
    s = Session(MoveOverhead=50)
    replies = s(public_fen(st), "go movetime 1 seed 9")
    assert len(replies) == 1 and replies[0].startswith("bestmove ")
    obs = observation(st.snapshot(), 0)
    one = ISMCTS(SearchParams()).search(obs, 0, Limits(iterations=1), seed=9)
    assert replies[0] == "bestmove " + one.best_move
    assert one.best_move in st.legal_moves()


def test_every_go_gets_exactly_one_bestmove_however_soon_it_is_stopped():
    """go infinite then stop, at once or a little later, 30 times: one bestmove each, a legal decision."""
    st = mid_game()
    legal = set(st.legal_moves())
    s = Session(InfoInterval=1)
    s(public_fen(st))
    for k in range(30):
        s.bot.handle("go infinite")
        time.sleep((k % 5) * 0.002)
        replies = s("stop")
        best = [r for r in replies if r.startswith("bestmove ")]
        assert len(best) == 1 and best[0][9:] in legal
        assert all(r.startswith(("info ", "bestmove ")) for r in replies)
        assert replies[-1] == best[0]


def test_a_slice_out_of_time_before_its_first_iteration_does_not_end_go_infinite(monkeypatch):
    """On a loaded machine a short slice can run no iteration; go infinite still answers only at stop."""
    from search.ismcts import ISMCTS, NoIterations
    st = mid_game()
    real = ISMCTS.search
    calls = []

    def search(self, *args, **kwargs):
        calls.append(1)
        if len(calls) <= 3:         # the first slices' time ran out before their first iteration
            raise NoIterations("the search ran no iteration (stopped, or out of time, before it began)")
        return real(self, *args, **kwargs)
    monkeypatch.setattr(ISMCTS, "search", search)
    s = Session(InfoInterval=1)
    s(public_fen(st))
    s.bot.handle("go infinite")
    deadline = time.monotonic() + 30
    while len(calls) < 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert s.bot.searching and not [r for r in s.out if r.startswith("bestmove ")]
    replies = s("stop")
    best = [r for r in replies if r.startswith("bestmove ")]
    assert len(best) == 1 and best[0][9:] in set(st.legal_moves())


def test_isready_and_read_only_commands_are_served_during_a_search():
    """While a search runs: readyok, show and legalmoves answer; changes get busy; stop ends it."""
    st = mid_game()
    s = Session()
    s(public_fen(st))
    fp = s.bot.fingerprint()
    s.bot.handle("go infinite")
    assert s.bot.searching
    start = len(s.out)
    for line in ("isready", "show", "legalmoves", "eval", "position startpos first 0 hand kkrbgg", "newgame",
                 "setoption name Seed value 3", "go iterations 10", "perft 1"):
        s.bot.handle(line)
    during = s.out[start:]
    assert s.bot.searching
    assert during[0] == "readyok"
    assert any(r.startswith("position fen ") for r in during)
    assert any(r.startswith("legalmoves ") for r in during)
    assert any(r.startswith("eval view 0 ") for r in during)
    assert [r for r in during if r.startswith("error")] == ["error busy a search is running: send stop first"] * 5
    replies = s("stop")
    assert replies[-1].startswith("bestmove ") and not s.bot.searching
    assert s.bot.fingerprint()[:4] == fp[:4]
    assert s("stop") == ["error not-searching no search is running"]


def test_quit_during_a_search_ends_it_without_a_bestmove():
    """quit stops the search; no bestmove follows and the session takes no more lines."""
    s = Session()
    s(public_fen(mid_game()))
    s.bot.handle("go infinite")
    assert s.bot.handle("quit") is False
    time.sleep(0.05)
    assert not [r for r in s.out if r.startswith("bestmove")]
    assert s.bot.handle("isready") is False


def test_the_tree_is_kept_within_the_seats_turn_and_dropped_after_a_draw():
    """A position extending the last by own decisions (no draw) reuses the tree; ReuseTree false does not."""
    st = mid_game(turn_start=True)
    base = public_fen(st)
    s = Session(Candidates=1)
    first = s(base, "go iterations 400 seed 1")
    best = first[-1][len("bestmove "):]
    assert s.bot._since == []
    after, events = seen_events(st, [best])
    assert after.to_act == 0 and after.turn_owner == 0 and len(events) == 1, "expected a plain first action"
    s(f"{base} moves {best}")
    assert s.bot._since == [engine.parse_action(best)]
    second = s("go iterations 100 seed 2")
    # the kept subtree brings its nodes along: more nodes than 100 iterations can make
    assert int(re.search(r" nodes (\d+)", second[0]).group(1)) > 101
    no_reuse = Session(Candidates=1, ReuseTree=False)
    no_reuse(base, "go iterations 400 seed 1", f"{base} moves {best}")
    fresh = no_reuse("go iterations 100 seed 2")
    assert int(re.search(r" nodes (\d+)", fresh[0]).group(1)) <= 101
    # a second action that ends the turn with a draw: the tree's worlds did not know the tiles
    draws = (seen_events(st, [best, m]) for m in after.legal_moves())
    _, events = next((ev for ev in draws if any(e.startswith("draw ") for e in ev[1])), (None, None))
    assert events is not None, "expected a second action that makes this seat draw"
    s(f"{base} moves {'; '.join(events)}")
    assert s.bot._since is None                 # so the next go builds a fresh tree


def test_reuse_follows_the_seat_view_not_the_text():
    """An extension is recognised by its events; a different start forgets the reusable decisions."""
    s = Session()
    s("position startpos first 0 hand kkrbgg", "go iterations 50 seed 1")
    assert s.bot._since == []
    s("position startpos first 0 hand kkrbgg moves tile k a1")
    assert s.bot._since == [engine.parse_action("tile k a1")]
    s("position startpos first 0 hand kkrbgg moves tile k a1; tile k b1; draw rr")
    assert s.bot._since is None
    s("go iterations 50 seed 1", "position startpos first 0 hand kkrbgb")
    assert s.bot._since is None


def test_position_applies_only_the_new_events_of_an_extension():
    """An extension builds on the kept view: the result equals the position given at once."""
    a, b = Session(), Session()
    a("position startpos first 0 hand kkrbgg moves tile k a1",
      "position startpos first 0 hand kkrbgg moves tile k a1; tile k b1; draw rr")
    b("position startpos first 0 hand kkrbgg moves tile k a1; tile k b1; draw rr")
    assert a.bot._position.events == ["tile k a1", "tile k b1", "draw rr"]
    assert a.bot.fingerprint()[3] == b.bot.fingerprint()[3]
    assert a("show") == b("show")


def test_legalmoves_and_perft_need_what_they_say():
    """legalmoves for this seat from its view; for another seat only with the whole position; perft likewise."""
    st = mid_game()
    s = Session()
    s(public_fen(st))
    assert s("legalmoves") == [f"legalmoves {len(st.legal_moves())} " + "; ".join(st.legal_moves())]
    assert s("perft 1")[0].startswith("error hidden-unknown ")
    s("position fen " + st.position(hidden=True))
    for depth in (1, 2):
        reply = s(f"perft {depth}")
        assert re.fullmatch(rf"perft {depth} nodes {engine.perft(st.clone(), depth)} time \d+", reply[0])
    # the other seat to act: hidden from a view, known from the whole position
    other = st.clone()
    other.apply_text(st.legal_moves()[0])
    while other.to_act == 0:
        other.apply(other.legal_actions()[0])
    s(public_fen(other))
    assert s("legalmoves")[0].startswith("error hidden-unknown seat 1 is to act")
    s("position fen " + other.position(hidden=True))
    assert s("legalmoves") == [f"legalmoves {len(other.legal_moves())} " + "; ".join(other.legal_moves())]
    assert s("go iterations 10")[0].startswith("error not-to-act ")


def test_a_whole_position_followed_by_events_keeps_the_whole_state_while_it_agrees():
    """Events after a whole position advance its whole state too; a draw it disagrees with drops it."""
    st = mid_game()
    after, events = seen_events(st, [st.legal_moves()[0]])
    assert events[-1].startswith("draw ")
    s = Session()
    s(f"position fen {st.position(hidden=True)} moves {'; '.join(events)}")
    assert s("perft 1")[0].startswith(f"perft 1 nodes {len(after.legal_actions())} ")
    assert s("legalmoves") == ["legalmoves %d %s" % (len(after.legal_moves()), "; ".join(after.legal_moves()))]
    wrong = "draw " + ("gg" if events[-1] != "draw gg" else "bb")
    s(f"position fen {st.position(hidden=True)} moves {'; '.join(events[:-1] + [wrong])}")
    assert s("perft 1")[0].startswith("error hidden-unknown ")


def eval_fields(line: str) -> tuple:
    """Return an `eval` line as ({key: value} of its head, [{key: value} per seat])."""
    head, *seats = line.split(" seat ")
    pairs = lambda tokens: dict(zip(tokens[::2], tokens[1::2]))
    return pairs(head.split()[1:]), [pairs(["seat"] + s.split()) for s in seats]


def test_eval_replies_the_terms_of_this_seats_view():
    """eval: the table as info strings, then the eval line holding explain()'s terms of this seat's observation."""
    st = mid_game(seed=5, decisions=60, players=3, seat=1)
    s = Session()
    s("newgame players 3 seat 1")
    assert s("eval") == ["error no-position no position is set: send position first"]
    s(public_fen(st, seat=1))
    replies = s("eval")
    assert all(r.startswith("info string ") for r in replies[:-1]) and replies[-1].startswith("eval view 1 ")
    assert sum(r.startswith("info string seat ") and ":" in r for r in replies) == 3
    data = explain(observation(st.snapshot(), 1))
    head, seats = eval_fields(replies[-1])
    assert head == {"view": "1", "players": "3", "progress": f"{data['progress']:.4f}", "over": "false",
                    "hidden": "public"}
    for got, want in zip(seats, data["seats"]):
        assert got["seat"] == str(want["seat"]) and got["weakest"] == want["weakest"]["colour"]
        assert got["totals"] == ",".join(map(str, want["totals"]))
        for key, value in (("leaders", want["terms"]["leaders"]), ("bonus", want["terms"]["weakest"]),
                           ("value", want["value"]), ("margin", want["margin"]), ("reward", want["reward"])):
            assert got[key] == f"{value:.4f}", key
    # the JSON form is explain()'s data itself, floats to four decimals
    reply = json.loads(s("protocol json", '{"cmd": "eval"}')[0])
    assert reply["type"] == "eval" and reply["seat"] == 1
    assert reply["seats"] == json.loads(json.dumps(format_json_floats(data["seats"])))


def format_json_floats(v):
    """Round floats as the JSON replies do."""
    if isinstance(v, float):
        return round(v, 4)
    if isinstance(v, list):
        return [format_json_floats(x) for x in v]
    if isinstance(v, dict):
        return {k: format_json_floats(x) for k, x in v.items()}
    return v


def test_eval_does_not_depend_on_tiles_this_seat_cannot_see():
    """The whole position and the public one with this seat's tiles give the same eval; so does a game over."""
    st = mid_game(seed=9, decisions=50)
    whole, public = Session(), Session()
    whole("position fen " + st.position(hidden=True))
    public(public_fen(st))
    assert whole("eval") == public("eval")
    rng = random.Random(2)
    end = st.clone()
    while not end.is_terminal():
        end.apply(rng.choice(end.legal_actions()))
    done = Session()
    done("position fen " + end.position(hidden=True))
    line = done("eval")[-1]
    head, seats = eval_fields(line)
    assert head["over"] == "true"
    ranks = end.result()
    assert float(seats[ranks.index(0)]["reward"]) >= 0.5


def test_a_bad_eval_is_refused_and_changes_nothing():
    """eval with an argument (text or JSON) is bad-argument; the session and its next eval are as before."""
    s = Session()
    s(public_fen(mid_game()))
    before, fp = s("eval"), s.bot.fingerprint()
    assert s("eval extra-arg") == ["error bad-argument eval takes no arguments, got 'extra-arg'"]
    assert s("eval 1 2") == ["error bad-argument eval takes no arguments, got '1 2'"]
    assert s.bot.fingerprint() == fp
    assert s("eval") == before
    s("protocol json")
    bad = json.loads(s('{"cmd": "eval", "seat": 0}')[0])
    assert bad == {"type": "error", "code": "bad-argument", "text": "eval: unknown argument 'seat' (it takes none)"}
    s('{"cmd": "protocol", "mode": "text"}')
    assert s("eval") == before


# ---------------------------------------------------------------- time


def test_clock_budget_keeps_a_reserve_and_never_exceeds_the_clock():
    """The share of a clock: never more than what is left less the reserve; more with an increment."""
    for clock in (0, 5, 50, 1000, 60_000, 600_000):
        for inc in (0, 100, 10_000):
            for bag in (0, 10, 131):
                for players in (2, 3, 4):
                    b = clock_budget_ms(clock, inc, bag, players, 10)
                    assert 0 <= b <= max(0.0, clock * 0.95 - 10)
    assert clock_budget_ms(60_000, 0, 120, 2, 10) < clock_budget_ms(60_000, 0, 20, 2, 10)
    assert clock_budget_ms(60_000, 0, 60, 2, 10) < clock_budget_ms(60_000, 1000, 60, 2, 10)
    # more players: fewer decisions of its own left, so more time for each
    assert clock_budget_ms(60_000, 0, 60, 2, 10) < clock_budget_ms(60_000, 0, 60, 4, 10)
    assert clock_budget_ms(10, 0, 60, 2, 10) == 0


def test_go_with_clocks_answers_one_bestmove():
    """go on clocks (own clock required, seats checked) searches and answers."""
    s = Session()
    s(public_fen(mid_game()))
    replies = s("go clock0 3000 clock1 3000 inc0 50 inc1 50")
    assert replies[-1].startswith("bestmove ") and sum(r.startswith("bestmove") for r in replies) == 1
    assert s("go clock1 3000")[0].startswith("error bad-argument go: clock0 ")
    assert s("go clock2 3000 clock0 5")[0].startswith("error bad-argument go: seat 2 ")


# ---------------------------------------------------------------- the codec


def test_text_and_json_commands_parse_to_the_same_command():
    """Each text command and its JSON form give the same Command."""
    pairs = [
        ("newgame players 3 board advanced seat 2", {"cmd": "newgame", "players": 3, "board": "advanced", "seat": 2}),
        ("newgame variants wonder,english seat 1", {"cmd": "newgame", "variants": ["english", "wonder"], "seat": 1}),
        ("newgame variants none", {"cmd": "newgame", "variants": []}),
        ("newgame", {"cmd": "newgame", "variants": []}),
        ("position startpos first 1 hand kkrbgg moves tile k a1; draw r",
         {"cmd": "position", "startpos": True, "first": 1, "hand": "kkrbgg", "moves": ["tile k a1", "draw r"]}),
        ("position fen a b c hand kk swapped 0,1,0,0",
         {"cmd": "position", "fen": "a b c", "hand": "kk", "swapped": "0,1,0,0"}),
        ("go iterations 10 movetime 20 clock0 5 clock1 6 inc0 1 inc1 2 seed 3",
         {"cmd": "go", "iterations": 10, "movetime": 20, "clocks": [5, 6], "incs": [1, 2], "seed": 3}),
        ("go infinite", {"cmd": "go", "infinite": True}),
        ("setoption name Workers value 2", {"cmd": "setoption", "name": "Workers", "value": "2"}),
        ("perft 2", {"cmd": "perft", "depth": 2}),
        ("eval", {"cmd": "eval"}),
        ("protocol json", {"cmd": "protocol", "mode": "json"}),
        ("quit", {"cmd": "quit"}),
    ]
    for text, obj in pairs:
        assert parse_text(text) == parse_json(json.dumps(obj)), text


def test_newgame_variants_reach_the_game_and_bad_ones_change_nothing():
    """`newgame variants` sets the game's variants in engine order; a bad list is bad-argument and keeps the old game."""
    assert parse_text("newgame variants wonder,buildings").args["variants"] == ("buildings", "wonder")
    assert parse_text("newgame players 4").args["variants"] == ()
    for line in ("newgame variants walls", "newgame variants english,english", "newgame variants",
                 "newgame variants english,", '{"cmd": "newgame", "variants": "english"}',
                 '{"cmd": "newgame", "variants": ["english", 3]}'):
        with pytest.raises(ProtocolError) as e:
            parse_json(line) if line.startswith("{") else parse_text(line)
        assert e.value.code == "bad-argument", line
    session = Session()

    def start_fen() -> str:
        shown = session("position startpos first 0 hand kkrbgg", "show")
        return shown[-1]

    assert session("newgame players 3 variants buildings,english seat 2") == []
    fen = start_fen()
    assert fen.startswith("position fen standard 3 ") and " english,buildings - hand kkrbgg " in fen
    bad = session("newgame variants castles")
    assert len(bad) == 1 and bad[0].startswith("error bad-argument newgame variants: unknown variant 'castles'")
    assert start_fen() == fen                              # the refused newgame changed nothing
    assert session("newgame") == []
    assert "english" not in start_fen() and "variants" not in "".join(session("show"))


def test_decode_line_refuses_what_is_not_a_printable_ascii_line():
    """Blank lines are nothing; CR LF is fine; control bytes, non-ASCII and overlong lines are bad-line."""
    assert decode_line(b"\n") is None and decode_line(b"  \t \r\n") is None
    assert decode_line(b"isready\r\n") == "isready"
    for bad in (b"is\x00ready", b"caf\xc3\xa9", b"\xff\xfe", b"go\x1b[0m", b"a\rb"):
        with pytest.raises(ProtocolError) as e:
            decode_line(bad)
        assert e.value.code == "bad-line"
    assert decode_line(b"x" * MAX_LINE_BYTES) == "x" * MAX_LINE_BYTES
    with pytest.raises(ProtocolError):
        decode_line(b"x" * (MAX_LINE_BYTES + 1))


def test_read_lines_cuts_lines_however_the_bytes_arrive_and_bounds_memory():
    """Lines split over chunks come out whole; an overlong line comes out cut; a last line without newline too."""
    data = b"tne\nisready\n" + b"y" * 200_000 + b"\nshow\nquit"
    rng = random.Random(3)
    stream = io.BytesIO(data)
    pieces = list(read_lines(lambda n: stream.read(rng.randint(1, 7000))))
    assert pieces[:2] == [b"tne", b"isready"]
    assert pieces[2] == b"y" * (MAX_LINE_BYTES + 1)
    assert pieces[3:] == [b"show", b"quit"]


def test_the_cli_flags_set_the_initial_options():
    """`tne-ai bot --workers 2 --seed 5 --no-reuse-tree --json` starts with those values, in JSON."""
    from click.testing import CliRunner
    result = CliRunner().invoke(bot_command, ["--workers", "2", "--seed", "5", "--no-reuse-tree", "--json"],
                                input=b'{"cmd": "tne"}\n')
    assert result.exit_code == 0, result.output
    ident = json.loads(result.stdout.splitlines()[0])
    values = {o["name"]: o["default"] for o in ident["options"]}
    assert (values["Workers"], values["Seed"], values["ReuseTree"]) == (2, 5, False)
    assert json.loads(result.stdout.splitlines()[1]) == {"type": "tneok"}
    bad = CliRunner().invoke(bot_command, ["--workers", "0"], input=b"")
    assert bad.exit_code == 2 and "Workers" in bad.output


# ---------------------------------------------------------------- recording a transcript


def record(path: str) -> str:
    """Return a transcript with the engine's replies to a file's `>` lines (timings wildcarded, written patterns kept)."""
    text = Path(path).read_text()
    args, steps = parse_transcript(text)
    bot = InProcessBot(args)
    todo = iter(steps)
    out = []
    for raw in text.splitlines():
        if raw.startswith("<"):
            continue
        if not raw.startswith(">"):
            out.append(raw)                 # comments and blank lines stay where they are
            continue
        st = next(todo)
        was_searching = bot.session.searching
        bot.send(st.line)
        if not was_searching and bot.session.searching and b"infinite" not in st.line:
            bot.session.wait(BLOCK_TIMEOUT)
        time.sleep(0.01)
        out.append(raw)
        replies = drain(bot.replies)
        if st.expect:                       # hand-written patterns stay as they are
            out += [("<* " if repeat else "< ") + pattern for repeat, pattern in st.expect]
            continue
        for line in replies:
            line = re.sub(r"\b(nps|time) \d+", r"\1 " + WILDCARD, line)
            line = re.sub(r'"(nps|time)": \d+', r'"\1": ' + WILDCARD, line)
            out.append("< " + line)
    bot.finish()
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "record":
        sys.stdout.write(record(sys.argv[2]))
    else:
        sys.exit(__doc__)


@pytest.mark.parametrize("go,searched", [("go iterations 300 seed 3", True), ("go infinite", False)])
def test_end_of_input_lets_the_last_go_answer(go, searched):
    """A piped script ends with its input: a bounded go still finishes and answers, an infinite one is stopped and answers."""
    script = f"newgame\nposition startpos first 0 hand kkrbgg\n{go}\n"
    out = subprocess.run([sys.executable, "-m", "tne_ai", "bot"], input=script, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert sum(line.startswith("bestmove ") for line in lines) == 1
    assert lines[-1].startswith("bestmove ")
    if searched:
        last_info = [line for line in lines if line.startswith("info iterations")][-1]
        assert last_info.split()[2] == "300"
