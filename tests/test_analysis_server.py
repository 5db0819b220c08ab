"""`tne-ai analysis-server` (tne_ai/analysis/server.py, docs/analysis.md), driven as a real process.

A small test client writes JSON query lines to the server's stdin from the
test and reads its answers from stdout on a thread. Every wait has a
generous timeout that only guards against a hang; nothing here asserts a
duration (the speed is bench/server_bench.py's).
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

import engine
from engine.actions import format_action
from engine.position import format_position
from engine.record import GameRecorder, record_start, replay_record
from engine.view import letters
from tne_ai.analysis.server import MAX_LINE_BYTES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
WAIT = 120.0                # seconds before a missing answer counts as a hang
TIMING = ("seconds", "iterations_per_second")


def body_lines(path: Path) -> list:
    return [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]


GAME_TEXT = (EXAMPLES / "game.txt").read_text()
PUBLIC_25 = body_lines(EXAMPLES / "public.txt")[0]          # game.txt after 25 decisions, public part
SEAT1_TEXT = "\n".join(body_lines(EXAMPLES / "seat1.txt"))   # what seat 1 was told of the first 25


def replayed(text: str = GAME_TEXT) -> tuple:
    return replay_record(text, engine.new_game, engine.State.from_snapshot)


def state_after(k: int, text: str = GAME_TEXT) -> engine.State:
    _, actions = replayed(text)
    s = record_start(text, engine.new_game, engine.State.from_snapshot)
    for a in actions[:k]:
        s.apply(a)
    return s


def finished_record() -> str:
    """The record of a whole seeded random 2-player game (it ends)."""
    s = engine.new_game(2, 11)
    rec = GameRecorder(s, seed=11)
    rng = random.Random(11)
    while not s.is_terminal():
        rec.apply(rng.choice(s.legal_actions()))
    return rec.text()


def untimed(answer: dict) -> dict:
    """An answer without its wall-time fields."""
    a = json.loads(json.dumps(answer))
    if isinstance(a.get("analysis"), dict):
        for key in TIMING:
            a["analysis"].pop(key, None)
    if isinstance(a.get("review"), dict):
        a["review"].pop("seconds", None)
    return a


def closes_a_line(a: dict) -> bool:
    """Whether an answer is the last one a line gets: an error, an action's reply or a final answer."""
    return "action" in a or a.get("isFinal") is True or ("error" in a and "turnNumber" not in a)


class Server:
    """A test client of a real `tne-ai analysis-server` process."""

    def __init__(self, *args, command=("analysis-server",)):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-m", "tne_ai", *command, *map(str, args)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     cwd=ROOT)
        self.cond = threading.Condition()
        self.answers = []           # every answer, in arrival order
        self.unread = []            # answers not yet taken by take()
        self.bad_lines = []         # stdout lines that are not JSON objects
        self.ended = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            try:
                obj = json.loads(raw)
                ok = isinstance(obj, dict)
            except ValueError:
                ok = False
            with self.cond:
                if ok:
                    self.answers.append(obj)
                    self.unread.append(obj)
                else:
                    self.bad_lines.append(raw)
                self.cond.notify_all()
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def send(self, *queries) -> None:
        """Write queries (dicts, or str/bytes lines as they are) to the server, one line each."""
        data = bytearray()
        for q in queries:
            if isinstance(q, dict):
                q = json.dumps(q)
            data += (q.encode() if isinstance(q, str) else q) + b"\n"
        self.proc.stdin.write(bytes(data))
        self.proc.stdin.flush()

    def take(self, qid, timeout: float = WAIT) -> list:
        """Wait for the answer that closes query `qid` (or its error); return its answers, taken out of unread."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                mine = [a for a in self.unread if a.get("id") == qid]
                end = next((i for i, a in enumerate(mine) if closes_a_line(a)), None)
                if end is not None:
                    got = mine[:end + 1]
                    for a in got:
                        self.unread.remove(a)
                    return got
                left = deadline - time.monotonic()
                assert left > 0 and not self.ended, f"no last answer for {qid!r}; got {mine}; {self.err()}"
                self.cond.wait(min(left, 1.0))

    def ask(self, query, timeout: float = WAIT) -> list:
        self.send(query)
        return self.take(query["id"], timeout)

    def ping(self, qid: str = "health") -> dict:
        (answer,) = self.ask({"id": qid, "action": "ping"}, timeout=30)
        assert answer["ok"] is True and answer["action"] == "ping"
        return answer

    def worker_pids(self) -> list:
        """The pids of the server's worker processes (its children that are not multiprocessing helpers)."""
        out = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                    cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid == self.proc.pid and b"resource_tracker" not in cmd:
                    out.append(int(entry))
        return out

    def err(self) -> str:
        self.stderr.seek(0)
        return "stderr: " + self.stderr.read().decode(errors="replace")[-3000:]

    def close(self, timeout: float = WAIT) -> int:
        """Close stdin (the server answers what is in flight, then exits); return the exit status."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            status = self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(30)
        return status


@pytest.fixture(scope="module")
def server():
    s = Server("--workers", 2)
    yield s
    assert s.close() == 0, s.err()
    assert s.bad_lines == []
    assert "Traceback" not in s.err()


# ---------------------------------------------------------------- answers


def test_a_public_position_and_hand_answers_with_id_and_turn_number(server):
    query = {"id": "pub", "position": PUBLIC_25, "hand": "krrrbb", "iterations": 200, "seed": 3}
    (answer,) = server.ask(query)
    assert answer["id"] == "pub" and answer["turnNumber"] == 0
    assert answer["seat"] == 0 and answer["toAct"] == 0
    assert answer["isFinal"] is True and answer["turnsLeft"] == 0
    a = answer["analysis"]
    assert a["to_act"] is True and a["seat"] == 0 and letters(a["hand"]) == "krrrbb"
    assert a["iterations"] == 200 and a["best"] == a["candidates"][0]["move"]
    legal = set(state_after(25).legal_moves())
    assert {c["move"] for c in a["candidates"]} <= legal


def test_the_full_position_is_cut_to_the_seat_and_answers_as_the_public_part_plus_hand(server):
    full = format_position(state_after(25).snapshot(), hidden=True)
    base = {"iterations": 150, "seed": 9, "candidates": 3}
    (a,) = server.ask(dict(base, id="full", position=full))
    (b,) = server.ask(dict(base, id="public", position=PUBLIC_25, hand="krrrbb"))
    assert untimed(a)["analysis"] == untimed(b)["analysis"]
    assert len(a["analysis"]["candidates"]) == 3


def test_hand_letters_in_either_case_and_swapped_colours_unknown(server):
    """`hand` takes capitals (as boards print them); without `swapped` the seat's swapped colours are unknown."""
    base = {"position": PUBLIC_25, "iterations": 150, "seed": 4, "candidates": 2}
    (a,) = server.ask(dict(base, id="lower", hand="krrrbb"))
    (b,) = server.ask(dict(base, id="upper", hand="KRRRBB"))
    assert untimed(a)["analysis"] == untimed(b)["analysis"]
    # seat 1 swapped 7 tiles by decision 25: it may leave out their colours, not give a wrong count
    waiting = {"position": PUBLIC_25, "seat": 1, "hand": "KkkRrG", "iterations": 40, "samples": 2, "seed": 1}
    (c,) = server.ask(dict(waiting, id="forgot"))
    assert c["analysis"]["seat"] == 1 and c["analysis"]["to_act"] is False
    assert letters(c["analysis"]["hand"]) == "kkkrrg"
    (d,) = server.ask(dict(waiting, id="wrong", swapped="k"))
    assert d["field"] == "swapped" and "seat 1 swapped 7 tiles, not 1" in d["error"]


def test_analyze_turns_over_a_record_answers_each_turn_once(server):
    _, actions = replayed()
    turns = [0, 7, 25, 60]
    answers = server.ask({"id": "rec", "record": GAME_TEXT, "analyzeTurns": turns, "iterations": 60,
                          "candidates": 1})
    assert sorted(a["turnNumber"] for a in answers) == sorted(turns)
    assert [a["turnsLeft"] for a in answers] == [3, 2, 1, 0]
    assert [a["isFinal"] for a in answers] == [False, False, False, True]
    for a in answers:
        s = state_after(a["turnNumber"])
        assert a["seat"] == a["toAct"] == s.to_act
        assert a["played"] == format_action(actions[a["turnNumber"]])
        assert a["analysis"]["to_act"] is True and len(a["analysis"]["candidates"]) == 1


def test_a_fixed_seat_of_a_record_is_analysed_waiting_or_to_act(server):
    answers = server.ask({"id": "rec1", "record": GAME_TEXT, "analyzeTurns": [0, 1, 2, 3], "seat": 1,
                          "iterations": 40, "samples": 2})
    by_turn = {a["turnNumber"]: a for a in answers}
    for t, a in by_turn.items():
        assert a["seat"] == 1
        assert a["analysis"]["to_act"] is (state_after(t).to_act == 1)
        if not a["analysis"]["to_act"]:
            assert a["analysis"]["samples"] == 2 and "replies" in a["analysis"]


def test_a_seat_record_is_analysed_at_event_counts(server):
    answers = server.ask({"id": "sr", "seatRecord": SEAT1_TEXT, "analyzeTurns": [32, 2, 0], "iterations": 40,
                          "samples": 2})
    assert sorted(a["turnNumber"] for a in answers) == [0, 2, 32]
    by_turn = {a["turnNumber"]: a for a in answers}
    assert all(a["seat"] == 1 for a in answers)
    assert by_turn[2]["played"] == "cat f1" and "played" not in by_turn[32]
    assert by_turn[32]["analysis"]["to_act"] is False            # seat 0 attacks in a revolt
    # the default turn is the end of the seat record
    (end,) = server.ask({"id": "sr-end", "seatRecord": SEAT1_TEXT, "iterations": 40, "samples": 2})
    assert end["turnNumber"] == 32


def test_startpos_dealt_and_from_one_hand(server):
    (dealt,) = server.ask({"id": "deal", "startpos": {"players": 3, "seed": 4, "variants": ["wonder"]},
                           "iterations": 30})
    s = engine.new_game(3, 4, "standard", ["wonder"])
    assert dealt["seat"] == s.to_act and dealt["analysis"]["hand"] == s.snapshot()["hands"][s.to_act]
    (mine,) = server.ask({"id": "mine", "startpos": {"players": 2, "first": 1}, "hand": "kkrbgg", "seat": 0,
                          "iterations": 40, "samples": 2})
    assert mine["seat"] == 0 and mine["toAct"] == 1 and mine["analysis"]["to_act"] is False


def test_explain_is_included_on_request(server):
    (a,) = server.ask({"id": "ex", "position": PUBLIC_25, "hand": "krrrbb", "iterations": 20,
                       "includeExplain": True})
    assert a["explain"]["seat"] == 0 and len(a["explain"]["seats"]) == 2


def test_include_review_gives_the_played_decisions_losses_and_each_seats_accuracy(server):
    """A review query's turns are `tne-ai review --seed S`'s decisions at those plies; the last answer sums them up."""
    from search.agent import Limits
    from search.review import record_decisions, review_items, summarise
    query = {"id": "rev", "record": GAME_TEXT, "analyzeTurns": [12, 2, 3], "includeReview": True,
             "iterations": 60, "seed": 4, "candidates": 1}
    answers = server.ask(query)
    assert sorted(a["turnNumber"] for a in answers) == [2, 3, 12] and answers[-1]["isFinal"] is True
    _, items = record_decisions(GAME_TEXT)
    expected = review_items([it for it in items if it[0] in (2, 3, 12)], Limits(iterations=60), seed=4)
    got = {a["turnNumber"]: a for a in answers}
    for d in expected:
        review = dict(got[d["ply"]]["review"])
        assert review.pop("seconds") >= 0 and review == {k: v for k, v in d.items() if k != "seconds"}
        assert got[d["ply"]]["played"] == d["played"] and review["seat"] == got[d["ply"]]["seat"]
        assert review["accuracy"] is not None and review["equally_good"][0] == review["best"]
    summary = answers[-1]["reviewSummary"]
    assert summary == summarise(expected, 2)
    assert [s["seat"] for s in summary] == sorted({d["seat"] for d in expected})
    assert all("reviewSummary" not in a for a in answers[:-1])
    # a seat named that is not the one to act at a turn gets its analysis there, and no review
    (waiting,) = server.ask({"id": "rev-seat", "record": GAME_TEXT, "analyzeTurns": [2], "seat": 0,
                             "includeReview": True, "iterations": 40, "samples": 2})
    assert waiting["analysis"]["to_act"] is False and "review" not in waiting
    assert waiting["reviewSummary"] == []


def test_concurrent_queries_all_finish_and_health_is_answered_meanwhile(server):
    queries = [{"id": f"c{i}", "startpos": {"players": 2 + i % 3, "seed": i}, "iterations": 300 + 50 * i}
               for i in range(8)]
    queries.append({"id": "c-rec", "record": GAME_TEXT, "analyzeTurns": list(range(0, 40, 4)), "iterations": 50})
    server.send(*queries)
    busy = server.ping("busy")
    assert busy["workers"] == 2
    for q in queries:
        answers = server.take(q["id"])
        assert answers[-1]["isFinal"] is True and "error" not in answers[-1]
        assert len(answers) == len(q.get("analyzeTurns", [0]))


@pytest.mark.slow
def test_the_same_query_gives_the_same_analysis_whatever_runs_beside_it(server):
    query = {"record": GAME_TEXT, "analyzeTurns": [10, 11], "iterations": 300, "seed": 77, "candidates": 4}
    server.send(*[dict(query, id=f"same{i}") for i in range(3)],
                {"id": "noise", "startpos": {"players": 4}, "iterations": 2000})
    runs = [sorted((untimed(a) for a in server.take(f"same{i}")), key=lambda a: a["turnNumber"])
            for i in range(3)]
    server.take("noise")
    for r in runs[1:]:
        assert [a["analysis"] for a in r] == [a["analysis"] for a in runs[0]]
    # and with one worker, turn by turn
    alone = Server("--workers", 1)
    try:
        one = sorted((untimed(a) for a in alone.ask(dict(query, id="same"))), key=lambda a: a["turnNumber"])
    finally:
        assert alone.close() == 0, alone.err()
    assert [a["analysis"] for a in one] == [a["analysis"] for a in runs[0]]


def test_a_turn_is_searched_with_the_query_seed_plus_its_number_as_analyze_does(server):
    """Turn 0 of a position is what `tne-ai analyze --json --seed S` gives for it."""
    from click.testing import CliRunner
    from tne_ai.cli import main
    res = CliRunner().invoke(main, ["analyze", "--json", PUBLIC_25, "--hand", "krrrbb", "--iterations", "120",
                                    "--seed", "5"])
    assert res.exit_code == 0, res.output
    cli = json.loads(res.stdout)["analyses"][0]
    (a,) = server.ask({"id": "as-cli", "position": PUBLIC_25, "hand": "krrrbb", "iterations": 120, "seed": 5})
    for key in TIMING:
        cli.pop(key)
    assert untimed(a)["analysis"] == cli


# ---------------------------------------------------------------- actions


def test_query_version_and_ping(server):
    (v,) = server.ask({"id": "v", "action": "query_version"})
    assert v == {"id": "v", "action": "query_version", "name": "tne-ai", "version": v["version"]}
    p = server.ping("p")
    assert set(p) == {"id", "action", "ok", "workers", "running", "queued", "preparing"}


def test_analyze_server_is_the_analysis_server():
    """`tne-ai analyze --server` runs the same server, its --workers the pool's size."""
    srv = Server("--server", "--workers", 1, command=("analyze",))
    try:
        assert srv.ping("p")["workers"] == 1
        (a,) = srv.ask({"id": "q", "startpos": {"players": 2}, "hand": "kkrbgg", "iterations": 40})
        assert a["id"] == "q" and a["isFinal"] and a["analysis"]["iterations"] == 40
    finally:
        assert srv.close() == 0


def test_terminate_stops_running_and_queued_queries_promptly(server):
    server.send({"id": "long-it", "startpos": {}, "iterations": 10 ** 8},
                {"id": "long-s", "startpos": {"players": 3}, "seconds": 60},
                {"id": "long-wait", "startpos": {}, "hand": "kkrbgg", "seat": 0, "iterations": 10 ** 8},
                {"id": "queued", "record": GAME_TEXT, "analyzeTurns": [1, 2, 3], "iterations": 10 ** 8})
    deadline = time.monotonic() + WAIT
    while server.ping("p1")["running"] < 2:           # both workers are searching
        assert time.monotonic() < deadline
        time.sleep(0.05)
    (dup,) = server.ask({"id": "long-it", "startpos": {}, "iterations": 10})
    assert dup["field"] == "id" and "in use" in dup["error"]
    (ack,) = server.ask({"id": "t1", "action": "terminate", "terminateId": "long-it"})
    assert ack == {"id": "t1", "action": "terminate", "terminateId": "long-it", "found": True}
    (done,) = server.take("long-it", timeout=30)
    assert done == {"id": "long-it", "isCancelled": True, "isFinal": True, "turnsAnswered": 0,
                    "turnsCancelled": 1}
    (ack,) = server.ask({"id": "t2", "action": "terminate_all"})
    assert ack == {"id": "t2", "action": "terminate_all", "terminated": 3}
    for qid, turns in (("long-s", 1), ("long-wait", 1), ("queued", 3)):
        (done,) = server.take(qid, timeout=30)
        assert done["isCancelled"] is True and done["turnsCancelled"] == turns
    (gone,) = server.ask({"id": "t3", "action": "terminate", "terminateId": "long-it"})
    assert gone["found"] is False
    # the workers are free again, and the cancelled id can be used again
    assert server.ping("p2")["running"] == 0
    (a,) = server.ask({"id": "long-it", "startpos": {}, "iterations": 10})
    assert a["isFinal"] is True and a["analysis"]["iterations"] == 10


def test_priority_orders_the_queue_and_a_full_queue_is_an_error():
    s = Server("--workers", 1, "--max-queued", 3)
    try:
        s.send({"id": "blocker", "startpos": {}, "seconds": 60})
        deadline = time.monotonic() + WAIT
        while s.ping()["running"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        s.send({"id": "low", "startpos": {}, "iterations": 10, "priority": -5},
               {"id": "mid", "startpos": {}, "iterations": 10},
               {"id": "high", "startpos": {}, "iterations": 10, "priority": 7})
        (full,) = s.ask({"id": "more", "startpos": {}, "iterations": 10})
        assert full["field"] == "queue" and "--max-queued 3" in full["error"]
        while s.ping()["queued"] < 3:                   # all three read and waiting for the worker
            assert time.monotonic() < deadline
            time.sleep(0.05)
        s.ask({"id": "t", "action": "terminate", "terminateId": "blocker"})
        s.take("blocker")
        for qid in ("low", "mid", "high"):
            s.take(qid)
        order = [a["id"] for a in s.answers if a.get("turnNumber") == 0]
        assert order == ["high", "mid", "low"]
    finally:
        assert s.close() == 0, s.err()


# ---------------------------------------------------------------- bad queries


def bad_queries() -> list:
    """(line, the id the error carries, its field, a piece of its text)."""
    _, actions = replayed()
    record_lines = GAME_TEXT.splitlines()
    contradicting = "\n".join(ln if ln != "leader b l11" else "leader b l11\nleader b l11" for ln in record_lines)
    full = format_position(state_after(25).snapshot(), hidden=True)
    start = {"startpos": {}, "iterations": 10}
    q = lambda qid, **kw: json.dumps(dict(start, id=qid, **kw))  # noqa: E731
    return [
        (b"not json", None, "line", "not JSON"),
        (b"[1, 2]", None, "line", "got an array"),
        (b'"a string"', None, "line", "got a string"),
        (b"null", None, "line", "got null"),
        (b'{"id": "nan", "startpos": {}, "seconds": NaN}', None, "line", "NaN"),
        (b'{"id": "deep", "startpos": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", None, "line", "not JSON"),
        (b'{"id": "big", "startpos": {}, "seed": ' + b"9" * 5000 + b"}", None, "line", "not JSON"),
        ('{"id": "utf", "position": "\u00e9"}'.encode(), "utf", "line", "byte 0xc3"),
        (b'{"id": "ctl",\x01 "startpos": {}}', None, "line", "byte 0x01"),
        (b'{"id": "overlong", "record": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}', None, "line", "longer than"),
        (json.dumps(start).encode(), None, "id", "missing"),
        (json.dumps(dict(start, id=5)).encode(), None, "id", "expected a string"),
        (json.dumps(dict(start, id="")).encode(), None, "id", "expected a string"),
        (json.dumps(dict(start, id="a\u00e9")).encode(), None, "id", "expected a string"),
        (b'{"id": "twice", "startpos": {}, "seed": 1, "seed": 2}', "twice", "seed", "given twice"),
        (q("unknown", colour="red"), "unknown", "colour", "unknown field"),
        (q("unknown2", startpos={"players": 2, "colour": 1}), "unknown2", "startpos.colour", "unknown field"),
        (json.dumps({"id": "none", "iterations": 10}), "none", "position", "exactly one of"),
        (q("two", position=PUBLIC_25), "two", "startpos", "not position and startpos"),
        (q("it1", iterations="10"), "it1", "iterations", "expected an integer"),
        (q("it2", iterations=0), "it2", "iterations", "expected an integer 1.."),
        (q("it3", iterations=True), "it3", "iterations", "expected an integer"),
        (q("it4", iterations=1.5), "it4", "iterations", "expected an integer"),
        (q("s1", seconds=-1), "s1", "seconds", "above 0"),
        (q("s2", seconds="1"), "s2", "seconds", "above 0"),
        (q("s3", seconds=1, movetime=5), "s3", "seconds", "not both"),
        (q("mt", movetime=0), "mt", "movetime", "expected an integer"),
        (q("seed", seed=-1), "seed", "seed", "expected an integer"),
        (q("samples", samples=0), "samples", "samples", "expected an integer"),
        (q("cands", candidates=-1), "cands", "candidates", "expected an integer"),
        (q("prio", priority="high"), "prio", "priority", "expected an integer"),
        (q("expl", includeExplain=1), "expl", "includeExplain", "true or false"),
        (q("seat1", seat="0"), "seat1", "seat", "expected an integer"),
        (q("seat2", seat=7), "seat2", "seat", "expected an integer 0..3"),
        (q("seat3", seat=3), "seat3", "seat", "out of range"),
        (q("hand1", hand=5), "hand1", "hand", "expected a string"),
        (q("hand2", hand="kkz"), "hand2", "hand", "hand"),
        (q("hand3", hand="kkrbg"), "hand3", "hand", "6 tiles"),
        (q("swap1", swapped="k"), "swap1", "swapped", "goes with hand"),
        (q("turns0", analyzeTurns=[0]), "turns0", "analyzeTurns", "record or a seatRecord"),
        (q("sp1", startpos={"players": 5}), "sp1", "startpos.players", "2..4"),
        (q("sp2", startpos={"board": "huge"}), "sp2", "startpos.board", "standard"),
        (q("sp3", startpos={"variants": ["tea"]}), "sp3", "startpos.variants", "unknown variant"),
        (q("sp4", startpos={"variants": "wonder"}), "sp4", "startpos.variants", "array"),
        (q("sp5", startpos={"first": 1}), "sp5", "startpos.first", "goes with hand"),
        (q("sp6", startpos={"seed": 1}, hand="kkrbgg"), "sp6", "startpos.seed", "leave startpos.seed out"),
        (q("sp7", startpos={"first": 2}, hand="kkrbgg"), "sp7", "startpos.first", "0..1"),
        (q("sp8", startpos=[2]), "sp8", "startpos", "expected an object"),
        (q("sp9", startpos={}, hand="kkrbgg", swapped="k"), "sp9", "swapped", "nobody has swapped"),
        (json.dumps({"id": "pos1", "position": "not a position", "iterations": 10}), "pos1", "position",
         "position"),
        (json.dumps({"id": "pos2", "position": 7}), "pos2", "position", "expected a string"),
        (json.dumps({"id": "pos3", "position": PUBLIC_25}), "pos3", "hand", "needs the hand"),
        (json.dumps({"id": "pos4", "position": PUBLIC_25, "hand": "krrrb"}), "pos4", "hand", "hand krrrb"),
        (json.dumps({"id": "pos5", "position": full, "hand": "krrrbb"}), "pos5", "hand", "public position"),
        (json.dumps({"id": "pos6", "position": PUBLIC_25, "hand": "krrrbb", "swapped": "1,2"}), "pos6",
         "swapped", "four counts"),
        (json.dumps({"id": "pos7", "position": PUBLIC_25, "hand": "krrrbb", "seat": 2}), "pos7", "seat",
         "out of range"),
        (json.dumps({"id": "rec1", "record": "garbage"}), "rec1", "record", "record"),
        (json.dumps({"id": "rec2", "record": contradicting, "analyzeTurns": [1]}), "rec2", "record", "illegal"),
        (json.dumps({"id": "rec3", "record": GAME_TEXT, "analyzeTurns": [1, len(actions) + 1]}), "rec3",
         "analyzeTurns", "out of range"),
        (json.dumps({"id": "rec4", "record": GAME_TEXT, "analyzeTurns": [3, 3]}), "rec4", "analyzeTurns", "twice"),
        (json.dumps({"id": "rec5", "record": GAME_TEXT, "analyzeTurns": []}), "rec5", "analyzeTurns", "non-empty"),
        (json.dumps({"id": "rec6", "record": GAME_TEXT, "analyzeTurns": [-1]}), "rec6", "analyzeTurns", "0 or more"),
        (json.dumps({"id": "rec7", "record": GAME_TEXT, "analyzeTurns": "5"}), "rec7", "analyzeTurns", "array"),
        (json.dumps({"id": "rec8", "record": GAME_TEXT, "hand": "kkrbgg"}), "rec8", "hand", "game record"),
        (json.dumps({"id": "rec9", "record": GAME_TEXT, "seat": 2}), "rec9", "seat", "out of range"),
        (json.dumps({"id": "rec10", "record": finished_record()}), "rec10", "record", "the game is over"),
        (json.dumps({"id": "sr1", "seatRecord": "garbage"}), "sr1", "seatRecord", "seatRecord line 1"),
        (json.dumps({"id": "sr2", "seatRecord": SEAT1_TEXT.replace("cat f1", "cat z99")}), "sr2", "seatRecord",
         "seat record"),
        (json.dumps({"id": "sr3", "seatRecord": SEAT1_TEXT, "seat": 0}), "sr3", "seat", "seat 1's"),
        (json.dumps({"id": "sr4", "seatRecord": SEAT1_TEXT, "analyzeTurns": [33]}), "sr4", "analyzeTurns",
         "events 0..32"),
        (json.dumps({"id": "sr5", "seatRecord": SEAT1_TEXT, "analyzeTurns": [4]}), "sr5", "analyzeTurns",
         "'draw' event"),
        (json.dumps({"id": "sr6", "seatRecord": SEAT1_TEXT, "hand": "kkrbgg"}), "sr6", "hand", "seat record"),
        (json.dumps({"id": "rv1", "record": GAME_TEXT, "includeReview": True}), "rv1", "includeReview",
         "needs analyzeTurns"),
        (json.dumps({"id": "rv2", "record": GAME_TEXT, "analyzeTurns": [1], "includeReview": 1}), "rv2",
         "includeReview", "expected true or false"),
        (json.dumps({"id": "rv3", "seatRecord": SEAT1_TEXT, "analyzeTurns": [2], "includeReview": True}), "rv3",
         "includeReview", "applies to a record"),
        (q("rv4", includeReview=True), "rv4", "includeReview", "not to startpos"),
        (json.dumps({"id": "act1", "action": "fly"}), "act1", "action", "expected one of"),
        (json.dumps({"id": "act2", "action": "terminate"}), "act2", "terminateId", "missing"),
        (json.dumps({"id": "act3", "action": "terminate", "terminateId": 5}), "act3", "terminateId",
         "expected a string"),
        (json.dumps({"id": "act4", "action": "ping", "startpos": {}}), "act4", "startpos", "unknown field"),
    ]


def test_every_bad_query_gets_its_error_and_the_server_goes_on(server):
    cases = bad_queries()
    server.send(*[line for line, *_ in cases])
    server.ping("after-bad")            # answered at once, before the errors found in the games maybe
    anonymous = iter(server.take(None) for qid in [c[1] for c in cases] if qid is None)
    for line, qid, field_name, text in cases:
        (got,) = server.take(qid) if qid is not None else next(anonymous)
        where = f"{line[:80]!r} -> {got}"
        assert set(got) == {"id", "error", "field"}, where
        assert got["id"] == qid and got["field"] == field_name and text in got["error"], where
        assert "\n" not in got["error"] and len(got["error"]) < 600, where
    after = server.ping("after-errors")
    assert after["queued"] == after["preparing"] == 0
    assert [a for a in server.unread if "error" in a] == []
    # and good queries still work
    (a,) = server.ask({"id": "still-fine", "startpos": {}, "iterations": 10})
    assert a["isFinal"] is True


@pytest.mark.slow
def test_a_dead_worker_fails_its_turn_only_and_is_replaced():
    s = Server("--workers", 1)
    try:
        s.send({"id": "victim", "startpos": {}, "seconds": 60})
        deadline = time.monotonic() + WAIT
        while s.ping()["running"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        (pid,) = s.worker_pids()
        os.kill(pid, signal.SIGKILL)
        (died,) = s.take("victim")
        assert died["field"] == "internal" and "died" in died["error"] and died["isFinal"] is True
        (a,) = s.ask({"id": "next", "startpos": {}, "iterations": 10})
        assert a["isFinal"] is True and "analysis" in a
    finally:
        assert s.close() == 0, s.err()


def test_end_of_input_answers_what_is_in_flight_then_exits_0():
    s = Server("--workers", 1)
    s.send({"id": "a", "startpos": {}, "iterations": 500}, {"id": "b", "startpos": {}, "iterations": 500})
    assert s.close() == 0, s.err()
    assert [a["id"] for a in s.answers if a.get("isFinal")] == ["a", "b"]


@pytest.mark.slow
def test_sigterm_stops_the_workers_and_the_server():
    s = Server("--workers", 2)
    s.send({"id": "x", "startpos": {}, "seconds": 60}, {"id": "y", "startpos": {}, "iterations": 10 ** 8})
    deadline = time.monotonic() + WAIT
    while s.ping()["running"] < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    pids = s.worker_pids()
    assert len(pids) == 2
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(WAIT) == 143
    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state != "Z"

    deadline = time.monotonic() + WAIT
    while any(alive(p) for p in pids):
        assert time.monotonic() < deadline, "a worker outlived the server"
        time.sleep(0.05)
    s.close()
    assert "Traceback" not in s.err()


# ---------------------------------------------------------------- fuzz


def fuzz_lines(n: int, seed: int) -> list:
    """n lines: valid queries with tiny limits, mutated, and garbage (all searches stay short)."""
    rng = random.Random(seed)
    newgame, position = SEAT1_TEXT.splitlines()
    short_seat_record = newgame + "\n" + "; ".join(position.split("; ")[:12])     # replaying costs
    templates = [
        {"id": "f", "startpos": {"players": 2}, "iterations": 10, "candidates": 1},
        {"id": "f", "startpos": {"players": 3, "first": 1}, "hand": "kkrbgg", "seat": 0, "iterations": 8,
         "samples": 2, "candidates": 1},
        {"id": "f", "position": PUBLIC_25, "hand": "krrrbb", "iterations": 10, "candidates": 1},
        {"id": "f", "position": PUBLIC_25, "hand": "krrrbb", "swapped": "0,0,0,0", "movetime": 5},
        {"id": "f", "record": GAME_TEXT, "analyzeTurns": [0, 3], "iterations": 5, "candidates": 2},
        {"id": "f", "seatRecord": short_seat_record, "analyzeTurns": [2], "iterations": 6, "samples": 2},
        {"id": "f", "startpos": {"players": 4, "seed": 3, "variants": ["english"]}, "seconds": 0.002},
    ]
    actions = [{"id": "f", "action": "ping"}, {"id": "f", "action": "query_version"},
               {"id": "f", "action": "terminate", "terminateId": "f1"}, {"id": "f", "action": "terminate_all"}]
    small = [0, 1, 2, 3, 5, 20]
    values = [None, True, False, -1, 0, 1, 3, 2 ** 70, 10 ** 30, 1.5, -0.0, 1e300, "", "x", "kkrbgg", "0,1,0,0",
              [], [0], [1, 2, 2], [-3], {}, {"players": 9}, {"id": "f"}, "\u00e9\u0000", "a" * 300]
    # values for the limits never make a valid query slow
    limit_values = {"iterations": small + ["5", 1.5, -4, 2 ** 70, None],
                    "movetime": [0, 1, 5, 20, -1, "5", 2.5],
                    "seconds": [0, -1, 0.001, 0.01, "1", None, float("inf")],
                    "samples": [0, 1, 2, 4, 1001, "2"],
                    "analyzeTurns": [[], [0], [1, 2], [0, 999], [2, 2], "0", [None], [4, 5, 6]]}
    keys = ["id", "position", "startpos", "record", "seatRecord", "seat", "hand", "swapped", "analyzeTurns",
            "iterations", "movetime", "seconds", "seed", "samples", "candidates", "priority", "includeExplain",
            "action", "terminateId", "bogus", "Iterations", ""]

    def mutate(obj: dict) -> dict:
        obj = json.loads(json.dumps(obj))
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            op = rng.random()
            if op < 0.3 and obj:
                del obj[rng.choice(list(obj))]
            elif op < 0.6:
                k = rng.choice(keys)
                obj[k] = rng.choice(limit_values.get(k, values))
            elif op < 0.75 and isinstance(obj.get("startpos"), dict):
                obj["startpos"][rng.choice(["players", "board", "variants", "first", "seed", "x"])] = \
                    rng.choice([1, 2, 3, 4, 5, "standard", "advanced", ["wonder"], ["tea"], None, -1])
            elif op < 0.9:
                obj["id"] = rng.choice(["f1", "f2", f"f{len(lines) - 1}", "", 7, None])
                if "terminateId" in obj:
                    obj["terminateId"] = f"f{len(lines) - rng.randrange(1, 20)}"
            else:
                k = rng.choice(list(limit_values))
                obj[k] = rng.choice(limit_values[k])
        if "iterations" not in obj and "movetime" not in obj and "seconds" not in obj:
            obj["iterations"] = rng.choice(small[1:])        # the server's --iterations is tiny too
        return obj

    def garble(text: bytes) -> bytes:
        op = rng.random()
        if op < 0.25:
            return text[:rng.randrange(len(text) + 1)]
        if op < 0.5:
            i = rng.randrange(len(text) + 1)
            return text[:i] + bytes([rng.randrange(256)]) + text[i:]
        if op < 0.7:
            i = rng.randrange(len(text))
            return text[:i] + bytes([rng.choice(b'{}[]",:0a \\')]) + text[i + 1:]
        if op < 0.85:
            return text.replace(b'"id"', b'"id": "dup", "id"', 1)
        return b"[" + text + b"]"

    lines = []
    for i in range(n):
        r = rng.random()
        if i in (n // 3, 2 * n // 3):
            lines.append(b'{"id": "huge", "record": "' + b"y" * (MAX_LINE_BYTES + rng.randrange(1, 50_000)) + b'"}')
        elif r < 0.05:
            lines.append(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200))).replace(b"\n", b""))
        elif r < 0.07:
            lines.append(rng.choice([b"", b"   ", b"\t", b"\r", b"{", b"}", b"[" * 5000, b"1" * 5000, b"NaN",
                                     b'{"id": "n", "seed": NaN}', b'{"id": "i", "seconds": Infinity}']))
        else:
            template = dict(rng.choice(actions if rng.random() < 0.08 else templates), id=f"f{i}")
            text = json.dumps(mutate(template)).encode()
            if rng.random() < 0.3:
                text = garble(text)
            lines.append(text.replace(b"\n", b"") + (b"\r" if rng.random() < 0.05 else b""))
    return lines


@pytest.mark.slow
def test_ten_thousand_fuzzed_lines_through_the_real_process():
    lines = fuzz_lines(10_000, seed=2024)
    s = Server("--workers", 2, "--iterations", 10, "--max-queued", 300)
    try:
        writer = threading.Thread(target=s.send, args=lines, daemon=True)
        writer.start()
        writer.join(WAIT * 2)
        assert not writer.is_alive()
        assert s.ping("fuzz-health")["ok"] is True
        assert s.proc.poll() is None
        deadline = time.monotonic() + WAIT * 2
        while any(s.ping("fuzz-health")[k] for k in ("queued", "preparing")):   # all read and handed out
            assert time.monotonic() < deadline
            time.sleep(0.1)
        s.send({"id": "fuzz-stop", "action": "terminate_all"})
        s.take("fuzz-stop")
        (a,) = s.ask({"id": "fuzz-after", "startpos": {}, "iterations": 10})
        assert a["isFinal"] is True
    finally:
        status = s.close()
    assert status == 0, s.err()
    assert s.bad_lines == []
    assert "Traceback" not in s.err()
    # every non-blank line got exactly one last answer (an error, an action's reply, or a final answer)
    stream = b"".join(line + b"\n" for line in lines).split(b"\n")[:-1]
    sent = [ln for ln in stream if (ln[:-1] if ln.endswith(b"\r") else ln).strip(b" \t")]
    closing = [a for a in s.answers if closes_a_line(a) and not str(a["id"]).startswith("fuzz-")]
    assert len(closing) == len(sent)
    assert all("id" in a for a in s.answers)


# ---------------------------------------------------------------- the doc's example session


def doc_session() -> tuple:
    """The `> ` and `< ` lines of the example session in docs/analysis.md."""
    text = (ROOT / "docs" / "analysis.md").read_text()
    m = re.search(r"<!-- illustrative: the example session[^>]*-->\n```\n(.*?)```", text, re.S)
    assert m, "docs/analysis.md has no example session"
    lines = m.group(1).splitlines()
    sent = [ln[2:] for ln in lines if ln.startswith("> ")]
    got = [json.loads(ln[2:]) for ln in lines if ln.startswith("< ")]
    return sent, got


@pytest.mark.slow
def test_the_example_session_of_the_doc():
    """Run the doc's queries through `--workers 1`; the answers are the doc's (timing aside), per id in order."""
    sent, expected = doc_session()
    assert len(sent) >= 5 and len(expected) >= len(sent)
    s = Server("--workers", 1)
    s.send(*sent)
    assert s.close() == 0, s.err()

    def by_id(answers):
        out = {}
        for a in answers:
            out.setdefault(a["id"], []).append(untimed(a))
        return out

    assert by_id(s.answers) == by_id(expected)
