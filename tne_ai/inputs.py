"""The game input every `tne-ai` command reads, and the command-line options that describe a game.

Every `tne-ai` command that reads a game takes POSITION_OR_FILE: a one-line
position string (engine/position.py), a file holding one, a game record
(engine/record.py; the position at its end or after `--ply N` decisions), or
`-` for standard input. `load_input` turns that into a snapshot (and a State
when the hidden part is known) or a one-line error with exit status 2.
`startpos` names the start of a new game of `--players`, `--board`, `--seed`
and `--variants` (the 2015 variants, `parse_variants`).
"""
from __future__ import annotations

import os
import sys
from importlib import resources
from dataclasses import dataclass
from typing import Optional

import click

import engine
from engine import actions as A
from engine.actions import VARIANTS
from engine.errors import EngineError
from engine.position import parse_position
from engine.record import record_start, replay_record
from search.arena.backends import BACKENDS

MAX_PERFT_DEPTH = 6
SAMPLE_FILE = "data/sample-midgame.txt"
STARTPOS = "startpos"            # POSITION_OR_FILE naming the start of a new game (perft, show)


class InputError(click.ClickException):
    """Report bad input on one line and exit with status 2 (like a usage error)."""

    exit_code = 2


@dataclass
class Loaded:
    """A game position read from the command line, and where it came from."""

    snapshot: dict                   # full snapshot, or a public one (hidden part unknown)
    state: Optional[engine.State]    # None when the hidden part is unknown
    source: str                      # e.g. "game.txt", "position string", "stdin"
    kind: str                        # "position" or "record"
    ply: Optional[int] = None        # decisions replayed (records only)
    plies: Optional[int] = None      # decisions in the whole record
    seed: Optional[int] = None       # the deal (kind "start" only)
    last: Optional[int] = None       # the last decision replayed (records only; None at ply 0)

    def describe(self) -> str:
        """Return a one-line description of the input (naming the variants, if any are on)."""
        variants = self.snapshot.get("variants") or []
        on = f", variants {','.join(variants)}" if variants else ""
        if self.kind == "start":
            return (f"{self.source}: start of a new game, {self.snapshot['players']} players, "
                    f"{self.snapshot['board']} board, seed {self.seed}{on}")
        if self.kind == "record":
            return f"{self.source}: game record, after decision {self.ply} of {self.plies}{on}"
        return (f"{self.source}: position" + ("" if self.state is not None else " (public part only)")
                + (f" ({on[2:]})" if on else ""))


def read_source(arg: str) -> tuple:
    """Return (text, source label) of POSITION_OR_FILE: a file's text, standard input (`-`) or the argument itself."""
    if arg == "-":
        return sys.stdin.read(), "stdin"
    if os.path.isdir(arg):
        raise InputError(f"{arg!r} is a directory, not a position or a game record file")
    if os.path.exists(arg):
        try:
            with open(arg, encoding="utf-8") as f:
                return f.read(), arg
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"cannot read {arg!r}: {e}") from e
    if not arg.strip() or len(arg.split()) == 1:
        # a position string has 21 fields: one word can only have been meant as a file
        raise InputError(f"no such file: {arg!r} (and not a position string)")
    return arg, "position string"


def _body_lines(text: str) -> list:
    return [ln.split("#", 1)[0].strip() for ln in text.splitlines() if ln.split("#", 1)[0].strip()]


def load_input(arg: str, ply: Optional[int] = None) -> Loaded:
    """Read POSITION_OR_FILE (or '-') into a Loaded position; InputError on any bad input."""
    text, source = read_source(arg)
    return parse_input(text, source, ply)


def load_sample(ply: Optional[int] = None) -> Loaded:
    """Return the built-in sample mid-game position (tne_ai/data/sample-midgame.txt)."""
    text = resources.files("tne_ai").joinpath(SAMPLE_FILE).read_text(encoding="utf-8")
    return parse_input(text, "built-in sample mid-game", ply)


def parse_input(text: str, source: str, ply: Optional[int] = None) -> Loaded:
    """Parse a position string or a game record's text into a Loaded position."""
    lines = _body_lines(text)
    if not lines:
        raise InputError(f"{source}: empty: expected a position string or a game record")
    is_record = len(lines) > 1 or lines[0].startswith("[")
    if not is_record:
        if ply is not None:
            raise InputError(f"--ply applies to game records, and {source} is a position string")
        try:
            snap = parse_position(lines[0])
            state = None if snap["hands"] is None else engine.State.from_snapshot(snap)
        except EngineError as e:
            raise InputError(f"bad position ({source}): {e}") from e
        return Loaded(snap if state is None else state.snapshot(), state, source, "position")
    try:
        state, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
    except EngineError as e:
        raise InputError(f"bad game record ({source}): {e}") from e
    if ply is not None and ply != len(actions):
        if not 0 <= ply <= len(actions):
            raise InputError(f"--ply {ply} is out of range: {source} holds decisions 0..{len(actions)}")
        state = record_start(text, engine.new_game, engine.State.from_snapshot)
        for a in actions[:ply]:
            state.apply(a)
    done = len(actions) if ply is None else ply
    return Loaded(state.snapshot(), state, source, "record", done, len(actions),
                  last=actions[done - 1] if done else None)


def write_svg(path: str, text: str) -> None:
    """Write an SVG document to `path`; a one-line InputError (exit status 2) when it cannot be written."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise InputError(f"--svg: cannot write {path!r}: {e.strerror or e}") from None


def require_state(loaded: Loaded, what: str) -> engine.State:
    """Return the loaded State, or fail when only the public part of the position is known."""
    if loaded.state is None:
        raise InputError(f"{what} needs every hand and the bag, and the input ({loaded.source}) gives "
                         f"only the public part (add ' | hands bag swapped' to the position string)")
    return loaded.state


def check_seat(seat: Optional[int], players: int, option: str = "--seat") -> Optional[int]:
    """Return the seat if it exists in a game of `players`, else fail naming the option."""
    if seat is not None and not 0 <= seat < players:
        raise InputError(f"{option} {seat} is out of range: this game has seats 0..{players - 1}")
    return seat


def parse_variants(text: str) -> tuple:
    """Return the 2015 variants named in `text` (comma-separated; `none` or empty for none) in engine order.

    Raises click.BadParameter naming an unknown or repeated name, so that a
    command reports a usage error (exit status 2).
    """
    try:
        return A.parse_variants(",".join(w.strip().lower() for w in text.split(",")))
    except A.NotationError as e:
        raise click.BadParameter(str(e)) from None


def _variants_callback(ctx, param, value):
    return None if value is None else parse_variants(value)


def variants_option(help_text: str):
    """Return the click option `--variants LIST` (None when not given, else a tuple in engine order)."""
    return click.option("--variants", metavar="LIST", callback=_variants_callback,
                        help=help_text + f" LIST: comma-separated, some of {','.join(VARIANTS)}; or none.")


def variants_text(variants) -> str:
    """Return the variants as written on the command line: `english,wonder`, or `none`."""
    return ",".join(variants) or "none"


def check_agrees(snap: dict, players=None, board=None, variants=None, what: str = "the position") -> None:
    """Fail (usage error) when --players, --board or --variants contradicts a loaded position."""
    for name, given, actual in (("--players", players, snap["players"]), ("--board", board, snap["board"]),
                                ("--variants", variants, snap.get("variants", []))):
        if given is None:
            continue
        if name == "--variants":
            given, actual = variants_text(given), variants_text(actual)
        if given != actual:
            raise click.UsageError(f"{name} {given} disagrees with {what} ({actual}): "
                                   f"the position decides; leave {name} out")


def load_game(arg: str, ply: Optional[int], players: Optional[int], board: Optional[str],
              seed: Optional[int], variants: Optional[tuple]) -> Loaded:
    """Read POSITION_OR_FILE, or `startpos`: a new game of --players/--board/--seed/--variants."""
    if arg == STARTPOS:
        if ply is not None:
            raise InputError("--ply applies to game records, not to startpos")
        seed = 0 if seed is None else seed
        state = engine.new_game(players or 2, seed, board or "standard", variants or ())
        return Loaded(state.snapshot(), state, STARTPOS, "start", seed=seed)
    if seed is not None:
        raise click.UsageError("--seed applies to startpos only: a position or record has its deal")
    loaded = load_input(arg, ply)
    check_agrees(loaded.snapshot, players, board, variants)
    return loaded


def start_options(f):
    """Add --players, --board, --seed and --variants (for `startpos`) to a command."""
    f = variants_option("With startpos: the 2015 variants of the new game (default none); with a position, "
                        "it must agree.")(f)
    f = click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1),
                     help="With startpos: the deal's seed (default 0).")(f)
    f = click.option("--board", type=click.Choice(["standard", "advanced"]),
                     help="With startpos: the board (default standard); with a position, it must agree.")(f)
    f = click.option("--players", type=click.IntRange(2, 4),
                     help="With startpos: players (default 2); with a position, it must agree.")(f)
    return f


def backend_options(f):
    """Add --jobs, --backend and --ray-address."""
    f = click.option("--ray-address", metavar="HOST:PORT",
                     help="With --backend ray: the cluster to join (default: start or join a local one).")(f)
    f = click.option("--backend", type=click.Choice(BACKENDS), default="process", show_default=True,
                     help="Where games run: this process or a process pool (--jobs), or Ray tasks.")(f)
    return click.option("--jobs", type=click.IntRange(1, 256), default=1, show_default=True,
                        help="Games played at once (1: in this process).")(f)
