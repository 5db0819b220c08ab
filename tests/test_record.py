"""Game records (engine/record.py): writing, replaying, and every way a record can be wrong."""
from __future__ import annotations

import random
import re

import pytest

from diagram import position
from engine.actions import format_action, parse_action
from engine.errors import RecordError
from engine.legality import why_illegal
from engine.position import format_position
from engine.record import GameRecorder, drawn_tiles, replay_record, write_record


def random_game(impl, seed: int, players: int = 2, limit: int = 10_000):
    """Play a seeded random game; return (initial state, actions, final state)."""
    rng = random.Random(seed)
    state = impl.new_game(players=players, seed=seed)
    initial = state.clone()
    actions = []
    while not state.is_terminal() and len(actions) < limit:
        a = rng.choice(state.legal_actions())
        state.apply(a)
        actions.append(a)
    return initial, actions, state


def replay(impl, text):
    return replay_record(text, impl.new_game, impl.from_snapshot)


@pytest.fixture
def game(impl):
    initial, actions, final = random_game(impl, seed=5, players=3)
    return impl, initial, actions, final, write_record(initial, actions, seed=5)


def body_line_numbers(text: str, prefix: str = "") -> list:
    """Return the 1-based numbers of the lines starting with prefix (not headers/comments)."""
    return [n for n, ln in enumerate(text.splitlines(), 1)
            if ln and ln[0] not in "[#" and ln.startswith(prefix)]


def edit_line(text: str, n: int, new: str | None) -> str:
    lines = text.splitlines()
    if new is None:
        del lines[n - 1]
    else:
        lines[n - 1] = new
    return "\n".join(lines) + "\n"


# --- writing and replaying -------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.slow
def test_full_random_games_replay_to_the_same_state(impl, players):
    for seed in range(2):
        initial, actions, final = random_game(impl, seed=seed, players=players)
        text = write_record(initial, actions, seed=seed)
        lines = text.splitlines()
        assert lines[1:4] == [f"[players {players}]", "[board standard]", f"[seed {seed}]"]
        assert lines[-1].startswith("result ")
        state, got = replay(impl, text)
        assert got == actions
        assert state.snapshot() == final.snapshot()
        assert lines[-1].split()[2:] == [str(r) for r in final.result()]


def test_recorder_matches_write_record_and_logs_draws(impl):
    initial, actions, final = random_game(impl, seed=9, limit=40)
    rec = GameRecorder(initial.clone(), seed=9)
    for a in actions:
        rec.apply(a)
    text = rec.text()
    assert text == write_record(initial, actions, seed=9)
    assert rec.actions == actions
    body = [ln for ln in text.splitlines() if ln and ln[0] not in "[#"]
    assert [ln for ln in body if not ln.startswith("draw ")] == [format_action(a) for a in actions]
    draws = [ln for ln in body if ln.startswith("draw ")]
    assert draws, "40 random decisions include an end of turn, which refills"
    # Every drawn tile came off the top of the bag, in order.
    drawn = "".join(ln.split()[2] for ln in draws)
    bag0, bag1 = initial.snapshot()["bag"], rec.state.snapshot()["bag"]
    assert drawn == "".join("krbg"[c] for c in reversed(bag0[len(bag1):]))
    assert "result" not in text
    # a recorder of the lines already logged is the same recorder
    kept = GameRecorder.of_lines(initial.clone(), actions, rec.lines, rec.state, seed=9)
    assert kept.actions == actions and kept.text() == text


@pytest.mark.slow
def test_start_header_replays_from_a_mid_game_position(impl):
    initial, actions, final = random_game(impl, seed=4)
    mid = initial.clone()
    for a in actions[:30]:
        mid.apply(a)
    text = write_record(mid, actions[30:])
    assert "[seed" not in text
    start = [ln for ln in text.splitlines() if ln.startswith("[start ")]
    assert start == [f"[start {format_position(mid.snapshot(), hidden=True)}]"]
    state, got = replay(impl, text)
    assert got == actions[30:] and state.snapshot() == final.snapshot()
    with pytest.raises(RecordError, match="from_snapshot"):
        replay_record(text, impl.new_game)


@pytest.mark.slow
def test_comments_blank_lines_and_extra_headers_are_ignored(game):
    impl, initial, actions, final, text = game
    noisy = "# a comment\n\n" + text.replace("\n", "   # note\n", 5).replace("[seed 5]", "[seed 5]\n[event test]")
    state, got = replay(impl, noisy)
    assert got == actions and state.snapshot() == final.snapshot()
    text2 = write_record(initial, actions, seed=5, headers={"event": "club night"})
    assert "[event club night]" in text2
    assert replay(impl, text2)[1] == actions


@pytest.mark.slow
def test_truncated_records_replay_to_the_prefix_state(game):
    impl, initial, actions, final, text = game
    lines = text.splitlines()
    first = body_line_numbers(text)[0]
    for cut in range(first - 1, len(lines), 7):
        state, got = replay(impl, "\n".join(lines[:cut]))
        expect = initial.clone()
        for a in got:
            expect.apply(a)
        assert got == actions[:len(got)]
        assert state.snapshot() == expect.snapshot()


# --- broken records ------------------------------------------------------------------

def test_missing_headers(game):
    impl, _, _, _, text = game
    for name in ("players", "board", "seed"):
        broken = "\n".join(ln for ln in text.splitlines() if not ln.startswith(f"[{name} "))
        with pytest.raises(RecordError, match=rf"line \d+: missing header \[{name}"):
            replay(impl, broken)


@pytest.mark.parametrize("old,new,needle", [
    ("[players 3]", "[players 5]", "players"), ("[players 3]", "[players two]", "players"),
    ("[seed 5]", "[seed -1]", "seed"), ("[seed 5]", "[seed]", "seed"),
    ("[board standard]", "[board huge]", "board"), ("[players 3]", "[players 3", "bad header"),
    ("[seed 5]", "[seed 5]\n[start standard 2]", "start"),
])
def test_bad_headers(game, old, new, needle):
    impl, _, _, _, text = game
    n = text.splitlines().index(old) + 1 + new.count("\n")
    with pytest.raises(RecordError, match=rf"line {n}: .*{needle}"):
        replay(impl, text.replace(old, new))


def test_duplicate_header_and_header_after_decisions(game):
    impl, _, _, _, text = game
    lines = text.splitlines()
    with pytest.raises(RecordError, match=r"line 3: header \[players\] repeated"):
        replay(impl, "\n".join(lines[:2] + ["[players 3]"] + lines[2:]))
    n = body_line_numbers(text)[3]
    with pytest.raises(RecordError, match=rf"line {n}: header after the first decision"):
        replay(impl, "\n".join(lines[:n - 1] + ["[note late]"] + lines[n - 1:]))


def test_unknown_verb_and_garbage_name_the_line(game):
    impl, _, _, _, text = game
    n = body_line_numbers(text)[10]
    for garbage in ("fly k a1", "tile", "tile r z9", "commit 9", "swap", "draw", "\x00\x01"):
        with pytest.raises(RecordError, match=rf"line {n}:"):
            replay(impl, edit_line(text, n, garbage))


def test_illegal_action_names_the_line(game):
    impl, initial, _, _, text = game
    n = body_line_numbers(text)[0]
    legal = set(initial.legal_actions())
    bad = next(t for t in ("pass", "tile b a1", "commit 0", "withdraw k") if parse_action(t) not in legal)
    reason = why_illegal(initial.snapshot(), parse_action(bad))     # the engine's words, either implementation
    with pytest.raises(RecordError, match=rf"line {n}: illegal action .*\): {re.escape(reason)}$"):
        replay(impl, edit_line(text, n, bad))
    # After the game is over nothing is legal.
    result = body_line_numbers(text, "result ")[0]
    with pytest.raises(RecordError, match=rf"line {result}: illegal action"):
        replay(impl, edit_line(text, result, "pass"))


def test_draw_mismatch_missing_and_unexpected_draws(game):
    impl, _, _, _, text = game
    n = body_line_numbers(text, "draw ")[2]
    seat, tiles = text.splitlines()[n - 1].split()[1:]
    other = "".join("krbg"[("krbg".index(t) + 1) % 4] for t in tiles)
    with pytest.raises(RecordError, match=rf"line {n}: draw mismatch"):
        replay(impl, edit_line(text, n, f"draw {seat} {other}"))
    with pytest.raises(RecordError, match=rf"line {n}: draw mismatch"):
        replay(impl, edit_line(text, n, f"draw {(int(seat) + 1) % 3} {tiles}"))
    with pytest.raises(RecordError, match=rf"line {n}: bad draw line"):
        replay(impl, edit_line(text, n, f"draw {seat} {tiles} extra"))
    # A missing draw line is noticed at the next decision (same line number after deleting).
    lines = text.splitlines()
    if n < len(lines) and not lines[n].startswith("draw "):
        with pytest.raises(RecordError, match=rf"line {n}: expected 'draw {seat} {tiles}'"):
            replay(impl, edit_line(text, n, None))
    # A draw line where nothing was drawn.
    first = body_line_numbers(text)[0]
    with pytest.raises(RecordError, match=rf"line {first + 1}: unexpected draw line"):
        replay(impl, "\n".join(lines[:first] + ["draw 0 k"] + lines[first:]))


def test_result_line_checks(game):
    impl, _, _, final, text = game
    n = body_line_numbers(text, "result ")[0]
    reason = final.snapshot()["end_reason"]
    ranks = final.result()
    wrong = [r + 1 for r in ranks]
    with pytest.raises(RecordError, match=rf"line {n}: result mismatch"):
        replay(impl, edit_line(text, n, f"result {reason} " + " ".join(map(str, wrong))))
    with pytest.raises(RecordError, match=rf"line {n + 1}: text after the result line"):
        replay(impl, text + "pass\n")
    first = body_line_numbers(text)[0]
    with pytest.raises(RecordError, match=rf"line {first}: result line but the game is not over"):
        replay(impl, "\n".join(text.splitlines()[:first - 1] + [text.splitlines()[n - 1]]))


def test_non_string_record():
    with pytest.raises(RecordError):
        replay_record(None, lambda **kw: None)


# --- drawn_tiles on hand-built snapshots (no engine needed) ---------------------------

def test_drawn_tiles_splits_the_bag_by_seat_in_turn_order():
    # Seat 2 defends and commits 2 green, ending seat 1's turn: seat 1 refills,
    # then the committed seats after it (2, then 0). Draw order: r g b k k.
    before = position(hands=["kkrbg", "rrbb", "gggggg"], players=3, draws="rgbkk",
                      turn_owner=1, to_act=2, committed=[True, False, True])
    after = dict(before, bag=before["bag"][:-5],
                 hands=[[3, 1, 1, 1], [0, 3, 2, 1], [1, 0, 1, 4]])
    assert drawn_tiles(before, after) == [(1, [1, 3]), (2, [2, 0]), (0, [0])]
    assert drawn_tiles(before, before) == []


def test_drawn_tiles_rejects_inconsistent_snapshots():
    before = position(hands=["kkrbg", "rrbb"], draws="rg")
    after = {**before, "bag": before["bag"][:-2] + [0]}
    with pytest.raises(RecordError, match="bag"):
        drawn_tiles(before, after)
    after = {**before, "hands": [[2, 1, 1, 1], [0, 2, 2, 1]], "bag": before["bag"][:-1]}
    with pytest.raises(RecordError):
        drawn_tiles(before, after)             # seat 1 (not acting) gained g, but r was drawn
