"""Bounded search memory (SearchParams.tree_memory_mb, the TreeMemory option) and the per-search stop token."""
import threading

import pytest

import engine
from search.agent import Limits, SearchError
from search.ismcts import ISMCTS
from search.params import SearchParams
from tests.test_protocol import Session, public_fen, mid_game

MIB = 1 << 20


def opening():
    s = engine.new_game(2, 5)
    return s.observation(s.to_act), s.to_act


@pytest.mark.slow
def test_a_full_tree_stops_growing_and_keeps_counting_visits():
    """At 1 MiB the tree stops adding nodes; every iteration still reaches the root's statistics."""
    obs, seat = opening()
    free = ISMCTS().search(obs, seat, Limits(iterations=20_000), seed=3)
    assert not free.tree_full and free.tree_bytes > MIB      # unbounded, this search outgrows 1 MiB
    small = ISMCTS(SearchParams(tree_memory_mb=1))
    r = small.search(obs, seat, Limits(iterations=20_000), seed=3)
    assert r.tree_full and r.tree_bytes <= MIB
    assert r.nodes < free.nodes
    # every iteration but one that found no room for a root child still counts at a root child
    assert r.iterations == 20_000 and 19_990 <= sum(c.visits for c in r.candidates) <= 20_000
    again = ISMCTS(SearchParams(tree_memory_mb=1)).search(obs, seat, Limits(iterations=20_000), seed=3)
    assert [(c.action, c.visits) for c in again.candidates] == [(c.action, c.visits) for c in r.candidates]


@pytest.mark.slow
def test_a_full_tree_still_spreads_its_visits_over_the_root():
    """Once full, iterations keep choosing among the nodes it has by UCB, not one unexpanded decision."""
    obs, seat = opening()
    r = ISMCTS(SearchParams(tree_memory_mb=1)).search(obs, seat, Limits(iterations=40_000), seed=4)
    assert r.tree_full
    visited = [c for c in r.candidates if c.visits > 100]
    assert len(visited) >= 3
    assert r.candidates[0].visits < 0.9 * r.iterations


@pytest.mark.slow
def test_the_limit_is_shared_by_the_workers():
    obs, seat = opening()
    m = ISMCTS(SearchParams(tree_memory_mb=2), workers=2)
    try:
        r = m.search(obs, seat, Limits(iterations=30_000), seed=1)
    finally:
        m.close()
    assert r.tree_full and r.tree_bytes <= 2 * MIB


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "64"])
def test_a_bad_memory_limit_is_refused(bad):
    with pytest.raises(SearchError, match="tree_memory_mb"):
        SearchParams(tree_memory_mb=bad)


@pytest.mark.slow
def test_the_option_bounds_the_bot_and_info_says_the_tree_is_full():
    s = Session(TreeMemory=1, InfoInterval=0)
    replies = s(public_fen(mid_game()), "go iterations 20000 seed 2")
    assert any(r.startswith("info string tree full at ") for r in replies)
    assert replies[-1].startswith("bestmove ")
    roomy = Session(InfoInterval=0)
    assert not any("tree full" in r for r in roomy(public_fen(mid_game()), "go iterations 2000 seed 2"))
    assert s("setoption name TreeMemory value 0")[0].startswith("error ")


def test_a_stop_token_set_before_the_search_begins_is_not_lost():
    """The token belongs to one search: set before it starts, the search returns at once (SearchError: no iteration)."""
    obs, seat = opening()
    token = threading.Event()
    token.set()
    with pytest.raises(SearchError, match="no iteration"):
        ISMCTS().search(obs, seat, Limits(seconds=600), seed=0, stop_token=token)


def test_stop_racing_the_start_of_a_search_always_ends_it():
    """A stop sent while a search thread is starting (before, during or just after its tree is made) ends it."""
    obs, seat = opening()
    searcher = ISMCTS()
    for k in range(40):
        token = threading.Event()
        done = []

        def run():
            try:
                done.append(searcher.search(obs, seat, Limits(seconds=600), seed=k, stop_token=token))
            except SearchError:
                done.append(None)

        t = threading.Thread(target=run)
        t.start()
        token.set()
        searcher.stop()
        t.join(120)                 # a lost stop would search for 600 s
        assert not t.is_alive(), f"round {k}: the stop was lost"
        assert len(done) == 1
