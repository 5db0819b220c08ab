"""A Python client for engines speaking the protocol (docs/protocol.md), as python-chess's chess.engine is for UCI.

`Engine` starts an engine process (`tne-ai bot` or any third-party program),
performs the handshake, sets options, tells it the game and the position,
and runs searches: `play(limits)` returns the `bestmove` with the last `info`
statistics, `analyse(limits)` the statistics alone. Every wait has a
deadline, every failure is an exception (`ClientError` and its subclasses),
and `close()` leaves no process behind: the engine runs in a process group
of its own, which is killed with its search workers and reaped.

    from tne_ai.protocol.client import Engine, GoLimits

    with Engine.popen("tne-ai bot") as bot:
        bot.new_game(players=2, seat=0)
        bot.set_position(first=0, hand="kkrbgg")
        result = bot.play(GoLimits(iterations=500, seed=1))
        print(result.move, result.info.candidates[0].visits)

The match referee (tne_ai/referee/match.py) plays its games through this client;
docs/client.md is the guide.
"""
from __future__ import annotations

import collections
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union

from engine.actions import parse_action
from engine.errors import NotationError

LINE_LIMIT = 65_536          # the protocol's longest line (docs/protocol.md)
QUIT_WAIT = 1.0              # seconds an engine gets to leave after `quit` before it is killed
POLL = 0.25                  # seconds between checks of the cancel event and of `stop` while waiting
DEFAULT_TIMEOUT = 10.0       # seconds for a reply that involves no search
STDERR_LINES = 5             # last lines of the engine's stderr kept for error messages

_OVERLONG = object()         # queued in place of a line longer than LINE_LIMIT


# ---------------------------------------------------------------- errors

class ClientError(Exception):
    """Base of every error the client raises about an engine."""


class EngineStartError(ClientError):
    """The engine's process could not be started."""


class EngineTerminated(ClientError):
    """The engine exited or closed its output; the message says how, with the last line of its stderr."""

    def __init__(self, message: str, returncode: Optional[int] = None, stderr: Sequence[str] = ()):
        """Keep the exit status (None if the process still ran) and the last lines of stderr."""
        super().__init__(message)
        self.returncode, self.stderr = returncode, list(stderr)


class EngineTimeout(ClientError, TimeoutError):
    """No expected reply arrived within the time allowed."""

    def __init__(self, message: str, expected: str, allowed: Optional[float]):
        """Keep what was awaited (`tneok`, `readyok`, `bestmove`, ...) and the seconds allowed."""
        super().__init__(message)
        self.expected, self.allowed = expected, allowed


class GarbledReply(ClientError):
    """A line that is not a well-formed protocol reply (the message names it)."""

    def __init__(self, message: str, line: str, move: Optional[str] = None):
        """Keep the line and, for a `bestmove` that is no decision, its move text."""
        super().__init__(message)
        self.line, self.move = line, move


class ProtocolErrorReply(ClientError):
    """The engine answered `error <code> <text>`."""

    def __init__(self, line: str):
        """Split the reply into its code (docs/protocol.md's table) and text."""
        words = line.split(None, 2)
        self.line = line
        self.code = words[1] if len(words) > 1 else ""
        self.text = words[2] if len(words) > 2 else ""
        super().__init__(f"the engine answered: {line}")


class OptionError(ClientError, ValueError):
    """An option the engine does not offer, or a value its advertised type or range refuses."""


class WaitCancelled(ClientError):
    """The cancel event given to the Engine was set while it waited for a reply."""


# ---------------------------------------------------------------- replies

@dataclass(frozen=True)
class EngineId:
    """The engine's `id` lines."""

    name: Optional[str] = None
    version: Optional[str] = None
    author: Optional[str] = None


@dataclass(frozen=True)
class Option:
    """One advertised `option` line: name, type (spin, check, string, combo, button), typed default, range."""

    name: str
    type: str
    default: Union[int, bool, str, None] = None
    min: Optional[int] = None
    max: Optional[int] = None
    var: tuple = ()


@dataclass(frozen=True)
class InfoCandidate:
    """One `info candidate` line: a root decision with its statistics and principal variation."""

    rank: int
    move: str
    action: int
    visits: int
    avail: int
    mean: float
    low: float
    high: float
    pv: list


@dataclass
class AnalysisInfo:
    """One `info` report: the header's statistics and the candidates listed after it, best first."""

    iterations: int = 0
    nps: int = 0
    nodes: int = 0
    time: int = 0                    # milliseconds since the go arrived
    value: list = field(default_factory=list)      # root value per seat, in seat order
    win: list = field(default_factory=list)        # each seat's calibrated chance of winning (empty: no map)
    candidates: list = field(default_factory=list)

    @property
    def best(self) -> Optional[InfoCandidate]:
        """Return the first candidate, or None."""
        return self.candidates[0] if self.candidates else None


@dataclass(frozen=True)
class PlayResult:
    """The answer to one `go`: the bestmove in notation and as an action number, the last info report."""

    move: str
    action: int
    info: Optional[AnalysisInfo]     # None when no info preceded the bestmove
    elapsed: float                   # seconds from sending go to the bestmove's arrival


def _int(text: str, line: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GarbledReply(f"garbled reply {line[:80]!r}: {what} {text[:20]!r} is not an integer", line) from None


def _float(text: str, line: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise GarbledReply(f"garbled reply {line[:80]!r}: {what} {text[:20]!r} is not a number", line) from None


def _keyed(words: list, keys: set, line: str) -> dict:
    """Group words into {key: [words]} at each key (`var` may repeat: a list per var); GarbledReply if malformed."""
    out, current = {}, None
    for w in words:
        if w == "var":
            out.setdefault("var", []).append([])
            current = out["var"][-1]
        elif w in keys:
            if w in out:
                raise GarbledReply(f"garbled reply {line[:80]!r}: {w!r} given twice", line)
            current = out[w] = []
        elif current is None:
            raise GarbledReply(f"garbled reply {line[:80]!r}: unexpected {w[:20]!r}", line)
        else:
            current.append(w)
    return out


def parse_option(line: str) -> Option:
    """Parse `option name N type T [default V] [min A] [max B] [var X]...` into an Option; GarbledReply if bad."""
    words = line.split()
    if words[:2] != ["option", "name"]:
        raise GarbledReply(f"garbled reply {line[:80]!r}: expected 'option name ...'", line)
    f = _keyed(words[1:], {"name", "type", "default", "min", "max", "var"}, line)
    name, kind = " ".join(f.get("name", [])), " ".join(f.get("type", []))
    if not name or not kind or " " in kind:
        raise GarbledReply(f"garbled reply {line[:80]!r}: an option needs a name and one type", line)
    text = " ".join(f["default"]) if "default" in f else None
    default: Union[int, bool, str, None] = text
    if text is not None and kind == "spin":
        default = _int(text, line, "default")
    elif text is not None and kind == "check":
        if text not in ("true", "false"):
            raise GarbledReply(f"garbled reply {line[:80]!r}: a check defaults to true or false", line)
        default = text == "true"
    lo = _int(" ".join(f["min"]), line, "min") if "min" in f else None
    hi = _int(" ".join(f["max"]), line, "max") if "max" in f else None
    return Option(name, kind, default, lo, hi, tuple(" ".join(v) for v in f.get("var", [])))


_HEADER_INTS = ("iterations", "nps", "nodes", "time")
_CANDIDATE_INTS = ("visits", "avail")
_CANDIDATE_FLOATS = ("mean", "low", "high")


def parse_info_header(line: str) -> AnalysisInfo:
    """Parse `info iterations I nps N nodes D time T value a/b...` (unknown keys are skipped); GarbledReply if bad."""
    words = line.split()[1:]
    if len(words) % 2:
        raise GarbledReply(f"garbled reply {line[:80]!r}: expected key value pairs", line)
    info, seen = AnalysisInfo(), set()
    for key, value in zip(words[::2], words[1::2]):
        if key in seen:
            raise GarbledReply(f"garbled reply {line[:80]!r}: {key!r} given twice", line)
        seen.add(key)
        if key in _HEADER_INTS:
            setattr(info, key, _int(value, line, key))
        elif key == "value":
            info.value = [_float(v, line, "value") for v in value.split("/")]
        elif key == "win":
            info.win = [_float(v, line, "win") for v in value.split("/")]
    return info


def parse_info_candidate(line: str) -> InfoCandidate:
    """Parse `info candidate R visits V avail A mean M low L high H move <m> pv <a; b>`; GarbledReply if bad."""
    words = line.split()
    if words[1:2] != ["candidate"] or len(words) < 3 or "move" not in words:
        raise GarbledReply(f"garbled reply {line[:80]!r}: expected 'info candidate N ... move ...'", line)
    rank = _int(words[2], line, "candidate")
    at_move = words.index("move")
    stats = words[3:at_move]
    if len(stats) % 2:
        raise GarbledReply(f"garbled reply {line[:80]!r}: expected key value pairs before 'move'", line)
    pairs = dict(zip(stats[::2], stats[1::2]))
    missing = [k for k in _CANDIDATE_INTS + _CANDIDATE_FLOATS if k not in pairs]
    if missing:
        raise GarbledReply(f"garbled reply {line[:80]!r}: no {', '.join(missing)}", line)
    rest = words[at_move + 1:]
    at_pv = rest.index("pv") if "pv" in rest else len(rest)
    move = " ".join(rest[:at_pv])
    try:
        action = parse_action(move)
    except NotationError as e:
        raise GarbledReply(f"garbled reply {line[:80]!r}: move {move[:40]!r}: {e}", line) from None
    pv = [m.strip() for m in " ".join(rest[at_pv + 1:]).split(";") if m.strip()]
    return InfoCandidate(rank=rank, move=move, action=action,
                     visits=_int(pairs["visits"], line, "visits"), avail=_int(pairs["avail"], line, "avail"),
                     mean=_float(pairs["mean"], line, "mean"), low=_float(pairs["low"], line, "low"),
                     high=_float(pairs["high"], line, "high"), pv=pv)


# ---------------------------------------------------------------- commands

@dataclass(frozen=True)
class GoLimits:
    """The limits of one `go`: iterations, movetime (ms), clocks and incs (ms, per seat), infinite, seed."""

    iterations: Optional[int] = None
    movetime: Optional[int] = None
    clocks: Optional[tuple] = None
    incs: Optional[tuple] = None
    infinite: bool = False
    seed: Optional[int] = None

    def __post_init__(self):
        for name, low in (("iterations", 1), ("movetime", 0), ("seed", 0)):
            v = getattr(self, name)
            if v is not None and (type(v) is not int or v < low):
                raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
        for name in ("clocks", "incs"):
            v = getattr(self, name)
            if v is not None:
                v = tuple(v)
                if any(type(ms) is not int or ms < 0 for ms in v):
                    raise ValueError(f"{name} must be integers >= 0 (ms per seat), got {v!r}")
                object.__setattr__(self, name, v)
        if self.infinite and (self.iterations is not None or self.movetime is not None or self.clocks or self.incs):
            raise ValueError("infinite takes no other limit")

    def command(self) -> str:
        """Return the `go` line."""
        words = ["go"]
        if self.iterations is not None:
            words += ["iterations", str(self.iterations)]
        if self.movetime is not None:
            words += ["movetime", str(self.movetime)]
        for key, values in (("clock", self.clocks), ("inc", self.incs)):
            for seat, ms in enumerate(values or ()):
                words += [f"{key}{seat}", str(ms)]
        if self.infinite:
            words.append("infinite")
        if self.seed is not None:
            words += ["seed", str(self.seed)]
        return " ".join(words)


def _token(what: str, text: str) -> str:
    """Return `text` if it is one printable ASCII word, else raise ValueError."""
    if not text or not text.isascii() or not text.isprintable() or any(ch.isspace() for ch in text):
        raise ValueError(f"{what} must be one printable ASCII word, got {text!r}")
    return text


def newgame_line(players: int = 2, board: str = "standard", seat: int = 0, variants=()) -> str:
    """Return the `newgame` command (`variants`, a list or `a,b` text, named only when some are on)."""
    names = variants.replace(",", " ").split() if isinstance(variants, str) else list(variants)
    words = ["newgame", "players", str(int(players)), "board", _token("board", board)]
    if names:
        words += ["variants", ",".join(_token("a variant", v) for v in names)]
    return " ".join(words + ["seat", str(int(seat))])


def position_line(*, first: Optional[int] = None, hand: Optional[str] = None, fen: Optional[str] = None,
                  swapped=None, moves: Sequence[str] = ()) -> str:
    """Return the `position` command: startpos (first and hand) or fen (with hand and swapped if it hides them)."""
    if fen is None:
        if first is None or hand is None:
            raise ValueError("position startpos needs first and hand (or give fen)")
        if swapped is not None:
            raise ValueError("swapped goes only with fen")
        words = ["position", "startpos", "first", str(int(first)), "hand", _token("hand", hand)]
    else:
        if first is not None:
            raise ValueError("first goes only with startpos (a fen names who acts)")
        if not fen.isascii() or not fen.isprintable() or not fen.strip():
            raise ValueError(f"fen must be printable ASCII, got {fen[:60]!r}")
        words = ["position", "fen", fen.strip()]
        if hand is not None:
            words += ["hand", _token("hand", hand)]
        if swapped is not None:
            text = swapped if isinstance(swapped, str) else ",".join(str(int(n)) for n in swapped)
            words += ["swapped", _token("swapped", text)]
    events = [str(e).strip() for e in moves]
    for e in events:
        if not e or ";" in e or not e.isascii() or not e.isprintable():
            raise ValueError(f"an event must be printable ASCII without ';', got {e!r}")
    line = " ".join(words)
    return line + " moves " + "; ".join(events) if events else line


def _value_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_option_value(option: Option, value) -> str:
    """Return `value` as setoption text if the option's type and range take it; OptionError if not."""
    text = _value_text(value)
    if not text.isascii() or not text.isprintable():
        raise OptionError(f"option {option.name}: the value must be printable ASCII on one line, got {text!r}")
    if option.type == "spin":
        if isinstance(value, bool) or not (isinstance(value, int) or text.strip().isdigit()
                                           or (text.strip()[:1] == "-" and text.strip()[1:].isdigit())):
            raise OptionError(f"option {option.name}: expected an integer, got {value!r}")
        n = int(text)
        if (option.min is not None and n < option.min) or (option.max is not None and n > option.max):
            raise OptionError(f"option {option.name}: {n} is outside {option.min}..{option.max}")
        return str(n)
    if option.type == "check":
        if text not in ("true", "false"):
            raise OptionError(f"option {option.name}: expected true or false, got {value!r}")
    elif option.type == "combo" and option.var and text not in option.var:
        raise OptionError(f"option {option.name}: expected one of {', '.join(option.var)}, got {value!r}")
    return text


# ---------------------------------------------------------------- the engine process

_LIVE: set = set()                 # every Engine started and not yet closed
_LIVE_LOCK = threading.Lock()


def kill_all() -> None:
    """Kill every engine process this program started and has not closed (e.g. on Ctrl-C)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for eng in live:
        eng.kill()


class Engine:
    """A running engine: its process (in a process group of its own), pipe threads, transcript and protocol state."""

    def __init__(self, command: Union[str, Sequence[str]], *, cwd: Optional[str] = None,
                 timeout: float = DEFAULT_TIMEOUT, transcript: Optional[str] = None, label: Optional[str] = None,
                 cancel: Optional[threading.Event] = None, strict: bool = True, stderr_lines: int = STDERR_LINES):
        """Start the engine and send `tne`; `handshake()` (or `Engine.popen`) reads the answer.

        `command` is an argv list or a shell-split string (no shell runs it).
        `timeout`: seconds for any reply not tied to a search. `transcript`: a
        file that gets every line sent (`>`), received (`<`), the engine's
        stderr (`!`) and notes (`#`), each after `time.monotonic()`. `cancel`:
        an event that, once set, makes any wait raise WaitCancelled.
        `strict=False` skips lines that cannot matter instead of raising
        GarbledReply: malformed `id`/`option` lines, `info` lines that do not
        parse, stray lines before `readyok` (the referee's choice).
        """
        self.command = command if isinstance(command, str) else shlex.join(str(a) for a in command)
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise ValueError("the engine command is empty")
        self.timeout, self.cancel, self.strict = float(timeout), cancel, strict
        self.label = label or os.path.basename(argv[0])
        self.id = EngineId()
        self.options: dict = {}                     # advertised name -> Option, in the engine's order
        self.stderr_tail: collections.deque = collections.deque(maxlen=stderr_lines)
        self.players: Optional[int] = None          # of the last new_game
        self.seat: Optional[int] = None
        self.proc: Optional[subprocess.Popen] = None
        self._lines: queue.Queue = queue.Queue()    # (bytes, None at end of output, or _OVERLONG; arrival time)
        self._outbox: queue.Queue = queue.Queue()   # lines to write; None ends the writer
        self._threads: list = []
        self._log = open(transcript, "w", encoding="utf-8", errors="replace") if transcript else None
        self._log_lock = threading.Lock()
        self._handshaken = False
        self._ended: Optional[EngineTerminated] = None   # once the output has ended
        self._quit_sent = self._closed = self._reaped = False
        self._searching = False
        self._stop_sent_at: Optional[float] = None
        self._dirty = False                         # a search may still answer, or errors are pending
        try:
            # A session of its own: a terminal's Ctrl-C reaches only this program, and
            # kill() can end the engine's whole process group (search workers included).
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, cwd=cwd, start_new_session=True)
        except (OSError, ValueError) as e:
            self.note(f"cannot start: {e}")
            self._close_log()
            raise EngineStartError(f"cannot start {self.command!r}: {e}") from None
        with _LIVE_LOCK:
            _LIVE.add(self)
        self.note(f"started pid {self.proc.pid}: {self.command}")
        for target in (self._read_stdout, self._read_stderr, self._write_stdin):
            t = threading.Thread(target=target, name=f"{self.label}:{target.__name__}", daemon=True)
            t.start()
            self._threads.append(t)
        self._send("tne")

    @classmethod
    def popen(cls, command: Union[str, Sequence[str]], **kwargs) -> "Engine":
        """Start an engine and complete the handshake (keywords as Engine's); kill it if the handshake fails."""
        eng = cls(command, **kwargs)
        try:
            eng.handshake()
        except BaseException:
            eng.close(graceful=False)
            raise
        return eng

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        pid = self.proc.pid if self.proc is not None else None
        return f"<Engine {self.id.name or self.label!r} pid {pid}{' closed' if self._closed else ''}>"

    # ------------------------------------------------------------ pipes

    # The pipes are served by threads so that a silent or blocked engine can never
    # block the caller: reads wait on a queue with a deadline, writes never wait.
    def _read_stdout(self) -> None:
        out = self.proc.stdout
        while True:
            try:
                raw = out.readline(LINE_LIMIT + 1)
            except (OSError, ValueError):
                raw = b""
            if len(raw) > LINE_LIMIT and not raw.endswith(b"\n"):
                self._lines.put((_OVERLONG, time.monotonic()))
                while raw and not raw.endswith(b"\n"):     # skip the rest of that line
                    try:
                        raw = out.readline(LINE_LIMIT + 1)
                    except (OSError, ValueError):
                        raw = b""
                if raw:
                    continue
            self._lines.put((raw or None, time.monotonic()))
            if not raw:
                return

    def _read_stderr(self) -> None:
        err = self.proc.stderr
        while True:
            try:
                raw = err.readline(LINE_LIMIT)
            except (OSError, ValueError):
                return
            if not raw:
                return
            text = raw.decode("utf-8", "replace").rstrip()
            if text:
                self.stderr_tail.append(text)
                self._transcribe("!", text)

    def _write_stdin(self) -> None:
        pipe = self.proc.stdin
        while True:
            line = self._outbox.get()
            if line is None:
                break
            try:
                pipe.write(line.encode("ascii", "replace") + b"\n")
                pipe.flush()
            except (OSError, ValueError):
                break                       # the engine is gone: the reader sees the end of its output
        try:
            pipe.close()
        except (OSError, ValueError):
            pass

    def _transcribe(self, mark: str, text: str) -> None:
        if self._log is not None:
            with self._log_lock:
                if not self._log.closed:
                    self._log.write(f"{time.monotonic():.3f} {mark} {text}\n")
                    self._log.flush()

    def note(self, text: str) -> None:
        """Write a note (`#`) into the transcript."""
        self._transcribe("#", text)

    def _close_log(self) -> None:
        if self._log is not None:
            with self._log_lock:
                self._log.close()

    def _send(self, line: str) -> None:
        if self._closed:
            raise EngineTerminated("the engine has been closed", self.returncode)
        self._transcribe(">", line)
        self._outbox.put(line)

    def send(self, line: str) -> None:
        """Send one raw command line (printable ASCII); replies are read by the other methods."""
        if not line.isascii() or not line.isprintable():
            raise ValueError(f"a command must be one line of printable ASCII, got {line[:60]!r}")
        self._send(line)

    def _exit_reason(self) -> EngineTerminated:
        """Return how the engine ended, with the last line of its stderr."""
        try:
            status = self.proc.wait(timeout=QUIT_WAIT)
        except subprocess.TimeoutExpired:
            status = None
        self._threads[1].join(timeout=0.5)       # let the stderr thread catch the last words
        if status is None:
            why = "closed its output"
        elif status < 0:
            try:
                why = f"crashed (killed by {signal.Signals(-status).name})"
            except ValueError:
                why = f"crashed (killed by signal {-status})"
        else:
            why = f"crashed (exited with status {status})"
        if self.stderr_tail:
            why += f"; stderr: {self.stderr_tail[-1][:200]}"
        return EngineTerminated(why, status, self.stderr_tail)

    def _read(self, deadline: Optional[float], expected: str, allowed: Optional[float]) -> tuple:
        """Return the next (line, arrival time); EngineTimeout past `deadline`, EngineTerminated at end of output."""
        if self._ended is not None:
            raise EngineTerminated(str(self._ended), self._ended.returncode, self._ended.stderr)
        while True:
            if self.cancel is not None and self.cancel.is_set():
                raise WaitCancelled(f"cancelled while waiting for {expected}")
            limit = deadline
            if self._stop_sent_at is not None:     # after `stop` even an infinite search must answer soon
                after_stop = self._stop_sent_at + self.timeout
                limit = after_stop if limit is None else min(limit, after_stop)
            left = None if limit is None else limit - time.monotonic()
            try:
                raw, t = self._lines.get(timeout=POLL if left is None else max(0.0, min(left, POLL)))
            except queue.Empty:
                if left is not None and left <= 0:
                    raise self._timeout(expected, allowed) from None
                continue
            if limit is not None and t > limit:
                raise self._timeout(expected, allowed)
            break
        if raw is None:
            self._ended = self._exit_reason()
            raise self._ended
        if raw is _OVERLONG:
            self._transcribe("<", f"<a line of more than {LINE_LIMIT} bytes>")
            raise GarbledReply(f"sent a line longer than {LINE_LIMIT} bytes", f"<more than {LINE_LIMIT} bytes>")
        try:
            line = raw.decode("ascii").strip()
        except UnicodeDecodeError:
            self._transcribe("<", repr(raw))
            raise GarbledReply(f"sent a line that is not ASCII: {raw[:60]!r}", repr(raw[:60])) from None
        self._transcribe("<", line)
        return line, t

    def _timeout(self, expected: str, allowed: Optional[float]) -> EngineTimeout:
        within = f" within {allowed:g} s" if allowed is not None else " in time after stop"
        return EngineTimeout(f"no {expected} from {self.id.name or self.label}{within}", expected, allowed)

    def _deadline(self, timeout: Optional[float]) -> tuple:
        allowed = self.timeout if timeout is None else float(timeout)
        return time.monotonic() + allowed, allowed

    # ------------------------------------------------------------ the protocol

    def handshake(self, timeout: Optional[float] = None) -> None:
        """Read the answer to `tne` up to `tneok`: `id` and `option` lines; banners before it are skipped."""
        if self._handshaken:
            return
        deadline, allowed = self._deadline(timeout)
        ident, options = {}, {}
        while True:
            line, _ = self._read(deadline, "tneok", allowed)
            words = line.split()
            head = words[0] if words else ""
            if head == "tneok":
                break
            if head == "error":
                raise ProtocolErrorReply(line)
            try:
                if head == "id":
                    if len(words) < 3:
                        raise GarbledReply(f"garbled reply {line[:80]!r}: expected 'id <key> <value>'", line)
                    ident[words[1]] = line.split(None, 2)[2]
                elif head == "option":
                    opt = parse_option(line)
                    options[opt.name] = opt
            except GarbledReply:
                if self.strict:
                    raise
        self.id = EngineId(ident.get("name"), ident.get("version"), ident.get("author"))
        self.options = options
        self._handshaken = True

    def find_option(self, name: str) -> Optional[Option]:
        """Return the advertised option of that name (case-insensitive), or None."""
        for opt in self.options.values():
            if opt.name.lower() == name.lower():
                return opt
        return None

    def configure(self, options, *, check: bool = True, sync: bool = True, timeout: Optional[float] = None) -> None:
        """Send `setoption` for each (name, value) of a mapping or pair list, in order.

        `check` first refuses (OptionError, nothing sent) a name the engine does
        not advertise or a value its type or range does not take. `sync` then
        waits for `readyok`, so an `error` reply raises ProtocolErrorReply here.
        """
        self._prepare()
        pairs = list(options.items() if isinstance(options, Mapping) else options)
        lines = []
        for name, value in pairs:
            name = str(name)
            if check:
                opt = self.find_option(name)
                if opt is None:
                    offered = ", ".join(self.options) or "none"
                    raise OptionError(f"the engine offers no option {name!r} (it offers {offered})")
                text = check_option_value(opt, value)
            else:
                text = _value_text(value)
            lines.append(f"setoption name {name} value {text}")
        for line in lines:
            self._send(line)
        if sync:
            self.is_ready(timeout)

    def set_option(self, name: str, value, **kwargs) -> None:
        """Set one option (keywords as configure's)."""
        self.configure([(name, value)], **kwargs)

    def new_game(self, players: int = 2, board: str = "standard", seat: int = 0, variants=()) -> None:
        """Send `newgame` (no reply; an `error` surfaces at the next read)."""
        self._prepare()
        line = newgame_line(players, board, seat, variants)
        self._send(line)
        self.players, self.seat = int(players), int(seat)

    def set_position(self, *, first: Optional[int] = None, hand: Optional[str] = None, fen: Optional[str] = None,
                     swapped=None, moves: Sequence[str] = ()) -> None:
        """Send `position`: startpos (`first`, `hand`) or `fen` (+ `hand`, `swapped`), then the events `moves`.

        No reply on success; an `error` surfaces at the next read (is_ready, play, ...).
        """
        self._prepare()
        self._send(position_line(first=first, hand=hand, fen=fen, swapped=swapped, moves=moves))

    def is_ready(self, timeout: Optional[float] = None) -> None:
        """Send `isready` and wait for `readyok`; ProtocolErrorReply for an `error` to any command sent before."""
        self._prepare()
        self._send("isready")
        deadline, allowed = self._deadline(timeout)
        self._await_ready(deadline, allowed)

    def _await_ready(self, deadline: float, allowed: float, stale_ok: bool = False) -> None:
        first_error = None
        try:
            while True:
                line, _ = self._read(deadline, "readyok", allowed)
                head = line.split()[0] if line else ""
                if head == "readyok":
                    break
                if head == "error":
                    if not (stale_ok or _is_not_searching(line)):
                        first_error = first_error or ProtocolErrorReply(line)
                elif head not in ("", "info", "bestmove") and self.strict and not stale_ok:
                    raise GarbledReply(f"garbled reply {line[:80]!r} (expected readyok)", line)
        except (EngineTimeout, EngineTerminated, GarbledReply):
            if first_error is not None:     # the engine's own complaint says more than what followed it
                raise first_error from None
            raise
        if first_error is not None:
            raise first_error

    def legal_moves(self, timeout: Optional[float] = None) -> list:
        """Return the legal decisions of the seat to act (`legalmoves`), in notation."""
        self._prepare()
        self._send("legalmoves")
        deadline, allowed = self._deadline(timeout)
        while True:
            line, _ = self._read(deadline, "legalmoves", allowed)
            words = line.split(None, 2)
            head = words[0] if words else ""
            if head == "legalmoves":
                moves = [m.strip() for m in (words[2] if len(words) > 2 else "").split(";") if m.strip()]
                if len(words) < 2 or _int(words[1], line, "the count") != len(moves):
                    raise GarbledReply(f"garbled reply {line[:80]!r}: the count is not the number of moves", line)
                return moves
            if head == "error":
                if _is_not_searching(line):
                    continue
                raise ProtocolErrorReply(line)
            if self.strict and head not in ("", "info"):
                raise GarbledReply(f"garbled reply {line[:80]!r} (expected legalmoves)", line)

    def play(self, limits: GoLimits = GoLimits(), *, timeout: Optional[float] = None,
             on_info: Optional[Callable[[AnalysisInfo], None]] = None) -> PlayResult:
        """Send `go` and return its bestmove with the last info report.

        `timeout` (seconds from `go`): by default the search's own time limit
        (movetime, or this seat's clock plus increment) plus the Engine's
        timeout; a search limited by iterations alone gets the Engine's
        timeout; an infinite one waits until stop() (then the timeout). A
        bestmove arriving later raises EngineTimeout. `on_info(report)` is called
        with each complete info report (when the next one or the bestmove
        begins). An `error` reply (also to an earlier `position`) raises
        ProtocolErrorReply; a reply that is not info or bestmove, or a bestmove
        that is no decision, GarbledReply.
        """
        self._prepare()
        allowed = self._search_allowance(limits) if timeout is None else float(timeout)
        self._stop_sent_at = None
        self._searching = True
        self._dirty = True                  # until its bestmove is read, this search may still answer
        self._send(limits.command())
        t0 = time.monotonic()
        deadline = None if allowed is None else t0 + allowed
        report: Optional[AnalysisInfo] = None
        try:
            while True:
                line, t = self._read(deadline, "bestmove", allowed)
                head = line.split()[0] if line else ""
                if head == "bestmove":
                    self._dirty = False
                    if report is not None and on_info is not None:
                        on_info(report)
                    move = line[len("bestmove"):].strip()
                    try:
                        action = parse_action(move)
                    except NotationError as e:
                        raise GarbledReply(f"garbled move {move[:80]!r}: {e}", line, move) from None
                    return PlayResult(move, action, report, t - t0)
                if head == "info":
                    report = self._take_info(line, report, on_info)
                elif head == "error":
                    if not _is_not_searching(line):
                        raise ProtocolErrorReply(line)
                elif head not in ("", "readyok"):
                    raise GarbledReply(f"garbled reply {line[:80]!r} (expected info or bestmove)", line)
        finally:
            self._searching = False
            self._stop_sent_at = None

    def analyse(self, limits: GoLimits = GoLimits(), *, timeout: Optional[float] = None,
                on_info: Optional[Callable[[AnalysisInfo], None]] = None) -> AnalysisInfo:
        """Search as play() does and return the last info report (empty if the engine sent none)."""
        return self.play(limits, timeout=timeout, on_info=on_info).info or AnalysisInfo()

    def _take_info(self, line: str, report: Optional[AnalysisInfo], on_info) -> Optional[AnalysisInfo]:
        """Return the report being assembled after one `info` line (a header begins a new one)."""
        words = line.split()
        try:
            if words[1:2] == ["iterations"]:
                if report is not None and on_info is not None:
                    on_info(report)
                return parse_info_header(line)
            if words[1:2] == ["candidate"]:
                cand = parse_info_candidate(line)
                report = report if report is not None else AnalysisInfo()
                report.candidates.append(cand)
        except GarbledReply:
            if self.strict:
                raise
        # other info lines (`info string`, kinds this client does not know) carry no statistics
        return report

    def _search_allowance(self, limits: GoLimits) -> Optional[float]:
        if limits.infinite:
            return None
        if limits.movetime is not None:
            return limits.movetime / 1000 + self.timeout
        if limits.clocks:
            seat = self.seat if self.seat is not None and self.seat < len(limits.clocks) else None
            clock = limits.clocks[seat] if seat is not None else max(limits.clocks)
            inc = limits.incs[seat] if seat is not None and limits.incs and seat < len(limits.incs) else 0
            return (clock + inc) / 1000 + self.timeout
        return self.timeout

    def stop(self) -> None:
        """Ask a running search (of play or analyse, e.g. from another thread or on_info) to answer now."""
        if self._searching and self._stop_sent_at is None and not self._closed:
            self._stop_sent_at = time.monotonic()
            self._send("stop")

    def quit(self) -> None:
        """Send `quit` (once) if the engine still runs; close() then reaps it."""
        if not self._quit_sent and not self._closed and self.proc.poll() is None:
            self._quit_sent = True
            self._send("quit")

    def kill(self) -> None:
        """Kill the engine's process group at once (from any thread, any number of times)."""
        if self.proc is None or self._reaped:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def close(self, wait: float = QUIT_WAIT, *, graceful: bool = True) -> None:
        """End the engine: `quit` and up to `wait` seconds to leave if graceful, then kill its group and reap it."""
        if self._closed:
            return
        if graceful:
            self.quit()
        self._closed = True
        if graceful and wait > 0:
            try:
                self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                pass
        # The group also after a clean exit: it may still hold the engine's own children.
        self.kill()
        self.proc.kill()                    # in case the engine left its group
        self.proc.wait()
        self._reaped = True
        self._outbox.put(None)
        for t in self._threads:
            t.join(timeout=2.0)
        for pipe, t in zip((self.proc.stdout, self.proc.stderr), self._threads):
            if not t.is_alive():            # closing under a blocked reader could block the caller
                try:
                    pipe.close()
                except (OSError, ValueError):
                    pass
        self.note(f"ended with status {self.proc.returncode}")
        self._close_log()
        with _LIVE_LOCK:
            _LIVE.discard(self)

    @property
    def returncode(self) -> Optional[int]:
        """Return the exit status once the process has ended, else None."""
        return self.proc.poll() if self.proc is not None else None

    # ------------------------------------------------------------ helpers

    def _prepare(self) -> None:
        """Complete the handshake, and bring the pipe back in step after a search that did not end cleanly.

        Called before every command, so that what a search interrupted by a
        timeout, an error or a cancel may still send is read and dropped
        before anything else is sent, never mistaken for a later reply.
        """
        if not self._handshaken:
            self.handshake()
        if not self._dirty:
            return
        # `stop` ends a search still running (its bestmove comes first) or gets
        # `error not-searching`; everything before the `readyok` is stale.
        self._send("stop")
        self._send("isready")
        deadline, allowed = self._deadline(None)
        self._await_ready(deadline, allowed, stale_ok=True)
        self._stop_sent_at = None
        self._dirty = False


def _is_not_searching(line: str) -> bool:
    """Tell whether a line is the `error not-searching` a `stop` crossing a bestmove gets (harmless)."""
    return line.split()[:2] == ["error", "not-searching"]
