"""`tne-ai serve` over real sockets and under a page that stops reading: TCP_NODELAY, bounded send queues.

The app runs under uvicorn in a thread on a socket made by
tne_ai.web.serve.listening_socket (as `tne-ai serve` makes it); the page is
the `websockets` client. A page that never reads is also played against
tne_ai.web.app.serve_socket directly with a socket whose sends never finish,
so no verdict depends on timing or on the kernel's buffer sizes.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from websockets.sync.client import connect

from tne_ai.web import games as G
from tne_ai.web.app import CLOSE_TOO_SLOW, MAX_PENDING, STATE, Server, create_app, serve_socket
from tne_ai.web.serve import listening_socket

ENGINE = {"iterations": 20}


@contextlib.contextmanager
def live_server(app, accepted=None):
    """Serve `app` with uvicorn in a thread on 127.0.0.1 (a free port); yield the port.

    `accepted`: a list that gets, for every connection the server accepts, its
    TCP_NODELAY option as the server side holds it (read by the HTTP protocol as
    uvicorn makes it).
    """
    class Recording(H11Protocol):
        def connection_made(self, transport):
            if accepted is not None:
                accepted.append(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP,
                                                                                socket.TCP_NODELAY))
            super().connection_made(transport)

    sock = listening_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", http=Recording, ws="auto"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:             # waiting for the start, no verdict on how long it takes
        assert thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


def post_json(port: int, path: str, body: dict) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


# ---------------------------------------------------------------- D5: TCP_NODELAY


def test_the_listening_socket_and_accepted_connections_have_tcp_nodelay():
    sock = listening_socket("127.0.0.1", 0)
    try:
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        sock.listen()
        with socket.create_connection(sock.getsockname()) as client:
            conn, _ = sock.accept()
            with conn:                    # what the server accepts inherits it
                assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            assert client
    finally:
        sock.close()


def test_connections_the_running_server_accepts_have_tcp_nodelay():
    accepted: list = []
    with live_server(create_app(workers=1), accepted) as port:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as r:
            assert r.status == 200
    assert accepted and all(accepted)


# ---------------------------------------------------------------- D7 over a real socket


def test_an_unknown_game_socket_is_upgraded_then_closed_4404():
    with live_server(create_app(workers=1)) as port:
        with connect(f"ws://127.0.0.1:{port}/api/games/{'x' * 32}/ws", compression=None) as ws:
            with pytest.raises(Exception):
                ws.recv()
            assert ws.close_code == 4404 and ws.close_reason == "no such game"
        try:                              # a page that does exist still gets a proper HTTP error
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games/nope")
        except urllib.error.HTTPError as e:
            assert e.code == 404
        else:
            pytest.fail("an unknown game answered 200")


# ---------------------------------------------------------------- D2: a page that does not read


def test_a_flood_of_state_requests_keeps_the_send_queue_bounded():
    app = create_app(workers=1)
    with live_server(app) as port:
        gid = post_json(port, "/api/games", {"players": 2, "engines": ENGINE, "human": 0})["game"]
        game = app.state.server.games[gid]
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)      # a page that reads little...
        raw.connect(("127.0.0.1", port))
        with connect(f"ws://127.0.0.1:{port}/api/games/{gid}/ws", sock=raw, max_queue=1, compression=None,
                     ping_interval=None, max_size=None) as ws:
            for _ in range(10_000):                                     # ...and asks 10,000 times
                ws.send('{"type": "state"}')
            ws.send('{"type": "ping", "t": "last"}')                    # answered after every state request
            (outbox,) = tuple(game.subscribers)
            states = 0
            while True:                                                 # the page reads at last
                m = json.loads(ws.recv())
                if m["type"] == "pong":
                    break
                states += m["type"] == "state"
            assert m == {"type": "pong", "t": "last"}
            assert outbox.puts >= 10_002
            # the pending states were one (a newer state replaces a pending one): never 10,000 views queued
            assert outbox.peak <= 8, outbox.peak
            assert 1 <= states <= 10_001
            print(f"10,000 state requests: {states} views sent, at most {outbox.peak} message(s) waiting")


class Page:
    """A WebSocket whose page sends `incoming`, then nothing, and reads only the first frame sent to it."""

    def __init__(self, incoming):
        self.incoming = list(incoming)
        self.sent: list = []
        self.closed = None
        self.said_all = asyncio.Event()
        self.leave = asyncio.Event()

    async def receive(self) -> dict:
        if self.incoming:
            return {"type": "websocket.receive", "text": self.incoming.pop(0)}
        self.said_all.set()
        await self.leave.wait()
        return {"type": "websocket.disconnect", "code": 1000}

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        if len(self.sent) > 1:
            await asyncio.Event().wait()  # the page stopped reading: this send never completes

    async def close(self, code: int = 1000, reason=None) -> None:
        self.closed = (code, reason)


def _human_first_game() -> G.Game:
    seed = next(s for s in range(100) if G.new_game(seed=s).state.to_act == 0)
    return G.new_game(seed=seed, engines={1: G.EngineSeat(iterations=20)})


def test_state_requests_from_a_page_that_never_reads_are_coalesced():
    async def main():
        game = _human_first_game()
        page = Page(['{"type": "state"}'] * 10_000)
        run = asyncio.get_running_loop().create_task(serve_socket(page, Server(workers=1), game))
        await page.said_all.wait()
        (outbox,) = tuple(game.subscribers)
        assert outbox.puts == 10_001 and set(outbox.items) <= {STATE} and outbox.peak <= 2
        assert len(page.sent) <= 2 and page.closed is None    # 10,000 requests: two views built, one never read
        page.leave.set()
        await run
        assert not game.subscribers

    asyncio.run(main())


def test_a_page_that_stays_too_slow_is_closed_with_a_reason():
    async def main():
        game = _human_first_game()
        page = Page(['{"type": "state"}', '{"type": "state"}'] +
                    ['{"type": "ping", "t": %d}' % i for i in range(MAX_PENDING * 3)])
        await serve_socket(page, Server(workers=1), game)        # returns: the socket was closed
        code, reason = page.closed
        assert code == CLOSE_TOO_SLOW and f"too slow: more than {MAX_PENDING} messages waiting unread" == reason
        assert not game.subscribers and not page.incoming
        assert json.loads(page.sent[0])["type"] == "state" and len(page.sent) == 2

    asyncio.run(main())


def test_serve_hands_uvicorn_a_socket_with_tcp_nodelay(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import tne_ai.web.serve as S
    seen = []

    class FakeServer:
        def __init__(self, config):
            self.config = config

        def run(self, sockets):
            seen.append(sockets[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            sockets[0].close()

    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    out = CliRunner().invoke(S.serve_command, ["--data-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert seen and seen[0]
