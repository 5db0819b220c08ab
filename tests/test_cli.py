"""The `tne-ai` subcommands analyze, bench, play, perft and show, driven through click's CliRunner."""
from __future__ import annotations

import json
import random
import re

import pytest
from click.testing import CliRunner

import engine
from engine import actions as A
from engine.position import format_position, parse_position
from engine.record import GameRecorder, replay_record
from tne_ai.cli import main
from tne_ai.inputs import load_sample


def run(*args, input=None):
    """Invoke `tne-ai ARGS` in-process; return the click Result."""
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def random_state(players: int, seed: int, decisions: int):
    """Return the state after seeded uniform-random decisions, and those decisions."""
    s = engine.new_game(players, seed)
    rng = random.Random(seed)
    actions = []
    for _ in range(decisions):
        if s.is_terminal():
            break
        actions.append(rng.choice(s.legal_actions()))
        s.apply(actions[-1])
    return s, actions


def random_record(players: int, seed: int, decisions: int) -> str:
    """Return the game record of seeded uniform-random play."""
    s = engine.new_game(players, seed)
    rec = GameRecorder(s, seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        rec.apply(rng.choice(s.legal_actions()))
    return rec.text()


def state_in_phase(phase: str, players: int = 2, variants=(), choices: int = 1):
    """Return the first state of seeded random play (with `variants`) in `phase` with >= `choices` decisions."""
    for seed in range(200):
        s = engine.new_game(players, seed, "standard", variants)
        rng = random.Random(seed)
        while not s.is_terminal():
            if s.phase == phase and len(s.legal_actions()) >= choices:
                return s
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError(f"no {phase} state found")


ALL_VARIANTS = ("english", "buildings", "wonder")


def analysis_json(*args) -> dict:
    """Run analyze --json and return the document with the timing fields removed."""
    res = run("analyze", "--json", *args)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    for a in doc["analyses"]:
        for key in ("seconds", "iterations_per_second"):
            a.pop(key)
    return doc


# ---------------------------------------------------------------- analyze


def test_analyze_runs_out_of_the_box_on_the_sample():
    res = run("analyze", "--iterations", 300)
    assert res.exit_code == 0, res.output
    sample = load_sample().state
    assert "built-in sample mid-game" in res.stdout
    assert f"seat {sample.to_act} to act" in res.stdout
    assert re.search(r"rank\s+decision\s+visits\s+avail\s+win%\s+value\s+95% bounds\s+pv", res.stdout)
    best = re.search(r"^(?:best |equally good as far as the search can tell \(their 95% intervals overlap the most "
                     r"visited one's\): )([^,]+?)(?:,| and |$)", res.stdout, re.M).group(1)
    assert best in sample.legal_moves()
    # the board is drawn with the analysed seat's hand and nobody else's
    assert res.stdout.count("  [") == 1
    assert res.stderr == ""                     # no progress line when stderr is not a terminal


def test_analyze_time_limit():
    doc = analysis_json("--movetime", 60, "--seed", 1)
    (a,) = doc["analyses"]
    assert doc["limits"] == {"iterations": None, "seconds": 0.06}
    assert a["iterations"] > 0 and sum(c["visits"] for c in a["candidates"]) <= a["iterations"]


@pytest.mark.parametrize("command", ["analyze", "bench", "play", "perft", "show"])
def test_help(command):
    res = run(command, "--help")
    assert res.exit_code == 0 and f" {command} [OPTIONS]" in res.output


def test_analyze_position_string_and_top():
    s, _ = random_state(3, 11, 25)
    while s.phase != "action":
        s.apply(s.legal_actions()[0])
    res = run("analyze", s.position(hidden=True), "--iterations", 300, "--top", 3)
    assert res.exit_code == 0, res.output
    rows = re.findall(r"^\s+(\d+)\s{2}(\S+ \S+(?: \S+)?)\s+\d", res.stdout, re.M)
    assert [int(r[0]) for r in rows] == [1, 2, 3]
    assert all(r[1].strip() in s.legal_moves() for r in rows)


def test_analyze_json_is_ranked_sensible_and_reproducible():
    doc = analysis_json("--iterations", 400, "--seed", 5)
    (a,) = doc["analyses"]
    sample = load_sample().state
    assert a["seat"] == sample.to_act == doc["to_act"] and a["to_act"] is True
    cands = a["candidates"]
    visits = [c["visits"] for c in cands]
    assert visits == sorted(visits, reverse=True)
    assert [c["rank"] for c in cands] == list(range(1, len(cands) + 1))
    assert 0.9 * 400 <= sum(visits) <= 400 == a["iterations"]
    assert a["best"] == cands[0]["move"]
    legal = set(sample.legal_moves())
    for c in cands:
        assert c["move"] in legal and c["pv"][0] == c["move"]
        assert 0.0 <= c["low"] <= c["mean"] <= c["high"] <= 1.0
        assert c["availability"] >= c["visits"] > 0
    assert doc["position"] == sample.position()          # the public part only
    assert analysis_json("--iterations", 400, "--seed", 5) == doc
    # the equals: the best, then every candidate searched 10 times or more whose 95% interval overlaps the best's
    top = cands[0]
    assert a["equally_good"] == [c["move"] for c in cands if c is top or (
        c["visits"] >= 10 and c["high"] >= top["low"] and top["high"] >= c["low"])]
    assert len(a["equally_good"]) > 1           # 400 iterations cannot tell the sample's best few apart


def test_analyze_says_equally_good_decisions_instead_of_one_best():
    from tne_ai.analysis.analyze import format_analysis

    def cand(rank, move, mean, half, visits):
        return {"rank": rank, "move": move, "visits": visits, "availability": visits, "mean": mean,
                "low": mean - half, "high": mean + half, "win_chance": None, "pv": [move], "pv_seats": [0]}

    cands = [cand(1, "tile r a1", 0.50, 0.03, 50), cand(2, "tile r a2", 0.52, 0.03, 40),
             cand(3, "tile r a3", 0.49, 0.05, 12), cand(4, "tile r a4", 0.30, 0.01, 30)]
    a = {"seat": 0, "to_act": True, "hand": [1, 2, 2, 1], "iterations": 132, "seconds": 0.1,
         "iterations_per_second": 1320.0, "workers": 1, "nodes": 133, "win_chance": None, "value": 0.5,
         "root_value": [0.5, 0.5], "best": "tile r a1", "candidates": cands,
         "equally_good": ["tile r a1", "tile r a2", "tile r a3"]}
    text = format_analysis(a, 10).splitlines()
    assert text[-1] == ("equally good as far as the search can tell (their 95% intervals overlap the most visited "
                        "one's): tile r a1, tile r a2, tile r a3")
    assert not any(line.startswith("best ") for line in text)
    assert format_analysis(a, 2).splitlines()[-1].endswith(": tile r a1, tile r a2 and 1 more (--top 0 lists all)")
    alone = format_analysis(dict(a, equally_good=["tile r a1"]), 10).splitlines()
    assert alone[-1] == "best tile r a1"


def test_analyze_record_file_at_its_end_and_at_a_ply(tmp_path):
    path = tmp_path / "game.txt"
    path.write_text(random_record(2, 9, 40))
    state, actions = replay_record(path.read_text(), engine.new_game, engine.State.from_snapshot)
    while state.phase != "action":       # analyse an action-phase position at the end
        state.apply(state.legal_actions()[0])
    doc = analysis_json(path, "--iterations", 200)
    assert doc["ply"] == 40 and "after decision 40 of 40" in doc["input"]
    early = engine.new_game(2, 9)
    for a in actions[:12]:
        early.apply(a)
    doc = analysis_json(path, "--ply", 12, "--iterations", 200)
    assert doc["ply"] == 12
    assert doc["position"] == early.position()
    assert doc["analyses"][0]["seat"] == early.to_act


def test_analyze_reads_stdin():
    s, _ = random_state(2, 4, 10)
    while s.phase != "action":
        s.apply(s.legal_actions()[0])
    res = CliRunner().invoke(main, ["analyze", "-", "--json", "--iterations", "100"],
                             input=s.position(hidden=True) + "\n")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["input"].startswith("stdin") and doc["position"] == s.position()


def _swap_hidden_tile(snap: dict, seat: int) -> dict:
    """Return a copy where `seat` holds one tile of another colour, exchanged with the bag."""
    out = json.loads(json.dumps(snap))
    hand, bag = out["hands"][seat], out["bag"]
    for c in range(4):
        for i, b in enumerate(bag):
            if hand[c] and b != c:
                hand[c] -= 1
                hand[b] += 1
                bag[i] = c
                return out
    raise AssertionError("no exchange possible")


def test_analyze_sees_only_the_analysed_seats_observation(searched):
    sample = load_sample().state
    snap = sample.snapshot()
    actor = sample.to_act
    other = (actor + 1) % sample.players
    base = analysis_json("--iterations", 200)
    assert searched and all(o["hands"] is None and o["bag"] is None and o["seat"] == actor for o in searched)
    # what the analysed seat cannot see changes nothing: another seat's hand, the bag order
    changed = format_position(_swap_hidden_tile(snap, other), hidden=True)
    assert analysis_json(changed, "--iterations", 200)["analyses"] == base["analyses"]
    # a waiting seat's value does not depend on the acting seat's hidden hand either
    waiting = analysis_json("--seat", other, "--iterations", 160, "--samples", 4)
    changed = format_position(_swap_hidden_tile(snap, actor), hidden=True)
    assert analysis_json(changed, "--seat", other, "--iterations", 160,
                         "--samples", 4)["analyses"] == waiting["analyses"]


def test_analyze_all_seats():
    doc = analysis_json("--all-seats", "--iterations", 160, "--samples", 4)
    sample = load_sample().state
    assert [a["seat"] for a in doc["analyses"]] == list(range(sample.players))
    for a in doc["analyses"]:
        assert a["to_act"] == (a["seat"] == sample.to_act)
        if not a["to_act"]:
            assert a["samples"] == 4 and len(a["sample_values"]) == 4
            assert 0.0 <= a["low"] <= a["value"] <= a["high"] <= 1.0
            assert sum(r["share"] for r in a["replies"]) == pytest.approx(1.0)
            # the replies come from worlds dealt from this seat's knowledge, so they may use
            # tiles the acting seat does not really hold, but they are decisions of this phase
            kinds = {A.kind(x) for x in sample.legal_actions()}
            assert all(A.kind(engine.parse_action(r["move"])) in kinds for r in a["replies"])


# ---------------------------------------------------------------- bench


def test_bench_signature_is_stable_and_printed_last():
    args = ("bench", "--players", 2, "--playouts", 12, "--iterations", 150)
    first, second = run(*args), run(*args)
    assert first.exit_code == 0, first.output
    lines = first.stdout.strip().splitlines()
    assert re.fullmatch(r"signature \d+", lines[-1])
    assert lines[-1] == second.stdout.strip().splitlines()[-1]
    assert "machine:" in first.stdout and "cores" in first.stdout
    assert "uniform random" in first.stdout and "mean game length" in first.stdout
    # the signature follows behaviour: another search budget searches differently
    other = run("bench", "--players", 2, "--playouts", 12, "--iterations", 151)
    assert other.stdout.strip().splitlines()[-1] != lines[-1]


# ---------------------------------------------------------------- perft and show


def test_perft_counts_equal_engine_perft():
    s, _ = random_state(2, 4, 30)
    res = run("perft", s.position(hidden=True), "--depth", 2)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().splitlines()[-1] == f"nodes {engine.perft(s, 2)}"
    conflict = state_in_phase("revolt_attack")
    res = run("perft", conflict.position(hidden=True), "--depth", 3, "--divide")
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert lines[-1] == f"nodes {engine.perft(conflict, 3)}"
    divide = dict(line.rsplit(": ", 1) for line in lines[:-1] if line)
    assert sorted(divide) == sorted(conflict.legal_moves())
    for move, count in divide.items():
        child = conflict.clone()
        child.apply_text(move)
        assert int(count) == engine.perft(child, 2)


def test_show_position_and_record(tmp_path):
    s, _ = random_state(3, 2, 20)
    res = run("show", s.position(hidden=True), "--seat", 1)
    assert res.exit_code == 0, res.output
    assert res.stdout.count("  [") == 1                     # only seat 1's hand
    assert s.render(1) in res.stdout
    res = run("show", s.position())                        # public part only
    assert res.exit_code == 0 and "  [" not in res.stdout
    path = tmp_path / "g.txt"
    path.write_text(random_record(2, 3, 30))
    early, _ = random_state(2, 3, 7)
    res = run("show", path, "--ply", 7, "--moves", "--position")
    assert res.exit_code == 0, res.output
    assert "after decision 7 of 30" in res.stdout
    assert early.render() in res.stdout
    assert f"position {early.position(hidden=True)}" in res.stdout
    assert f"{len(early.legal_actions())} legal decisions" in res.stdout


def test_show_and_analyze_print_the_boards_key_once_under_the_board():
    from engine.render import legend
    s, _ = random_state(2, 4, 30)
    res = run("show", s.position(hidden=True), "--position")
    assert res.exit_code == 0, res.output
    assert res.stdout.count(legend()) == 1
    assert res.stdout.index(s.render()) + len(s.render()) == res.stdout.index(legend())
    assert res.stdout.splitlines()[-1].startswith("position ")           # still the last line
    assert "R* treasure on a temple (R$ special)" in legend() and "0K seat 0's king" in legend()
    assert "W the wonder" in legend(["wonder"]) and "W the wonder" not in legend()
    res = run("analyze", s.position(hidden=True), "--iterations", 100)
    assert res.exit_code == 0, res.output
    assert res.stdout.count(legend()) == 1
    assert legend() not in run("analyze", s.position(hidden=True), "--iterations", 100, "--no-board").stdout


def test_analyze_names_the_seat_of_every_pv_step_and_explains_its_columns():
    """pv_seats (--json) and the text's sN: the seat deciding each step, as the rules have it where known."""
    s = load_sample().state
    doc = analysis_json("--iterations", 600, "--seed", 3)
    (a,) = doc["analyses"]
    for c in a["candidates"]:
        assert len(c["pv_seats"]) == len(c["pv"]) and c["pv_seats"][0] == a["seat"]
        # along the true game (a full position) while the line's decisions are legal there
        t = s.clone()
        for move, seat in zip(c["pv"], c["pv_seats"]):
            if move not in t.legal_moves():
                break
            assert t.to_act == seat, (c["pv"], c["pv_seats"])
            t.apply(engine.parse_action(move))
    assert any(len(set(c["pv_seats"])) > 1 for c in a["candidates"])
    res = run("analyze", "--iterations", 600, "--seed", 3, "--top", 0)
    assert res.exit_code == 0, res.output
    for c in a["candidates"]:
        line = ", ".join(f"s{seat} {m}" for seat, m in zip(c["pv_seats"], c["pv"]))
        assert re.search(rf"^\s+{c['rank']}\s+{re.escape(c['move'])}\s.*  {re.escape(line)}$", res.stdout, re.M)
    caption = next(line for line in res.stdout.splitlines() if line.startswith("(visits: "))
    assert "avail: iterations in which it was legal" in caption and f"seat {a['seat']}'s chance" in caption


# ---------------------------------------------------------------- bad input


def _bad_inputs(tmp_path):
    good = engine.new_game(2, 1).position(hidden=True)
    variant_pos = state_in_phase("building", variants=ALL_VARIANTS).position(hidden=True)
    record = random_record(2, 5, 20)
    truncated = tmp_path / "truncated.txt"
    truncated.write_text(record[:record.rindex("\n", 0, len(record) - 1) + 6])   # cut inside a line
    garbled = tmp_path / "garbled.txt"
    garbled.write_text(record.replace("[board standard]", "[board standard]\nleader z q99", 1))
    good_record = tmp_path / "good.txt"
    good_record.write_text(record)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    return [
        (("show", good.replace("standard 2 ", "standard 5 ", 1)), "players"),
        (("analyze", "standard 2 garbage"), "bad position"),
        (("perft", str(truncated), "--depth", 1), "bad game record"),
        (("analyze", str(garbled)), "line 5"),
        (("show", str(tmp_path / "missing.txt")), "no such file"),
        (("show", str(empty)), "empty"),
        (("perft", good, "--depth", 0), "--depth"),
        (("perft", good, "--depth", 99), "--depth"),
        (("perft", good.split(" | ")[0], "--depth", 1), "public part"),
        (("show", good, "--seat", 2), "--seat 2"),
        (("analyze", good, "--seat", 7), "--seat 7"),
        (("show", good, "--ply", 3), "--ply"),
        (("show", str(good_record), "--ply", 500), "--ply 500"),
        (("analyze", "--movetime", 10, "--seconds", 1), "not both"),
        (("play", "--seat", 3), "--seat 3"),
        (("play", "--engine", "stockfish"), "unknown engine"),
        (("play", "--players", 3, "--engine", "greedy,random,random"), "3 engines"),
        (("play", "--start", str(tmp_path / "missing.txt")), "no such file"),
        # the 2015 variants: unknown, repeated, malformed, contradicting the position
        (("play", "--variants", "castles"), "unknown variant 'castles'"),
        (("play", "--variants", "english,Wonder,english"), "variant 'english' is named twice"),
        (("match", "--engine", "cmd=x", "--variants", "english,walls"), "unknown variant 'walls'"),
        (("bench", "--variants", "wonder,wonder"), "variant 'wonder' is named twice"),
        (("perft", "startpos", "--depth", 1, "--variants", "english,,wonder"), "empty name"),
        (("show", "startpos", "--variants", "none,wonder"), "'none' cannot be combined"),
        (("play", "--start", variant_pos, "--variants", "english"),
         "--variants english disagrees with the start position (english,buildings,wonder)"),
        (("play", "--start", good, "--variants", "wonder"), "--variants wonder disagrees"),
        (("perft", variant_pos, "--depth", 1, "--variants", "none"), "--variants none disagrees"),
        (("show", good, "--players", 3), "--players 3 disagrees"),
        (("perft", good, "--depth", 1, "--seed", 4), "--seed applies to startpos only"),
        (("show", "startpos", "--ply", 2), "--ply applies to game records"),
    ]


def test_bad_input_is_one_clear_line_and_exit_status_2(tmp_path):
    for args, needle in _bad_inputs(tmp_path):
        res = run(*args)
        assert res.exit_code == 2, (args, res.output)
        assert needle in res.stderr, (args, res.stderr)
        assert "Traceback" not in res.output
        error_lines = [ln for ln in res.stderr.splitlines() if ln.startswith("Error")]
        assert len(error_lines) == 1, (args, res.stderr)


# ---------------------------------------------------------------- play


def _replayed(path):
    return replay_record(path.read_text(), engine.new_game, engine.State.from_snapshot)


def test_play_scripted_game_reprompts_and_saves_on_quit(tmp_path):
    path = tmp_path / "game.txt"
    script = ["help", "nonsense", "0", "99999", "commit 2", "moves leader k", "1", "1", "board", "quit"]
    res = run("play", "--engine", "greedy", "--seed", 3, "--record", path, input="\n".join(script) + "\n")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "tile r f7" in out                                      # the help
    assert "cannot read 'nonsense'" in out
    assert "no decision number 0" in out and "no decision number 99999" in out
    assert "'commit 2' is not legal now" in out
    assert re.search(r"\d+\. leader k [a-p]\d+", out)              # the filtered, numbered list
    assert "game stopped (quit)" in out and f"saved to {path}" in out
    state, actions = _replayed(path)
    assert not state.is_terminal()
    # "1" played the first legal decision of the human's first turn
    start = engine.new_game(2, 3)
    i = 0
    while start.to_act != 0:
        start.apply(actions[i])
        i += 1
    assert actions[i] == start.legal_actions()[0]
    assert f"you: {engine.format_action(actions[i])}" in out
    assert "seat 1 (greedy):" in out


def test_play_commitment_prompt_from_a_start_position(tmp_path):
    s = state_in_phase("revolt_attack")
    human = s.to_act
    red = s.snapshot()["hands"][human][1]
    path = tmp_path / "revolt.txt"
    script = [f"commit {red + 1}", "tile r a1", "commit 0", "quit"]
    res = run("play", "--start", s.position(hidden=True), "--seat", human, "--engine", "random",
              "--seed", 1, "--record", path, "--color", input="\n".join(script) + "\n")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "\x1b[31m" in out                                       # --color: red tiles in red
    assert "Revolt over the" in out and "You attack: commit red tiles" in out
    assert f"you hold {red}" in out
    for n in range(red + 1):
        assert f"commit {n}" in out                                # the options are listed
    held = f"only {red} red tile{'' if red == 1 else 's'}" if red else "no red tiles"
    assert f"'commit {red + 1}' is not legal now: you hold {held}: commit 0" in out     # engine.legality's words
    assert "a tile is not a choice now" in out
    assert "you: commit 0" in out
    state, actions = _replayed(path)
    assert actions[0] == engine.parse_action("commit 0")
    assert "[start " in path.read_text()


def test_play_never_shows_other_seats_tiles(tmp_path):
    path = tmp_path / "g.txt"
    res = run("play", "--players", 3, "--seat", 1, "--engine", "greedy,random", "--seed", 8,
              "--record", path, input="1\n" * 20)                  # then end of input
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "game stopped (end of input)" in out
    start = engine.new_game(3, 8)
    state, actions = _replayed(path)
    assert actions and "seat 0 (greedy):" in out and "seat 2 (random):" in out
    human_hands, other_hands = set(), set()
    s = start.clone()
    for a in [None] + actions:
        if a is not None:
            s.apply(a)
        hands = s.snapshot()["hands"]
        for seat, h in enumerate(hands):
            letters = "".join(c * n for c, n in zip("krbg", h))
            (human_hands if seat == 1 else other_hands).add(letters)
    secret = {h for h in other_hands - human_hands if len(h) >= 3}
    assert secret
    for h in secret:
        assert f"[{h}]" not in out
        assert not re.search(rf"\b{h}\b", out), h
        assert not re.search(rf"(?<![A-Z] )\b{' '.join(h.upper())}\b(?! [A-Z])", out), h
    assert "[" + "".join(c * n for c, n in zip("krbg", start.snapshot()["hands"][1])) + "]" in out
    assert start.position(hidden=True).split(" | ")[1] not in out     # nor the bag
    assert not re.search(r"seat [02] \(\w+\): swap [krbg]", out)    # an engine's swap: only a count


def test_play_against_ismcts_then_end_of_input(tmp_path):
    path = tmp_path / "g.txt"
    res = run("play", "--engine", "ismcts", "--iterations", 40, "--seed", 2, "--seat", 1,
              "--record", path, "--no-color", input="pass\n")
    assert res.exit_code == 0, res.output
    assert "seat 0 (ismcts):" in res.stdout and "you: pass" in res.stdout
    assert "\x1b[" not in res.stdout
    _, actions = _replayed(path)
    assert engine.parse_action("pass") in actions


def _hint_lines(path, *args, extra=""):
    """Run `play` (seat 0, seed 4) with 'hint' typed first; return the hint's lines and the result."""
    res = run("play", "--seed", 4, "--record", path, "--no-color", *args, input="hint\n" + extra)
    assert res.exit_code == 0, res.output
    out = res.stdout.splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("hint ("))
    end = next(i for i in range(at, len(out)) if out[i].startswith("  (wins: "))
    return out[at:end + 1], res


def test_play_hint_ranks_the_best_decisions_by_value_from_what_you_know_and_changes_nothing(tmp_path):
    from engine.info import observation
    from search.agent import Limits
    from search.analysis import analyse_to_act
    from search.ismcts import ISMCTS, worker_seed
    lines, res = _hint_lines(tmp_path / "a.txt", "--iterations", 60)
    assert re.fullmatch(r"hint \(60 iterations, from what you know\): seat 0 wins \d+% of games from here "
                        r"\(\d+%-\d+%\)", lines[0]), lines[0]
    # the same search by hand: the human's observation only, the hint's seed, an iteration limit
    a = analyse_to_act(ISMCTS(), observation(engine.new_game(2, 4).snapshot(), 0), 0, Limits(60), worker_seed(4, 1000))
    best = sorted(a["candidates"][:3], key=lambda c: (-c["mean"], c["rank"]))
    for i, (line, c) in enumerate(zip(lines[1:4], best), 1):
        w = c["win_chance"]
        assert line == (f"  {i}. {c['move']:<16} wins {100 * w['win']:.0f}% ({100 * w['low']:.0f}-"
                        f"{100 * w['high']:.0f}%), {c['visits']} visits")
    tied = [c["move"] for c in best if c is best[0] or (
        c["visits"] >= 10 and c["high"] >= best[0]["low"] and best[0]["high"] >= c["low"])]
    said = [line for line in lines if "equally good" in line]
    assert said == ([f"  equally good as far as the search can tell (their intervals overlap): {', '.join(tied)}"]
                    if len(tied) > 1 else [])
    assert "your chance of winning the game after the decision" in lines[-1] and "best value first" in lines[-1]
    # seeded: the same hint again; and the game goes on where it was (nothing played)
    again, _ = _hint_lines(tmp_path / "b.txt", "--iterations", 60)
    assert again == lines
    assert "after 0 decision(s)" in res.stdout
    top = lines[1].split(". ", 1)[1][:16].strip()
    _, res = _hint_lines(tmp_path / "c.txt", "--iterations", 60, extra=top + "\n")
    assert f"you: {top}" in res.stdout
    # opponents on a clock: the hint still searches to an iteration limit (the default), so it is reproducible
    timed, _ = _hint_lines(tmp_path / "d.txt", "--seconds", 0.01, "--engine", "greedy")
    assert timed[0].startswith("hint (3,000 iterations, from what you know)")
    assert _hint_lines(tmp_path / "e.txt", "--seconds", 0.02, "--engine", "greedy")[0] == timed


def test_play_hint_says_when_the_best_decisions_cannot_be_told_apart(monkeypatch):
    """Candidates whose value intervals overlap the best one's are called equally good, and only those."""
    import search.analysis
    from search.agent import Limits
    from tne_ai.cli.play import TerminalGame

    def cand(rank, move, mean, half, visits):
        return {"rank": rank, "move": move, "visits": visits, "mean": mean, "low": mean - half,
                "high": mean + half, "win_chance": {"win": mean, "low": mean - half, "high": mean + half}}

    def fake(cands):
        return lambda *args, **kw: {"iterations": 100, "candidates": cands,
                                    "win_chance": {"win": 0.5, "low": 0.4, "high": 0.6}}

    def hint_output(cands):
        lines = []
        game = TerminalGame(engine.new_game(2, 1), 0, {}, Limits(100), None, "-", False)
        game.echo = lambda text="", err=False: lines.append(text)
        monkeypatch.setattr(search.analysis, "analyse_to_act", fake(cands))
        game.hint()
        return lines

    # ranked by visits, shown by value; the third is clearly worse
    lines = hint_output([cand(1, "tile r a1", 0.50, 0.02, 50), cand(2, "tile r a2", 0.52, 0.02, 40),
                         cand(3, "tile r a3", 0.30, 0.01, 10), cand(4, "tile r a4", 0.90, 0.3, 1)])
    assert [line.split()[1:4] for line in lines[1:4]] == [["tile", "r", "a2"], ["tile", "r", "a1"],
                                                          ["tile", "r", "a3"]]
    assert lines[4] == "  equally good as far as the search can tell (their intervals overlap): tile r a2, tile r a1"
    lines = hint_output([cand(1, "tile r a1", 0.60, 0.01, 50), cand(2, "tile r a2", 0.50, 0.01, 40)])
    assert not any("equally good" in line for line in lines)
    assert lines[1].startswith("  1. tile r a1") and lines[-1].startswith("  (wins: ")


def _play(tmp_path, *lines, seed=42, name="g.txt"):
    """Play as seat 1 against greedy (seed 42) typing `lines`; return the result and the record's path."""
    path = tmp_path / name
    res = run("play", "--seed", seed, "--engine", "greedy", "--seat", 1, "--record", path, "--no-color",
              input="".join(line + "\n" for line in lines))
    assert res.exit_code == 0, res.output
    return res, path


def _boards(out: str) -> list:
    """Return every board drawn (the grid and status through the 'you are seat' line), in order."""
    return re.findall(r"^    a  b  c.*?^you are seat \d; your hand: .*?$", out, re.M | re.S)


def test_play_marks_the_engines_decisions_since_yours_on_the_board(tmp_path):
    res, _ = _play(tmp_path, "quit")
    board = _boards(res.stdout)[0]
    rows = board.splitlines()
    # seat 0 (greedy) opened with leader k j11 and leader g k10: '>' in the blank before each square
    assert rows[11][3 + 3 * 9:3 + 3 * 9 + 3] == ">0K" and rows[10][3 + 3 * 10:3 + 3 * 10 + 3] == ">0G"
    assert sum(row.count(">") for row in rows[1:12]) == 2
    assert "engines played since your last decision (marked >): seat 0 leader k j11, leader g k10" in board
    # after your own decision the marks go: the next board (your second action) has none
    res, _ = _play(tmp_path, "tile r a1", "board", "quit", name="h.txt")
    later = _boards(res.stdout)[-1]
    assert ">" not in "".join(later.splitlines()[1:12]) and "engines played" not in later
    # in colour the marked square is drawn reversed after a '>'
    from tne_ai.cli.play import colour_board, mark_squares
    text = colour_board(mark_squares(engine.new_game(2, 42).render(), [A.parse_square("a1")]))
    assert "\x1b[7m" in text.splitlines()[1] and ">" in click_unstyle(text.splitlines()[1])


def click_unstyle(text: str) -> str:
    import click
    return click.unstyle(text)


def test_play_undo_takes_back_your_decision_and_the_replies_and_shuffles_the_bag(tmp_path, monkeypatch):
    import random as _random
    import tne_ai.undo
    monkeypatch.setattr(tne_ai.undo.secrets, "randbits", lambda n: 12345)      # the secret seed, known here
    res, path = _play(tmp_path, "undo", "tile r a1", "pass", "undo", "board", "pass", "quit")
    out = res.stdout
    assert "nothing to undo: you have made no decision yet" in out
    # seat 1 played tile r a1 and pass; greedy replied with two decisions; undo takes back pass and those two
    assert re.search(r"undone: your pass and 2 engine decision\(s\) after it; the tiles in the bag are "
                     r"shuffled again", out)
    boards = _boards(out)
    before_pass = next(b for b in boards if "1 action(s) left" in b and "seat 1 to act" in b)
    after_undo = _boards(out[out.index("undone: "):])
    assert after_undo[0] == after_undo[1] == before_pass      # back where you were, as you saw it ('board' too)
    # the record starts from the reshuffled deal and replays: the kept decisions, then the new one
    text = path.read_text()
    assert "[start " in text and "[engine_seed 42]" in text and "[reshuffled 1]" in text and "[seed " not in text
    state, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
    fmt = [A.format_action(a) for a in actions]
    assert fmt[:4] == ["leader k j11", "leader g k10", "tile r a1", "pass"] and len(fmt) == 6   # greedy replied
    # the new deal: the same hands, the bag's tiles left at the undo point shuffled from the secret seed
    old = engine.new_game(2, 42)
    for a in actions[:3]:
        old.apply(a)
    left = old.snapshot()["bag"]
    start = engine.new_game(2, 42).snapshot()
    new_start = parse_position(re.search(r"^\[start (.*)\]$", text, re.M).group(1))
    assert new_start["hands"] == start["hands"]
    head = list(left)
    _random.Random(12345).shuffle(head)
    assert new_start["bag"] == head + start["bag"][len(left):] != start["bag"]


def test_a_conflicts_prompt_counts_temples_and_supporters_in_the_singular_and_plural():
    from engine.info import observation
    from engine.legality import conflict_bases
    from tne_ai.prompts import decision_prompt
    seen = set()
    for seed in range(300):
        s = engine.new_game(2, seed)
        rng = random.Random(seed)
        while not s.is_terminal() and len(seen) < 4:
            if s.phase in ("revolt_attack", "war_attack"):
                obs = observation(s.snapshot(), s.to_act)
                base = conflict_bases(obs)[0]
                noun, where = (("temple", "beside it") if s.phase == "revolt_attack"
                               else ("supporter", "in its kingdom"))
                words = f"{noun} {where}" if base == 1 else f"{noun}s {where}"
                assert f"({base} {words})" in decision_prompt(obs, s.to_act, s.legal_actions())
                seen.add((s.phase, base == 1))
            s.apply(rng.choice(s.legal_actions()))
        if len(seen) == 4:
            return
    raise AssertionError(f"not every case met: {seen}")


def test_play_tells_a_conflicts_result_before_the_tiles_drawn_at_the_turns_end():
    """A defender's commitment that ends the turn: who won comes first, then the human's draws."""
    from engine.record import drawn_tiles
    from search.agent import Limits
    from tne_ai.cli.play import TerminalGame
    for seed in range(300):
        s = engine.new_game(2, seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            before = s.snapshot()
            a = rng.choice(s.legal_actions())
            s.apply(a)
            after = s.snapshot()
            drew = [seat for seat, _ in drawn_tiles(before, after)]
            if before["phase"] in ("revolt_defend", "war_defend") and A.kind(a) == "commit" and drew:
                human = drew[0]
                lines = []
                game = TerminalGame(s, human, {1 - human: ("greedy", None)}, Limits(10), None, "-", False)
                game.echo = lambda text="", err=False: lines.append(text)
                game.announce(before["to_act"], a, before, after)
                result = next(i for i, line in enumerate(lines) if ": seat" in line and "wins" in line)
                draw = next(i for i, line in enumerate(lines) if line.startswith("  you drew "))
                assert result < draw, lines
                return
    raise AssertionError("no conflict settled at a turn's end with a draw")


# ---------------------------------------------------------------- the 2015 variants


def test_perft_and_show_from_the_start_of_a_variant_game():
    """`startpos` with --variants is engine.new_game with them: same counts, same position."""
    start = engine.new_game(3, 7, "advanced", ["english", "wonder"])
    args = ("startpos", "--players", 3, "--board", "advanced", "--seed", 7, "--variants", "wonder,english")
    res = run("perft", *args, "--depth", 2)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().splitlines()[-1] == f"nodes {engine.perft(start, 2)}"
    res = run("show", *args, "--position", "--seat", 1)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == "startpos: start of a new game, 3 players, advanced board, seed 7, variants english,wonder"
    assert start.render(1) in res.stdout and "variants english,wonder  wonder unbuilt" in res.stdout
    assert lines[-1] == f"position {start.position(hidden=True)}"
    # without --variants: the base game (seed 0 by default), as before
    res = run("show", "startpos", "--position")
    assert res.exit_code == 0 and res.stdout.splitlines()[-1] == f"position {engine.new_game(2, 0).position(hidden=True)}"
    assert "variants" not in res.stdout


def test_perft_of_a_variant_position_counts_its_variant_decisions():
    """A position string carries its variants: perft --divide lists the building decisions, as engine.perft counts."""
    s = state_in_phase("building", variants=ALL_VARIANTS, choices=2)
    pos = s.position(hidden=True)
    for extra in ((), ("--variants", "english,buildings,wonder")):     # an agreeing --variants is fine
        res = run("perft", pos, "--depth", 3, "--divide", *extra)
        assert res.exit_code == 0, res.output
        lines = res.stdout.strip().splitlines()
        assert lines[-1] == f"nodes {engine.perft(s, 3)}"
        divide = dict(line.rsplit(": ", 1) for line in lines[:-1] if line)
        assert sorted(divide) == sorted(s.legal_moves()) and "nobuilding" in divide
        assert any(m.startswith("building ") for m in divide)
        for move, count in divide.items():
            child = s.clone()
            child.apply_text(move)
            assert int(count) == engine.perft(child, 2)
    res = run("show", pos, "--moves")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == "position string: position (variants english,buildings,wonder)"
    assert "nobuilding" in res.stdout


def test_analyze_a_variant_position():
    """A wonder decision analyses: its candidates are the variant decisions, the JSON names the variants."""
    s = state_in_phase("wonder", variants=ALL_VARIANTS, choices=2)
    doc = analysis_json(s.position(hidden=True), "--iterations", 200)
    assert doc["variants"] == list(ALL_VARIANTS) and doc["phase"] == "wonder"
    assert doc["input"].endswith(", variants english,buildings,wonder, as seat 0 knows it")
    moves = {c["move"] for c in doc["analyses"][0]["candidates"]}
    assert moves == set(s.legal_moves()) and "nowonder" in moves
    assert analysis_json(engine.new_game(2, 1).position(hidden=True), "--iterations", 50)["variants"] == []


def test_bench_with_variants_names_them_and_plays_them():
    args = ("bench", "--players", 2, "--playouts", 5, "--iterations", 60)
    base, on = run(*args), run(*args, "--variants", "wonder,buildings,english")
    assert base.exit_code == 0 and on.exit_code == 0, on.output
    assert "variants" not in base.stdout
    lines = on.stdout.strip().splitlines()
    assert lines[0].endswith("bench (variants english,buildings,wonder)")
    assert "standard board, variants english,buildings,wonder, game g seeded" in on.stdout
    assert lines[-2] == "settings: players 2, playouts 5, iterations 60, variants english,buildings,wonder"
    assert re.fullmatch(r"signature \d+", lines[-1])
    assert lines[-1] == run(*args, "--variants", "english,buildings,wonder").stdout.strip().splitlines()[-1]
    # the games are played with the variants: the playouts' decision count is the kernel's with them
    total = sum(engine.new_game(2, g, "standard", ALL_VARIANTS).random_playout(g) for g in range(5))
    assert re.search(rf"^\| 2 \| 5 \| {total:,} \|", on.stdout, re.M)
    assert lines[-1] != base.stdout.strip().splitlines()[-1]
    # --variants none is the reference run
    assert run(*args, "--variants", "none").stdout.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1]


def test_play_a_new_game_with_the_variants(tmp_path):
    path = tmp_path / "g.txt"
    res = run("play", "--variants", "wonder,english,buildings", "--engine", "random", "--seed", 5,
              "--record", path, "--no-color", input="help\n1\nquit\n")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert out.splitlines()[0] == "tne-ai play: 2 players, standard board, variants english,buildings,wonder, seed 5"
    for intro in ("variant english (limited commitments)", "variant buildings:", "variant wonder:"):
        assert intro in out
    for notation in ("building r c5", "nobuilding", "wonder f6", "nowonder", "wonderpoint g", "W the wonder"):
        assert notation in out                                       # the help lists the variants' notation
    assert "variants english,buildings,wonder  buildings none  wonder unbuilt" in out
    text = path.read_text()
    assert "[variants english,buildings,wonder]\n[seed 5]" in text
    state, actions = _replayed(path)
    assert state.variants == list(ALL_VARIANTS) and actions
    # the base game's help names no variant decision
    base = run("play", "--engine", "random", "--seed", 5, "--record", tmp_path / "b.txt", input="help\nquit\n")
    assert base.exit_code == 0 and "wonderpoint" not in base.stdout and "variant" not in base.stdout


@pytest.mark.parametrize("phase, wrong, reason, explained", [
    ("building", "building k a1", "only the red building can go up now: the tile just placed on ",
     "made a line of 3 or more red tiles: you may put the red building on one of its squares"),
    ("wonder", "wonder a1", "the wonder's cross must hold the tile just placed on ",
     "completed a cross of five red tiles: you may build the wonder centred on"),
    ("wonder_point", "building r a1", "a building is not a choice now: the choices are wonderpoint k, "
                                      "wonderpoint r, wonderpoint b, wonderpoint g.",
     "choose the colour of your wonder point"),
    ("revolt_attack", "commit 5", "English commitments (R-VAR-ENGLISH): commit 0 or commit 1 (exactly 1 to beat "
                                  "the defender, or none).",
     "English commitments: commit exactly 1 (to beat the defender's strength) or 0"),
])
def test_play_asks_and_explains_the_variant_decisions(tmp_path, phase, wrong, reason, explained):
    """From a variant position the human is asked the variant decision, told why a wrong one is not legal, and plays it."""
    s = state_in_phase(phase, variants=ALL_VARIANTS, choices=2)
    human = s.to_act
    path = tmp_path / "g.txt"
    res = run("play", "--start", s.position(hidden=True), "--seat", human, "--engine", "random", "--seed", 1,
              "--record", path, "--no-color", input=f"{wrong}\n1\nquit\n")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "variants english,buildings,wonder" in out.splitlines()[0]
    assert explained in out
    assert f"'{wrong}' is not legal now: {reason}" in out
    first = s.legal_actions()[0]
    assert f"you: {engine.format_action(first)}" in out
    if phase == "building":
        sq = engine.format_action(first).split()[-1]
        assert f"  the red building now stands on {sq} (from the supply)" in out
    if phase == "wonder":
        assert "  the wonder is built, centred on" in out
    state, actions = _replayed(path)
    assert actions[0] == first and state.variants == list(ALL_VARIANTS)
    assert "[variants english,buildings,wonder]" in path.read_text()


# ---------------------------------------------------------------- play --teach (teaching mode)


def _teach(tmp_path, *lines, name="t.txt", args=("--teach",)):
    """Play the teaching position (tests/records.py) as seat 0 against greedy typing `lines`; return the output
    and the record's path."""
    from records import teaching_start
    path = tmp_path / name
    res = run("play", "--start", teaching_start(), "--seat", 0, "--engine", "greedy", "--seed", 3,
              "--teach-iterations", 200, "--record", path, "--no-color", *args,
              input="".join(line + "\n" for line in lines))
    assert res.exit_code == 0, res.output
    return res.stdout, path


def test_play_teach_warns_before_a_losing_decision_and_taking_it_back_changes_nothing(tmp_path):
    from records import TEACHING_BAD, TEACHING_GOOD, teaching_start
    out, path = _teach(tmp_path, TEACHING_BAD, "maybe", "back", "board", "quit")
    assert "teaching mode on: a warning before a decision that loses at least 0.10" in out
    warning = [line for line in out.splitlines() if line.startswith("teaching: ")]
    assert len(warning) == 1, out
    # a sure loss against a sure win: the whole chance of winning, its interval too
    m = re.fullmatch(r"teaching: tile b a4: this decision loses about 1\.00 win chance \(1\.00-1\.00\); the engine "
                     r"prefers (tile b [a-p]\d+)", warning[0])
    assert m and m.group(1) in TEACHING_GOOD, warning[0]
    assert f"your chance of winning after it: 0%; after {m.group(1)}: 100%" in out
    assert "answer play (play tile b a4 anyway), back (take it back and choose again) or best" in out   # 'maybe'
    assert "taken back: tile b a4 is not played; choose again" in out
    assert "you: " not in out and "you drew" not in out            # nothing played, nothing drawn
    boards = _boards(out)
    assert len(boards) == 2 and boards[1] == boards[0]              # 'board' after it: the position as it was
    # the record: the start position and no decision
    text = path.read_text()
    state, actions = _replayed(path)
    assert actions == [] and state.position(hidden=True) == teaching_start()
    # seeded by the game's seed and the decision's number: the same warning again
    again, _ = _teach(tmp_path, TEACHING_BAD, "back", "quit", name="u.txt")
    assert [line for line in again.splitlines() if line.startswith("teaching: ")] == warning
    assert "[start " in text


def test_play_teach_lets_a_good_decision_through_silently(tmp_path):
    from records import TEACHING_GOOD
    for good in TEACHING_GOOD:
        out, path = _teach(tmp_path, good, name=good.replace(" ", "") + ".txt")
        assert "teaching: " not in out and f"you: {good}" in out and "you win!" in out
        assert [A.format_action(a) for a in _replayed(path)[1]] == [good]


def test_play_teach_answers_play_and_best_and_the_teach_command(tmp_path):
    from records import TEACHING_BAD, TEACHING_GOOD
    out, path = _teach(tmp_path, TEACHING_BAD, "play", name="play.txt")
    assert "teaching: tile b a4" in out and "you: tile b a4" in out and "you lose." in out
    out, path = _teach(tmp_path, TEACHING_BAD, "best", name="best.txt")
    played = [A.format_action(a) for a in _replayed(path)[1]]
    assert played[0] in TEACHING_GOOD and f"you: {played[0]}" in out and "you win!" in out
    # switched off in the game: the bad decision goes through; a bad threshold changes nothing
    out, _ = _teach(tmp_path, "teach", "teach 1.5", "teach off", TEACHING_BAD, name="off.txt")
    assert "the teaching threshold must be above 0 and below 1 (win chance: 0.10 is ten points), got 1.5: " \
           "teaching mode stays on" in out
    assert "teaching mode off" in out and "teaching: " not in out and "you: tile b a4" in out
    # off by default; `teach 0.5` switches it on at that threshold
    out, _ = _teach(tmp_path, TEACHING_BAD, name="default.txt", args=())
    assert "teaching" not in out and "you: tile b a4" in out
    out, _ = _teach(tmp_path, "teach 0.5", TEACHING_BAD, "back", "quit", name="half.txt", args=())
    assert "teaching mode on: a warning before a decision that loses at least 0.50" in out
    assert "teaching: tile b a4" in out and "you: " not in out


@pytest.mark.parametrize("value, words", [("1.5", "must be above 0 and below 1"), ("0", "must be above 0"),
                                          ("nan", "must be above 0"), ("lots", "is a number between 0 and 1")])
def test_play_teach_threshold_is_checked(tmp_path, value, words):
    res = run("play", "--teach", value, "--record", tmp_path / "x.txt", input="quit\n")
    assert res.exit_code == 2 and "--teach" in res.output and words in res.output, res.output


def test_taking_a_warned_decision_back_leaves_the_game_state_exactly_as_it_was():
    """TerminalGame.ask with teaching on: the bad decision is warned and taken back, the state untouched,
    then the good one returned without a question."""
    from records import TEACHING_BAD, teaching_start
    from search.agent import Limits
    from tne_ai.cli.play import TerminalGame
    state = engine.State.from_snapshot(parse_position(teaching_start()))
    before = state.snapshot()
    game = TerminalGame(state, 0, {}, Limits(50), None, "-", False, seed=3, teach=0.1, teach_iterations=200)
    said, lines = [], iter([TEACHING_BAD, "back", "tile b e2"])
    game.echo = lambda text="", err=False: said.append(text)
    game.read_line = lambda prompt: next(lines)
    assert game.ask() == engine.parse_action("tile b e2")
    assert game.state.snapshot() == before and game.actions == []
    assert sum(line.startswith("teaching: tile b a4") for line in said) == 1
    assert not any(line.startswith("teaching: tile b e2") for line in said)
