"""The bot protocol's codec (docs/protocol.md): lines in, commands out; replies in, lines out.

Everything here is pure: a text line or a JSON line becomes a `Command` (its
name and typed, range-checked arguments), or a `ProtocolError` carrying one
of the error codes of the spec; a reply (a plain dict with a "type") becomes
the lines of the text form or one JSON line. What the commands *do* is the
dispatcher's business (tne_ai.protocol.bot). Only the checks that need no game live
here: whether a seat fits the game, whether a hand fits the position, is
for the dispatcher.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Optional

from engine.actions import COLOURS, parse_variants
from engine.errors import NotationError
from engine.boards import BOARD_NAMES
from search.explain import format_explanation
from search.params import KNOBS, Knob

MAX_LINE_BYTES = 65536          # longer lines are refused whole (bad-line)
MAX_ITERATIONS = 1_000_000_000
MAX_MS = 1_000_000_000          # about 11.5 days: any clock or time limit
MAX_SEED = (1 << 63) - 1        # the Seed option's range (UCI spin values are signed 64-bit)
MAX_PERFT_DEPTH = 3             # perft blocks the engine: depth 3 takes about a second mid-game, 4 minutes
MAX_SEATS = 4
MAX_NUMBER_CHARS = 24           # longer digit strings are refused before int() sees them
ECHO_CHARS = 60                 # how much of a bad token an error message repeats

ERROR_CODES = ("unknown-command", "bad-argument", "unknown-option", "bad-value", "bad-position",
               "bad-event", "no-position", "not-to-act", "game-over", "busy", "not-searching",
               "hidden-unknown", "bad-line", "internal")

COMMANDS = ("tne", "isready", "setoption", "newgame", "position", "go", "stop", "legalmoves",
            "perft", "show", "eval", "protocol", "quit")

NO_ARGUMENTS = ("tne", "isready", "stop", "legalmoves", "show", "eval", "quit")

ENGINE_NAME = "tne-ai"
ENGINE_AUTHOR = "the tne-ai developers"


class ProtocolError(Exception):
    """A line the engine refuses: one `error <code> <text>` reply, nothing changed."""

    def __init__(self, code: str, text: str):
        assert code in ERROR_CODES, code
        super().__init__(f"{code}: {text}")
        self.code = code
        self.text = text


@dataclass
class Command:
    """One parsed command: its name and its arguments, typed and range-checked."""

    name: str
    args: dict = field(default_factory=dict)


def echo(text) -> str:
    """Return a piece of input fit to quote in an error: printable ASCII, shortened."""
    s = "".join(ch if " " <= ch <= "~" else "?" for ch in str(text))
    return s if len(s) <= ECHO_CHARS else s[:ECHO_CHARS] + "..."


def one_line(text: str) -> str:
    """Return text as one line of printable ASCII (an error message from deeper down)."""
    return " ".join("".join(ch if " " <= ch <= "~" else " " for ch in str(text)).split())


# ---------------------------------------------------------------- options


AUTO = "auto"                   # a knob option's value that leaves the knob to its own rule


@dataclass(frozen=True)
class OptionSpec:
    """One engine option as `tne` announces it (UCI types spin, check or string), and the `tne-ai bot` flag that sets it."""

    name: str
    type: str
    default: object
    min: Optional[float] = None     # spin: an int; string (a number): a float
    max: Optional[float] = None
    flag: Optional[str] = None      # the `tne-ai bot` flag (e.g. --workers); None: none
    help: str = ""                  # what it sets, in a few words
    field: Optional[str] = None     # the SearchParams field it sets (a knob of search.params.KNOBS)

    def coerce(self, value):
        """Return the option value a text or JSON value stands for; ProtocolError bad-value if it is none."""
        if value is None and self.default is None:
            return None                 # the knob's own rule (e.g. by the player count)
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, (int, float)):
            value = repr(value)
        if not isinstance(value, str):
            raise ProtocolError("bad-value", f"option {self.name}: expected a {self.type} value, "
                                             f"got {type(value).__name__}")
        text = value.strip()
        if self.type == "check":
            if text not in ("true", "false"):
                raise ProtocolError("bad-value", f"option {self.name}: expected true or false, got {echo(text)!r}")
            return text == "true"
        if self.type == "spin":
            if not re.fullmatch(r"-?[0-9]{1,%d}" % MAX_NUMBER_CHARS, text):
                raise ProtocolError("bad-value", f"option {self.name}: expected an integer "
                                                 f"{self.min}..{self.max}, got {echo(text)!r}")
            v = int(text)
            if not self.min <= v <= self.max:
                raise ProtocolError("bad-value", f"option {self.name}: {echo(text)} out of range "
                                                 f"{self.min}..{self.max}")
            return v
        # a string option is a float (UCI has no float type); "auto" a knob's own rule
        if self.default is None and text.lower() == AUTO:
            return None
        try:
            v = float(text) if len(text) <= MAX_NUMBER_CHARS else math.nan
        except ValueError:
            v = math.nan
        if not self.min <= v <= self.max:
            either = f" or {AUTO}" if self.default is None else ""
            raise ProtocolError("bad-value", f"option {self.name}: expected a number {self.min:g}..{self.max:g}{either}, "
                                             f"got {echo(text)!r}")
        return v

    def text_value(self, value) -> str:
        """Return a value as `tne` prints it."""
        if self.type == "check":
            return "true" if value else "false"
        return AUTO if value is None else str(value)


def knob_option(knob: Knob) -> OptionSpec:
    """Return the option a search knob declares (its `option`): spin for an int, check for a bool, string for a float."""
    kind = {int: "spin", bool: "check", float: "string"}[knob.type]
    low, high = knob.option_range or (knob.low, knob.high)
    if kind == "check":
        low = high = None
    return OptionSpec(knob.option, kind, knob.default, low, high, knob.flag, knob.help, knob.name)


# the search knobs' options, in KNOBS order; `tne` lists these two after Workers (as it always
# has), the others after the session's own options
_KNOB_OPTIONS = tuple(knob_option(k) for k in KNOBS if k.option is not None)
_LISTED_EARLY = ("Exploration", "RolloutDepth")
OPTIONS = (
    OptionSpec("Workers", "spin", 1, 1, 64, "--workers", "processes searching in parallel"),
    *(o for o in _KNOB_OPTIONS if o.name in _LISTED_EARLY),
    OptionSpec("Seed", "spin", 0, 0, MAX_SEED, "--seed", "go n of a game uses seed + n unless it names one"),
    OptionSpec("Candidates", "spin", 5, 1, 64, "--candidates", "candidates listed per info report"),
    OptionSpec("InfoInterval", "spin", 500, 0, 3_600_000, "--info-interval",
               "ms between info reports (0: only the last)"),
    OptionSpec("MoveOverhead", "spin", 10, 0, 10_000, "--move-overhead", "ms kept back from every time limit"),
    OptionSpec("Level", "spin", 10, 1, 10, "--level",
               "playing level, 1 (weakest) to 10 (full strength; docs/strength.md, Levels)"),
    *(o for o in _KNOB_OPTIONS if o.name not in _LISTED_EARLY),
)
OPTION_BY_KEY = {o.name.lower(): o for o in OPTIONS}


def default_options() -> dict:
    """Return {option name: default value}."""
    return {o.name: o.default for o in OPTIONS}


def find_option(name: str) -> OptionSpec:
    """Return the option of a case-insensitive name; ProtocolError unknown-option if none."""
    spec = OPTION_BY_KEY.get(str(name).lower())
    if spec is None:
        raise ProtocolError("unknown-option", f"no option {echo(name)!r}; the options are "
                                              + ", ".join(o.name for o in OPTIONS))
    return spec


# ---------------------------------------------------------------- lines


def decode_line(raw) -> Optional[str]:
    """Return a raw input line as text without its line end, None if blank; ProtocolError bad-line if unfit."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    if len(raw) > MAX_LINE_BYTES + 2:
        raise ProtocolError("bad-line", f"line longer than {MAX_LINE_BYTES} bytes")
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if len(raw) > MAX_LINE_BYTES:
        raise ProtocolError("bad-line", f"line longer than {MAX_LINE_BYTES} bytes")
    for i, b in enumerate(raw):
        if not (32 <= b <= 126 or b == 9):
            raise ProtocolError("bad-line", f"byte 0x{b:02x} at column {i + 1} is not printable ASCII")
    text = raw.decode("ascii")
    return text if text.strip() else None


def read_lines(read_chunk, limit: int = MAX_LINE_BYTES, chunk: int = 65536):
    """Yield the lines of a byte stream (read_chunk(n) -> bytes, b'' at the end), each cut to limit + 1 bytes.

    A line longer than `limit` is yielded as its first limit + 1 bytes, so
    that decode_line refuses it while memory stays bounded; a last line
    without a newline is yielded too.
    """
    buf = bytearray()
    while True:
        data = read_chunk(chunk)
        if not data:
            if buf:
                yield bytes(buf)
            return
        start = 0
        while True:
            end = data.find(b"\n", start)
            piece = data[start:] if end < 0 else data[start:end]
            room = limit + 1 - len(buf)
            if room > 0:
                buf += piece[:room]
            if end < 0:
                break
            yield bytes(buf)
            buf.clear()
            start = end + 1


# ---------------------------------------------------------------- arguments


def _int_text(what: str, text: str, lo: int, hi: int) -> int:
    if not re.fullmatch(r"[0-9]{1,%d}" % MAX_NUMBER_CHARS, text):
        raise ProtocolError("bad-argument", f"{what}: expected an integer {lo}..{hi}, got {echo(text)!r}")
    v = int(text)
    if not lo <= v <= hi:
        raise ProtocolError("bad-argument", f"{what}: {v} out of range {lo}..{hi}")
    return v


def _int_json(what: str, v, lo: int, hi: int) -> int:
    if type(v) is not int:
        raise ProtocolError("bad-argument", f"{what}: expected an integer {lo}..{hi}, got {echo(json.dumps(v))}")
    if not lo <= v <= hi:
        raise ProtocolError("bad-argument", f"{what}: {echo(v)} out of range {lo}..{hi}")
    return v


def _printable(what: str, v) -> str:
    if not isinstance(v, str):
        raise ProtocolError("bad-argument", f"{what}: expected a string, got {echo(json.dumps(v))}")
    if any(not " " <= ch <= "~" for ch in v):
        raise ProtocolError("bad-argument", f"{what}: not printable ASCII")
    return v


def parse_tiles(what: str, text: str) -> list:
    """Return [k, r, b, g] counts of tile letters ('-' for none); ProtocolError bad-argument if not letters."""
    t = text.strip()
    if t == "-":
        return [0, 0, 0, 0]
    if not t or len(t) > 6 * 26 or any(ch not in COLOURS for ch in t):
        raise ProtocolError("bad-argument", f"{what}: expected tile letters from {COLOURS!r} or '-', "
                                            f"got {echo(text)!r}")
    return [t.count(ch) for ch in COLOURS]


def parse_counts(what: str, text: str) -> list:
    """Return four counts written k,r,b,g; ProtocolError bad-argument if malformed."""
    parts = text.strip().split(",")
    if len(parts) != 4:
        raise ProtocolError("bad-argument", f"{what}: expected four counts k,r,b,g, got {echo(text)!r}")
    return [_int_text(what, p, 0, 153) for p in parts]


def _events(items) -> list:
    out = []
    for i, ev in enumerate(items):
        text = " ".join(ev.split())
        if not text:
            raise ProtocolError("bad-event", f"event {i + 1} is empty")
        out.append(text)
    return out


def _pairs(cmd: str, tokens: list, keys: dict) -> dict:
    """Parse `key value` pairs (keys: name -> parser of the value text); each key at most once."""
    out = {}
    i = 0
    while i < len(tokens):
        key = tokens[i]
        if key not in keys:
            raise ProtocolError("bad-argument", f"{cmd}: unknown argument {echo(key)!r}; expected "
                                                + ", ".join(keys))
        if key in out:
            raise ProtocolError("bad-argument", f"{cmd}: {key} given twice")
        if i + 1 >= len(tokens):
            raise ProtocolError("bad-argument", f"{cmd}: {key} needs a value")
        out[key] = keys[key](f"{cmd} {key}", tokens[i + 1])
        i += 2
    return out


def _no_args(cmd: str, tokens: list) -> dict:
    if tokens:
        raise ProtocolError("bad-argument", f"{cmd} takes no arguments, got {echo(' '.join(tokens))!r}")
    return {}


def _board(what: str, text: str) -> str:
    if text not in BOARD_NAMES:
        raise ProtocolError("bad-argument", f"{what}: expected {' or '.join(BOARD_NAMES)}, got {echo(text)!r}")
    return text


def _variants(what: str, text: str) -> tuple:
    """Parse a comma-separated list of 2015 variants (or `none`) into engine order."""
    if len(text) > 64:
        raise ProtocolError("bad-argument", f"{what}: {echo(text)!r} is not a list of variants")
    try:
        return parse_variants(text)
    except NotationError as e:                  # names the bad word, repr-escaped
        raise ProtocolError("bad-argument", f"{what}: {e}") from None


def _newgame_args(args: dict) -> dict:
    out = {"players": args.get("players", 2), "board": args.get("board", "standard"),
           "seat": args.get("seat", 0), "variants": args.get("variants", ())}
    if out["seat"] >= out["players"]:
        raise ProtocolError("bad-argument", f"newgame: seat {out['seat']} out of range 0..{out['players'] - 1}")
    return out


def _go_check(args: dict) -> dict:
    if args.get("infinite") and any(k in args for k in ("iterations", "movetime", "clocks")):
        raise ProtocolError("bad-argument", "go: infinite cannot be combined with another limit")
    args.setdefault("clocks", {})
    args.setdefault("incs", {})
    args.setdefault("infinite", False)
    return args


# ---------------------------------------------------------------- text commands


def parse_text(line: str) -> Command:
    """Parse one text line (decode_line's output) into a Command; ProtocolError if bad."""
    tokens = line.split()
    name, rest = tokens[0], tokens[1:]
    if name not in COMMANDS:
        raise ProtocolError("unknown-command", f"{echo(name)}: known commands are {', '.join(COMMANDS)}")
    if name in NO_ARGUMENTS:
        return Command(name, _no_args(name, rest))
    if name == "setoption":
        if len(rest) < 4 or rest[0] != "name" or rest[2] != "value":
            raise ProtocolError("bad-argument", "setoption: expected 'setoption name <Name> value <value>'")
        return Command(name, {"name": rest[1], "value": " ".join(rest[3:])})
    if name == "newgame":
        args = _pairs(name, rest, {
            "players": lambda w, t: _int_text(w, t, 2, 4),
            "board": _board,
            "seat": lambda w, t: _int_text(w, t, 0, MAX_SEATS - 1),
            "variants": _variants,
        })
        return Command(name, _newgame_args(args))
    if name == "position":
        return Command(name, _position_text(rest))
    if name == "go":
        return Command(name, _go_text(rest))
    if name == "perft":
        if len(rest) != 1:
            raise ProtocolError("bad-argument", "perft: expected 'perft <depth>'")
        return Command(name, {"depth": _int_text("perft depth", rest[0], 0, MAX_PERFT_DEPTH)})
    # protocol
    if len(rest) != 1 or rest[0] not in ("text", "json"):
        raise ProtocolError("bad-argument", "protocol: expected 'protocol text' or 'protocol json'")
    return Command(name, {"mode": rest[0]})


def _position_text(rest: list) -> dict:
    if not rest or rest[0] not in ("startpos", "fen"):
        raise ProtocolError("bad-argument", "position: expected 'position startpos ...' or 'position fen ...'")
    moves = []
    if "moves" in rest:
        i = rest.index("moves")
        rest, tail = rest[:i], rest[i + 1:]
        joined = " ".join(tail)
        moves = _events(joined.split(";")) if joined else []
    if rest[0] == "startpos":
        args = _pairs("position startpos", rest[1:], {
            "first": lambda w, t: _int_text(w, t, 0, MAX_SEATS - 1),
            "hand": parse_tiles,
        })
        for key in ("first", "hand"):
            if key not in args:
                raise ProtocolError("bad-argument", f"position startpos: {key} is missing")
        return {"startpos": True, "first": args["first"], "hand": args["hand"], "moves": moves}
    keys = ("hand", "swapped")
    i = 1
    while i < len(rest) and rest[i] not in keys:
        i += 1
    if i == 1:
        raise ProtocolError("bad-argument", "position fen: the position string is missing")
    args = _pairs("position fen", rest[i:], {"hand": parse_tiles, "swapped": parse_counts})
    return {"fen": " ".join(rest[1:i]), "hand": args.get("hand"), "swapped": args.get("swapped"),
            "moves": moves}


def _seat_key(cmd: str, key: str, prefix: str) -> int:
    digits = key[len(prefix):]
    if not re.fullmatch(r"[0-9]", digits) or int(digits) >= MAX_SEATS:
        raise ProtocolError("bad-argument", f"{cmd}: unknown argument {echo(key)!r}; "
                                            f"{prefix}<seat> takes a seat 0..{MAX_SEATS - 1}")
    return int(digits)


def _go_text(rest: list) -> dict:
    args: dict = {}
    simple = {"iterations": (1, MAX_ITERATIONS), "movetime": (1, MAX_MS), "seed": (0, MAX_SEED)}
    i = 0
    while i < len(rest):
        key = rest[i]
        if key == "infinite":
            if "infinite" in args:
                raise ProtocolError("bad-argument", "go: infinite given twice")
            args["infinite"] = True
            i += 1
            continue
        if key in simple:
            slot, seat = key, None
        elif key.startswith("clock"):
            slot, seat = "clocks", _seat_key("go", key, "clock")
        elif key.startswith("inc"):
            slot, seat = "incs", _seat_key("go", key, "inc")
        else:
            raise ProtocolError("bad-argument", f"go: unknown argument {echo(key)!r}; expected iterations, "
                                                f"movetime, clock<s>, inc<s>, infinite, seed")
        given = key in args if seat is None else seat in args.get(slot, {})
        if given:
            raise ProtocolError("bad-argument", f"go: {key} given twice")
        if i + 1 >= len(rest):
            raise ProtocolError("bad-argument", f"go: {key} needs a value")
        lo, hi = simple[key] if seat is None else (0, MAX_MS)
        value = _int_text(f"go {key}", rest[i + 1], lo, hi)
        if seat is None:
            args[key] = value
        else:
            args.setdefault(slot, {})[seat] = value
        i += 2
    return _go_check(args)


# ---------------------------------------------------------------- JSON commands


def _json_keys(cmd: str, obj: dict, allowed: tuple) -> None:
    for key in obj:
        if key != "cmd" and key not in allowed:
            raise ProtocolError("bad-argument", f"{cmd}: unknown argument {echo(key)!r}"
                                + (f"; expected {', '.join(allowed)}" if allowed else " (it takes none)"))


def parse_json(line: str) -> Command:
    """Parse one JSON line (decode_line's output) into a Command; ProtocolError if bad."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise ProtocolError("bad-line", f"not JSON: {one_line(e)[:ECHO_CHARS]}") from None
    if not isinstance(obj, dict):
        raise ProtocolError("bad-line", f"expected a JSON object, got {type(obj).__name__}")
    if "cmd" not in obj:
        raise ProtocolError("bad-argument", "a JSON command needs a \"cmd\" field")
    name = obj["cmd"]
    if not isinstance(name, str) or name not in COMMANDS:
        shown = name if isinstance(name, str) else json.dumps(name)
        raise ProtocolError("unknown-command", f"{echo(shown)}: known commands are {', '.join(COMMANDS)}")
    if name in NO_ARGUMENTS:
        _json_keys(name, obj, ())
        return Command(name, {})
    if name == "setoption":
        _json_keys(name, obj, ("name", "value"))
        for key in ("name", "value"):
            if key not in obj:
                raise ProtocolError("bad-argument", f"setoption: {key} is missing")
        value = obj["value"]
        if not isinstance(value, (str, int, float, bool)):
            raise ProtocolError("bad-value", f"setoption: value must be a string, number or boolean, "
                                             f"got {type(value).__name__}")
        if isinstance(value, str):
            _printable("setoption value", value)
        return Command(name, {"name": _printable("setoption name", obj["name"]), "value": value})
    if name == "newgame":
        _json_keys(name, obj, ("players", "board", "seat", "variants"))
        args = {}
        if "players" in obj:
            args["players"] = _int_json("newgame players", obj["players"], 2, 4)
        if "board" in obj:
            args["board"] = _board("newgame board", _printable("newgame board", obj["board"]))
        if "seat" in obj:
            args["seat"] = _int_json("newgame seat", obj["seat"], 0, MAX_SEATS - 1)
        if "variants" in obj:
            v = obj["variants"]
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise ProtocolError("bad-argument", "newgame variants: expected a list of names")
            args["variants"] = _variants("newgame variants", ",".join(_printable("newgame variants", x)
                                                                      for x in v) or "none")
        return Command(name, _newgame_args(args))
    if name == "position":
        return Command(name, _position_json(obj))
    if name == "go":
        return Command(name, _go_json(obj))
    if name == "perft":
        _json_keys(name, obj, ("depth",))
        if "depth" not in obj:
            raise ProtocolError("bad-argument", "perft: depth is missing")
        return Command(name, {"depth": _int_json("perft depth", obj["depth"], 0, MAX_PERFT_DEPTH)})
    _json_keys(name, obj, ("mode",))
    if obj.get("mode") not in ("text", "json"):
        raise ProtocolError("bad-argument", "protocol: mode must be \"text\" or \"json\"")
    return Command(name, {"mode": obj["mode"]})


def _position_json(obj: dict) -> dict:
    if ("startpos" in obj) == ("fen" in obj):
        raise ProtocolError("bad-argument", "position: give exactly one of \"startpos\": true and \"fen\"")
    moves = obj.get("moves", [])
    if not isinstance(moves, list):
        raise ProtocolError("bad-argument", "position moves: expected a list of strings")
    moves = _events([_printable(f"position moves[{i}]", m) for i, m in enumerate(moves)])
    if "startpos" in obj:
        _json_keys("position", obj, ("startpos", "first", "hand", "moves"))
        if obj["startpos"] is not True:
            raise ProtocolError("bad-argument", "position: startpos must be true")
        for key in ("first", "hand"):
            if key not in obj:
                raise ProtocolError("bad-argument", f"position startpos: {key} is missing")
        return {"startpos": True, "first": _int_json("position first", obj["first"], 0, MAX_SEATS - 1),
                "hand": parse_tiles("position hand", _printable("position hand", obj["hand"])),
                "moves": moves}
    _json_keys("position", obj, ("fen", "hand", "swapped", "moves"))
    fen = " ".join(_printable("position fen", obj["fen"]).split())
    if not fen:
        raise ProtocolError("bad-argument", "position fen: the position string is missing")
    hand = swapped = None
    if "hand" in obj:
        hand = parse_tiles("position hand", _printable("position hand", obj["hand"]))
    if "swapped" in obj:
        swapped = parse_counts("position swapped", _printable("position swapped", obj["swapped"]))
    return {"fen": fen, "hand": hand, "swapped": swapped, "moves": moves}


def _go_json(obj: dict) -> dict:
    _json_keys("go", obj, ("iterations", "movetime", "clocks", "incs", "infinite", "seed"))
    args: dict = {}
    if "iterations" in obj:
        args["iterations"] = _int_json("go iterations", obj["iterations"], 1, MAX_ITERATIONS)
    if "movetime" in obj:
        args["movetime"] = _int_json("go movetime", obj["movetime"], 1, MAX_MS)
    if "seed" in obj:
        args["seed"] = _int_json("go seed", obj["seed"], 0, MAX_SEED)
    for key in ("clocks", "incs"):
        if key in obj:
            v = obj[key]
            if not isinstance(v, list) or not 1 <= len(v) <= MAX_SEATS:
                raise ProtocolError("bad-argument", f"go {key}: expected a list of 1..{MAX_SEATS} "
                                                    f"times in ms, one per seat")
            args[key] = {s: _int_json(f"go {key}[{s}]", t, 0, MAX_MS) for s, t in enumerate(v)}
    if "infinite" in obj:
        if type(obj["infinite"]) is not bool:
            raise ProtocolError("bad-argument", "go infinite: expected true or false")
        if obj["infinite"]:
            args["infinite"] = True
    return _go_check(args)


# ---------------------------------------------------------------- replies


def id_reply(version: str, options: dict) -> dict:
    """Return the handshake reply: identity and every option with its current value."""
    opts = []
    for o in OPTIONS:
        value = options[o.name]
        d = {"name": o.name, "type": o.type, "default": AUTO if value is None else value}
        if o.type == "spin":
            d.update(min=o.min, max=o.max)
        opts.append(d)
    return {"type": "id", "name": ENGINE_NAME, "version": version, "author": ENGINE_AUTHOR, "options": opts}


def error_reply(err: ProtocolError) -> dict:
    """Return the reply of a refused line."""
    return {"type": "error", "code": err.code, "text": one_line(err.text)}


def _f4(x: float) -> str:
    return f"{x:.4f}"


def format_text(reply: dict) -> list:
    """Return a reply as the lines of the text protocol."""
    t = reply["type"]
    if t == "id":
        out = [f"id name {reply['name']}", f"id version {reply['version']}", f"id author {reply['author']}"]
        for o in reply["options"]:
            spec = OPTION_BY_KEY[o["name"].lower()]
            line = f"option name {o['name']} type {o['type']} default {spec.text_value(o['default'])}"
            if o["type"] == "spin":
                line += f" min {o['min']} max {o['max']}"
            out.append(line)
        return out
    if t in ("tneok", "readyok"):
        return [t]
    if t == "info":
        out = [f"info iterations {reply['iterations']} nps {reply['nps']} nodes {reply['nodes']} "
               f"time {reply['time']} value {'/'.join(_f4(v) for v in reply['value'])}"
               + (f" win {'/'.join(_f4(v) for v in reply['win'])}" if "win" in reply else "")]
        if "treefull" in reply:
            out.append(f"info string tree full at {reply['treefull']} bytes (TreeMemory): "
                       f"it no longer grows, its statistics still improve")
        for i, c in enumerate(reply["candidates"]):
            out.append(f"info candidate {i + 1} visits {c['visits']} avail {c['avail']} mean {_f4(c['mean'])} "
                       f"low {_f4(c['low'])} high {_f4(c['high'])} move {c['move']} pv {'; '.join(c['pv'])}")
        return out
    if t == "bestmove":
        return [f"bestmove {reply['move']}"]
    if t == "legalmoves":
        return [f"legalmoves {len(reply['moves'])} {'; '.join(reply['moves'])}"]
    if t == "perft":
        return [f"perft {reply['depth']} nodes {reply['nodes']} time {reply['time']}"]
    if t == "show":
        out = [("info string " + row).rstrip() for row in reply["board"].split("\n")]
        out.append(f"position fen {reply['position']} hand {reply['hand']} swapped {reply['swapped']}")
        return out
    if t == "eval":
        # the table and its words for a person, then one line for a program
        out = [("info string " + row).rstrip() for row in format_explanation(reply).split("\n") if row.strip()]
        out.append(eval_line(reply))
        return out
    if t == "error":
        return [f"error {reply['code']} {reply['text']}"]
    raise ValueError(f"unknown reply type {t!r}")


def _f4s(values) -> str:
    return ",".join(_f4(v) for v in values)


def eval_line(reply: dict) -> str:
    """Return the `eval` line: the position's facts, then `seat <s> <key value>...` per seat."""
    out = [f"eval view {reply['seat']} players {reply['players']} progress {_f4(reply['progress'])} "
           f"over {'true' if reply['over'] else 'false'} hidden public"]
    for s in reply["seats"]:
        terms = s["terms"]
        out.append(f"seat {s['seat']} scores {','.join(map(str, s['scores']))} treasures {s['treasures']} "
                   f"totals {','.join(map(str, s['totals']))} weakest {s['weakest']['colour']} "
                   f"need {_f4s(s['need'].values())} colours {_f4(terms['colours'])} "
                   f"bonus {_f4(terms['weakest'])} leaders {_f4(terms['leaders'])} kings {_f4(terms['kings'])} "
                   f"wonder {_f4(terms['wonder'])} catastrophes {_f4(terms['catastrophes'])} "
                   f"value {_f4(s['value'])} margin {_f4(s['margin'])} "
                   f"end {_f4(s['end'])} reward {_f4(s['reward'])}")
    return " ".join(out)


def _rounded(v):
    if isinstance(v, float):
        return round(v, 4)
    if isinstance(v, list):
        return [_rounded(x) for x in v]
    if isinstance(v, dict):
        return {k: _rounded(x) for k, x in v.items()}
    return v


def format_json(reply: dict) -> list:
    """Return a reply as one JSON line (floats to 4 decimals)."""
    return [json.dumps(_rounded(reply))]
