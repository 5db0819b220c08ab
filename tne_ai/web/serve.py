"""`tne-ai serve`: play against the engine in a browser (docs/web.md).

A Starlette app (tne_ai.web.app) served by uvicorn. It binds to 127.0.0.1
and a free port by default and prints the URL; engine searches run in a
process pool of `--workers` processes so the page stays responsive. With a
--host other than loopback the banner warns: anyone who can reach the port
can start games (a game itself is reachable only through its unguessable id).
"""
from __future__ import annotations

import ipaddress
import os
import socket
import sys
from pathlib import Path

import click

from search.levels import FULL_STRENGTH, LEVELS_RANGE
from tne_ai.teach import TEACH_ITERATIONS


def is_loopback(host: str) -> bool:
    """Return whether a host name or address is the loopback interface."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def banner(host: str, port: int, workers: int) -> str:
    """Return the lines printed at start: the URL, and a warning when reachable from other machines."""
    shown = f"[{host}]" if ":" in host else host
    lines = [f"tne-ai serve: http://{shown}:{port}/  (engine pool: {workers} worker process(es); Ctrl-C stops)"]
    if not is_loopback(host):
        lines.append(f"WARNING: listening on {host}, not on loopback: anyone who can reach this port can "
                     f"start games and use this machine's CPU. There is no login; keep it on a trusted network.")
    return "\n".join(lines)


def listening_socket(host: str, port: int) -> socket.socket:
    """Return a TCP socket bound to host:port for uvicorn, with TCP_NODELAY set.

    The connections it accepts inherit TCP_NODELAY (Linux copies it from the
    listening socket; asyncio sets it on every transport too), so a small
    WebSocket frame, a pong or an engine's move, leaves at once instead of
    waiting up to 40 ms for Nagle's algorithm and a delayed ACK. OSError if
    the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def default_data_dir() -> Path:
    """Return the per-user folder for saved games: $XDG_DATA_HOME/tne-ai/games (~/.local/share/...),
    %LOCALAPPDATA%\\tne-ai\\games on Windows, ~/Library/Application Support/tne-ai/games on macOS."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "tne-ai" / "games"


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to bind (0: a free one).")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Engine process pool size.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder where every game is saved after every decision and resumed from after a "
                   "restart (default: ~/.local/share/tne-ai/games, or the platform's).")
@click.option("--max-games", type=click.IntRange(1, 100_000), default=200, show_default=True,
              help="Games kept in memory at once; when every one is in use (a page open, an engine "
                   "searching) a new game is refused with 503 (idle ones leave memory, still saved).")
@click.option("--max-saved-games", type=click.IntRange(1, 10_000_000), default=10_000, show_default=True,
              help="Games saved in the data folder at most; beyond, a new game is refused with 503.")
@click.option("--level", type=click.IntRange(*LEVELS_RANGE), default=FULL_STRENGTH, show_default=True,
              help="The engines' level in a new game whose form or request names none: 1 (weakest) to 10 "
                   "(full strength, 1000 iterations a decision); docs/strength.md, Levels.")
@click.option("--teach-iterations", type=click.IntRange(1, 200_000), default=TEACH_ITERATIONS, show_default=True,
              help="Teaching mode: iterations of each search that checks a player's decision (as play's).")
def serve_command(host, port, workers, data_dir, max_games, max_saved_games, level, teach_iterations):
    """Play against the engine in a browser: a local web app (docs/web.md)."""
    import uvicorn

    from tne_ai.web.app import create_app
    try:
        sock = listening_socket(host, port)
    except OSError as e:
        raise click.ClickException(f"cannot bind {host}:{port}: {e}") from None
    bound = sock.getsockname()[1]
    data_dir = data_dir or default_data_dir()
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise click.ClickException(f"cannot create the data folder {data_dir}: {e}") from None
    click.echo(banner(host, bound, workers), err=False)
    click.echo(f"games saved in {data_dir}")
    config = uvicorn.Config(create_app(workers=workers, data_dir=data_dir, max_games=max_games,
                                       max_saved=max_saved_games, default_level=level,
                                       teach_iterations=teach_iterations),
                            log_level="warning", ws="auto")
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
