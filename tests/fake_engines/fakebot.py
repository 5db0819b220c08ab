"""A fake engine speaking the tne-ai protocol (docs/protocol.md), for the referee's tests.

It plays a random legal decision of a world dealt from its own seat's view,
rebuilt with engine.view.SeatView from the events it is told, so a referee
that sends a wrong or impossible event stream makes it answer `error`.
Flags make it log what it receives or misbehave at its Nth `go` (counted
from 1 within a game), optionally only when it plays one seat:

    --log-dir D      write every line received to D/<pid>.log (flushed at once)
    --crash-at N     exit with status 3 instead of answering
    --hang-at N      stop answering (keep reading, sleep)
    --illegal-at N   answer a well-formed but illegal move
    --garbage-at N   answer `bestmove` with text that is no move
    --noise-at N     answer a line that is no protocol reply
    --slow-ms MS     sleep this long before every bestmove
    --handshake M    `silent`: never answer `tne`; `exit`: exit with status 1 on `tne`
    --passer         pass whenever passing is legal
    --only-seat S    misbehave only when playing seat S
    --child          start a `sleep` child process first (tests that the referee kills the group)
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if ROOT not in sys.path:                # import this checkout's engine whatever the working directory
    sys.path.insert(0, ROOT)

from engine.actions import format_action, parse_action  # noqa: E402
from engine.errors import EngineError  # noqa: E402
from engine.info import determinize  # noqa: E402
from engine.state import State  # noqa: E402
from engine.view import SeatView, parse_letters  # noqa: E402

ILLEGAL_TRIES = ("war k", "treasure a1", "nomonument", "commit 6", "tile k a1", "leader k a1", "pass")


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Fake:
    """The protocol loop of the fake engine."""

    def __init__(self, args):
        self.args = args
        self.seed, self.players, self.board, self.seat = 0, 2, "standard", 0
        self.view, self.start, self.events, self.gos = None, None, [], 0
        self.log = None
        if args.log_dir:
            os.makedirs(args.log_dir, exist_ok=True)
            self.log = open(os.path.join(args.log_dir, f"{os.getpid()}.log"), "w")
        if args.child:
            child = subprocess.Popen(["sleep", "600"])
            self.note(f"child {child.pid}")

    def note(self, text: str) -> None:
        if self.log:
            self.log.write(text + "\n")
            self.log.flush()

    def misbehaves(self, at) -> bool:
        if at is None or self.gos != at:
            return False
        return self.args.only_seat is None or self.args.only_seat == self.seat

    def run(self) -> int:
        for raw in sys.stdin:
            line = raw.strip()
            self.note(f"> {line}")
            if not line:
                continue
            words = line.split()
            cmd = words[0]
            if cmd == "tne":
                if self.args.handshake == "silent":
                    continue
                if self.args.handshake == "exit":
                    sys.stderr.write("fake: refusing to start\n")
                    return 1
                out("id name fake")
                out("id author the tests")
                out("option name Seed type spin default 0 min 0 max 9223372036854775807")
                out("tneok")
            elif cmd == "isready":
                out("readyok")
            elif cmd == "setoption":
                if len(words) == 5 and words[1] == "name" and words[3] == "value" and words[2].lower() == "seed":
                    self.seed = int(words[4])
                else:
                    out(f"error unknown-option {line}")
            elif cmd == "newgame":
                opts = dict(zip(words[1::2], words[2::2]))
                self.players = int(opts.get("players", 2))
                self.board = opts.get("board", "standard")
                self.seat = int(opts.get("seat", 0))
                self.view, self.start, self.events, self.gos = None, None, [], 0
                self.rng = random.Random(f"{self.seed}:{self.seat}")
            elif cmd == "position":
                err = self.position(line)
                if err:
                    out(f"error bad-position {err}")
            elif cmd == "go":
                self.gos += 1
                self.go()
            elif cmd == "quit":
                return 0
            else:
                out(f"error unknown-command {cmd}")
        return 0

    def position(self, line: str):
        head, _, moves = line.partition(" moves ")
        words = head.split()
        if words[:2] != ["position", "startpos"] or len(words) != 6 or words[2] != "first" or words[4] != "hand":
            return f"only 'position startpos first F hand H' is supported: {head!r}"
        start = (int(words[3]), words[5])
        events = [e.strip() for e in moves.split(";")] if moves.strip() else []
        try:
            if start != self.start or events[:len(self.events)] != self.events:
                self.view = SeatView.start(self.players, self.board, self.seat, start[0], parse_letters(start[1]))
                self.start, self.events = start, []
            self.view.apply_all(events[len(self.events):])
            self.events = events
        except EngineError as e:
            self.start = None
            return str(e)
        return None

    def go(self) -> None:
        a = self.args
        if self.misbehaves(a.crash_at):
            sys.stderr.write("fake: crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        if self.misbehaves(a.hang_at):
            while True:
                time.sleep(60)
        if self.view is None:
            out("error no-position")
            return
        obs = self.view.observation()
        if obs["to_act"] != self.seat:
            out("error not-to-act")
            return
        legal = State.from_snapshot(determinize(obs, self.seat, self.rng)).legal_actions()
        out("info iterations 1 nps 1 nodes 1 time 0 value " + "/".join(["0.5"] * self.players))
        if a.slow_ms and a.only_seat in (None, self.seat):
            time.sleep(a.slow_ms / 1000)
        if self.misbehaves(a.illegal_at):
            move = next(t for t in ILLEGAL_TRIES if parse_action(t) not in legal)
        elif self.misbehaves(a.garbage_at):
            move = "tile z99 !!"
        elif self.misbehaves(a.noise_at):
            out("hello, I am not sure what to do")
            move = format_action(self.rng.choice(legal))
        elif a.passer and parse_action("pass") in legal:
            move = "pass"
        else:
            move = format_action(self.rng.choice(legal))
        out(f"bestmove {move}")


def main(argv=None, **defaults) -> int:
    """Run the fake engine; `defaults` preset flags (the wrapper scripts)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log-dir")
    for flag in ("crash-at", "hang-at", "illegal-at", "garbage-at", "noise-at", "slow-ms", "only-seat"):
        ap.add_argument("--" + flag, type=int)
    ap.add_argument("--handshake", choices=("ok", "silent", "exit"), default="ok")
    ap.add_argument("--passer", action="store_true")
    ap.add_argument("--child", action="store_true")
    ap.set_defaults(**defaults)
    return Fake(ap.parse_args(argv)).run()


if __name__ == "__main__":
    sys.exit(main())
