"""`tne-ai serve`: play against the engine in a browser (docs/web.md).

A Starlette app (tne_ai.web.app) served by uvicorn. It binds to 127.0.0.1
and a free port by default and prints the URL; engine searches run in a
process pool of `--workers` processes so the page stays responsive. With a
--host other than loopback the banner warns: anyone who can reach the port
can start games (a game itself is reachable only through its unguessable id).
"""
from __future__ import annotations

import ipaddress
import socket

import click


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


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to bind (0: a free one).")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Engine process pool size.")
def serve_command(host, port, workers):
    """Play against the engine in a browser: a local web app (docs/web.md)."""
    import uvicorn

    from tne_ai.web.app import create_app
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        raise click.ClickException(f"cannot bind {host}:{port}: {e}") from None
    bound = sock.getsockname()[1]
    click.echo(banner(host, bound, workers), err=False)
    config = uvicorn.Config(create_app(workers=workers), log_level="warning", ws="auto")
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
