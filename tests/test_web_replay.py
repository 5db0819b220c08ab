"""The Watch and Review pages of `tne-ai serve` (tne_ai/web/replay.py) through Starlette's TestClient."""
from __future__ import annotations

import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor

import pytest

import engine
from engine.record import replay_record
from engine.svg import SQ_NAMES, decision_squares
from starlette.testclient import TestClient
from tne_ai.web.app import create_app
from tne_ai.web.http import MAX_RECORD_BYTES
from records import opening

@pytest.fixture(scope="module")
def client():
    app = create_app(workers=1, hint_iterations=50)
    with TestClient(app) as c:
        yield c


def wait_review(client, rid: str) -> dict:
    while True:
        r = client.get(f"/api/review/{rid}")
        assert r.status_code == 200, r.text
        doc = r.json()
        assert doc["status"] != "error", doc
        if doc["status"] == "done":
            return doc
        time.sleep(0.1)


def test_pages_are_served(client):
    for page in ("/review", "/watch", "/static/review.js", "/static/watch.js"):
        assert client.get(page).status_code == 200, page
    assert 'href="/review"' in client.get("/").text


@pytest.mark.slow
def test_review_of_twenty_decisions(client):
    text = opening(20)
    r = client.post("/api/review?iterations=30&seed=1", content=text.encode())
    assert r.status_code == 201, r.text
    rid = r.json()["review"]
    assert r.json()["total"] == 20
    doc = wait_review(client, rid)
    assert [d["ply"] for d in doc["decisions"]] == list(range(20))
    for d in doc["decisions"]:
        for field in ("ply", "seat", "played", "best", "best_value", "played_value", "loss", "mark"):
            assert field in d
        assert 0 <= d["best_value"] <= 1 and d["loss"] >= 0
    assert {s["seat"] for s in doc["summary"]} == {0, 1}
    for s in doc["summary"]:
        assert all(0 <= x["ply"] < 20 for x in s["largest"])
    assert len(doc["moves"]) == doc["plies"] == 20
    for ply in range(21):
        b = client.get(f"/api/review/{rid}/board/{ply}")
        assert b.status_code == 200 and b.headers["content-type"].startswith("image/svg+xml")
        assert b.text.lstrip().startswith("<svg") and b.text.rstrip().endswith("</svg>")
    assert client.get(f"/api/review/{rid}/board/21").status_code == 404
    # the engine's best, where it is not the decision played, is marked on the board and named in its title
    marked = 0
    for d in doc["decisions"]:
        board = client.get(f"/api/review/{rid}/board/{d['ply']}").text     # the position it was played from
        if d["best"] == d["played"] or d["played"] in d["equally_good"]:    # as good as the best: nothing instead
            assert "engine's best" not in board and 'class="highlight"' not in board
            continue
        assert f"engine's best instead: {d['best']}" in board
        squares = decision_squares(d["best"])
        for sq in squares:
            assert f'<g class="highlight" data-sq="{SQ_NAMES[sq]}">' in board, (d, sq)
        marked += bool(squares)
    assert marked, "no reviewed decision had a best with a square to mark"
    # only one seat asked
    r = client.post("/api/review?iterations=20&seats=1", content=opening(6).encode())
    assert r.status_code == 201
    doc = wait_review(client, r.json()["review"])
    assert {d["seat"] for d in doc["decisions"]} == {1}


def test_the_review_page_and_tne_ai_review_number_plies_alike(client, tmp_path):
    """One record reviewed by `tne-ai review` and by the web: the same decision under the same ply number."""
    import json
    import re
    from pathlib import Path
    from click.testing import CliRunner
    from tne_ai.cli import main
    text = opening(12)
    path = tmp_path / "game.txt"
    path.write_text(text)
    res = CliRunner().invoke(main, ["review", str(path), "--iterations", "30", "--seed", "1", "--json"])
    assert res.exit_code == 0, res.output
    cli = json.loads(res.stdout)
    r = client.post("/api/review?iterations=30&seed=1", content=text.encode())
    assert r.status_code == 201, r.text
    web = wait_review(client, r.json()["review"])
    fields = ("ply", "seat", "played", "best", "loss", "mark")
    assert [{k: d[k] for k in fields} for d in web["decisions"]] == [{k: d[k] for k in fields} for d in cli["decisions"]]
    assert [[x["ply"] for x in s["largest"]] for s in web["summary"]] == \
        [[x["ply"] for x in s["largest"]] for s in cli["summary"]]
    # the decision of ply p is the record's (p+1)-th, made at the position after p decisions: `--ply p`
    for d in cli["decisions"]:
        assert web["moves"][d["ply"]] == {"ply": d["ply"], "seat": d["seat"], "move": d["played"]}
    # the page labels a decision and jumps to it by that ply, no +1 (the browser test clicks it)
    js = (Path(__file__).resolve().parent.parent / "tne_ai" / "web" / "static" / "review.js").read_text()
    assert '"ply " + m.ply + ": "' in js and "go(m.ply)" in js and not re.search(r"\b[dm]\.ply \+ 1", js)
    text_out = CliRunner().invoke(main, ["review", str(path), "--iterations", "30", "--seed", "1"]).stdout
    for s in cli["summary"]:
        for x in s["largest"]:
            assert f"ply {x['ply']} {x['played']} (best {x['best']})" in text_out


def test_review_refuses_bad_uploads_with_the_reason(client):
    big = client.post("/api/review", content=b"#" * (MAX_RECORD_BYTES + 1))
    assert big.status_code == 413 and "1,000,000 bytes" in big.json()["error"]
    bad = client.post("/api/review", content=b"[players 2]\n[board standard]\n[seed 1]\nfly away\n")
    assert bad.status_code == 400 and "line 4" in bad.json()["error"]
    assert client.post("/api/review", content=b"\xff\xfe").status_code == 400
    assert client.post("/api/review?iterations=999999", content=opening(2).encode()).status_code == 400
    assert client.post("/api/review?seats=5", content=opening(2).encode()).status_code == 400
    assert client.post("/api/watch/load", content=b"#" * (MAX_RECORD_BYTES + 1)).status_code == 413
    assert client.post("/api/watch/load", content=b"nonsense").status_code == 400


def test_unknown_ids_are_404(client):
    assert client.get("/api/review/nope").status_code == 404
    assert client.get("/api/review/nope/board/0").status_code == 404
    assert client.get("/api/watch/nope/record").status_code == 404


def frames(client, wid: str) -> tuple:
    out = []
    with client.websocket_connect(f"/ws/watch/{wid}") as ws:
        while True:
            m = ws.receive_json()
            if m["type"] == "end":
                return out, m
            assert m["type"] == "decision"
            out.append(m)


def test_live_watch_streams_public_boards_until_the_end():
    app = create_app(workers=1)
    with TestClient(app) as client:
        r = client.post("/api/watch", json={"players": 2, "iterations": 2, "max_decisions": 30})
        assert r.status_code == 201, r.text
        wid = r.json()["watch"]
        got, end = frames(client, wid)
        assert [m["ply"] for m in got] == list(range(31))
        for m in got:
            assert "hands" not in m and "bag" not in m
            assert '<g class="hand"' not in m["svg"]
            assert m["svg"].lstrip().startswith("<svg")
        assert all(m["seat"] in (0, 1) and m["move"] for m in got[1:])
        assert not end["over"] and end["record"] is None            # capped before the end: no record
        assert client.get(f"/api/watch/{wid}/record").status_code == 409
        assert client.post("/api/watch", json={"players": 5}).status_code == 400
        assert client.post("/api/watch", json={"iterations": 0}).status_code == 400
        assert client.post("/api/watch", json={"speed": 1}).status_code == 400


@pytest.mark.slow
def test_a_whole_live_watch_game_and_its_record_replays():
    app = create_app(workers=2)
    with TestClient(app) as client:
        wid = client.post("/api/watch", json={"players": 2, "iterations": 1}).json()["watch"]
        got, end = frames(client, wid)
        assert end["over"] and end["ranks"] is not None and end["error"] is None
        assert end["svg"].lstrip().startswith("<svg")
        text = client.get(end["record"]).text
        state, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
        assert state.is_terminal() and len(actions) == len(got) - 1 == end["plies"]


def test_a_live_board_shows_no_hand():
    from engine.position import public_snapshot
    from engine.svg import board_svg
    from tne_ai.web.replay import Watch
    state = engine.new_game(2, 5, "standard", [])
    w = Watch(state, 1, 0, 5)
    assert '<g class="hand"' in board_svg(state.snapshot(), seat=0)
    assert w.frames[0]["svg"] == board_svg(public_snapshot(state.snapshot()), title="start")
    assert set(w.frames[0]) == {"type", "ply", "seat", "move", "last", "to_act", "over", "svg"}


def test_a_record_replayed_streams_every_decision(client):
    text = opening(12)
    r = client.post("/api/watch/load", content=text.encode())
    assert r.status_code == 201, r.text
    got, end = frames(client, r.json()["watch"])
    assert len(got) == 13 and end["plies"] == 12
    assert client.get(end["record"]).text == text


class Held(Executor):
    """An executor that keeps every job and never runs it: a review pool busy for ever."""

    def __init__(self):
        self.jobs: list = []

    def submit(self, fn, *args, **kwargs):
        job = Future()
        self.jobs.append((fn, job))
        return job

    def shutdown(self, wait=True, *, cancel_futures=False):
        pass


class Counted(ThreadPoolExecutor):
    """A thread pool that notes the function of every job it is given."""

    def __init__(self):
        super().__init__(1)
        self.functions: list = []

    def submit(self, fn, *args, **kwargs):
        self.functions.append(fn)
        return super().submit(fn, *args, **kwargs)


def test_reviews_are_capped_cancelled_when_pushed_out_and_never_delay_a_live_game():
    from tne_ai.web import games as G
    from tne_ai.web.replay import MAX_REVIEWS, MAX_RUNNING_REVIEWS, review_one
    reviews, live = Held(), Counted()
    app = create_app(workers=1, executor=live, review_executor=reviews)
    with TestClient(app) as client:
        ids = []
        for _ in range(MAX_REVIEWS + 1):
            r = client.post("/api/review?iterations=5", content=opening(4).encode())
            assert r.status_code == 201, r.text
            ids.append(r.json()["review"])
            if len(ids) == 1:
                first = app.state.replays.reviews[ids[0]]
        # the oldest review was pushed out: its task and every job it still had waiting are cancelled
        assert ids[0] not in app.state.replays.reviews and client.get(f"/api/review/{ids[0]}").status_code == 404
        assert first.cancelled and first.task.cancelled()
        assert len(first.jobs) == 4 and all(job.cancelled() for job in first.jobs)
        # at most MAX_RUNNING_REVIEWS reviews have jobs in the review pool; the others wait, and say so
        running = [r for r in app.state.replays.reviews.values() if r.jobs]
        assert 1 <= len(running) <= MAX_RUNNING_REVIEWS
        assert sum(not job.cancelled() for _, job in reviews.jobs) == 4 * len(running)
        assert client.get(f"/api/review/{ids[-1]}").json()["queued"] is True
        assert {fn for fn, _ in reviews.jobs} == {review_one}
        # with every review slot taken and none ever finishing, a live game's engine still moves
        gid = client.post("/api/games", json={"players": 2, "engines": {"iterations": 20}, "human": 0}).json()["game"]
        with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
            while True:
                m = ws.receive_json()
                assert m["type"] != "error", m
                if m["type"] == "state" and m["your_turn"]:
                    if any(x["seat"] == 1 for x in m["moves"]):
                        break
                    ws.send_json({"type": "move", "move": m["legal"][0]})
        assert G.decide in live.functions and review_one not in live.functions


def test_watched_games_search_in_the_review_pool_never_the_live_games():
    from tne_ai.web import games as G
    live, background = Counted(), Counted()
    app = create_app(workers=1, executor=live, review_executor=background)
    with TestClient(app) as client:
        wid = client.post("/api/watch", json={"players": 2, "iterations": 2, "max_decisions": 6}).json()["watch"]
        got, end = frames(client, wid)
        assert [m["ply"] for m in got] == list(range(7)) and end["error"] is None
    assert live.functions == [] and background.functions == [G.decide] * 6
