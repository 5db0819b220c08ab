"""The twins (search/twins.py): the search told hidden tiles, for the arena only, and the deals under them (R-INFO-1)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import engine
from diagram import position
from engine.info import observation
from ext.core import _deal_around_hands
from ext.search.tree import Tree
from search.agent import Limits, SearchError
from search.arena.runner import AGENTS, agent_factory, run_match
from search.params import SearchParams
from search.twins import TwinError, refuse_twin, twin_all, twin_hands
from tne_ai.analysis.server import QueryError, read_request
from tne_ai.cli import main
from tne_ai.protocol.bot import BotSession
from tne_ai.protocol.codec import ProtocolError
from tne_ai.web.games import GameError, engine_seat


def midgame() -> engine.State:
    """Seat 0 to act; seat 1 holds kkkrrr and has swapped two tiles away."""
    return engine.State.from_snapshot(position("""
        a  b  c  d
    5   r  0k .  .
    6   .  g  k  .
    """, hands=["kbbggg", "kkkrrr"], swapped=["", "bg"], to_act=0))


def hidden_parts(snap: dict, seat: int) -> tuple:
    return ([h for s, h in enumerate(snap["hands"]) if s != seat],
            [w for s, w in enumerate(snap["swapped"]) if s != seat], sorted(snap["bag"]))


# ------------------------------------------------------------ the deals

def test_a_deal_around_told_hands_keeps_them_and_shuffles_only_the_bag_and_swapped_piles():
    st = midgame()
    before = st.snapshot()
    moved = False
    for seed in range(20):
        s = st.clone()
        assert _deal_around_hands(s, 0, seed)
        after = s.snapshot()
        assert after["hands"] == before["hands"]
        # the tiles seat 0 has not seen are conserved: what leaves the bag goes to the swapped pile
        pile, bag = after["swapped"][1], after["bag"]
        assert [pile[c] + bag.count(c) for c in range(4)] == \
               [before["swapped"][1][c] + before["bag"].count(c) for c in range(4)]
        moved |= pile != before["swapped"][1] or bag != before["bag"]
    assert moved


def test_a_deal_around_given_hands_deals_the_rest_and_refuses_hands_that_do_not_fit():
    st = midgame()
    unseen = [sum(x) for x in zip(*[[st.snapshot()["bag"].count(c) for c in range(4)],
                                    st.snapshot()["hands"][1], st.snapshot()["swapped"][1]])]
    s = st.clone()
    assert _deal_around_hands(s, 0, 7, [[0, 0, 0, 0], [0, 0, 6, 0]])       # six blues for seat 1
    snap = s.snapshot()
    assert snap["hands"][0] == [1, 0, 2, 3] and snap["hands"][1] == [0, 0, 6, 0]
    assert [snap["bag"].count(c) + snap["swapped"][1][c] + snap["hands"][1][c] for c in range(4)] == unseen
    s = st.clone()
    assert not _deal_around_hands(s, 0, 7, [[0, 0, 0, 0], [0, 0, 5, 0]])   # five tiles for a hand of six
    assert not _deal_around_hands(s, 0, 7, [[0, 0, 0, 0], [7, 0, 0, 0]])   # seven for six
    assert s.snapshot() == st.snapshot()                                    # refused: unchanged


def test_a_weighted_deal_checks_its_sets_of_hands_and_belongs_to_its_root():
    st = midgame()
    tree = Tree()
    SearchParams().configure(tree, 2)
    tree.reset(st, 0, 1)
    with pytest.raises(ValueError, match="unknown deal"):
        tree.set_deal("peek")
    with pytest.raises(ValueError, match="does not fit"):
        tree.set_deal("weighted", [[[0, 0, 0, 0], [1, 0, 0, 0]]], [1.0])
    with pytest.raises(ValueError, match="finite"):
        tree.set_deal("weighted", [[[0, 0, 0, 0], [0, 0, 6, 0]]], [float("nan")])
    with pytest.raises(ValueError, match="sum to 0"):
        tree.set_deal("weighted", [[[0, 0, 0, 0], [0, 0, 6, 0]]], [0.0])
    assert tree.deal_mode_name() == "uniform"                               # refused: unchanged
    tree.set_deal("weighted", [[[0, 0, 0, 0], [0, 0, 6, 0]], [[0, 0, 0, 0], [0, 6, 0, 0]]], [1.0, 0.0])
    assert tree.deal_mode_name() == "weighted"
    assert tree.run(200) == 200
    tree.reset(st, 0, 1)
    assert tree.deal_mode_name() == "uniform"


# ------------------------------------------------------------ the twins in the arena

def test_twins_are_arena_agents_and_play_whole_games():
    assert {"twin-hands", "twin-all"} <= set(AGENTS)
    name, fac = agent_factory("twin-hands")
    assert name == "twin-hands"
    res = run_match({"twin": twin_hands, "search": AGENTS["ismcts"]}, games=2, players=2, seed=11,
                    limits=Limits(iterations=100))
    assert len(res.games) == 2 and all(g.forfeit is None for g in res.games)
    assert all(g.end_reason != "cap" for g in res.games)


def test_a_twin_searches_the_truth_it_is_told_and_nothing_without_it():
    st = midgame()
    obs = observation(st.snapshot(), 0)
    untold = twin_all(seed=3)
    untold.new_game(0, obs)
    with pytest.raises(SearchError, match="arena tells it"):
        untold.choose(Limits(iterations=50))
    agent = twin_all(seed=3)
    agent.new_game(0, obs)
    agent.tell(st.snapshot())
    first = agent.choose(Limits(iterations=300))
    again = twin_all(seed=3)
    again.new_game(0, obs)
    again.tell(st.snapshot())
    assert again.choose(Limits(iterations=300)) == first        # seeded: the same decision


def test_a_twin_told_other_hands_searches_differently():
    """The hands told change twin-hands' statistics; the shipped search's do not move (it never reads them)."""
    st = midgame()
    other = st.snapshot()
    other["hands"][1], other["bag"] = [0, 0, 3, 3], other["bag"]
    pool = [c for c in range(4) for _ in range(st.snapshot()["hands"][1][c])] + list(st.snapshot()["bag"])
    for c in (2, 2, 2, 3, 3, 3):
        pool.remove(c)
    other["bag"] = pool
    other_state = engine.State.from_snapshot(other)
    assert observation(other, 0) == observation(st.snapshot(), 0)

    def stats(state, kind):
        agent = AGENTS[kind](seed=5)
        agent.new_game(0, observation(state.snapshot(), 0))
        if kind != "ismcts":
            agent.tell(state.snapshot())
        agent.choose(Limits(iterations=400))
        return [(c.action, c.visits) for c in agent.last_result.candidates]

    assert stats(st, "ismcts") == stats(other_state, "ismcts")
    assert stats(st, "twin-hands") != stats(other_state, "twin-hands")


# ------------------------------------------------------------ nowhere else

def test_refuse_twin_names_the_twins_only():
    for name in ("twin-hands", "TWIN-ALL", " twin-all "):
        with pytest.raises(TwinError, match="told hidden tiles"):
            refuse_twin(name, "here")
    refuse_twin("ismcts", "here")


@pytest.mark.parametrize("twin", ["twin-hands", "twin-all"])
def test_bot_refuses_a_twin(twin):
    res = CliRunner().invoke(main, ["bot", "--agent", twin], input="quit\n")
    assert res.exit_code == 2 and "told hidden tiles" in res.output and "tne-ai bot" in res.output
    with pytest.raises(ProtocolError, match="told hidden tiles"):
        BotSession(lambda lines: None, agent=twin)


@pytest.mark.parametrize("twin", ["twin-hands", "twin-all"])
def test_play_refuses_a_twin(twin):
    res = CliRunner().invoke(main, ["play", "--engine", twin, "--seed", "1"], input="quit\n")
    assert res.exit_code == 2 and "told hidden tiles" in res.output and "tne-ai play" in res.output


@pytest.mark.parametrize("spec", ["twin-hands", {"agent": "twin-all", "iterations": 10},
                                  {"engine": "twin-hands", "iterations": 10}])
def test_serve_refuses_a_twin(spec):
    with pytest.raises(GameError, match="told hidden tiles.*tne-ai serve"):
        engine_seat(spec)


@pytest.mark.parametrize("field", ["agent", "engine"])
def test_the_analysis_server_refuses_a_twin(field):
    query = {"id": "q", "position": "startpos", field: "twin-hands"}
    with pytest.raises(QueryError, match="told hidden tiles.*analysis server") as e:
        read_request(query)
    assert e.value.field == field


def test_analyze_has_no_way_to_a_twin(tmp_path):
    """analyze takes no agent, and a params file cannot ask for a deal: the field is refused by name."""
    res = CliRunner().invoke(main, ["analyze", "startpos", "--hand", "kkrbgg", "--agent", "twin-hands"])
    assert res.exit_code == 2 and "--agent" in res.output
    params = tmp_path / "p.json"
    params.write_text(json.dumps({"format": "tne-ai params 1", "params": {"deal": "none"}}))
    res = CliRunner().invoke(main, ["analyze", "startpos", "--hand", "kkrbgg", "--params", str(params),
                                    "--iterations", "50"])
    assert res.exit_code != 0 and "deal" in res.output
