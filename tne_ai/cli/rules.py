"""Rules-debugging commands: `tne-ai perft` and `tne-ai show`.

`perft` counts the decision sequences of a given length (every atomic
decision is a ply: tiles, leaders, conflict commitments, war choices,
monuments, treasures; draws are resolved inside apply, docs/engine.md).
`show` renders a position (engine/render.py), a seat's hand only if asked;
`--svg FILE` also writes it as an SVG picture (engine/svg.py). Both read
POSITION_OR_FILE as tne_ai/inputs.py does, `startpos` included.
"""
from __future__ import annotations

import time

import click

import engine
from engine.position import format_position
from engine.render import legend, render
from engine.svg import board_svg
from tne_ai.inputs import (MAX_PERFT_DEPTH, InputError, check_seat, load_game, require_state, start_options,
                           write_svg)


def _arg_help() -> str:
    return ("POSITION_OR_FILE: a position string, a file with one, a game record, - for stdin, or startpos "
            "for the start of a new game (--players, --board, --seed, --variants).")


@click.command("perft", epilog=_arg_help())
@click.argument("position_or_file")
@click.option("--depth", "-d", type=click.IntRange(1, MAX_PERFT_DEPTH), required=True,
              help=f"Decisions to look ahead (1..{MAX_PERFT_DEPTH}).")
@click.option("--divide", is_flag=True, help="Also print the count below each legal decision.")
@click.option("--ply", type=click.IntRange(min=0), help="With a game record: the position after N decisions.")
@start_options
def perft_command(position_or_file, depth, divide, ply, players, board, seed, variants):
    """Count the decision sequences of length DEPTH from a position (rules debugging)."""
    state = require_state(load_game(position_or_file, ply, players, board, seed, variants), "perft")
    t0 = time.perf_counter()
    if divide and not state.is_terminal():
        total = 0
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            n = engine.perft(child, depth - 1)
            total += n
            click.echo(f"{engine.format_action(action)}: {n}")
        click.echo("")
    else:
        total = engine.perft(state, depth)
    elapsed = time.perf_counter() - t0
    click.echo(f"nodes {total}")
    click.echo(f"depth {depth}, {elapsed:.3f} s", err=True)


@click.command("show", epilog=_arg_help())
@click.argument("position_or_file")
@click.option("--seat", type=click.IntRange(min=0), help="Show this seat's hand (default: no hand).")
@click.option("--ply", type=click.IntRange(min=0), help="With a game record: the position after N decisions.")
@click.option("--moves", is_flag=True, help="Also list the legal decisions.")
@click.option("--position", "print_position", is_flag=True,
              help="Also print the position string (hidden part included when known).")
@click.option("--svg", "svg_file", metavar="FILE",
              help="Also write the board as an SVG picture to FILE (with --seat, that seat's hand; a record's "
                   "last decision ringed).")
@start_options
def show_command(position_or_file, seat, ply, moves, print_position, svg_file, players, board, seed, variants):
    """Print a position or a game record's position as a board."""
    loaded = load_game(position_or_file, ply, players, board, seed, variants)
    snap = loaded.snapshot
    check_seat(seat, snap["players"])
    if seat is not None and loaded.state is None:
        raise InputError(f"--seat {seat}: the input ({loaded.source}) gives no hands, only the public part")
    if svg_file is not None:
        write_svg(svg_file, board_svg(snap, seat, last=loaded.last, title=loaded.describe()))
    click.echo(loaded.describe())
    click.echo(render(snap, seat), nl=False)
    click.echo(legend(snap.get("variants") or ()))
    if print_position:
        click.echo("position " + format_position(snap, hidden=loaded.state is not None))
    if moves:
        state = require_state(loaded, "--moves")
        legal = state.legal_moves()
        click.echo(f"{len(legal)} legal decisions" + (":" if legal else ""))
        for i in range(0, len(legal), 8):
            click.echo("  " + ", ".join(legal[i:i + 8]))
