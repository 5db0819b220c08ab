"""`tne-ai serve --data-dir`: games are saved after every decision and resume after a restart."""
from __future__ import annotations

import logging

from starlette.testclient import TestClient
from tne_ai.web.serve import default_data_dir
from tne_ai.web.app import SAVED_SUFFIX, create_app

ENGINE = {"iterations": 20}


def until_my_turn(ws, after=-1):
    while True:
        m = ws.receive_json()
        if m["type"] == "error":
            raise AssertionError(m)
        if m["type"] == "state" and m["version"] > after and (m["your_turn"] or m["over"]):
            return m


def play_a_few(client, game_id, decisions=3):
    with client.websocket_connect(f"/api/games/{game_id}/ws") as ws:
        view = until_my_turn(ws)
        for _ in range(decisions):
            ws.send_json({"type": "move", "move": view["legal"][0]})
            view = until_my_turn(ws, view["version"])
        return view


def test_a_game_resumes_after_a_restart(tmp_path):
    app = create_app(workers=1, hint_iterations=50, data_dir=tmp_path)
    with TestClient(app) as c:
        r = c.post("/api/games", json={"players": 2, "engines": ENGINE, "human": 1})
        assert r.status_code == 201
        gid = r.json()["game"]
        before = play_a_few(c, gid)
    saved = tmp_path / (gid + SAVED_SUFFIX)
    text = saved.read_text()
    assert f"[game {gid}]" in text and "[human 1]" in text and "[engine_0 iterations 20]" in text
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # a new app (a restarted server) on the same folder: the same URL resumes at the same position
    app2 = create_app(workers=1, hint_iterations=50, data_dir=tmp_path)
    with TestClient(app2) as c2:
        assert gid in app2.state.server.games
        after = c2.get(f"/api/games/{gid}").json()
        assert after["moves"] == before["moves"]
        for key in ("ply", "hand", "legal", "svg", "seats", "bag_size", "phase", "to_act", "seat"):
            assert after[key] == before[key], key
        assert after["seats"][0]["player"] == "ismcts 20 iterations"
        # and play goes on, saved again
        view = play_a_few(c2, gid, decisions=1)
        assert view["ply"] > before["ply"]
    assert saved.read_text().count("\n") > text.count("\n")


def test_undo_and_load_are_saved(tmp_path):
    app = create_app(workers=1, hint_iterations=50, data_dir=tmp_path)
    with TestClient(app) as c:
        gid = c.post("/api/games", json={"players": 2, "engines": ENGINE}).json()["game"]
        assert (tmp_path / (gid + SAVED_SUFFIX)).exists()          # saved from its creation
        view = play_a_few(c, gid, decisions=2)
        with c.websocket_connect(f"/api/games/{gid}/ws") as ws:
            until_my_turn(ws)
            ws.send_json({"type": "undo"})
            undone = until_my_turn(ws, view["version"])
        assert undone["ply"] < view["ply"]
        truth = app.state.server.games[gid].state.snapshot()
    text = (tmp_path / (gid + SAVED_SUFFIX)).read_text()
    assert "[start " in text and "[reshuffled 1]" in text and "[engine_seed " in text   # the bag shuffled again
    app2 = create_app(workers=1, data_dir=tmp_path)
    with TestClient(app2) as c2:
        assert c2.get(f"/api/games/{gid}").json()["moves"] == undone["moves"]
        resumed = app2.state.server.games[gid]
        assert resumed.state.snapshot() == truth and resumed.reshuffles == 1     # the same bag, the same hands
        assert "position startpos" in c2.get(f"/api/games/{gid}/record").text
        view = play_a_few(c2, gid, decisions=1)                                  # and play goes on
        assert view["ply"] > undone["ply"]


def test_a_corrupt_file_is_skipped_with_a_log_line(tmp_path, caplog):
    app = create_app(workers=1, data_dir=tmp_path)
    with TestClient(app) as c:
        gid = c.post("/api/games", json={"players": 2, "engines": ENGINE}).json()["game"]
    (tmp_path / ("A" * 32 + SAVED_SUFFIX)).write_text("[players 2]\n[board standard]\nnot a move\n")
    (tmp_path / ("B" * 32 + SAVED_SUFFIX)).write_bytes(b"\xff\xfe garbage")
    (tmp_path / ("C" * 32 + SAVED_SUFFIX)).write_text((tmp_path / (gid + SAVED_SUFFIX)).read_text())  # wrong name
    with caplog.at_level(logging.WARNING, logger="tne_ai.web"):
        app2 = create_app(workers=1, data_dir=tmp_path)
        with TestClient(app2) as c2:
            assert list(app2.state.server.games) == [gid]
            assert c2.get(f"/api/games/{gid}").status_code == 200
            assert c2.get("/api/games/" + "A" * 32).status_code == 404
    skipped = [r.getMessage() for r in caplog.records if "skipping saved game" in r.getMessage()]
    assert len(skipped) >= 3, skipped


def test_saved_files_are_not_served(tmp_path):
    app = create_app(workers=1, data_dir=tmp_path)
    with TestClient(app) as c:
        gid = c.post("/api/games", json={"players": 2, "engines": ENGINE}).json()["game"]
        name = gid + SAVED_SUFFIX
        saved = (tmp_path / name).read_text()
        assert "[seed " in saved
        for path in (f"/{name}", f"/static/{name}", f"/static/../{name}", f"/api/games/{name}",
                     f"/api/games/{gid}/{name}", f"/static/%2e%2e/{name}", f"/api/games/{gid}/saved"):
            r = c.get(path)
            assert r.status_code == 404, path
            assert "[seed" not in r.text
        for path in (f"/api/games/{gid}", f"/api/games/{gid}/record"):   # during play: the seat's view only
            r = c.get(path)
            assert r.status_code == 200
            assert "[seed" not in r.text and "[engine_" not in r.text and "draw 1" not in r.text


def test_default_data_dir_is_per_user(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    import sys
    if sys.platform.startswith("linux"):
        assert default_data_dir() == tmp_path / "tne-ai" / "games"


def test_serve_creates_the_data_dir(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import tne_ai.web.serve as S

    class FakeServer:
        def __init__(self, config):
            self.config = config

        def run(self, sockets):
            sockets[0].close()

    import uvicorn
    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    where = tmp_path / "a" / "b"
    out = CliRunner().invoke(S.serve_command, ["--data-dir", str(where)])
    assert out.exit_code == 0, out.output
    assert where.is_dir() and f"games saved in {where}" in out.output


def test_new_games_are_refused_when_the_data_folder_holds_its_most(tmp_path):
    app = create_app(workers=1, data_dir=tmp_path, max_saved=2)
    with TestClient(app) as c:
        for _ in range(2):
            assert c.post("/api/games", json={"players": 2, "engines": ENGINE}).status_code == 201
        r = c.post("/api/games", json={"players": 2, "engines": ENGINE})
        assert r.status_code == 503 and "2 saved games" in r.json()["error"] \
            and "--max-saved-games" in r.json()["error"], r.text
        record = "[players 2]\n[board standard]\n[seed 1]\n"
        assert c.post("/api/games/load", content=record.encode()).status_code == 503
    assert len(list(tmp_path.glob("*" + SAVED_SUFFIX))) == 2             # nothing more written
    app2 = create_app(workers=1, data_dir=tmp_path, max_saved=2)          # counted again at a restart
    with TestClient(app2) as c2:
        assert c2.post("/api/games", json={"players": 2, "engines": ENGINE}).status_code == 503
        next(tmp_path.glob("*" + SAVED_SUFFIX)).unlink()                   # room made by hand is seen
        assert c2.post("/api/games", json={"players": 2, "engines": ENGINE}).status_code == 201


def test_new_games_are_refused_when_every_game_in_memory_is_in_use(tmp_path):
    app = create_app(workers=1, data_dir=tmp_path, max_games=2)
    with TestClient(app) as c:
        a, b = (c.post("/api/games", json={"players": 2, "engines": ENGINE}).json()["game"] for _ in range(2))
        with c.websocket_connect(f"/api/games/{a}/ws") as wa:
            until_my_turn(wa)
            with c.websocket_connect(f"/api/games/{b}/ws") as wb:
                until_my_turn(wb)
                r = c.post("/api/games", json={"players": 2, "engines": ENGINE})   # both pages are open
                assert r.status_code == 503 and "2 games are in play" in r.json()["error"] \
                    and "--max-games" in r.json()["error"], r.text
            # b's page has gone: b leaves memory for a new game, and comes back from its file when asked
            r = c.post("/api/games", json={"players": 2, "engines": ENGINE})
            assert r.status_code == 201, r.text
            assert set(app.state.server.games) == {a, r.json()["game"]}
            # the new game has no page yet: it is the idle one that makes room for b, read back from its file
            view = c.get(f"/api/games/{b}")
            assert view.status_code == 200 and view.json()["game"] == b
            assert set(app.state.server.games) == {a, b}


def test_serve_passes_its_caps_to_the_app(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import tne_ai.web.serve as S
    seen = []

    class FakeServer:
        def __init__(self, config):
            seen.append(config.app.state.server)

        def run(self, sockets):
            sockets[0].close()

    import uvicorn
    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    out = CliRunner().invoke(S.serve_command, ["--data-dir", str(tmp_path), "--max-games", "3",
                                               "--max-saved-games", "7", "--teach-iterations", "300"])
    assert out.exit_code == 0, out.output
    assert (seen[0].max_games, seen[0].max_saved, seen[0].teach_iterations) == (3, 7, 300)
    bad = CliRunner().invoke(S.serve_command, ["--data-dir", str(tmp_path), "--max-games", "0"])
    assert bad.exit_code == 2 and "--max-games" in bad.output
    bad = CliRunner().invoke(S.serve_command, ["--data-dir", str(tmp_path), "--teach-iterations", "0"])
    assert bad.exit_code == 2 and "--teach-iterations" in bad.output


def test_the_saved_record_kept_as_the_game_goes_is_the_record_replayed_from_the_start():
    import random
    from engine.record import GameRecorder
    from tne_ai.web import games as G
    for seed, players in ((0, 2), (1, 3), (2, 4)):
        game = G.new_game(players, "standard", [], 0, {s: G.EngineSeat(iterations=10) for s in range(1, players)})
        rng, undone = random.Random(seed), False
        while not game.state.is_terminal():
            game._apply(rng.choice(game.state.legal_actions()))
            if len(game.actions) == 50 and not undone:
                game._rebuild(game.actions[:30])          # as an undo does: the kept lines start again
                undone = True
        replayed = GameRecorder(game.initial.clone(), seed=game.seed, headers={"human": "0"})
        for a in game.actions:
            replayed.apply(a)
        assert game.record_text() == replayed.text() and "\nresult " in game.record_text()
        assert game.saved_text().endswith("\n".join(replayed.text().splitlines()[-5:]) + "\n")
