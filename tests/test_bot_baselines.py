"""`tne-ai bot --agent greedy|random`: the baselines over the protocol, in process, as a process and under the referee."""
from __future__ import annotations

import os
import sys

import pytest
from click.testing import CliRunner

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import engine  # noqa: E402
from engine.actions import parse_action  # noqa: E402
from engine.record import replay_record  # noqa: E402
from engine.view import letters  # noqa: E402
from search.baselines import GreedyAgent, RandomAgent  # noqa: E402
from test_protocol import Step, SubprocessBot, wait_block  # noqa: E402
from test_protocol import mid_game as protocol_mid_game  # noqa: E402
from tne_ai.protocol.bot import BotSession, stall_counts  # noqa: E402
from tne_ai.cli import main as cli_main  # noqa: E402
from tne_ai.protocol.codec import ProtocolError  # noqa: E402


class Session:
    """A BotSession playing a baseline, its replies collected in a list."""

    def __init__(self, agent: str, **options):
        self.out = []
        self.bot = BotSession(self.out.extend, options, agent=agent)

    def __call__(self, *lines) -> list:
        """Send lines, wait for the decision, return the replies they drew."""
        start = len(self.out)
        for line in lines:
            self.bot.handle(line)
        assert self.bot.wait(30)
        return self.out[start:]


def mid_game() -> engine.State:
    """Return a seeded random game 37 decisions in, seat 0 to act in the action phase."""
    return protocol_mid_game(seed=4, decisions=37)


def fen_line(state: engine.State, seat: int = 0) -> str:
    sn = state.snapshot()
    return (f"position fen {state.position()} hand {letters(sn['hands'][seat])} "
            f"swapped {','.join(map(str, sn['swapped'][seat]))}")


@pytest.mark.parametrize("agent, cls", [("greedy", GreedyAgent), ("random", RandomAgent)])
def test_go_answers_the_baselines_decision(agent, cls):
    """The bestmove is the baseline's decision on the seat's observation, seeded by the go's seed."""
    state = mid_game()
    bot = Session(agent)
    assert bot("tne")[0] == f"id name tne-ai {agent}"
    bot("newgame", fen_line(state))
    for seed in (0, 7):
        replies = bot(f"go seed {seed}")
        assert len(replies) == 1 and replies[0].startswith("bestmove ")      # no info: nothing searched
        ref = cls(seed)
        ref.new_game(0, state.observation(0))
        assert parse_action(replies[0][len("bestmove "):]) == ref.choose()


def test_search_options_and_limits_are_accepted_and_ignored():
    state = mid_game()
    bot = Session("greedy")
    out = bot("setoption name Workers value 2", "setoption name RolloutDepth value 1", "isready",
              "newgame", fen_line(state))
    assert out == ["readyok"]
    for go in ("go movetime 5", "go iterations 3", "go infinite", "go clock0 100 clock1 100"):
        out += bot(go)
    assert len(out) == 5
    legal = state.legal_actions()
    assert all(parse_action(line[len("bestmove "):]) in legal for line in out[1:])


def test_an_unknown_agent_is_refused():
    with pytest.raises(ProtocolError):
        BotSession(lambda lines: None, agent="minimax")
    r = CliRunner().invoke(cli_main, ["bot", "--agent", "minimax"])
    assert r.exit_code != 0 and "minimax" in r.output


def test_stall_counts_skip_draws_and_restart_at_a_tile_or_a_swap():
    assert stall_counts([]) == (0, 0)
    assert stall_counts(["tile r f7", "pass", "draw rr", "pass"]) == (2, 2)
    assert stall_counts(["pass", "swap 2", "pass"]) == (1, 1)
    assert stall_counts(["pass", "tile k a1"]) == (0, 0)
    # a leader adds to the second count only; a conflict's commitments change neither
    assert stall_counts(["pass", "leader b g10", "commit 0", "commit 0", "pass"]) == (1, 3)


def test_the_greedy_bot_counts_passes_like_the_agent():
    """Given the events, the bot's greedy agent breaks a stall as the arena's agent (apply by apply) does."""
    state = engine.new_game(2, 3)
    agent = GreedyAgent(5)
    seat = state.to_act
    agent.new_game(seat, state.observation(seat))
    events = ["pass", "pass"]
    for ev in events:
        a = parse_action(ev)
        assert a in state.legal_actions()
        state.apply(a)
        agent.apply(a, state.observation(seat))
    assert (agent.passes, agent.idle) == stall_counts(events) == (2, 2)


def test_a_baseline_bot_process_plays_a_decision():
    """The real `tne-ai bot --agent random` process answers go with a legal decision."""
    state = mid_game()
    bot = SubprocessBot(["--agent", "random"])
    try:
        bot.send(b"tne")
        got = wait_block(bot, Step(b"tne", [(False, "id name tne-ai random"), (True, "{*}"), (False, "tneok")]))
        assert got[0] == "id name tne-ai random"
        bot.send(b"newgame")
        bot.send(fen_line(state).encode("ascii"))
        bot.send(b"go seed 3")
        got = wait_block(bot, Step(b"go seed 3", [(False, "bestmove {*}")]))
        assert parse_action(got[-1][len("bestmove "):]) in state.legal_actions()
    finally:
        bot.send(b"quit")
        bot.finish()


@pytest.mark.slow
def test_a_match_between_the_greedy_and_the_random_bot(tmp_path):
    """The referee plays the baselines against each other through the protocol: legal, finished games."""
    r = CliRunner().invoke(cli_main, ["match", "--engine", "name=g cmd='tne-ai bot --agent greedy'",
                                      "--engine", "name=r cmd='tne-ai bot --agent random'",
                                      "--games", "2", "--seed", "1", "--record-dir", str(tmp_path / "rec")])
    assert r.exit_code == 0, r.output
    assert "2 games, 2 players" in r.stdout and "Elo g - r" in r.stdout
    assert "forfeit" not in r.stderr, r.stderr
    files = sorted(f for f in os.listdir(tmp_path / "rec") if f.startswith("game"))
    assert files == ["game0001-g-r.txt", "game0002-r-g.txt"]
    for fn in files:
        text = (tmp_path / "rec" / fn).read_text()
        state, _ = replay_record(text, engine.new_game)
        assert state.is_terminal() or "# stopped after" in text
