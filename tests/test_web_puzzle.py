"""Learn from your mistakes: a reviewed seat's mistakes and blunders replayed as puzzles (tne_ai/web/replay.py).

The record is tests/data/random-game.txt (both seats random): reviewed for
seat 0 at 100 iterations with seed 3, its decisions of plies 62 and 66 are
marked mistake. Tries are valued like the review values the decision played
(search.review.try_decision), from the seat's knowledge only.
"""
from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import engine
from engine import actions as A
from engine.info import observation
from engine.record import GameRecorder, record_start, replay_record
from engine.view import letters
from search.review import record_decisions
from tne_ai.web.app import create_app
from tne_ai.web.replay import try_one
from records import opening

RANDOM_GAME = Path(__file__).parent / "data" / "random-game.txt"
ITERATIONS, SEED = 100, 3


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=1, hint_iterations=50)) as c:
        yield c


def wait_review(client, rid: str) -> dict:
    while True:
        doc = client.get(f"/api/review/{rid}").json()
        assert doc["status"] != "error", doc
        if doc["status"] == "done":
            return doc
        time.sleep(0.05)


def reviewed(client, text: str, seats: str = "0", seed: int = SEED) -> dict:
    r = client.post(f"/api/review?seats={seats}&iterations={ITERATIONS}&seed={seed}", content=text.encode())
    assert r.status_code == 201, r.text
    return wait_review(client, r.json()["review"])


@pytest.fixture(scope="module")
def review(client) -> dict:
    return reviewed(client, RANDOM_GAME.read_text())


def state_at(text: str, ply: int):
    state = record_start(text, engine.new_game, engine.State.from_snapshot)
    for a in replay_record(text, engine.new_game, engine.State.from_snapshot)[1][:ply]:
        state.apply(a)
    return state


def test_the_puzzles_are_the_seats_mistakes_and_blunders(client, review):
    rid = review["review"]
    out = client.get(f"/api/review/{rid}/puzzles?seat=0").json()
    marked = [d["ply"] for d in review["decisions"] if d["mark"] in ("mistake", "blunder")]
    assert [p["ply"] for p in out["puzzles"]] == marked == [62, 66]
    assert out["total"] == 2 and {p["mark"] for p in out["puzzles"]} == {"mistake"}
    # a seat the review did not ask about, a seat that is not a number
    r = client.get(f"/api/review/{rid}/puzzles?seat=1")
    assert r.status_code == 400 and "seat 1 was not reviewed" in r.json()["error"]
    assert client.get(f"/api/review/{rid}/puzzles?seat=x").status_code == 400
    assert client.get(f"/api/review/{rid}/puzzles").status_code == 400
    assert review["human"] is None                    # no [human] header: the page starts at the first seat
    # a seat without a mistake: no puzzle, said as a count of 0
    calm = reviewed(client, opening(12))
    assert client.get(f"/api/review/{calm['review']}/puzzles?seat=0").json() == \
        {"review": calm["review"], "seat": 0, "total": 0, "puzzles": []}


def test_a_puzzle_shows_only_what_its_seat_knew(client, review):
    rid = review["review"]
    view = client.get(f"/api/review/{rid}/puzzle/66").json()
    state = state_at(RANDOM_GAME.read_text(), 66)
    obs = observation(state.snapshot(), 0)
    assert view["seat"] == 0 and view["ply"] == 66 and view["mark"] == "mistake"
    assert view["hand"] == letters(obs["hand"]) and view["bag_size"] == obs["bag_size"]
    assert view["legal"] == [A.format_action(a) for a in state.legal_actions()]
    assert view["prompt"] and view["phase"] == obs["phase"] == "action"
    assert [s["hand_size"] for s in view["seats"]] == obs["hand_sizes"]
    # its fields, no more: no other seat's tiles, no bag, not the answer (the test below: other hidden tiles,
    # the same view)
    assert set(view) == {"review", "ply", "seat", "mark", "players", "phase", "to_act", "actions_left", "hand",
                         "own_swapped", "bag_size", "seats", "conflict", "legal", "prompt", "svg"}
    assert view["svg"].lstrip().startswith("<svg") and "seat 0's view" in view["svg"]


def test_trying_the_engines_best_loses_less_than_the_decision_played(client, review):
    rid = review["review"]
    d = next(d for d in review["decisions"] if d["ply"] == 66)
    r = client.post(f"/api/review/{rid}/puzzle/66", json={"seat": 0, "move": d["best"]})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["tried"] == out["best"] == d["best"] and out["played"] == d["played"]
    assert out["verdict"] == "better" and out["is_best"] and not out["is_played"]
    # valued like the review: the played and best win chances are the review's own (common random numbers)
    assert out["played_win"]["win"] == d["played_win"] and out["best_win"]["win"] == d["best_win"]
    assert out["tried_win"] == out["best_win"] and out["loss"] == 0 and out["mark"] is None
    assert out["gain_low"] > 0 and out["gain"] == pytest.approx(d["loss"])
    assert out["iterations"] == ITERATIONS and out["seed"] == SEED
    assert 'class="highlight"' in out["svg"]          # the engine's best, marked on the seat's board
    # the decision played, tried again: the same numbers, called so
    again = client.post(f"/api/review/{rid}/puzzle/66", json={"seat": 0, "move": d["played"]}).json()
    assert again["verdict"] == "played" and again["tried_win"] == again["played_win"] and again["gain"] == 0


def test_a_worse_try_and_one_the_search_cannot_tell_apart(client, review):
    rid = review["review"]
    worse = client.post(f"/api/review/{rid}/puzzle/62", json={"seat": 0, "move": "tile k f4"}).json()
    assert worse["verdict"] == "worse", worse
    assert worse["gain_high"] < 0 and worse["tried_win"]["win"] < worse["played_win"]["win"]
    assert worse["mark"] == "mistake" and worse["loss_low"] >= 0.10
    # docs/web.md shows this answer: its numbers are these, rounded
    doc = (Path(__file__).resolve().parent.parent / "docs" / "web.md").read_text()
    shown = json.loads(doc.split("Learn from your mistakes", 1)[1].split("```json", 1)[1].split("```", 1)[0]
                       .replace('"<svg ..."', '""'))
    rounded = {k: round(v, 3) if isinstance(v, float) else
               {a: round(b, 3) for a, b in v.items()} if isinstance(v, dict) else v for k, v in worse.items()}
    assert {k: v for k, v in shown.items() if k not in ("review", "svg")} == \
        {k: v for k, v in rounded.items() if k not in ("review", "svg")}
    same = client.post(f"/api/review/{rid}/puzzle/62", json={"seat": 0, "move": "TILE K B1"}).json()
    assert same["tried"] == "tile k b1" and same["verdict"] == "same", same
    assert same["gain_low"] <= 0 <= same["gain_high"]


def test_bad_tries_are_refused_with_the_reason(client, review):
    rid = review["review"]
    url = f"/api/review/{rid}/puzzle/66"

    def refused(status, fragment, **kw):
        r = client.post(kw.pop("path", url), **kw)
        assert r.status_code == status, (r.status_code, r.text)
        assert fragment in r.json()["error"], r.json()
    refused(404, "no such review", path="/api/review/nope/puzzle/66", json={"seat": 0, "move": "pass"})
    calm = next(d for d in review["decisions"] if d["mark"] is None)
    refused(404, f"ply {calm['ply']} is not a puzzle: seat 0's decision there is marked nothing",
            path=f"/api/review/{rid}/puzzle/{calm['ply']}", json={"seat": 0, "move": "pass"})
    theirs = next(m for m in review["moves"] if m["seat"] == 1)
    refused(404, f"ply {theirs['ply']} is not a puzzle: no decision of a reviewed seat",
            path=f"/api/review/{rid}/puzzle/{theirs['ply']}", json={"seat": 1, "move": "pass"})
    refused(404, "ply 9999 is not a puzzle", path=f"/api/review/{rid}/puzzle/9999", json={"seat": 0, "move": "pass"})
    refused(400, "ply 66 is a puzzle of seat 0, not of seat 1", json={"seat": 1, "move": "pass"})
    refused(400, "seat:", json={"seat": "0", "move": "pass"})
    refused(400, "seat:", json={"move": "pass"})
    refused(400, "move:", json={"seat": 0})
    refused(400, "move:", json={"seat": 0, "move": 7})
    refused(400, "move:", json={"seat": 0, "move": "x" * 100})
    refused(400, "cannot read 'fly away'", json={"seat": 0, "move": "fly away"})
    refused(400, "is not legal at ply 66", json={"seat": 0, "move": "commit 3"})
    refused(400, "unknown field(s): hand", json={"seat": 0, "move": "pass", "hand": "kkkk"})
    refused(400, "not JSON", content=b"{seat: 0")
    refused(400, "expected a JSON object", content=b"[1, 2]")
    assert client.get(f"/api/review/{rid}/puzzle/{calm['ply']}").status_code == 404
    assert client.get("/api/review/nope/puzzle/66").status_code == 404
    assert client.get("/api/review/nope/puzzles?seat=0").status_code == 404


class HoldTries(ThreadPoolExecutor):
    """A review pool that runs review jobs but holds every try until released: a try that takes long."""

    def __init__(self):
        super().__init__(1)
        self.held: list = []
        self.arrived = threading.Event()
        self.opened = False

    def submit(self, fn, *args, **kwargs):
        if fn is not try_one or self.opened:
            return super().submit(fn, *args, **kwargs)
        job = Future()
        self.held.append((job, fn, args))
        self.arrived.set()
        return job

    def release(self) -> None:
        """Answer the tries held, and run the later ones."""
        self.opened = True
        for job, fn, args in self.held:
            job.set_result(fn(*args))


def test_a_second_try_while_one_is_valued_is_refused_and_tries_run_in_the_review_pool():
    pool = HoldTries()
    with TestClient(create_app(workers=1, review_executor=pool)) as c:
        doc = reviewed(c, RANDOM_GAME.read_text())
        url = f"/api/review/{doc['review']}/puzzle/62"
        first: list = []
        t = threading.Thread(target=lambda: first.append(c.post(url, json={"seat": 0, "move": "pass"})))
        t.start()
        assert pool.arrived.wait(60)                  # the try is in the review pool, not the live games' one
        second = c.post(url, json={"seat": 0, "move": "pass"})
        assert second.status_code == 409 and "being valued" in second.json()["error"]
        pool.release()
        t.join(60)
        assert first[0].status_code == 200 and first[0].json()["verdict"] == "played"
        # the answer came: the next try is taken
        best = next(d["best"] for d in doc["decisions"] if d["ply"] == 62)
        third = c.post(url, json={"seat": 0, "move": best})
        assert third.status_code == 200 and third.json()["verdict"] == "better"
    pool.shutdown()


def _with_other_hand(snap: dict, seat: int) -> dict:
    """Return a full snapshot like `snap` but for one tile of `seat`'s hand, exchanged with the bag's first tile.

    The bag loses tiles from its end, so its first tile is drawn last: the
    public facts (hand sizes, the bag's size) and every other hand stay.
    """
    out = {**snap, "hands": [list(h) for h in snap["hands"]], "bag": list(snap["bag"])}
    hand, first = out["hands"][seat], out["bag"][0]
    colour = next(c for c, n in enumerate(hand) if n and c != first)
    hand[colour] -= 1
    hand[first] += 1
    out["bag"][0] = colour
    return out


def test_a_try_never_peeks_at_the_hidden_tiles(client):
    """Two records, one public history and one hand of seat 0, another hand of seat 1: the same answers."""
    state = state_at(RANDOM_GAME.read_text(), 66)
    played = replay_record(RANDOM_GAME.read_text(), engine.new_game, engine.State.from_snapshot)[1][66]
    texts = []
    for snap in (state.snapshot(), _with_other_hand(state.snapshot(), 1)):
        rec = GameRecorder(engine.State.from_snapshot(snap), start=True)
        rec.apply(played)
        texts.append(rec.text())
    assert texts[0] != texts[1]
    assert record_start(texts[0], engine.new_game, engine.State.from_snapshot).snapshot()["hands"][1] != \
        record_start(texts[1], engine.new_game, engine.State.from_snapshot).snapshot()["hands"][1]
    # through the server: the same review of ply 0, the same puzzle, the same answer to the same try
    docs = [reviewed(client, t, seed=2) for t in texts]
    keep = lambda d: {k: v for k, v in d.items() if k != "seconds"}
    assert keep(docs[0]["decisions"][0]) == keep(docs[1]["decisions"][0])
    assert docs[0]["decisions"][0]["mark"] == "mistake"
    views = [client.get(f"/api/review/{d['review']}/puzzle/0").json() for d in docs]
    assert [{k: v for k, v in x.items() if k != "review"} for x in views] == [
        {k: v for k, v in views[0].items() if k != "review"}] * 2
    answers = [client.post(f"/api/review/{d['review']}/puzzle/0", json={"seat": 0, "move": "tile k h3"}).json()
               for d in docs]
    assert {k: v for k, v in answers[0].items() if k != "review"} == {k: v for k, v in answers[1].items() if k != "review"}
    assert answers[0]["seed"] == 2 and answers[0]["verdict"] in ("better", "same", "worse")
    # the valuation itself, given each record's decision (what the server's pool runs): the same numbers
    items = [record_decisions(t, [0])[1][0] for t in texts]
    assert items[0][2] == items[1][2]                 # seat 0's observation before: the same
    best = docs[0]["decisions"][0]["best_action"]
    tried = [try_one(item, A.parse_action("tile k h3"), best, ITERATIONS, 2) for item in items]
    assert tried[0] == tried[1]
    assert {k: tried[0][k] for k in ("tried_win", "played_win", "best_win", "verdict")} == \
        {k: answers[0][k] for k in ("tried_win", "played_win", "best_win", "verdict")}


class NeverRuns(ThreadPoolExecutor):
    """A review pool that never runs a job: a review that stays running."""

    def submit(self, fn, *args, **kwargs):
        return Future()


def test_puzzles_wait_for_the_review_to_be_done():
    with TestClient(create_app(workers=1, review_executor=NeverRuns(1))) as c:
        r = c.post(f"/api/review?seats=0&iterations={ITERATIONS}&seed={SEED}", content=RANDOM_GAME.read_bytes())
        rid = r.json()["review"]
        for r in (c.get(f"/api/review/{rid}/puzzles?seat=0"), c.get(f"/api/review/{rid}/puzzle/66"),
                  c.post(f"/api/review/{rid}/puzzle/66", json={"seat": 0, "move": "pass"})):
            assert r.status_code == 409 and "the review is not done" in r.json()["error"]


class TriesFail(ThreadPoolExecutor):
    """A review pool whose tries fail (a worker that died): reviews run."""

    def submit(self, fn, *args, **kwargs):
        if fn is not try_one:
            return super().submit(fn, *args, **kwargs)
        job = Future()
        job.set_exception(RuntimeError("a review process died"))
        return job


def test_a_try_that_fails_in_the_pool_is_a_503_with_the_reason_and_the_next_is_taken():
    pool = TriesFail(1)
    with TestClient(create_app(workers=1, review_executor=pool)) as c:
        rid = reviewed(c, RANDOM_GAME.read_text())["review"]
        for _ in range(2):
            r = c.post(f"/api/review/{rid}/puzzle/66", json={"seat": 0, "move": "pass"})
            assert r.status_code == 503 and "a review process died" in r.json()["error"]
    pool.shutdown()


def test_a_web_games_record_names_the_players_seat(client):
    text = opening(4).replace("[seed 11]\n", "[seed 11]\n[human 1]\n")
    r = client.post("/api/review?iterations=5", content=text.encode())
    assert r.status_code == 201, r.text
    assert wait_review(client, r.json()["review"])["human"] == 1


def test_a_try_of_a_review_pushed_out_meanwhile_is_told_so(monkeypatch):
    from tne_ai.web import replay
    pool = HoldTries()
    with TestClient(create_app(workers=1, review_executor=pool)) as c:
        doc = reviewed(c, RANDOM_GAME.read_text())
        answer: list = []
        t = threading.Thread(target=lambda: answer.append(
            c.post(f"/api/review/{doc['review']}/puzzle/62", json={"seat": 0, "move": "pass"})))
        t.start()
        assert pool.arrived.wait(60)
        monkeypatch.setattr(replay, "MAX_REVIEWS", 1)
        assert c.post("/api/review?iterations=5", content=opening(2).encode()).status_code == 201
        t.join(60)
        assert answer[0].status_code == 404 and "pushed it out" in answer[0].json()["error"]
        assert c.get(f"/api/review/{doc['review']}").status_code == 404
    pool.shutdown()
