"""`tne-ai analyze` from what one seat knows (R-INFO-1): public position + hand, seat records, startpos."""
from __future__ import annotations

import json
import random
import re

import pytest
from click.testing import CliRunner

import engine
from engine.position import format_position, public_snapshot
from engine.view import events_for_seat, letters
from test_cli import random_state
from tne_ai.cli import main
from tne_ai.analysis.knowledge import KnowledgeError, parse_seat_record, seat_observation


def run(*args, input=None):
    """Invoke `tne-ai ARGS` in-process; return the click Result."""
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def untimed_text(text: str) -> str:
    """Return analyze's text output with its timing (seconds, speed) blanked."""
    return re.sub(r"in \d+\.\d+ s \([\d,]+/s\)", "in T s (N/s)", text)


def untimed_json(text: str) -> dict:
    doc = json.loads(text)
    for a in doc["analyses"]:
        a.pop("seconds")
        a.pop("iterations_per_second")
    return doc


def played_game(players: int, seed: int, decisions: int):
    """Return (start snapshot, actions, final state) of seeded uniform-random play."""
    s, actions = random_state(players, seed, decisions)
    return engine.new_game(players, seed).snapshot(), actions, s


def seat_record_lines(players: int, seed: int, decisions: int, seat: int) -> tuple:
    """Return the protocol lines the referee would send `seat` after the decisions, and the final state."""
    start, actions, _ = played_game(players, seed, decisions)
    s = engine.State.from_snapshot(start)
    events = []
    for a in actions:
        before = s.snapshot()
        s.apply(a)
        events += events_for_seat(before, a, s.snapshot(), seat)
    lines = [f"newgame players {players} board standard seat {seat}",
             f"position startpos first {start['to_act']} hand {letters(start['hands'][seat])}"
             + (" moves " + "; ".join(events) if events else "")]
    return lines, s


def analyse_text(*args, input=None) -> str:
    res = run("analyze", *args, input=input)
    assert res.exit_code == 0, res.output
    return res.stdout


# ---------------------------------------------------------------- same knowledge, same analysis


def test_public_position_plus_hand_analyses_exactly_as_the_full_position():
    """The full position is cut to the seat's view: its public part plus that seat's hand gives the same output."""
    _, _, s = played_game(3, 4, 30)
    while s.to_act < 0:
        raise AssertionError("game over")
    full = s.position(hidden=True)
    public = s.position(hidden=False)
    seat = s.to_act
    hand = letters(s.snapshot()["hands"][seat])
    args = ("--iterations", 300, "--seed", 5)
    assert untimed_text(analyse_text(full, *args)) == untimed_text(analyse_text(public, "--hand", hand, *args))
    assert (untimed_json(analyse_text(full, "--json", *args))
            == untimed_json(analyse_text(public, "--hand", hand, "--json", *args)))
    # a waiting seat too: the same worlds are dealt from the same knowledge
    other = (seat + 1) % 3
    other_hand = letters(s.snapshot()["hands"][other])
    wargs = ("--seat", other, "--iterations", 120, "--samples", 3, "--json")
    assert (untimed_json(analyse_text(full, *wargs))
            == untimed_json(analyse_text(public, "--hand", other_hand, *wargs)))


def test_swapped_tiles_are_part_of_the_seats_knowledge():
    """A seat that swapped gives its swapped tiles with --swapped; the analysis equals the full position's."""
    for seed in range(60):
        s = engine.new_game(2, seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            snap = s.snapshot()
            me = s.to_act
            if sum(snap["swapped"][me]) and s.phase == "action":
                hand, swapped = letters(snap["hands"][me]), ",".join(map(str, snap["swapped"][me]))
                args = ("--iterations", 100, "--json")
                full = untimed_json(analyse_text(s.position(hidden=True), *args))
                assert full == untimed_json(analyse_text(s.position(), "--hand", hand, "--swapped", swapped,
                                                         *args))
                # too few or too many swapped tiles named: refused, naming --swapped
                wrong = ",".join(map(str, [snap["swapped"][me][0] + 1] + snap["swapped"][me][1:]))
                res = run("analyze", s.position(), "--hand", hand, "--swapped", wrong, *args)
                assert res.exit_code == 2 and "--swapped" in res.output and res.stdout == ""
                # swapped forgotten: their colours are unknown to the seat, and it says so
                forgot = json.loads(analyse_text(s.position(), "--hand", hand, *args))
                n = sum(snap["swapped"][me])
                assert forgot["input"].endswith(f"the colours of its {n} swapped tile(s) unknown")
                assert forgot["analyses"][0]["seat"] == me and forgot["analyses"][0]["candidates"]
                return
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError("no swap found")


def _swapped_position(players: int = 2):
    """Return (state, seat) of a seeded game where the seat to act has swapped tiles away."""
    for seed in range(60):
        s = engine.new_game(players, seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            if sum(s.snapshot()["swapped"][s.to_act]) and s.phase == "action":
                return s, s.to_act
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError("no swap found")


def test_swapped_tiles_of_unknown_colour_are_dealt_with_the_unseen_tiles():
    """Without its swapped tiles' colours a seat counts them unseen: worlds deal them, the search re-deals them."""
    from engine.info import determinize, observation, unknown_own_swapped
    from engine.view import SeatView
    from search.ismcts import world_from_observation
    s, me = _swapped_position()
    snap = s.snapshot()
    pile = snap["swapped"][me]
    full = observation(snap, me)
    obs = seat_observation(public_snapshot(snap), me, letters(snap["hands"][me]))
    assert obs["own_swapped"] == [0, 0, 0, 0] and unknown_own_swapped(obs) == sum(pile)
    assert obs["unseen"] == [u + p for u, p in zip(full["unseen"], pile)]
    assert obs["swapped_sizes"] == full["swapped_sizes"] and obs["hand"] == full["hand"]
    # every world keeps the public sizes and the seat's hand, and deals its pile from the unseen tiles
    piles = set()
    for k in range(40):
        world = determinize(obs, me, random.Random(k))
        engine.State.from_snapshot(world)                 # the rules accept it: tiles conserved
        assert world["hands"][me] == snap["hands"][me]
        assert [sum(p) for p in world["swapped"]] == full["swapped_sizes"]
        piles.add(tuple(world["swapped"][me]))
    assert len(piles) > 1
    # the search's root world leaves the seat's own pile to the kernel's re-deal (on another pile)
    world = world_from_observation(obs, me, 3).snapshot()
    assert world["swapped"][me] == [0, 0, 0, 0] and world["hands"][me] == snap["hands"][me]
    assert sum(map(sum, world["swapped"])) == sum(full["swapped_sizes"])
    # known colours: nothing is moved, the seat's pile is its own
    assert world_from_observation(full, me, 3).snapshot()["swapped"][me] == pile
    # a seat view from it keeps them unknown as the game goes on, and learns only its own new swaps
    view = SeatView(obs)
    t = s.clone()
    rng = random.Random(1)
    for _ in range(40):
        if t.is_terminal():
            break
        before = t.snapshot()
        a = rng.choice(t.legal_actions())
        t.apply(a)
        view.apply_all(events_for_seat(before, a, t.snapshot(), me))
        now, known = view.observation(), observation(t.snapshot(), me)
        assert unknown_own_swapped(now) == sum(pile)
        assert [n + p for n, p in zip(now["own_swapped"], pile)] == known["own_swapped"]
        assert [n - p for n, p in zip(now["unseen"], pile)] == known["unseen"]
        assert now["hand"] == known["hand"]


def test_hand_letters_are_read_in_either_case():
    """The board and `play` print tiles in capitals: --hand and --swapped take them as well."""
    s, me = _swapped_position()
    snap = s.snapshot()
    hand, pile = letters(snap["hands"][me]), letters(snap["swapped"][me])
    args = ("--iterations", 100, "--seed", 2, "--no-board")
    lower = analyse_text(s.position(), "--hand", hand, "--swapped", pile, *args)
    assert untimed_text(lower) == untimed_text(analyse_text(s.position(), "--hand", hand.upper(), "--swapped",
                                                            pile.upper(), *args))
    res = run("analyze", s.position(), "--hand", hand.upper()[:-1] + "X", *args)
    assert res.exit_code == 2 and res.stdout == ""
    assert f"--hand '{hand.upper()[:-1]}X': expected letters k, r, b, g (either case)" in res.output


def test_a_seat_record_analyses_as_the_full_record_at_its_end(tmp_path):
    """The protocol lines a seat was sent give that seat's knowledge: the same analysis as the full record."""
    lines, s = seat_record_lines(2, 8, 25, seat=1)
    assert s.to_act >= 0
    me = 1
    record = tmp_path / "seat1.txt"
    record.write_text("\n".join(lines) + "\n")
    full_pos = s.position(hidden=True)
    args = ("--seat", me, "--iterations", 150, "--samples", 2, "--json")
    from_record = untimed_json(analyse_text(str(record), *args))
    from_full = untimed_json(analyse_text(full_pos, *args))
    assert from_record["analyses"] == from_full["analyses"]
    assert from_record["position"] == from_full["position"]
    assert from_record["input"].startswith(f"{record}: seat record, after event ")
    # a referee --log-dir transcript: only the lines sent (`>`) count
    log = tmp_path / "game0001-seat1-x.log"
    log.write_text("\n".join(
        ["100.001 # started pid 7: tne-ai bot", "100.002 > tne", "100.050 < id name tne-ai", "100.051 < tneok"]
        + [f"100.1{i} > {line}" for i, line in enumerate(lines)]
        + ["100.200 > go iterations 5", "100.300 < bestmove pass", "100.301 ! a log line on stderr"]) + "\n")
    assert untimed_json(analyse_text(str(log), *args))["analyses"] == from_full["analyses"]


def test_a_seat_record_at_a_ply_and_from_stdin():
    lines, _ = seat_record_lines(2, 3, 10, seat=0)
    text = "\n".join(lines) + "\n"
    record = parse_seat_record(text)
    assert record.seat == 0 and len(record.events) >= 10
    early = untimed_json(analyse_text("-", "--ply", 4, "--iterations", 60, "--json", input=text))
    assert early["ply"] == 4 and early["input"].startswith("stdin: seat record, after event 4 of")
    assert early["position"] == format_position(record.observation_after(4))


def test_startpos_with_a_hand_is_the_start_as_one_seat_knows_it():
    doc = untimed_json(analyse_text("startpos", "--hand", "kkrbgg", "--players", 3, "--first", 2,
                                    "--iterations", 100, "--json"))
    (a,) = doc["analyses"]
    assert doc["players"] == 3 and doc["to_act"] == 2 and a["seat"] == 2 and a["hand"] == [2, 1, 1, 2]
    waiting = untimed_json(analyse_text("startpos", "--hand", "kkrbgg", "--first", 1, "--seat", 0, "--iterations", 60,
                                        "--samples", 2, "--json"))
    assert waiting["analyses"][0]["to_act"] is False and waiting["analyses"][0]["seat"] == 0
    text = analyse_text("startpos", "--hand", "kkrbgg", "--iterations", 60, "--no-board")
    assert text.splitlines()[0] == ("startpos: start of a new game, 2 players, standard board, seat 0 first, "
                                    "as seat 0 knows it")


def test_the_search_sees_only_the_seats_knowledge(searched):
    """Whatever the input, the search is given an observation with no hand but the seat's own."""
    _, _, s = played_game(2, 6, 12)
    analyse_text(s.position(), "--hand", letters(s.snapshot()["hands"][s.to_act]), "--iterations", 30)
    analyse_text(s.position(hidden=True), "--iterations", 30)
    assert len(searched) == 2 and all(o["hands"] is None and o["bag"] is None for o in searched)


# ---------------------------------------------------------------- bad input


def _sample_public():
    _, _, s = played_game(2, 2, 6)
    return s


def bad_inputs(tmp_path):
    s = _sample_public()
    pub = s.position()
    me = s.to_act
    size = s.snapshot()["hand_sizes"] if "hand_sizes" in s.snapshot() else [sum(h) for h in s.snapshot()["hands"]]
    # a public position in which 28 black tiles are already discarded: a hand of three blacks is impossible
    snap = public_snapshot(s.snapshot())
    snap["discarded"] = [28, 0, 0, 0]
    snap["bag_size"] -= 28
    impossible = format_position(snap)
    lines, _ = seat_record_lines(2, 3, 12, seat=0)
    contradicting = tmp_path / "contradicting.txt"
    contradicting.write_text(lines[0] + "\n" + lines[1].replace("moves ", "moves tile k a1; tile k a1; ") + "\n")
    bad_draw = tmp_path / "bad-draw.txt"
    bad_draw.write_text(re.sub(r"draw ([krbg]+)", lambda m: "draw " + m.group(1) + "k", "\n".join(lines), 1))
    no_position = tmp_path / "no-position.txt"
    no_position.write_text("newgame players 2 seat 1\ngo iterations 10\n")
    return [
        ((impossible, "--hand", "kkk" + "r" * (size[me] - 3)), "more k tiles than exist"),
        ((pub, "--hand", "k" * (size[me] - 1)), f"holds {size[me]} tiles, not {size[me] - 1}"),
        ((pub,), "--hand: a public position needs the hand of seat"),
        ((pub, "--hand", "kkxq"), "--hand 'kkxq'"),
        ((pub, "--hand", "k" * size[me], "--seat", 5), "--seat 5 is out of range"),
        ((pub, "--hand", "k" * size[me], "--all-seats"), "--all-seats needs every hand"),
        ((s.position(hidden=True), "--hand", "kkrbgg"), "--hand"),
        ((pub, "--swapped", "0,0,0,0"), "--swapped goes with --hand"),
        ((pub, "--hand", "k" * size[me], "--swapped", "1,2"), "--swapped '1,2'"),
        ((str(contradicting),), "event 2"),
        ((str(bad_draw),), "draw"),
        ((str(no_position),), "no 'position' line"),
        ((str(contradicting), "--hand", "kkrbgg"), "seat record"),
        (("startpos", "--hand", "kkrbg"), "a starting hand has 6 tiles"),
        (("startpos", "--hand", "kkrbgg", "--first", 3), "--first 3 is out of range"),
        ((pub, "--first", 1), "--first applies to startpos"),
    ]


def test_bad_knowledge_gets_one_clear_error_and_status_2(tmp_path):
    for args, expected in bad_inputs(tmp_path):
        res = run("analyze", *args, "--iterations", 20)
        assert res.exit_code == 2, (args, res.output)
        assert expected in res.output, (args, res.output)
        assert res.stdout.count("\n") <= 1 and "Traceback" not in res.output, (args, res.output)
        assert not res.stdout.strip() or res.stdout.startswith("Error"), (args, res.stdout)


def test_seat_observation_names_the_field():
    s = _sample_public()
    with pytest.raises(KnowledgeError, match="hand: a public position needs"):
        seat_observation(public_snapshot(s.snapshot()))
    with pytest.raises(KnowledgeError, match="seat 9 is out of range"):
        seat_observation(s.snapshot(), 9)


def test_explain_shows_the_evaluation_as_the_seat_knows_it():
    """--explain adds the evaluation's terms; the seat's knowledge alone decides them (full = public + hand)."""
    _, _, s = played_game(2, 9, 20)
    hand = letters(s.snapshot()["hands"][s.to_act])
    args = ("--iterations", 50, "--explain")
    full = untimed_json(analyse_text(s.position(hidden=True), *args, "--json"))
    public = untimed_json(analyse_text(s.position(), "--hand", hand, *args, "--json"))
    assert full["explain"] == public["explain"] and full["explain"]["seat"] == s.to_act
    assert [e["seat"] for e in full["explain"]["seats"]] == [0, 1]
    text = analyse_text(s.position(), "--hand", hand, *args)
    assert f"evaluation as seat {s.to_act} sees it" in text and "weakest" in text


def test_the_python_examples_of_docs_analysis_run(monkeypatch):
    """docs/analysis.md's doctests run as written, from the repository root (python-chess style)."""
    import doctest
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)
    result = doctest.testfile(str(root / "docs" / "analysis.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 6 and result.failed == 0
