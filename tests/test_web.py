"""`tne-ai serve` (tne_ai.web): HTTP and WebSocket through Starlette's TestClient, a whole game, no leaks."""
from __future__ import annotations

import json
import random

import pytest

import engine
from engine.position import format_position, parse_position
from engine.record import record_start, replay_record
from engine.view import letters
from starlette.testclient import TestClient
from tne_ai.analysis.knowledge import parse_seat_record
from tne_ai.web.serve import banner, is_loopback
from tne_ai.web.app import create_app
from tne_ai.web.http import MAX_RECORD_BYTES

ENGINE = {"iterations": 20}


@pytest.fixture(scope="module")
def client():
    app = create_app(workers=1, hint_iterations=50)
    with TestClient(app) as c:
        c.app_server = app.state.server
        yield c


def new_game(client, **kw):
    body = {"players": 2, "engines": ENGINE, "human": 0}
    body.update(kw)
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["game"]


def until_my_turn(ws, seen=None, after=-1):
    """Receive messages until a state where the human is to act (or the game is over) newer than `after`."""
    while True:
        m = ws.receive_json()
        if seen is not None:
            seen.append(m)
        if m["type"] == "error":
            raise AssertionError(m)
        if m["type"] == "state" and m["version"] > after and (m["your_turn"] or m["over"]):
            return m


# ---------------------------------------------------------------- the leak check


def strings(x):
    """Every string (keys and values) inside a JSON value."""
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield k
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)


def keys(x):
    if isinstance(x, dict):
        for k, v in x.items():
            yield k
            yield from keys(v)
    elif isinstance(x, list):
        for v in x:
            yield from keys(v)


def leaks(message, snap: dict, human: int) -> list:
    """Return what a message to the browser shows that the human's seat may not know (from the true snapshot)."""
    found = []
    hidden_keys = {"hands", "bag", "swapped", "seed"} & set(keys(message))
    if hidden_keys:
        found.append(f"keys {sorted(hidden_keys)}")
    own = letters(snap["hands"][human])
    texts = list(strings(message))
    bag = "".join("krbg"[c] for c in snap["bag"])
    hidden_part = format_position(snap, hidden=True).split(" | ", 1)[1]
    for t in texts:
        if len(bag) >= 8 and (bag in t or bag[::-1] in t):
            found.append("the bag's tiles")
        if hidden_part in t:
            found.append("the hidden part of the position")
    for s in range(snap["players"]):
        other = letters(snap["hands"][s])
        if s == human or other == own or len(other) < 4:
            continue
        # the other hand as the page would show a hand: a whole string value, or a `hand` field
        for obj in [message] + [v for v in _dicts(message)]:
            for k, v in obj.items():
                # (`drew`, `own_swapped`: the human's own tiles, which may by chance spell another hand)
                if isinstance(v, str) and v == other and k not in ("move", "drew", "own_swapped"):
                    found.append(f"seat {s}'s hand {other} in field {k!r}")
                if k == "hand" and v != own:
                    found.append(f"a hand {v!r} that is not the human's {own!r}")
    return found


def _dicts(x):
    if isinstance(x, dict):
        for v in x.values():
            if isinstance(v, dict):
                yield v
            yield from _dicts(v)
    elif isinstance(x, list):
        for v in x:
            if isinstance(v, dict):
                yield v
            yield from _dicts(v)


def test_leak_check_can_fail():
    s = engine.new_game(players=2, seed=5)
    snap = s.snapshot()
    other = letters(snap["hands"][1])
    bag = "".join("krbg"[c] for c in snap["bag"])
    assert leaks({"type": "state", "hand": letters(snap["hands"][0])}, snap, 0) == []
    assert leaks({"seats": [{"tiles": other}]}, snap, 0)
    assert leaks({"hand": other}, snap, 0) or other == letters(snap["hands"][0])
    assert leaks({"hands": None}, snap, 0)
    assert leaks({"debug": "..." + bag + "..."}, snap, 0)
    assert leaks({"svg": "<svg>" + format_position(snap, hidden=True) + "</svg>"}, snap, 0)


# ---------------------------------------------------------------- a whole game


@pytest.mark.slow
def test_whole_game_leaks_nothing(client):
    gid = new_game(client, human=1)
    rng = random.Random(7)
    seen = []                                  # (json, ply) of every message and body sent to the browser
    view = client.get(f"/api/games/{gid}")
    assert view.status_code == 200
    seen.append(view.json())
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        msg, version, records = None, -1, 0
        for _ in range(2000):
            msg = until_my_turn(ws, seen, version)
            version = msg["version"]
            if msg["over"]:
                break
            if (records == 0 or rng.random() < 0.02) and records < 5:   # the seat record, during play
                r = client.get(f"/api/games/{gid}/record")
                assert r.status_code == 200
                seen.append({"record": r.text, "ply": msg["ply"]})
                records += 1
            ws.send_json({"type": "move", "move": rng.choice(msg["legal"])})
        assert msg["over"], "the game did not end"
    assert records >= 1 or len(msg["moves"]) < 50
    # the truth: the finished game's full record, replayed ply by ply
    full = client.get(f"/api/games/{gid}/record")
    assert full.status_code == 200 and "result" in full.text
    state, actions = replay_record(full.text, engine.new_game, engine.State.from_snapshot)
    assert state.is_terminal()
    s = record_start(full.text, engine.new_game, engine.State.from_snapshot)
    snaps = [s.snapshot()]
    for a in actions:
        s.apply(a)
        snaps.append(s.snapshot())
    checked = 0
    for m in seen:
        if m.get("type") == "state" or "record" in m:
            ply = m["ply"] if "ply" in m else 0
            assert not leaks(m, snaps[ply], 1), (ply, leaks(m, snaps[ply], 1))
            # every other message (events, thinking) checked against the positions around it
            checked += 1
        else:
            for snap in snaps:
                assert not leaks(m, snap, 1)
    assert checked > 10
    # the seat record of the last download reads back as what seat 1 was told
    recs = [m for m in seen if "record" in m]
    if recs:
        sr = parse_seat_record(recs[-1]["record"])
        assert sr.seat == 1
        assert sr.observation_after()["hand"] == snaps[recs[-1]["ply"]]["hands"][1]


# ---------------------------------------------------------------- bad input, undo, hint


def test_bad_messages_get_errors_and_the_game_goes_on(client):
    # the engine thinks 2 s a decision, so that a move sent out of turn arrives while it does
    gid = new_game(client, human=0, engines={"movetime": 2000})
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        msg = until_my_turn(ws)
        for bad, words in [("not json", "not JSON"), ("[1, 2]", "JSON object"),
                           (json.dumps({"type": "fly"}), "unknown message type"),
                           (json.dumps({"type": "move", "move": "tile q z99"}), "cannot read"),
                           (json.dumps({"type": "move", "move": 5}), "notation"),
                           (json.dumps({"type": "undo"}), "nothing to undo"),
                           ("x" * 5000, "longer than")]:
            ws.send_text(bad)
            err = ws.receive_json()
            assert err["type"] == "error" and words in err["message"], (bad[:30], err)
        illegal = next(f"tile b {c}{r}" for c in "abcdefghijklmnop" for r in range(1, 12)
                       if f"tile b {c}{r}" not in msg["legal"])
        ws.send_json({"type": "move", "move": illegal})
        err = ws.receive_json()
        assert illegal == "tile b a1"
        # the engine's reason (engine.legality), whichever applies to this hand
        assert err["type"] == "error" and err["message"] in (
            "'tile b a1' is not legal now: you hold no blue tile",
            "'tile b a1' is not legal now: a1 is land: a blue tile goes only on a river square (R-TILE-1)")
        ws.send_json({"type": "ping", "t": 12})
        assert ws.receive_json() == {"type": "pong", "t": 12}
        # the game goes on: play until the engine is to act, then a move out of turn
        while True:
            ws.send_json({"type": "move", "move": msg["legal"][0]})
            nxt = ws.receive_json()
            assert nxt["type"] == "state"
            if not nxt["your_turn"]:
                break
            msg = nxt
        err = None
        for _ in range(5):
            ours = len([e for e in nxt["moves"] if e["seat"] == 0])
            ws.send_json({"type": "move", "move": "pass"})
            while err is None:
                m = ws.receive_json()
                if m["type"] == "error":
                    err = m
                elif m["type"] == "state" and len([e for e in m["moves"] if e["seat"] == 0]) > ours:
                    break       # the engine answered before the pass arrived (a stalled machine): it was ours
            if err is not None:
                break
            # try again when the engine is next to act, playing our turn meanwhile
            nxt = m
            while nxt["type"] != "state" or nxt["your_turn"]:
                if nxt["type"] == "state":
                    ws.send_json({"type": "move", "move": nxt["legal"][0]})
                nxt = ws.receive_json()
        assert err is not None and ("not your turn" in err["message"] or "not legal" in err["message"])
        until_my_turn(ws)


def test_undo_goes_back_before_the_previous_decision(client):
    gid = new_game(client, human=0)
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        first = until_my_turn(ws)
        # make two decisions of ours (engine turns in between as they come)
        ws.send_json({"type": "move", "move": first["legal"][0]})
        second = until_my_turn(ws, after=first["version"])
        ws.send_json({"type": "move", "move": second["legal"][-1]})
        third = until_my_turn(ws, after=second["version"])
        assert third["moves"][-1]["n"] > second["moves"][-1]["n"] if second["moves"] else True
        ws.send_json({"type": "undo"})
        back = until_my_turn(ws, after=third["version"])
        assert back["moves"] == second["moves"]
        assert back["hand"] == second["hand"] and back["legal"] == second["legal"]
        assert back["svg"] == second["svg"] or back["moves"] == second["moves"]
        ws.send_json({"type": "undo"})
        again = until_my_turn(ws, after=back["version"])
        assert again["moves"] == first["moves"] and again["hand"] == first["hand"]
        assert not again["can_undo"] or first["moves"]


def test_undo_shuffles_the_bag_again_so_a_swap_reveals_nothing(client):
    gid = new_game(client, human=0)
    game = client.app_server.games[gid]
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        view = until_my_turn(ws)
        while view["phase"] != "action" or view["actions_left"] != 2:   # the first action of my turn
            ws.send_json({"type": "move", "move": next(m for m in view["legal"] if not m.startswith("swap"))})
            view = until_my_turn(ws, after=view["version"])
        swap = "swap " + view["hand"]                                    # the whole hand
        assert swap in view["legal"]
        drawn, bags, version = [], [game.state.snapshot()["bag"]], view["version"]
        hidden = [game.state.snapshot()["hands"][1]]
        for _ in range(6):
            ws.send_json({"type": "move", "move": swap})
            after = until_my_turn(ws, after=version)
            assert after["moves"][-1]["move"] == swap
            drawn.append(after["moves"][-1]["drew"])
            ws.send_json({"type": "undo"})
            back = until_my_turn(ws, after=after["version"])
            version = back["version"]
            # the same game as the player saw it, with a bag shuffled again
            assert back["moves"] == view["moves"] and back["hand"] == view["hand"] and back["legal"] == view["legal"]
            bags.append(game.state.snapshot()["bag"])
            hidden.append(game.state.snapshot()["hands"][1])
    assert sorted(bags[0]) == sorted(bags[1]) and bags[1] != bags[0]   # the same tiles, another order
    assert len(set(drawn)) > 1, drawn          # the first draw does not foretell the next ones
    assert len({tuple(b) for b in bags}) == len(bags)
    assert all(h == hidden[0] for h in hidden)   # the engine's hand, which its past decisions came from, stays
    assert game.reshuffles == 6 and game.start_header
    # the record replays the game so far from its [start] position, and the seat record is unchanged
    text = game.saved_text()
    state, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
    assert state.snapshot() == game.state.snapshot() and actions == game.actions
    assert "[reshuffled 6]" in text and "[seed " not in text
    assert "position startpos" in game.seat_record()


def test_hint_returns_candidates(client):
    gid = new_game(client, human=0)
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        msg = until_my_turn(ws)
        ws.send_json({"type": "hint"})
        while True:
            h = ws.receive_json()
            if h["type"] == "hint":
                break
            assert h["type"] != "error", h
        assert h["to_act"] and 1 <= len(h["candidates"]) <= 5
        for c in h["candidates"]:
            assert c["move"] in msg["legal"] and 0 <= c["value"] <= 1
        assert "hands" not in json.dumps(h)
        # best first: by value, so by win chance, never a lower one above a higher one
        values = [c["value"] for c in h["candidates"]]
        assert values == sorted(values, reverse=True), values
        wins = [c["win_chance"]["win"] for c in h["candidates"]]
        assert wins == sorted(wins, reverse=True), wins
        # the best one's equals: exactly the candidates searched 10 times or more whose interval reaches the
        # best one's low end (listed by value, so none lies above the best one's)
        top = h["candidates"][0]
        assert h["equal_best"] == [c["move"] for c in h["candidates"]
                                   if c is top or (c["high"] >= top["low"] and c["visits"] >= 10)]
        assert h["equal_best"][0] == top["move"]
        assert h["version"] == msg["version"]        # the page drops a hint of another position


def test_hint_equals_are_the_overlapping_intervals(monkeypatch):
    """Candidates come back ordered by value whatever the search's order (visits), the overlapping ones equal."""
    from tne_ai.web import games as G

    fake = [{"move": "tile r a1", "mean": 0.40, "low": 0.30, "high": 0.50, "visits": 90, "win_chance": None,
             "pv": ["tile r a1"]},
            {"move": "tile r a2", "mean": 0.55, "low": 0.52, "high": 0.58, "visits": 60, "win_chance": None,
             "pv": ["tile r a2"]},
            {"move": "tile r a3", "mean": 0.53, "low": 0.45, "high": 0.61, "visits": 30, "win_chance": None,
             "pv": ["tile r a3"]}]
    monkeypatch.setattr(G, "analyse", lambda *a, **k: {"to_act": True, "value": 0.5, "win_chance": None,
                                                       "iterations": 180, "candidates": fake})
    h = G.hint({}, 180, 1)
    assert [c["move"] for c in h["candidates"]] == ["tile r a2", "tile r a3", "tile r a1"]
    assert h["equal_best"] == ["tile r a2", "tile r a3"]      # a1's interval ends below a2's low end
    fake[2]["visits"] = 9
    assert G.hint({}, 180, 1)["equal_best"] == ["tile r a2"]    # 9 visits give too rough an interval


# ---------------------------------------------------------------- conflicts: the outcome in words


def resolved_conflicts(kind: str, want: int = 3):
    """Return up to `want` (before, action, after) snapshots of random 2-player games where a `kind` was resolved."""
    found = []
    for seed in range(40):
        state, rng = engine.new_game(2, seed), random.Random(seed)
        while not state.is_terminal() and len(found) < want:
            before = state.snapshot()
            action = rng.choice(state.legal_actions())
            state.apply(action)
            if before["phase"] == kind + "_defend":
                found.append((before, action, state.snapshot()))
        if len(found) >= want:
            return found
    raise AssertionError(f"no {kind} resolved in 40 random games")


@pytest.mark.parametrize("kind", ["revolt", "war"])
def test_conflict_outcome_says_who_attacked_whom_the_strengths_who_won_what_left_and_the_points(kind):
    from engine import actions as A
    from engine.legality import conflict_bases
    from tne_ai.prompts import conflict_outcome
    for before, action, after in resolved_conflicts(kind):
        cf = before["conflict"]
        base_a, base_d = conflict_bases(before)
        attack, defence = base_a + cf["attacker_commit"], base_d + action - A.COMMIT_BASE
        winner, loser = (cf["attacker"], cf["defender"]) if attack > defence else (cf["defender"], cf["attacker"])
        text = conflict_outcome(before, action, after, human=0)
        colour = A.COLOUR_NAMES[cf["colour"]]
        assert text.startswith(f"{kind.capitalize()} over the {colour} leader: "), text
        who = lambda s: f"seat {s} (you)" if s == 0 else f"seat {s}"  # noqa: E731
        assert f"{who(cf['attacker'])} attacked from {A.square_name(cf['attacker_leader'])} with {base_a} " in text
        assert f"committed = {attack}, {who(cf['defender'])} defended at " in text, text
        assert f"committed = {defence}: " in text and f"{who(winner)} wins." in text, text
        assert ("a tie goes to the defender" in text) == (attack == defence)
        leader = cf["attacker_leader"] if loser == cf["attacker"] else cf["defender_leader"]
        owner = "your" if loser == 0 else f"seat {loser}'s"
        assert f"{owner} {colour} leader at {A.square_name(leader)}" in text, text
        removed = [sq for sq, (was, now) in enumerate(zip(before["cells"], after["cells"]))
                   if 1 <= was <= 4 and now == 0]
        if kind == "war" and removed:
            assert f"{len(removed)} {colour} tile" in text
        points = 1 if kind == "revolt" else 1 + len(removed)
        scored = "red" if kind == "revolt" else colour
        assert text.endswith(f"{who(winner).capitalize()} scores {points} {scored} point{'s' if points > 1 else ''}.")
        c = A.RED if kind == "revolt" else cf["colour"]
        assert after["scores"][winner][c] - before["scores"][winner][c] >= points   # (more: a turn's end may score)
    # any other decision, the attacker's commitment included, has no outcome to tell
    assert conflict_outcome(before, A.PASS, after) == ""


def test_the_web_game_and_the_terminal_announce_a_conflict_in_the_same_words():
    """The web game's move list carries the outcome `tne-ai play` prints (tne_ai.prompts.conflict_outcome)."""
    from engine import actions as A
    from engine.record import GameRecorder
    from search.agent import Limits
    from tne_ai.cli.play import TerminalGame
    from tne_ai.web import games as G
    before, action, after = resolved_conflicts("revolt", 1)[0]
    human = before["to_act"]                       # the defender: the human's commitment resolves the revolt
    game = G.Game(engine.State.from_snapshot(before), human, {1 - human: G.EngineSeat(iterations=20)}, seed=1)
    game.play(A.format_action(action))
    entry = game.view()["moves"][-1]
    assert entry["outcome"] and game.view()["last"]["outcome"] == entry["outcome"]
    lines = []

    class Quiet(TerminalGame):
        def echo(self, text: str = "", err: bool = False) -> None:
            lines.append(text)
    term = Quiet(engine.State.from_snapshot(before), human, {1 - human: ("ismcts", None)}, Limits(20),
                 GameRecorder(engine.State.from_snapshot(before)), "/dev/null", False)
    term.announce(before["to_act"], action, before, after)
    assert f"  {entry['outcome']}" in lines, lines


# ---------------------------------------------------------------- HTTP: records, limits, paths, ids


def test_new_game_refuses_bad_requests(client):
    for body, words in [({"players": 5}, "players"), ({"board": "moon"}, "board"),
                        ({"variants": ["x"]}, "variants"), ({"human": 3}, "human seat"),
                        ({"engines": {"iterations": 0}}, "iterations"), ({"colour": 1}, "unknown field"),
                        ({"engines": [ENGINE, ENGINE]}, "list of 1")]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and words in r.json()["error"], (body, r.text)
    r = client.post("/api/games", content=b"{nope")
    assert r.status_code == 400 and "not JSON" in r.json()["error"]


def test_record_download_and_load(client):
    gid = new_game(client, human=0)
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert "[seed" not in r.text and "draw 1" not in r.text          # a seat record during play
    assert parse_seat_record(r.text).seat == 0
    # a finished game's record loads as a game (over); a record mid-game loads and continues
    g = engine.new_game(players=2, seed=11)
    from engine.record import GameRecorder
    rec = GameRecorder(g, seed=11, headers={"human": "1"})
    rng = random.Random(3)
    for _ in range(12):
        rec.apply(rng.choice(g.legal_actions()))
    r = client.post("/api/games/load?iterations=20", content=rec.text().encode())
    assert r.status_code == 201, r.text
    loaded = r.json()["game"]
    v = client.get(f"/api/games/{loaded}").json()
    assert v["seat"] == 1 and len(v["moves"]) == 12
    assert v["hand"] == letters(g.snapshot()["hands"][1])
    # malformed and too large records are refused with the reason
    bad = client.post("/api/games/load", content=b"[players 2]\n[board standard]\n[seed 1]\ntile z z99\n")
    assert bad.status_code == 400 and "line 4" in bad.json()["error"]
    big = client.post("/api/games/load", content=b"#" * (MAX_RECORD_BYTES + 1))
    assert big.status_code == 413 and "1,000,000 bytes" in big.json()["error"]
    assert client.post("/api/games/load", content=b"\xff\xfe").status_code == 400
    assert client.post("/api/games/load?seat=7", content=rec.text().encode()).status_code == 400


def test_static_files_and_paths(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py",
                 "/static/../../engine/state.py", "/static/nothing.js"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "Starlette" not in r.text and "import" not in r.text


def test_every_page_links_an_icon_that_is_served(client):
    """No 404 for the icon: each page links static/favicon.svg, and /favicon.ico answers browsers that guess."""
    import re
    for page in ("/", "/review", "/watch"):
        html = client.get(page).text
        link = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
        assert link, page
        icon = client.get(link.group(1))
        assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml"), page
        assert icon.text.startswith("<svg")
    ico = client.get("/favicon.ico")
    assert ico.status_code == 200 and ico.headers["content-type"].startswith("image/svg+xml")
    assert ico.text == client.get("/static/favicon.svg").text


def test_wrong_game_id_is_404(client):
    assert client.get("/api/games/nope").status_code == 404
    assert client.get("/api/games/nope/record").status_code == 404
    with pytest.raises(Exception):
        with client.websocket_connect("/api/games/nope/ws") as ws:
            ws.receive_json()
    gid = new_game(client)
    assert len(gid) >= 32


def test_banner_warns_off_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert "WARNING" not in banner("127.0.0.1", 8000, 2)
    assert "http://127.0.0.1:8000/" in banner("127.0.0.1", 8000, 2)
    assert "WARNING" in banner("0.0.0.0", 8000, 2)


# ---------------------------------------------------------------- malformed input never drops a socket or answers 500


def test_a_binary_frame_gets_an_error_and_the_socket_stays_open(client):
    gid = new_game(client, human=0)
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        until_my_turn(ws)
        ws.send_bytes(b'{"type": "state"}')
        err = ws.receive_json()
        assert err["type"] == "error" and "binary" in err["message"], err
        ws.send_json({"type": "ping", "t": 5})
        assert ws.receive_json() == {"type": "pong", "t": 5}


def test_json_nested_too_deep_is_an_error_not_a_crash(client):
    deep = "[" * 2000 + "]" * 2000
    gid = new_game(client, human=0)
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        until_my_turn(ws)
        for text in (deep, '{"type": "ping", "t": ' + deep + "}"):
            ws.send_text(text)
            err = ws.receive_json()
            assert err["type"] == "error" and "nested more than" in err["message"], err
        ws.send_json({"type": "ping", "t": 6})
        assert ws.receive_json() == {"type": "pong", "t": 6}
    for path in ("/api/games", "/api/watch"):
        r = client.post(path, content=deep.encode())
        assert r.status_code == 400 and "nested more than" in r.json()["error"], (path, r.text)
        r = client.post(path, content=b'{"players": ' + deep.encode() + b"}")
        assert r.status_code == 400 and "nested more than" in r.json()["error"], (path, r.text)


def test_bad_numbers_in_query_and_headers_are_400_not_500(client):
    rec = "[players 2]\n[board standard]\n[seed 1]\n[human \u00b2]\n"
    for path, body in [("/api/games/load?seat=\u00b2", "[players 2]\n[board standard]\n[seed 1]\n"),
                       ("/api/games/load?iterations=\u00b2", "[players 2]\n[board standard]\n[seed 1]\n"),
                       ("/api/review?iterations=\u00b2", "[players 2]\n[board standard]\n[seed 1]\n"),
                       ("/api/review?seats=\u00b2", "[players 2]\n[board standard]\n[seed 1]\n")]:
        r = client.post(path, content=body.encode())
        assert r.status_code == 400 and r.json()["error"], (path, r.status_code, r.text)
    r = client.post("/api/games/load", content=rec.encode())      # a header that is no count: the default seat
    assert r.status_code == 201, r.text


def test_non_finite_numbers_are_refused_and_never_sent(client):
    from tne_ai.web.http import dumps
    gid = new_game(client, human=0)
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        until_my_turn(ws)
        for bad in ("NaN", "Infinity", "-Infinity", "1e999", "-1e999"):
            ws.send_text('{"type": "ping", "t": %s}' % bad)
            text = ws.receive_text()
            err = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} sent to the page: {text}"))
            assert err["type"] == "error" and "not a JSON number" in err["message"] and bad.lstrip("-")[:3] in \
                err["message"], (bad, err)
        ws.send_text('{"type": "ping", "t": 1.5}')
        assert ws.receive_json() == {"type": "pong", "t": 1.5}
    r = client.post("/api/games", content=b'{"players": NaN}')
    assert r.status_code == 400 and "not a JSON number" in r.json()["error"]
    # whatever a message holds, what is sent is strict JSON
    out = json.loads(dumps({"type": "hint", "value": float("nan")}), parse_constant=pytest.fail)
    assert out["type"] == "error" and "hint" in out["message"] and "not finite" in out["message"]


def test_an_unknown_game_socket_is_accepted_then_closed_4404(client):
    from starlette.websockets import WebSocketDisconnect
    for path in ("/api/games/" + "x" * 32 + "/ws", "/api/games/nope/ws", "/ws/watch/nope"):
        with client.websocket_connect(path) as ws:             # accepted: not an HTTP 403 the page cannot read
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert closed.value.code == 4404 and closed.value.reason == "no such game", path


# ---------------------------------------------------------------- teaching mode


def _teaching_game(client, teach="0.1") -> str:
    """Load the teaching position (tests/records.py: one blue tile wins, another loses) with teaching on."""
    from engine.record import GameRecorder
    from records import teaching_start
    state = engine.State.from_snapshot(parse_position(teaching_start()))
    text = GameRecorder(state, seed=None, headers={"human": "0"}).text()
    r = client.post(f"/api/games/load?iterations=20&teach={teach}", content=text.encode())
    assert r.status_code == 201, r.text
    return r.json()["game"]


def _until(ws, pred, seen=None):
    """Receive messages until a state satisfying `pred`; an error on the way fails the test."""
    while True:
        m = ws.receive_json()
        if seen is not None:
            seen.append(m)
        assert m["type"] != "error", m
        if m["type"] == "state" and pred(m):
            return m


def _error(ws) -> str:
    """Receive the next message: an error; return its text."""
    m = ws.receive_json()
    assert m["type"] == "error", m
    return m["message"]


def test_teaching_warns_shows_the_best_and_takes_back_or_plays_on_answer(client):
    from records import TEACHING_BAD, TEACHING_GOOD
    client.app_server.teach_iterations = 200
    gid = _teaching_game(client)
    game = client.app_server.games[gid]
    true_before = game.state.snapshot()
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        first = until_my_turn(ws)
        assert first["teach"] == {"on": True, "threshold": 0.1} and first["teaching"] is None
        assert "teach 0.1" in game.saved_text()                # a restart keeps the setting
        # answers with nothing to answer, settings that cannot be: errors, and nothing changes
        ws.send_json({"type": "teach_answer", "answer": "back"})
        assert "nothing to answer: no teaching warning is waiting" in _error(ws)
        for bad, words in [({"on": "yes"}, "must be true or false"), ({"on": True, "threshold": 2},
                                                                        "above 0 and below 1"),
                           ({"on": True, "threshold": [1]}, "teach: false, true or a threshold")]:
            ws.send_json({"type": "teach", **bad})
            assert words in _error(ws), bad
        # the bad decision: checked (nothing applied), then warned, the engine's best highlighted on the board
        seen = []
        ws.send_json({"type": "move", "move": TEACHING_BAD})
        warned = _until(ws, lambda m: m["teaching"] is not None, seen)
        assert any(m["type"] == "state" and m["checking"] == TEACHING_BAD for m in seen)
        note = next(m for m in seen if m["type"] == "teaching")
        t = warned["teaching"]
        assert t["move"] == TEACHING_BAD and t["best"] in TEACHING_GOOD and note["best"] == t["best"]
        assert (t["loss"], t["loss_low"], t["loss_high"], t["units"]) == (1.0, 1.0, 1.0, "win chance")
        assert t["text"] == f"{TEACHING_BAD}: this decision loses about 1.00 win chance (1.00–1.00); " \
                            f"the engine prefers {t['best']}"
        best_sq = t["best"].split()[-1]
        assert t["best_squares"] == [best_sq] and f'class="highlight" data-sq="{best_sq}"' in warned["svg"]
        assert warned["moves"] == first["moves"] and warned["hand"] == first["hand"] == "bbbbbb"
        assert game.state.snapshot() == true_before and game.actions == []
        for m in seen:
            assert not leaks(m, true_before, 0), m
        # while it waits: no other decision, and a garbage answer is refused
        ws.send_json({"type": "move", "move": TEACHING_GOOD[0]})
        assert "answer the teaching warning about tile b a4 first" in _error(ws)
        ws.send_json({"type": "teach_answer", "answer": "maybe"})
        assert "a teaching answer is play" in _error(ws)
        ws.send_json({"type": "teach_answer"})
        assert "a teaching answer is play" in _error(ws)
        # take it back: the position exactly as it was, the warning gone
        ws.send_json({"type": "teach_answer", "answer": "back"})
        back = _until(ws, lambda m: m["teaching"] is None)
        assert game.state.snapshot() == true_before and game.actions == [] and game.pending is None
        assert back["moves"] == first["moves"] and back["legal"] == first["legal"] and back["svg"] == first["svg"]
        # a good decision goes through without a word
        seen = []
        ws.send_json({"type": "move", "move": TEACHING_GOOD[1]})
        over = _until(ws, lambda m: m["over"] is not None, seen)
        assert not any(m["type"] == "teaching" or m.get("teaching") for m in seen)
        assert over["moves"][-1]["move"] == TEACHING_GOOD[1] and over["over"]["ranks"] == [0, 1]
    # warned, then the engine's best played on the answer; "play" plays the warned one
    for answer, rank in (("best", [0, 1]), ("play", [1, 0])):
        gid = _teaching_game(client)
        with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
            until_my_turn(ws)
            ws.send_json({"type": "move", "move": TEACHING_BAD})
            t = _until(ws, lambda m: m["teaching"] is not None)["teaching"]
            ws.send_json({"type": "teach_answer", "answer": answer})
            over = _until(ws, lambda m: m["over"] is not None)
            assert over["moves"][-1]["move"] == (t["best"] if answer == "best" else TEACHING_BAD)
            assert over["over"]["ranks"] == rank
    # switched off during the game: the bad decision is played at once
    gid = _teaching_game(client)
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        until_my_turn(ws)
        ws.send_json({"type": "teach", "on": False})
        assert _until(ws, lambda m: True)["teach"] == {"on": False, "threshold": None}
        ws.send_json({"type": "move", "move": TEACHING_BAD})
        assert _until(ws, lambda m: m["over"] is not None)["moves"][-1]["move"] == TEACHING_BAD


def test_teaching_setting_of_a_new_game_and_a_load(client):
    for teach, want in [(True, 0.1), (0.25, 0.25), (None, None), (False, None)]:
        gid = new_game(client, teach=teach)
        assert client.get(f"/api/games/{gid}").json()["teach"] == {"on": want is not None, "threshold": want}
    for teach, words in [(1.5, "above 0 and below 1"), ("x", "a number between 0 and 1"), ([0.1], "teach: false")]:
        r = client.post("/api/games", json={"players": 2, "engines": ENGINE, "teach": teach})
        assert r.status_code == 400 and words in r.json()["error"], (teach, r.text)
    rec = engine.new_game(2, 5)
    from engine.record import GameRecorder
    r = client.post("/api/games/load?teach=nan", content=GameRecorder(rec, seed=5).text().encode())
    assert r.status_code == 400 and "above 0 and below 1" in r.json()["error"]
    # the saved game keeps the setting across a restart
    from tne_ai.web.games import resume_game
    gid = new_game(client, teach=0.3)
    assert resume_game(client.app_server.games[gid].saved_text()).teach == 0.3


def test_a_teaching_check_of_a_position_left_is_dropped_and_one_switched_off_meanwhile_does_not_warn():
    from engine.record import GameRecorder
    from records import TEACHING_BAD, teaching_start
    from tne_ai.web import games as G
    state = engine.State.from_snapshot(parse_position(teaching_start()))
    game = G.load_game(GameRecorder(state, seed=None, headers={"human": "0"}).text())
    game.teach = 0.1
    assert game.play(TEACHING_BAD) is None and game.checking == engine.parse_action(TEACHING_BAD)
    check = G.teach_check(*game.teach_job(), 200)
    assert check["warn"]
    assert game.checked(check, game.version - 1) is None and game.checking is not None    # another position's
    game.set_teach(False)
    assert game.checked(check, game.version) is False                                     # played, no warning
    assert game.pending is None and game.moves[-1]["move"] == TEACHING_BAD


# ---------------------------------------------------------------- levels (search.levels)


def test_a_new_game_at_a_level_plays_that_level_and_saves_it(client):
    from tne_ai.web import games as G
    from search.levels import LEVELS
    r = client.post("/api/games", json={"players": 2, "human": 1, "level": 3})
    assert r.status_code == 201, r.text
    game = client.app_server.games[r.json()["game"]]
    assert game.engines == {0: G.EngineSeat(iterations=LEVELS[2].iterations, level=3)}
    assert client.get(f"/api/games/{game.id}").json()["seats"][0]["player"] == "ismcts level 3"
    with client.websocket_connect(f"/api/games/{game.id}/ws") as ws:
        msg = until_my_turn(ws)
        while not any(m["seat"] == 0 for m in game.moves):      # until the engine has decided once
            ws.send_json({"type": "move", "move": msg["legal"][0]})
            msg = until_my_turn(ws, after=msg["version"])
    k = next(i for i, m in enumerate(game.moves) if m["seat"] == 0)
    job = G.Game(game.initial, 1, game.engines, game.seed, actions=game.actions[:k]).engine_job()
    assert job[2] == LEVELS[2].iterations and job[5] == 3
    assert game.actions[k] == G.decide(*job[1:])      # the level's own draw, computed again here
    # saved and read back after a restart: still level 3
    again = G.resume_game(game.saved_text())
    assert again.engines == game.engines and "[engine_0 level 3]" in game.saved_text()


def test_the_server_default_level_and_the_levels_table():
    from tne_ai.web import games as G
    app = create_app(workers=1, default_level=4)
    with TestClient(app) as c:
        doc = c.get("/api/levels").json()
        assert doc["default"] == 4 and [lv["level"] for lv in doc["levels"]] == list(range(1, 11))
        gid = c.post("/api/games", json={"players": 2}).json()["game"]
        assert app.state.server.games[gid].engines[1].level == 4
        gid = c.post("/api/games", json={"players": 2, "engines": ENGINE}).json()["game"]
        assert app.state.server.games[gid].engines[1] == G.EngineSeat(iterations=20)
        gid = c.post("/api/games", json={"players": 2, "level": 10}).json()["game"]
        assert app.state.server.games[gid].engines[1] == G.EngineSeat(iterations=1000)
    with pytest.raises(G.GameError, match="level"):
        create_app(default_level=11)


def test_a_bad_level_is_a_clear_400(client):
    for body, words in [({"level": 0}, "level must be an integer 1..10"), ({"level": 11}, "1..10"),
                        ({"level": "3"}, "got '3'"), ({"level": 2.5}, "1..10"), ({"level": None}, "1..10"),
                        ({"level": 3, "engines": ENGINE}, "not both"),
                        ({"engines": {"level": 3, "iterations": 5}}, "not both")]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and words in r.json()["error"], (body, r.text)
    text = client.get(f"/api/games/{new_game(client)}/record").text
    g = engine.new_game(players=2, seed=11)
    from engine.record import GameRecorder
    rec = GameRecorder(g, seed=11, headers={"human": "1"}).text().encode()
    for query, words in [("level=12", "1..10"), ("level=x", "level must be a number"),
                         ("level=3&iterations=5", "not iterations and level")]:
        r = client.post("/api/games/load?" + query, content=rec)
        assert r.status_code == 400 and words in r.json()["error"], (query, r.text)
    assert text
    r = client.post("/api/games/load?level=2", content=rec)
    assert r.status_code == 201 and client.app_server.games[r.json()["game"]].engines[0].level == 2
