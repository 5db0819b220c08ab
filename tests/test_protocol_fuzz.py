"""The bot protocol under random and malformed input: one error per bad line, nothing changed, never a crash.

Seeded. The bulk (over 10,000 lines) goes through an in-process BotSession
in four situations (no position, a start position, a mid-game position, JSON
mode); a few thousand bad lines, binary ones included, go through the real
`tne-ai bot` process, which must answer each with one error and live on.
"""
from __future__ import annotations

import json
import random
import re
import subprocess
import threading

import pytest

from test_protocol import bot_argv, mid_game, public_fen
from tne_ai.protocol.bot import BotSession
from tne_ai.protocol.codec import COMMANDS, ERROR_CODES, MAX_LINE_BYTES

SEED = 20261126
LINES_PER_SCENARIO = 2600
SUBPROCESS_LINES = 2500
CODES = "|".join(re.escape(c) for c in ERROR_CODES if c != "internal")
TEXT_ERROR = re.compile(rf"error ({CODES}) \S[ -~]*")

WORDS = list(COMMANDS) + [
    "name", "value", "players", "board", "seat", "startpos", "fen", "first", "hand", "swapped", "moves",
    "iterations", "movetime", "clock0", "clock1", "clock7", "inc0", "inc1", "infinite", "seed", "depth",
    "json", "text", "standard", "advanced", "Workers", "Seed", "Exploration", "ReuseTree", "InfoInterval",
    "Candidates", "true", "false", "tile", "leader", "k", "r", "b", "g", "a1", "p11", "q12", "pass",
    "draw", "swap", "commit", "war", "cat", "treasure", "monument", "nomonument", "withdraw", ";", "|",
    "-", "kkrbgg", "kkbbb", "0,0,0,0", "0", "1", "2", "3", "-1", "007", "1.5", "1e9", "nan",
    "99999999999999999999999999999", "9" * 5000, "18446744073709551616", "0x10", "{}", "[]", "\t",
]
HUGE = ["99999999999999999999", "9" * 4400, "-5", "1e400", "18446744073709551617", "3.0", "+4", "0b1"]


def valid_text_lines(fen_line: str) -> list:
    """Return well-formed lines to mutate (valid in some situation or other)."""
    return [
        "tne", "isready", "show", "legalmoves", "perft 1", "stop", "quit",
        "setoption name Candidates value 3", "setoption name Exploration value 0.5",
        "setoption name ReuseTree value false", "newgame players 3 board advanced seat 1",
        "position startpos first 0 hand kkrbgg moves tile k a1; tile k b1; draw rr",
        "position startpos first 1 hand kkrbgg moves tile r a1; tile g b1", fen_line,
        fen_line + " moves tile k a1; draw kr", "go iterations 20 seed 1", "go movetime 5",
        "go clock0 100 clock1 100 inc0 5 inc1 5", "go infinite", "protocol json",
    ]


def valid_json_lines(fen_line: str) -> list:
    """Return well-formed JSON lines to mutate."""
    fen = fen_line[len("position fen "):].split(" hand ")[0]
    hand = fen_line.split(" hand ")[1].split()[0]
    objs = [
        {"cmd": "tne"}, {"cmd": "isready"}, {"cmd": "show"}, {"cmd": "legalmoves"}, {"cmd": "stop"},
        {"cmd": "setoption", "name": "Candidates", "value": 2}, {"cmd": "newgame", "players": 3, "seat": 1},
        {"cmd": "position", "startpos": True, "first": 0, "hand": "kkrbgg", "moves": ["tile k a1"]},
        {"cmd": "position", "fen": fen, "hand": hand},
        {"cmd": "go", "iterations": 20, "seed": 2}, {"cmd": "go", "clocks": [100, 100], "incs": [5, 5]},
        {"cmd": "go", "infinite": True}, {"cmd": "perft", "depth": 1}, {"cmd": "protocol", "mode": "text"},
    ]
    return [json.dumps(o) for o in objs]


# ---------------------------------------------------------------- line makers: (bytes, must it be refused?)


def random_tokens(rng) -> tuple:
    tokens = [rng.choice(WORDS) for _ in range(rng.randint(1, 9))]
    line = " ".join(tokens)
    first = line.split()[0] if line.split() else ""
    return line.encode(), bool(first) and first not in COMMANDS


def mutated(rng, lines: list) -> tuple:
    words = rng.choice(lines).split(" ")
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(8)
        i = rng.randrange(len(words)) if words else 0
        if op == 0 and len(words) > 1:
            del words[i]
        elif op == 1 and words:
            words.insert(i, words[i])
        elif op == 2 and len(words) > 1:
            j = rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
        elif op == 3 and words:
            words[i] = rng.choice(WORDS)
        elif op == 4:
            words.insert(i, rng.choice(WORDS + HUGE))
        elif op == 5:
            text = " ".join(words)
            words = text[:rng.randrange(len(text) + 1)].split(" ")
        elif op == 6 and words:
            words[i] = words[i].upper() if rng.random() < 0.5 else words[i][::-1]
        else:
            text = " ".join(words)
            k = rng.randrange(len(text) + 1)
            words = (text[:k] + chr(rng.randint(33, 126)) + text[k:]).split(" ")
    return " ".join(words).encode(), False


def wrong_arguments(rng) -> tuple:
    cmd = rng.choice(["tne", "isready", "stop", "legalmoves", "show", "quit", "perft", "protocol",
                      "setoption", "newgame", "go", "position"])
    extra = {
        "tne": "x", "isready": "now", "stop": "it", "legalmoves": "all", "show": "board", "quit": "now",
        "perft": rng.choice(["", "1 2", "x", "-1", "4", "1.0"]),
        "protocol": rng.choice(["", "xml", "json text"]),
        "setoption": rng.choice(["", "name", "name Seed", "Seed value 1", "name Seed val 1"]),
        "newgame": rng.choice(["players", "players 1", "players 5", "seat 4", "board x", "colour k",
                               "seat 3 players 2", "players 2 players 2"]),
        "go": rng.choice(["iterations", "iterations 0", "movetime -1", "clock9 5", "inc 5", "depth 3",
                          "infinite infinite", "infinite iterations 5", "seed -1", "seed 1 seed 2",
                          "clock0", "iterations 1e3", "nodes 5"]),
        "position": rng.choice(["", "start", "startpos", "startpos first", "startpos hand kkrbgg",
                                "startpos first 0", "startpos first x hand kkrbgg",
                                "startpos first 0 hand kkrbgg first 1", "fen", "fen hand kk"]),
    }[cmd]
    return f"{cmd} {extra}".strip().encode(), True


def huge_numbers(rng) -> tuple:
    n = rng.choice(HUGE)
    line = rng.choice([f"go iterations {n}", f"go movetime {n}", f"go seed {n}", f"go clock0 {n}",
                       f"perft {n}", f"newgame players {n}", f"position startpos first {n} hand kkrbgg"])
    return line.encode(), True


def binary(rng) -> tuple:
    data = bytearray(rng.randrange(256) for _ in range(rng.randint(1, 120)))
    data = data.replace(b"\n", b"")
    bad = rng.choice([b"\x00", b"\xff", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\x1b", b"\x7f", b"\x80"])
    k = rng.randrange(len(data) + 1)
    return bytes(data[:k]) + bad + bytes(data[k:]) + b"x", True


def overlong(rng) -> tuple:
    return b"go iterations " + b"1" * (MAX_LINE_BYTES + rng.randint(1, 5000)), True


def blank(rng) -> tuple:
    return rng.choice([b"", b" ", b"\t", b"   \t ", b"\r"]), False


def json_value(rng, depth: int = 0):
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([0, 1, -1, 2 ** 70, 3, 0.5, 1e300])
    if kind == 1:
        return rng.choice(["", "go", "kkrbgg", "tile k a1", "\u0000", "\u00e9", "x" * 50])
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.choice(COMMANDS)
    if kind == 4:
        return [json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["cmd", "name", "value", "moves", "fen", "x"]): json_value(rng, depth + 1)
            for _ in range(rng.randint(0, 3))}


def json_garbage(rng) -> tuple:
    if rng.random() < 0.3:
        v = json_value(rng)
        return json.dumps(v).encode(), not isinstance(v, dict) or "cmd" not in v
    obj = {"cmd": rng.choice(list(COMMANDS) + ["frob", 5, None])}
    for _ in range(rng.randint(0, 4)):
        obj[rng.choice(["players", "board", "seat", "iterations", "movetime", "clocks", "incs", "seed",
                        "infinite", "depth", "mode", "name", "value", "startpos", "first", "hand", "fen",
                        "moves", "colour"])] = json_value(rng)
    return json.dumps(obj).encode(), False


def json_mutated(rng, lines: list) -> tuple:
    text = rng.choice(lines)
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(text) + 1)
        op = rng.randrange(3)
        if op == 0:
            text = text[:k] + text[k + 1:]
        elif op == 1:
            text = text[:k] + rng.choice('{}[]":,0123456789 truefalsenull\\') + text[k:]
        else:
            text = text[:k]
    return text.encode(), False


# ---------------------------------------------------------------- the in-process run


SCENARIOS = {
    "no position": [],
    "start": ["newgame players 2 seat 0", "position startpos first 1 hand kkrbgg moves tile r a1; tile g b1"],
    "mid-game": ["FEN"],
    "json": ["FEN", "protocol json"],
}


class Fuzzed:
    """A session set up for one scenario; rebuilt whenever an accepted line changed it."""

    def __init__(self, setup: list):
        self.setup = setup
        self.out = []
        self.lock = threading.Lock()
        self.rebuild()

    def _write(self, lines):
        with self.lock:
            self.out.extend(lines)

    def rebuild(self):
        if getattr(self, "bot", None) is not None:
            self.bot.close()
        self.bot = BotSession(self._write, {"InfoInterval": 0})
        for line in self.setup:
            self.bot.handle(line)
        with self.lock:
            assert not any(r.startswith("error") for r in self.out), self.out
            self.out.clear()
        self.fingerprint = self.bot.fingerprint()


def is_error(reply: str) -> bool:
    if reply.startswith("{"):
        obj = json.loads(reply)
        return obj.get("type") == "error"
    return reply.startswith("error")


def check_error(reply: str) -> None:
    if reply.startswith("{"):
        obj = json.loads(reply)
        assert set(obj) == {"type", "code", "text"} and obj["code"] in ERROR_CODES, reply
        assert obj["code"] != "internal" and obj["text"], reply
    else:
        assert TEXT_ERROR.fullmatch(reply), reply


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.slow
def test_fuzzed_lines_get_one_error_and_change_nothing(scenario):
    """Random, mutated and malformed lines: a refused line gets exactly one error and leaves the state."""
    rng = random.Random(f"{SEED}-{scenario}")
    fen_line = public_fen(mid_game())
    setup = [fen_line if line == "FEN" else line for line in SCENARIOS[scenario]]
    json_mode = scenario == "json"
    valid = valid_json_lines(fen_line) if json_mode else valid_text_lines(fen_line)
    makers = ([json_garbage, json_mutated, binary, overlong, blank] if json_mode else
              [random_tokens, mutated, wrong_arguments, huge_numbers, binary, blank])
    weights = [4, 4, 1, 0.05, 0.3] if json_mode else [3, 5, 2, 1, 1, 0.3]
    f = Fuzzed(setup)
    refused = accepted = 0
    for _ in range(LINES_PER_SCENARIO):
        maker = rng.choices(makers, weights)[0]
        line, must_refuse = maker(rng, valid) if maker in (mutated, json_mutated) else maker(rng)
        if rng.random() < 0.1:
            line += b"\n" if rng.random() < 0.5 else b"\r\n"
        before = f.bot.fingerprint()
        go_count = before[5]
        alive = f.bot.handle(line)
        with f.lock:
            replies = list(f.out)
            f.out.clear()
        errors = [r for r in replies if is_error(r)]
        if errors:
            refused += 1
            assert len(replies) == 1, (line[:200], replies)
            check_error(replies[0])
            assert f.bot.fingerprint() == before, line[:200]
            assert alive
            continue
        assert not must_refuse, (line[:200], replies)
        if maker is blank:
            assert replies == [] and f.bot.fingerprint() == before
            continue
        accepted += 1
        if f.bot.searching:
            f.bot.handle('{"cmd": "stop"}' if f.bot.json_mode else "stop")
        assert f.bot.wait(30)
        with f.lock:
            replies += f.out
            f.out.clear()
        bestmoves = [r for r in replies if r.startswith("bestmove") or '"type": "bestmove"' in r]
        if f.bot.fingerprint()[5] > go_count:
            assert len(bestmoves) == 1, (line[:200], replies)
        else:
            assert bestmoves == [], (line[:200], replies)
        if not alive or f.bot.fingerprint() != before:
            f.rebuild()
    assert refused > LINES_PER_SCENARIO // 2 and accepted > 0


# ---------------------------------------------------------------- the real process


def test_the_process_survives_thousands_of_bad_and_binary_lines():
    """Through `tne-ai bot`: each bad line draws one error, the position stays, a last line without newline counts."""
    rng = random.Random(SEED)
    fen_line = public_fen(mid_game())
    makers = [binary, wrong_arguments, huge_numbers, random_tokens]
    lines = []
    while len(lines) < SUBPROCESS_LINES:
        line, must_refuse = rng.choices(makers, [4, 2, 1, 1])[0](rng)
        if must_refuse:
            lines.append(line)
    lines[100:100] = [overlong(rng)[0], overlong(rng)[0]]
    payload = [fen_line.encode(), b"show"]
    for line in lines:
        payload += [line, b"isready"]
    payload.append(b"show")
    data = b"\n".join(payload) + b"\nisready"          # the last line has no newline
    proc = subprocess.Popen(bot_argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(data, timeout=120)
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
    replies = out.decode("ascii").split("\n")
    assert replies[-1] == ""
    replies = replies[:-1]
    shows = [i for i, r in enumerate(replies) if r.startswith("position fen ")]
    assert len(shows) == 2
    first_show = replies[:shows[0] + 1]
    middle = replies[shows[0] + 1:]
    rows = len(first_show)
    assert middle[-rows - 1:-1] == first_show, "the position changed"
    assert middle[-1] == "readyok"
    pairs = middle[:-rows - 1]
    assert len(pairs) == 2 * len(lines)
    for k in range(0, len(pairs), 2):
        assert TEXT_ERROR.fullmatch(pairs[k]), (lines[k // 2][:100], pairs[k])
        assert pairs[k + 1] == "readyok"
    assert b"Traceback" not in err
