"""engine/svg.py: the board as SVG, and `tne-ai show --svg` / `analyze --svg`."""
from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

import engine
from engine.errors import PositionError
from engine.info import observation
from engine.position import public_snapshot
from engine.svg import board_svg, decision_squares, kingdoms
from diagram import position, sq
from test_layers import upper_layers_loaded
from tne_ai.cli import main
from tne_ai.inputs import load_sample

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    """Parse an SVG document (fails on malformed XML) and check it is a standalone <svg>."""
    root = ET.fromstring(text)
    assert root.tag == NS + "svg"
    assert root.get("viewBox") and root.find(NS + "style") is not None
    return root


def squares(root) -> dict:
    """Return {square name: its <g class="sq"> element}."""
    return {g.get("data-sq"): g for g in root.iter(NS + "g") if g.get("class", "").split()[:1] == ["sq"]}


def texts(el) -> list:
    return [t.text for t in el.iter(NS + "text")]


def classes(el) -> list:
    return [x.get("class", "") for x in el.iter()]


def by_class(root, cls: str) -> list:
    return [x for x in root.iter() if cls in x.get("class", "").split()]


def random_state(players, seed, board="standard", variants=(), decisions=60):
    s = engine.new_game(players, seed, board, variants)
    rng = random.Random(seed)
    for _ in range(decisions):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    return s


def test_engine_svg_loads_no_upper_layer():
    assert upper_layers_loaded("engine.svg", ("search", "tne_ai", "click")) == []


@pytest.mark.parametrize("board", ["standard", "advanced"])
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variants", [(), ("english", "buildings", "wonder")])
def test_well_formed_for_boards_players_variants(board, players, variants):
    s = random_state(players, 7 + players, board, variants)
    snap = s.snapshot()
    for doc in (board_svg(snap), board_svg(snap, 0, last=s.legal_actions()[0], title="a <b> & c"),
                board_svg(public_snapshot(snap)), board_svg(observation(snap, 1), 1)):
        root = parse(doc)
        assert len(squares(root)) == 176
        assert root.get("data-board") == board


def test_river_and_special_squares_of_the_board():
    root = parse(board_svg(position(None, outside="empty")))
    sqs = squares(root)
    assert sqs["e1"].find(NS + "rect").get("class") == "river"
    assert sqs["a1"].find(NS + "rect").get("class") == "land"
    assert "temple" in classes(sqs["k1"]) and "special" in classes(sqs["b2"])   # T and * of the board file


DIAGRAM = """
    e  f  g  h  i
3   b  r$ 0k .  .
4   .  r  x  1g .
5   .  G  G  r  .
6   .  G  G  .  .
"""


def test_diagram_position_is_drawn_on_its_squares():
    snap = position(DIAGRAM, players=2, monuments={"kg": "f5"}, hands=["kkrrbg", "gggbbb"])
    root = parse(board_svg(snap))
    sqs = squares(root)
    assert texts(sqs["f4"]) == ["R"] and "t1" in " ".join(classes(sqs["f4"]))
    assert texts(sqs["f3"]) == ["R"] and "treasure" in " ".join(classes(sqs["f3"]))
    assert "special-treasure" not in " ".join(classes(sqs["f3"]))
    assert "treasure" not in " ".join(classes(sqs["f4"]))
    special = position(None)                                      # b2 is a `*` square of the board
    assert "special-treasure" in " ".join(classes(squares(parse(board_svg(special)))["b2"]))
    leader = [g for g in sqs["g3"].iter(NS + "g") if g.get("class") == "leader"]
    assert leader and leader[0].get("data-seat") == "0" and leader[0].get("data-colour") == "k"
    assert texts(sqs["g3"]) == ["K", "\u25b20"]
    assert texts(sqs["h4"]) == ["G", "\u25cf1"]
    assert "catastrophe" in classes(sqs["g4"])
    assert texts(sqs["e3"]) == ["B"] and sqs["e3"].find(NS + "rect").get("class") == "river"
    assert texts(sqs["g6"]) == ["g"] and "d3" in " ".join(classes(sqs["g6"]))       # face down, pale
    mons = by_class(root, "monument")
    assert [(m.get("data-monument"), m.get("data-sq")) for m in mons] == [("KG", "f5")]
    assert texts(sqs["e4"]) == [] and sqs["e4"].find(NS + "rect").get("class") == "land"


def test_variant_buildings_and_wonder():
    snap = position("""
        e  f  g  h  i
    5   .  .  W  .  .
    6   .  W  W  W  r@
    7   .  0k W  .  r
    """, variants=["buildings", "wonder"], wonder_colour="g")
    root = parse(board_svg(snap))
    sqs = squares(root)
    assert [b.get("data-colour") for b in by_class(sqs["i6"], "building")] == ["r"]
    assert all("W" in texts(sqs[n]) for n in ("g5", "f6", "g6", "h6", "g7"))
    assert len(by_class(root, "wonderline")) == 1


def test_kingdoms_outlined_two_then_one():
    apart = position("""
        e  f  g  h  i
    5   r  0k .  1g r
    """, outside="empty")
    assert len(kingdoms(apart)) == 2
    assert len(by_class(parse(board_svg(apart)), "kingdom")) == 2
    joined = position("""
        e  f  g  h  i
    5   r  0k r  1g r
    """, outside="empty")
    assert len(kingdoms(joined)) == 1
    assert len(by_class(parse(board_svg(joined)), "kingdom")) == 1
    cut = position("""
        e  f  g  h  i
    5   r  0k x  1g r
    """, outside="empty")
    assert len(by_class(parse(board_svg(cut)), "kingdom")) == 2
    region = position("""
        e  f  g
    5   r  r  .
    """, outside="empty")                       # tiles without a leader: a region, not outlined
    assert by_class(parse(board_svg(region)), "kingdom") == []


def test_last_decision_highlight_and_selectable():
    snap = position(DIAGRAM, monuments={"kg": "f5"})
    root = parse(board_svg(snap, last="tile r f4", highlight=["e5", sq("i8")], selectable=["e5", "f6"]))
    assert [g.get("data-sq") for g in root.iter(NS + "g") if g.get("class") == "last"] == ["f4"]
    assert [g.get("data-sq") for g in by_class(root, "highlight")] == ["e5", "i8"]
    assert sorted(g.get("data-sq") for g in by_class(root, "sel")) == ["e5", "f6"]
    mon = parse(board_svg(snap, last=engine.parse_action("monument kg f5")))
    assert sorted(g.get("data-sq") for g in mon.iter(NS + "g") if g.get("class") == "last") == ["f5", "f6", "g5", "g6"]
    for text in ("pass", "commit 2", "withdraw k", "swap kk"):
        assert decision_squares(text) == ()
        assert not any(g.get("class") == "last" for g in parse(board_svg(snap, last=text)).iter(NS + "g"))
    assert decision_squares("leader k f5") == (sq("f5"),)
    assert decision_squares("cat h6") == (sq("h6"),)
    assert decision_squares("treasure b2") == (sq("b2"),)
    assert decision_squares("building r i6") == (sq("i6"),)
    assert decision_squares("wonder g6") == tuple(sorted(sq(n) for n in ("g5", "f6", "g6", "h6", "g7")))


def test_conflict_and_unification_markers():
    snap = position("""
        e  f  g  h  i
    5   .  0r r  1r .
    6   .  r  r  r  .
    """, phase="revolt_attack", conflict={"kind": "revolt", "colour": "r", "attacker": 1, "defender": 0,
                                          "attacker_leader": "h5", "defender_leader": "f5"})
    root = parse(board_svg(snap))
    assert {(g.get("data-sq"), g.get("data-mark")) for g in by_class(root, "marker")} == {("h5", "A"), ("f5", "D")}
    snap2 = position("""
        e  f  g
    5   0k r  1k
    """, phase="war_choice", placed="f5", unification="f5", outside="empty")
    root2 = parse(board_svg(snap2))
    assert [(g.get("data-sq"), g.get("data-mark")) for g in by_class(root2, "marker")] == [("f5", "U")]


def hand_groups(root):
    return [(g.get("data-seat"), texts(g)[1:]) for g in by_class(root, "hand")]


def test_only_the_asked_seat_hand_and_only_when_known():
    snap = position(DIAGRAM, monuments={"kg": "f5"}, hands=["kkkrrr", "gggbbb"])
    assert hand_groups(parse(board_svg(snap))) == []
    assert hand_groups(parse(board_svg(snap, 0))) == [("0", list("KKKRRR"))]
    doc = board_svg(snap, 0)
    assert 'data-seat="1"' not in doc.split('class="hand"')[1].split("</g>")[0]
    assert "BBBGGG" not in "".join(t or "" for t in texts(parse(doc)))
    assert len(by_class(parse(doc), "hand")) == 1
    assert hand_groups(parse(board_svg(snap, 1))) == [("1", list("BBBGGG"))]
    pub = public_snapshot(snap)
    assert hand_groups(parse(board_svg(pub, 0))) == []                       # not known: not shown
    obs = observation(snap, 1)
    assert hand_groups(parse(board_svg(obs, 1))) == [("1", list("BBBGGG"))]
    assert hand_groups(parse(board_svg(obs, 0))) == []
    with pytest.raises(PositionError):
        board_svg(snap, 2)


def test_status_lines_and_title():
    root = parse(board_svg(load_sample().snapshot, title="mid & game"))
    words = " ".join(t for t in texts(root) if t)
    assert "mid & game" in words and "standard board, 3 players" in words and "seat 1 to act" in words
    bare = parse(board_svg(load_sample().snapshot, status=False, legend=False))
    assert not any("board," in (t or "") for t in texts(bare))


# ---------------------------------------------------------------- the command line

def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_show_svg_writes_the_file(tmp_path):
    out = tmp_path / "b.svg"
    r = run("show", "startpos", "--players", 3, "--seat", 2, "--svg", out)
    assert r.exit_code == 0, r.output
    root = parse(out.read_text())
    assert [g.get("data-seat") for g in by_class(root, "hand")] == ["2"]
    assert "a  b  c" in r.output                       # the text board is still printed


def test_show_svg_of_a_record_rings_the_last_decision(tmp_path):
    from pathlib import Path
    game = Path(__file__).parent / "data" / "review-game.txt"
    out = tmp_path / "r.svg"
    r = run("show", game, "--ply", 25, "--seat", 1, "--svg", out)
    assert r.exit_code == 0, r.output
    from engine.record import replay_record
    _, actions = replay_record(game.read_text(), engine.new_game, engine.State.from_snapshot)
    expected = [engine.actions.square_name(x) for x in decision_squares(actions[24])]
    root = parse(out.read_text())
    assert [g.get("data-sq") for g in root.iter(NS + "g") if g.get("class") == "last"] == expected
    assert [g.get("data-seat") for g in by_class(root, "hand")] == ["1"]


def test_analyze_svg_marks_the_best_decision(tmp_path):
    out = tmp_path / "a.svg"
    r = run("analyze", "--iterations", 100, "--svg", out, "--no-board")
    assert r.exit_code == 0, r.output
    last = r.output.strip().splitlines()[-1]       # "best X", or the equally good ones, the most visited first
    best = last.removeprefix("best ") if last.startswith("best ") else last.split(": ", 1)[1].split(", ")[0]
    root = parse(out.read_text())
    sample = load_sample().snapshot
    assert [g.get("data-seat") for g in by_class(root, "hand")] == [str(sample["to_act"])]
    marked = [g.get("data-sq") for g in by_class(root, "highlight")]
    assert marked == [engine.actions.square_name(x) for x in decision_squares(best)]


@pytest.mark.parametrize("cmd", [("show", "startpos"), ("analyze", "--iterations", 10)])
def test_unwritable_svg_path_is_a_one_line_error(tmp_path, cmd):
    bad = tmp_path / "no-such-dir" / "x.svg"
    r = run(*cmd, "--svg", bad)
    assert r.exit_code == 2
    assert "--svg: cannot write" in r.output and len(r.output.strip().splitlines()) == 1
