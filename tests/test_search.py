"""ISMCTS: reproducibility, never peeking, limits and stop, analysis output, bad input."""
import random
from pathlib import Path
import threading

import pytest

import engine
from engine.info import determinize
from search.agent import Limits, SearchError
from search.ismcts import ISMCTS, ISMCTSAgent
from search.params import SearchParams


def midgame(players=2, seed=3, decisions=60, phase="action"):
    """Return a seeded random position with `phase` to decide (trying later seeds if needed)."""
    for game in range(seed, seed + 50):
        s = engine.new_game(players, game)
        rng = random.Random(game)
        n = 0
        while not s.is_terminal():
            if n >= decisions and s.phase == phase:
                return s
            s.apply(rng.choice(s.legal_actions()))
            n += 1
    raise AssertionError(f"no {phase} position in 50 seeded games")


def stats(result):
    return [(c.action, c.visits, c.availability, round(c.mean, 12)) for c in result.candidates]


def test_same_seed_and_iterations_give_the_same_search():
    s = midgame()
    obs = s.observation(s.to_act)
    a = ISMCTS().search(obs, s.to_act, Limits(iterations=400), seed=9)
    b = ISMCTS().search(obs, s.to_act, Limits(iterations=400), seed=9)
    assert a.best == b.best and stats(a) == stats(b)
    assert a.iterations == 400 and sum(c.visits for c in a.candidates) == 400
    c = ISMCTS().search(obs, s.to_act, Limits(iterations=400), seed=10)
    assert stats(c) != stats(a)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.slow
def test_the_default_weights_are_those_of_the_games_player_count(players):
    """SearchParams() searches a game with DEFAULT_WEIGHTS[players], in one process and in workers."""
    from search.params import DEFAULT_WEIGHTS, HAND_SET_WEIGHTS, TEXEL_2P_WEIGHTS, TEXEL_4P_WEIGHTS
    s = engine.new_game(players, 5)
    for _ in range(12):
        s.apply(random.Random(len(s.legal_actions())).choice(s.legal_actions()))
    obs = s.observation(s.to_act)
    for workers in (1, 2):
        run = lambda params: stats(ISMCTS(params, workers).search(obs, s.to_act, Limits(iterations=300), seed=4))
        default = run(SearchParams())
        assert default == run(SearchParams(**DEFAULT_WEIGHTS[players]))
        others = [w for w in (HAND_SET_WEIGHTS, TEXEL_2P_WEIGHTS, TEXEL_4P_WEIGHTS) if w is not DEFAULT_WEIGHTS[players]]
        assert len(others) == 2 and all(default != run(SearchParams(**w)) for w in others)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_tail_and_the_widening_follow_the_player_count(players):
    """rollout_tail_after and widen_coef left None take their player count's default: the tail after 3 with 4 only, half the widening with 2 and 4."""
    from search.params import DEFAULT_TAIL_AFTER, DEFAULT_WIDEN_COEF
    assert DEFAULT_TAIL_AFTER == {2: -1, 3: -1, 4: 3}
    assert DEFAULT_WIDEN_COEF == {2: 0.5, 3: 1.0, 4: 0.5}
    s = midgame(players=players, seed=4)
    obs = s.observation(s.to_act)
    run = lambda params: stats(ISMCTS(params).search(obs, s.to_act, Limits(iterations=300), seed=4))
    default = run(SearchParams())
    assert default == run(SearchParams(rollout_tail_after=DEFAULT_TAIL_AFTER[players],
                                       widen_coef=DEFAULT_WIDEN_COEF[players]))
    if players > 2:     # with 2 players no rollout plays a round, so the tail changes nothing
        assert default != run(SearchParams(rollout_tail_after=1 if players == 3 else -1))
    assert default != run(SearchParams(widen_coef=0.5 if players == 3 else 1.0))


@pytest.mark.slow
def test_workers_are_reproducible_and_merge_their_roots():
    s = midgame(players=3, seed=4)
    obs = s.observation(s.to_act)
    m1, m2 = ISMCTS(workers=2), ISMCTS(workers=2)
    try:
        a = m1.search(obs, s.to_act, Limits(iterations=600), seed=5)
        b = m2.search(obs, s.to_act, Limits(iterations=600), seed=5)
    finally:
        m1.close()
        m2.close()
    assert a.workers == 2 and a.iterations == 600
    assert a.best == b.best and stats(a) == stats(b)
    assert sum(c.visits for c in a.candidates) == 600


def two_worlds_seen_alike(obs, seat):
    """Return the observations of `seat` in two worlds that differ only in what it cannot see."""
    w1 = engine.State.from_snapshot(determinize(obs, seat, random.Random(1)))
    w2 = engine.State.from_snapshot(determinize(obs, seat, random.Random(2)))
    assert w1.snapshot()["hands"] != w2.snapshot()["hands"] or w1.snapshot()["bag"] != w2.snapshot()["bag"]
    o1, o2 = w1.observation(seat), w2.observation(seat)
    assert o1 == o2
    return o1, o2


def test_search_never_peeks_at_hidden_tiles():
    s = midgame(players=3, seed=8)
    seat = s.to_act
    o1, o2 = two_worlds_seen_alike(s.observation(seat), seat)
    r1 = ISMCTS().search(o1, seat, Limits(iterations=300), seed=4)
    r2 = ISMCTS().search(o2, seat, Limits(iterations=300), seed=4)
    assert stats(r1) == stats(r2) and r1.root_value == r2.root_value


def test_search_takes_an_observation_not_a_state():
    s = midgame()
    with pytest.raises(SearchError, match="observation"):
        ISMCTS().search(s.snapshot(), s.to_act, Limits(iterations=10))


def test_search_refuses_a_finished_game_and_the_wrong_seat():
    s = engine.new_game(2, 1)
    obs = s.observation(1 - s.to_act)
    with pytest.raises(SearchError, match="to act"):
        ISMCTS().search(obs, 1 - s.to_act, Limits(iterations=10))
    s.random_playout(3)
    with pytest.raises(SearchError, match="over"):
        ISMCTS().search(s.observation(0), 0, Limits(iterations=10))


def test_search_refuses_an_inconsistent_observation():
    s = midgame()
    obs = s.observation(s.to_act)
    obs["unseen"] = [c + 5 for c in obs["unseen"]]       # more tiles than exist
    with pytest.raises(SearchError, match="inconsistent"):
        ISMCTS().search(obs, s.to_act, Limits(iterations=10))


def test_search_needs_a_limit():
    s = midgame()
    with pytest.raises(SearchError):
        ISMCTS().search(s.observation(s.to_act), s.to_act, Limits())
    with pytest.raises(SearchError):
        Limits(iterations=0)


def test_a_time_limit_gone_before_the_first_iteration_still_gives_a_decision():
    """A loaded machine can spend a tiny time limit before the search begins: one iteration runs anyway."""
    s = midgame()
    obs = s.observation(s.to_act)
    for workers in (1, 2):
        m = ISMCTS(workers=workers)
        try:
            r = m.search(obs, s.to_act, Limits(seconds=1e-9), seed=1)
        finally:
            m.close()
        assert r.iterations >= 1 and r.best in s.legal_actions()


def test_time_limit_and_stop_from_another_thread():
    """A time limit ends the search once its time is up; stop() from another thread ends a long one.

    Only what holds at any speed is checked: no bound on how long anything took.
    """
    s = midgame()
    obs = s.observation(s.to_act)
    m = ISMCTS()
    r = m.search(obs, s.to_act, Limits(seconds=0.2), seed=1)
    assert r.iterations > 0 and r.seconds >= 0.2
    out, begun = {}, threading.Event()
    th = threading.Thread(target=lambda: out.setdefault("r", m.search(
        obs, s.to_act, Limits(seconds=3600), seed=2, progress=lambda _: begun.set())))
    th.start()
    assert begun.wait(600)      # the search has run its first iterations (600 s only guards against a hang)
    m.stop()
    th.join(600)                # without the stop it would search for an hour
    assert not th.is_alive() and out["r"].iterations > 0
    assert out["r"].best in s.legal_actions()


def test_analysis_reports_candidates_values_and_principal_variation():
    s = midgame(players=4, seed=6)
    seat = s.to_act
    r = ISMCTS().search(s.observation(seat), seat, Limits(iterations=800), seed=3)
    legal = set(s.legal_actions())
    assert r.best == r.candidates[0].action and r.best_move == engine.format_action(r.best)
    assert len(r.root_value) == 4 and all(0 <= v <= 1 for v in r.root_value)
    visits = [c.visits for c in r.candidates]
    assert visits == sorted(visits, reverse=True)
    for c in r.candidates:
        assert c.action in legal
        assert 0 <= c.low <= c.mean <= c.high <= 1
        assert c.availability >= c.visits
    assert r.candidates[0].pv, "the most visited move has a principal variation"
    assert r.nodes > 1


@pytest.mark.parametrize("phase", ["revolt_attack", "revolt_defend", "war_attack", "war_defend",
                                   "treasure", "monument"])


def test_search_decides_in_every_kind_of_phase(phase):
    s = midgame(players=3, seed=2, decisions=0, phase=phase)
    seat = s.to_act
    r = ISMCTS().search(s.observation(seat), seat, Limits(iterations=200), seed=1)
    assert r.best in s.legal_actions()


def test_agent_reuses_its_tree_between_the_two_actions_of_a_turn():
    s = engine.new_game(2, 5)
    seat = s.to_act
    agent = ISMCTSAgent(seed=1, limits=Limits(iterations=300))
    agent.new_game(seat, s.observation(seat))
    a = agent.choose()
    s.apply(a)
    agent.apply(a, s.observation(seat))
    if s.to_act == seat and s.phase == "action" and not engine.format_action(a).startswith("swap"):
        nodes_before = agent.search_engine._tree.node_count
        agent.choose()
        assert agent.search_engine._tree.node_count > nodes_before > 1
        assert agent.last_result.iterations == 300


def test_params_reject_unknown_or_bad_values():
    with pytest.raises(SearchError):
        SearchParams().with_changes(explore=1.0)
    with pytest.raises(SearchError):
        SearchParams(rollout_policy="clever")


# Seat 0 leads 10 to 0 in its weakest colour, in the middle of a war it attacks.
LOPSIDED = ("standard 2 R1GK2BBBKR*GBR2/1R*4GK1R4GR*/3X1RK4K4/3BR1KR4GB2/1X3RGGGRK2R*2/K2RR1RKKRK5/"
            "B2BK1RGR1RK4/1R*2BBBKKR2BG1X/3R2BBBBB1BKR1/2R2R1R1K2R3/3G2GKGGRGKG2 k:j7,r:e5,b:g10,g:f4/b:o1 - "
            "13,16,10,11/0,0,0,1 5/0 1/0 5/6 44 0/4 0,11,0,2 0 2 war_attack 0 l1 l1 war:b:0:1:g10:o1:- 0/0 - "
            "| krrbb/kbbbbg brgr3krbgbrgr3brkgbrrbbggrrggkrbkgbrkrkbgg 0,0,0,0/1,3,0,0")


def test_centred_evaluation_keeps_a_far_ahead_seat_telling_its_moves_apart():
    """Without centring a lopsided game saturates every reward at 0 or 1; centred on the root, values stay mid-range."""
    st = engine.State.from_position(LOPSIDED)
    obs = st.observation(0)
    # without the endgame term, which moves a leading seat's rewards on purpose
    flat = ISMCTS(SearchParams().with_changes(eval_centre=0.0, endgame=0.0)).search(
        obs, 0, Limits(iterations=300), seed=1)
    centred = ISMCTS(SearchParams().with_changes(eval_centre=1.0, endgame=0.0)).search(
        obs, 0, Limits(iterations=300), seed=1)
    assert flat.root_value[0] > 0.99
    # centred, the root value says how the search expects the margin to move
    # (the leading seat's attacks raise it), far from saturation either way
    assert 0.1 < centred.root_value[0] < 0.9
    spread = lambda r: max(c.mean for c in r.candidates) - min(c.mean for c in r.candidates)
    assert spread(centred) > 10 * spread(flat)


def test_settled_rollouts_change_what_the_search_sees_of_a_conflict():
    """Playing a pending conflict out before the evaluation changes the statistics (same seed otherwise)."""
    st = engine.State.from_position(LOPSIDED)
    obs = st.observation(0)
    runs = [ISMCTS(SearchParams().with_changes(rollout_settle=s)).search(obs, 0, Limits(iterations=300), seed=1)
            for s in (False, True)]
    assert [c.visits for c in runs[0].candidates] != [c.visits for c in runs[1].candidates]


def test_endgame_term_changes_the_values_of_a_seat_that_leads():
    """With the endgame weight on (the default, 4), a leading seat values the same late position higher."""
    st = engine.State.from_position(LOPSIDED)
    obs = st.observation(0)
    runs = {w: ISMCTS(SearchParams().with_changes(endgame=w)).search(obs, 0, Limits(iterations=200), seed=1)
            for w in (0.0, 4.0)}
    default = ISMCTS().search(obs, 0, Limits(iterations=200), seed=1)
    assert [c.visits for c in default.candidates] == [c.visits for c in runs[4.0].candidates]
    assert runs[4.0].root_value[0] > runs[0.0].root_value[0]


PERFT_ROWS = {line.split("\t")[0]: line.split("\t")[3] for line in
              (Path(__file__).parent / "data" / "perft.tsv").read_text().splitlines()
              if line and not line.startswith("#")}


@pytest.mark.parametrize("name", ["building-choice", "building-move", "wonder-choice", "wonder-point",
                                  "english-war-attack", "english-revolt-defend", "midgame-all-variants"])


def test_search_decides_and_never_peeks_with_the_variants(name):
    """Variant decisions are searched like any other, from what the seat knows alone (R-VAR-*, R-INFO-1)."""
    s = engine.State.from_position(PERFT_ROWS[name])
    seat = s.to_act
    obs = s.observation(seat)
    w1 = engine.State.from_snapshot(determinize(obs, seat, random.Random(1)))
    w2 = engine.State.from_snapshot(determinize(obs, seat, random.Random(2)))
    r1 = ISMCTS().search(w1.observation(seat), seat, Limits(iterations=200), seed=3)
    r2 = ISMCTS().search(w2.observation(seat), seat, Limits(iterations=200), seed=3)
    assert stats(r1) == stats(r2) and r1.root_value == r2.root_value
    assert r1.best in s.legal_actions()


def test_evaluation_values_a_kingdom_with_its_building_and_a_king_by_the_wonder():
    """building: seat 1 has a leader in the kingdom of its colour's building; wonder: seat 2's king is by the wonder."""
    from ext.search import evaluation
    for name, weight, seat in (("building-move", "building", 1), ("wonder-point", "wonder", 2)):
        s = engine.State.from_position(PERFT_ROWS[name])
        off = evaluation.seat_values_of(s, SearchParams().with_changes(**{weight: 0.0}).eval_weights(s.players))
        on = evaluation.seat_values_of(s, SearchParams().with_changes(**{weight: 3.0}).eval_weights(s.players))
        assert on[seat] > off[seat]
        assert [v for p, v in enumerate(on) if p != seat] == [v for p, v in enumerate(off) if p != seat]


def test_look_ahead_plays_out_the_revolt_a_leader_would_start():
    """Seat 0 holds no red tile: any green leader by 1g's kingdom starts a revolt it loses (1 temple v 2).

    Valued as it stands, such a leader looks like a leader in a big kingdom
    and the look-ahead ordered it among the first decisions to try; played
    out (rollout_settle), it is valued as the lost revolt it is.
    """
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from diagram import position
    s = engine.State.from_snapshot(position("""
        e  f  g  h  i  j
    5   .  g  g  g  g  .
    6   .  r  1g r  .  .
    7   .  .  g  .  .  .
    """, turn_owner=0, hands=["kkbbgg", "rrrkkb"]))

    def starts_revolt(action):
        child = s.clone()
        child.apply(action)
        return child.phase == "revolt_attack"

    tried = {}
    for settle in (False, True):
        r = ISMCTS(SearchParams().with_changes(rollout_settle=settle)).search(
            s.observation(0), 0, Limits(iterations=40), seed=1)
        tried[settle] = [c.action for c in r.candidates if c.visits > 0]
    assert any(starts_revolt(a) for a in tried[False])
    assert not any(starts_revolt(a) for a in tried[True])


def _diagram_state(diagram, **kwargs):
    """Return the state of a board diagram, seat 0's turn (tests/diagram.py)."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from diagram import position
    return engine.State.from_snapshot(position(diagram, turn_owner=0, **kwargs))


def _priors(diagram, hands=None):
    """Return {notation: cheap prior} for seat 0 to act in a diagram (board outside it empty)."""
    from engine.actions import format_action
    from ext.search import evaluation
    s = _diagram_state(diagram, outside="empty", hands=hands)
    return {format_action(a): v for a, v in evaluation.score_actions_of(s).items()}


def _tree(state, params=SearchParams()):
    """Return a kernel tree reset on `state` for the seat to act, seed 1."""
    from ext.search.tree import Tree
    tree = Tree()
    params.configure(tree, state.players)
    tree.reset(state, state.to_act, 1)
    return tree


def test_a_tree_refuses_an_observer_who_is_not_to_act():
    """The root's decisions are listed once, from the observer's world: only the seat to act can observe."""
    state = engine.new_game(2, 7)
    state.apply(state.legal_actions()[0])               # seat 1 to act
    tree = _tree(state)
    tree.run(200)
    before = (tree.node_count, tree.children())
    with pytest.raises(ValueError, match=r"seat 1 is to act, not the observer \(seat 0\)"):
        tree.reset(state, 0, 1)
    with pytest.raises(ValueError, match=r"seat 0 is to act, not the observer \(seat 1\)"):
        state.apply(state.legal_actions()[0])
        tree.reroot(state, [], 1)
    assert (tree.node_count, tree.children()) == before


# 0k (2 black supporters) and 1k (none) are one black tile, on c5 or c6, from a war.
WAR = """
    a  b  c  d  e
5   0k k  .  1k .
6   r  k  .  r  .
"""


def test_cheap_prior_ranks_a_war_by_its_odds():
    """A tile on c5 or c6 unites the black kingdoms: first of all for the side with 3 supporters, last for the other.

    The cheap prior orders the opponents' decisions in the tree and every
    rollout decision, so a war the seat to act would win must come before
    its scoring tiles (R-WAR-2, R-WAR-3), and one it would lose after them.
    """
    strong = _priors(WAR)
    weak = _priors("""
        a  b  c  d  e
    5   1k k  .  0k .
    6   r  k  .  r  .
    """)
    for uniting in ("tile k c5", "tile g c6"):
        assert strong[uniting] == max(strong.values())
        assert weak[uniting] < weak["tile k e5"]          # e5 scores for 0k
        assert weak[uniting] == min(v for k, v in weak.items() if k.startswith("tile"))


def test_cheap_prior_ranks_a_revolt_by_its_odds():
    """A green leader on f5 revolts against 1g (R-REV-2): 2 temples + 3 reds against 1 wins, 2 + 0 against 3 loses."""
    strong = _priors("""
        e  f  g  h
    5   r  .  r  .
    6   r  1g .  .
    7   .  .  .  .
    """, hands=["rrrkbg", None])
    weak = _priors("""
        e  f  g  h
    5   r  .  r  .
    6   r  1g r  .
    7   .  r  .  .
    """, hands=["kkbbgg", None])
    assert strong["leader g f5"] == max(strong.values())
    assert weak["leader g f5"] < weak["leader k f5"]        # the same square without a revolt


def test_cheap_prior_commits_what_beats_every_tile_the_defender_could_add():
    """0k attacks 1k (2 supporters to none): it commits past the base by the most black 1 could hold (R-WAR-4).

    One black tile already beats the base, but a tie is the defender's, so a
    rollout that committed only that lost to any black tile in 1's hand; the
    look-ahead then ranked wars it would win below quiet moves.
    """
    from engine.actions import format_action
    from ext.search import evaluation

    def attack_priors(discarded=""):
        s = _diagram_state(WAR, outside="empty", hands=["kkkkkr", "bbggrr"], discarded=discarded)
        s.apply_text("tile k c5")
        assert (s.phase, s.to_act) == ("war_attack", 0)
        return {format_action(a): v for a, v in evaluation.score_actions_of(s).items()}

    full = attack_priors()              # 1's 6 tiles could all be black: 4 is all 0 has
    assert max(full, key=full.get) == "commit 4"
    # 21 black gone: 30 - 3 on the board - 4 in 0's hand - 21 = 2 black 1 could hold
    short = attack_priors(discarded="k" * 21)
    assert max(short, key=short.get) == "commit 2"
    assert short["commit 0"] > short["commit 1"]


def test_second_action_after_a_conflict_is_ordered_by_the_look_ahead():
    """After c5 or c6 starts the war and both sides commit, 0's second action is ordered by the look-ahead.

    Nearness to the root is counted in actions, not tree depth: ordered by
    the cheap prior three decisions down, the second action after a war was
    worse chosen than after a quiet first action, and the tree undervalued
    fighting first. Either tile unites the black kingdoms; the search need
    not widen both within its budget.
    """
    tree = _tree(_diagram_state(WAR, hands=["kkkkkr", "bbggrr"]))
    tree.run(3000)
    wars = [tree.child_of(-1, engine.parse_action(tile)) for tile in ("tile k c5", "tile k c6")]
    wars = [war for war in wars if war >= 0]
    assert wars, "the search never started the war"
    after_war = [defence for war in wars for attack in tree.children(war) for defence in tree.children(attack[6])
                 if defence[1] >= 2 and tree.children(defence[6])]
    assert after_war, "the search never reached 0's second action after the war"
    # (the node 3 decisions below the root where 0 chooses its second action)
    assert all(tree.lookahead_ordered(defence[6]) for defence in after_war)


@pytest.mark.parametrize("players,rounds,horizon", [(2, 0.5, 2), (2, 1.0, 4), (4, 1.0, 8),
                                                    (4, None, 8), (3, None, 6), (2, None, None)])


def test_rollout_rounds_value_every_leaf_at_the_same_point_of_the_game(players, rounds, horizon):
    """Every leaf is valued rounds * 2 * players actions after the root, or deeper where the tree already is.

    The default (None) is one round with 3 or 4 players and none with 2,
    where rollouts play rollout_depth decisions (counted by no horizon).
    """
    s = engine.new_game(players, 11)
    for _ in range(12):                       # into the middle of the opening
        s.apply(s.legal_actions()[len(s.legal_actions()) // 3])
    tree = _tree(s, SearchParams().with_changes(rollout_rounds=rounds))
    tree.run(300)
    if horizon is None:
        assert tree.leaf_actions_min <= 1     # only the tree's own actions were counted
        return
    assert tree.leaf_actions_min == horizon
    if horizon == 2:
        # 300 iterations grow the tree past 2 actions: those leaves are valued where they end
        assert tree.leaf_actions_max > horizon


def test_rollout_tail_passes_the_rounds_later_actions_and_keeps_the_horizon():
    """After rollout_tail_after actions of a rollout the rest of the round passes, valued at the same point.

    With tail_after 1 a 4-player rollout plays one epsilon-greedy action,
    then passes up to the horizon of 8 actions.
    """
    s = engine.new_game(4, 11)
    for _ in range(12):
        s.apply(s.legal_actions()[len(s.legal_actions()) // 3])
    plain = _tree(s, SearchParams().with_changes(rollout_tail_after=-1))
    plain.run(300)
    assert plain.tail_actions == 0
    cheap = _tree(s, SearchParams().with_changes(rollout_tail_after=1))
    cheap.run(300)
    assert cheap.leaf_actions_min == 8
    # most rollouts start fewer than 7 actions deep and pass at least once
    assert cheap.tail_actions >= 300
    again = _tree(s, SearchParams().with_changes(rollout_tail_after=1))
    again.run(300)
    assert again.children(-1) == cheap.children(-1) and again.tail_actions == cheap.tail_actions


def test_rollout_to_turn_values_every_leaf_at_the_start_of_a_turn():
    """With rollout_to_turn (the 2-player default) a rollout plays on until a seat is about to play both its actions.

    Without it a leaf is valued wherever the rollout's 3 decisions end, half
    of them with a turn half played; with it none, and the search's
    statistics differ (same seed otherwise).
    """
    s = engine.new_game(2, 11)
    for _ in range(12):
        s.apply(s.legal_actions()[len(s.legal_actions()) // 3])
    plain = _tree(s, SearchParams().with_changes(rollout_to_turn=False))
    plain.run(300)
    assert plain.mid_turn_leaves >= 50
    turn = _tree(s, SearchParams().with_changes(rollout_to_turn=True))
    turn.run(300)
    assert turn.mid_turn_leaves == 0
    assert turn.children(-1) != plain.children(-1)
    assert SearchParams().resolved(2).rollout_to_turn
    assert not SearchParams().resolved(3).rollout_to_turn and not SearchParams().resolved(4).rollout_to_turn


def test_look_ahead_ranks_first_a_war_won_by_committing_enough():
    """0k (2 supporters, 4 black in hand) against 1k (none): the uniting tile comes first in the root's look-ahead.

    Its play-out commits what beats all 1 could hold (R-WAR-4); committing
    only what beat the base lost to any black tile 1 held, and the war
    ranked below quiet moves.
    """
    tree = _tree(_diagram_state(WAR, hands=["kkkkkr", "bbggrr"]))
    first, value = tree.lookahead_order()[0]
    assert engine.format_action(first) in ("tile k c5", "tile k c6")


def test_dead_knobs_are_gone():
    """Knobs that measured no gain are not parameters any more (docs/strength.md keeps their measurements)."""
    from dataclasses import fields
    from ext.search import evaluation
    names = {f.name for f in fields(SearchParams)}
    for dead in ("exposure", "prior_visits", "commit_widen_base", "commit_widen_coef"):
        assert dead not in names
        with pytest.raises(SearchError, match="unknown search parameter"):
            SearchParams().with_changes(**{dead: 1.0})
    assert "exposure" not in evaluation.EVAL_FIELDS
    assert len(SearchParams().eval_weights(2)) == len(evaluation.EVAL_FIELDS)


def test_search_params_comments_are_short():
    """Every SearchParams field is explained in one or two comment lines; measurements live in docs/strength.md."""
    import inspect
    import search.params
    lines = inspect.getsource(search.params.SearchParams).splitlines()
    block = 0
    for line in lines:
        text = line.strip()
        if text.startswith("#"):
            block += 1
            assert block <= 2, f"comment longer than two lines before: {line}"
        else:
            block = 0


def test_cheap_prior_stays_in_its_sixteen_buckets():
    """Every prior is in 0..15 (the tree buckets by it): a losing revolt by a leader already on the board once gave -1."""
    from ext.search import evaluation
    seen = set()
    for game in range(40):
        s = engine.new_game(2 + game % 3, game)
        rng = random.Random(game)
        while not s.is_terminal():
            priors = evaluation.score_actions_of(s).values()
            seen.update(priors)
            s.apply(rng.choice(s.legal_actions()))
    assert min(seen) >= 0 and max(seen) <= 15


def _is_move(s, action):
    """Whether action moves a leader the seat to act has on the board."""
    from engine.actions import LEADER_BASE, SQUARES
    if not LEADER_BASE <= action < LEADER_BASE + 4 * SQUARES:
        return False
    return s.snapshot()["leaders"][s.to_act][(action - LEADER_BASE) // SQUARES] >= 0


@pytest.mark.slow
def test_rollouts_find_the_best_priors_without_listing_every_decision():
    """A rollout scores the tiles that touch the board and the leaders first; its best are the full list's, in order.

    It lists the moves of the leaders on the board only when the
    placements' best does not rank above MOVE_PRIOR_MAX, and merges those
    into gen_legal's order; every way is taken below.
    """
    from ext.search import evaluation
    ways = {"placements above every move": 0, "moves win": 0, "moves tie, merged": 0, "moves lose": 0}
    action_phase_best = 0
    for game in range(30):
        variants = (("buildings", "wonder"), ("english",), ())[game % 3]
        s = engine.new_game(2 + game % 3, game, variants=variants)
        rng = random.Random(game)
        while not s.is_terminal():
            priors = evaluation.score_actions_of(s)
            best = max(priors.values())
            assert evaluation._greedy_choices(s) == [a for a, v in priors.items() if v == best]
            action_phase_best += s.phase == "action" and best >= 4
            moves = [v for a, v in priors.items() if _is_move(s, a)]
            if s.phase == "action" and moves and best >= 4:
                placed = max([v for a, v in priors.items() if not _is_move(s, a)] + [-1])
                if placed > evaluation._MOVE_PRIOR_MAX:
                    ways["placements above every move"] += 1
                else:
                    ways["moves win" if max(moves) > placed else
                         "moves tie, merged" if max(moves) == placed else "moves lose"] += 1
            s.apply(rng.choice(s.legal_actions()))
    assert action_phase_best > 1000       # the short list served these
    assert min(ways.values()) >= 5, ways


def test_two_ascending_sublists_merge_into_one_with_their_scores():
    """merge_scored interleaves placements and moves as gen_legal orders them, each score with its action."""
    from ext.search import evaluation
    assert evaluation._merge_scored([3, 10, 700], [9, 8, 7], [5, 800], [1, 2]) == \
        ([3, 5, 10, 700, 800], [9, 1, 8, 7, 2])
    assert evaluation._merge_scored([], [], [5, 800], [1, 2]) == ([5, 800], [1, 2])
    assert evaluation._merge_scored([900, 901], [4, 4], [], []) == ([900, 901], [4, 4])
    assert evaluation._merge_scored([900, 901], [4, 4], [1, 2], [6, 6]) == ([1, 2, 900, 901], [6, 6, 4, 4])


@pytest.mark.slow
def test_moving_a_leader_ranks_no_higher_than_the_rollout_assumes():
    """The cheap prior ranks every move of a leader on the board at MOVE_PRIOR_MAX or less, which the short lists rely on."""
    from ext.search import evaluation
    move_priors = []
    for game in range(40):
        s = engine.new_game(2 + game % 3, 100 + game)
        rng = random.Random(game)
        while not s.is_terminal():
            if s.phase == "action":
                move_priors += [v for a, v in evaluation.score_actions_of(s).items() if _is_move(s, a)]
            s.apply(rng.choice(s.legal_actions()))
    assert len(move_priors) > 10000
    assert max(move_priors) <= evaluation._MOVE_PRIOR_MAX


def test_leaf_mix_blends_the_value_where_the_tree_stopped_into_the_rollouts():
    """A leaf's reward is leaf_mix times the rollout's value plus the rest times the value where the tree stopped.

    Each of the root's first 12 decisions on the WAR diagram gets one visit
    (the widening is wide enough), so its reward is one leaf's. With
    leaf_mix 0 a decision that leaves the action phase to go on is valued
    where it stands (as a search without rollouts values it); one that
    starts the war is not read mid-conflict and keeps the rollout's value.
    Nothing is dealt (every tile is the diagram's) and the same seed plays
    the same rollouts, so 0.5 is the mean of 0 and 1 exactly.
    """
    state = _diagram_state(WAR, hands=["kkkkkr", "bbggrr"])
    wide = SearchParams().with_changes(widen_base=12.0)

    def first_visits(**changes):
        tree = _tree(state, wide.with_changes(**changes))
        tree.set_deal("none")           # no deal draws from the seed: only the rollouts do
        tree.run(12)
        return {a: r[0] for a, visits, _, r, _, _, _ in tree.children() if visits == 1}

    rollout = first_visits()
    stopped = first_visits(leaf_mix=0.0)
    unrolled = first_visits(rollout_depth=0, rollout_to_turn=False)     # settles only a conflict
    half = first_visits(leaf_mix=0.5)
    assert len(rollout) == 12 and rollout.keys() == stopped.keys() == unrolled.keys() == half.keys()
    in_action = {a for a in rollout if _after(state, a).phase == "action"}
    assert in_action and in_action != set(rollout)            # the war's tiles start a conflict
    for a in rollout:
        assert stopped[a] == pytest.approx(unrolled[a] if a in in_action else rollout[a], abs=1e-6)
        assert half[a] == pytest.approx((rollout[a] + stopped[a]) / 2, abs=1e-6)
    assert any(abs(rollout[a] - stopped[a]) > 1e-3 for a in in_action)


def test_leaf_mix_0_plays_no_rollout_where_it_reads_the_tree():
    """With leaf_mix 0 a leaf read where the tree stopped is not rolled out: its time goes to iterations.

    On the WAR diagram each of the root's first 12 decisions gets one visit;
    those that stay in the action phase are read where they stand and none
    of them plays a rollout, the war's are rolled out as before. Any share
    above 0 still rolls every leaf out.
    """
    state = _diagram_state(WAR, hands=["kkkkkr", "bbggrr"])
    wide = SearchParams().with_changes(widen_base=12.0)
    in_action = [a for a in state.legal_actions() if _after(state, a).phase == "action"]
    counts = {}
    for mix in (0.0, 0.01, 1.0):
        tree = _tree(state, wide.with_changes(leaf_mix=mix))
        tree.set_deal("none")
        tree.run(12)
        assert sum(1 for c in tree.children() if c[1] == 1) == 12
        counts[mix] = tree.unrolled_leaves
    assert 0 < counts[0.0] < 12 and counts[0.0] <= len(in_action)
    assert counts[0.01] == counts[1.0] == 0


def test_leaf_mix_at_turn_reads_the_tree_only_where_a_turn_starts():
    """With leaf_mix_at "turn" the value where the tree stopped is blended in only at a turn's start.

    On the WAR diagram with seat 0's last action to play, each of the
    root's first 12 decisions that stays in the action phase hands the
    turn to seat 1, about to play both its actions: a leaf there is read
    where it stopped, as with "action". With both of seat 0's actions to
    play the same decisions stop mid-turn and keep the rollout's value.
    """
    wide = SearchParams().with_changes(widen_base=12.0)

    def first_visits(state, **changes):
        tree = _tree(state, wide.with_changes(**changes))
        tree.set_deal("none")
        tree.run(12)
        return {a: r[0] for a, visits, _, r, _, _, _ in tree.children() if visits == 1}

    for actions_left in (1, 2):
        state = _diagram_state(WAR, hands=["kkkkkr", "bbggrr"], actions_left=actions_left)
        rollout = first_visits(state)
        anywhere = first_visits(state, leaf_mix=0.0)
        at_turn = first_visits(state, leaf_mix=0.0, leaf_mix_at="turn")
        assert len(rollout) == 12 and rollout.keys() == anywhere.keys() == at_turn.keys()
        turn_starts = set()
        for a in rollout:
            after = _after(state, a)
            if after.phase == "action" and after.actions_left == 2:
                turn_starts.add(a)
            assert at_turn[a] == pytest.approx(anywhere[a] if a in turn_starts else rollout[a], abs=1e-6)
        if actions_left == 1:
            assert turn_starts and any(abs(rollout[a] - anywhere[a]) > 1e-3 for a in turn_starts)
        else:
            assert not turn_starts and any(abs(rollout[a] - anywhere[a]) > 1e-3 for a in rollout)


def _after(state, action):
    """Return a copy of the state after an action."""
    s = state.clone()
    s.apply(action)
    return s


def test_root_kinds_puts_the_best_of_each_kind_first_and_keeps_the_rest_in_order():
    """With root_kinds the root widens by the best tile, leader, withdrawal, catastrophe and swap first.

    The look-ahead's order is otherwise kept: the front is those decisions
    in their own order, then every other decision as it was ranked.
    """
    tree = _tree(_diagram_state(WAR, hands=["kkkkkr", "bbggrr"]))
    plain = [a for a, _ in tree.lookahead_order()]
    kinds = _tree(_diagram_state(WAR, hands=["kkkkkr", "bbggrr"]), SearchParams().with_changes(root_kinds=True))
    ordered = kinds.lookahead_order()
    assert sorted(ordered) == sorted(tree.lookahead_order())

    def kind(action):
        return engine.format_action(action).split()[0]     # tile, leader, withdraw, cat, swap, pass

    best_of_kind = {}
    for a in plain:
        best_of_kind.setdefault(kind(a), a)
    front = [a for a in plain if a == best_of_kind[kind(a)] and kind(a) != "pass"]
    assert len(front) >= 4, front                          # tiles, leaders, catastrophes and swaps are legal
    assert [a for a, _ in ordered] == front + [a for a in plain if a not in front]
    assert [a for a, _ in ordered][:len(front)] != plain[:len(front)]


def _halving_search(obs, seat, limits, seed=4, workers=1, **changes):
    """Return (result, the look-ahead's order at the root) of a search with sequential halving at the root."""
    search = ISMCTS(SearchParams(root_policy="halving", **changes), workers)
    try:
        result = search.search(obs, seat, limits, seed=seed)
    finally:
        search.close()
    order = None if workers > 1 else [a for a, _ in search._tree.lookahead_order()]
    return result, order


def test_halving_spends_the_budget_on_the_look_aheads_first_and_decides_by_the_last_standing():
    """root_policy "halving": 2 + 0.5 * sqrt(1,000) = 17 candidates, 5 rounds of 200 iterations.

    Only the look-ahead's first 17 decisions are searched; each gets its
    share of the first round (200 // 17); the two that reach the last round
    have the most visits, and the decision is the better mean of those two.
    """
    s = midgame(players=2, seed=3)
    seat = s.to_act
    result, order = _halving_search(s.observation(seat), seat, Limits(iterations=1000))
    assert len(order) > 17
    visits = {c.action: c.visits for c in result.candidates}
    assert result.iterations == 1000 and sum(visits.values()) == 1000
    assert set(visits) == set(order[:17])
    assert min(visits.values()) >= 200 // 17
    finalists = sorted(result.candidates, key=lambda c: -c.visits)[:2]
    assert result.best in (finalists[0].action, finalists[1].action)
    assert result.candidates[0].action == result.best
    assert result.candidates[0].mean == max(f.mean for f in finalists)
    assert abs(finalists[0].visits - finalists[1].visits) <= 1
    assert finalists[1].visits > sorted(visits.values())[-3]


def test_halving_is_reproducible_never_peeks_and_differs_from_ucb():
    s = midgame(players=3, seed=8)
    seat = s.to_act
    obs = s.observation(seat)
    o1, o2 = two_worlds_seen_alike(obs, seat)
    a, _ = _halving_search(o1, seat, Limits(iterations=600))
    b, _ = _halving_search(o2, seat, Limits(iterations=600))
    assert a.best == b.best and stats(a) == stats(b) and a.root_value == b.root_value
    plain = ISMCTS().search(obs, seat, Limits(iterations=600), seed=4)
    assert stats(plain) != stats(a)


@pytest.mark.slow
def test_halving_with_workers_and_with_a_time_limit_decides_among_the_candidates():
    """Two workers each halve their own tree; under a clock the plan is the speed of a first UCB1 run."""
    s = midgame(players=2, seed=5)
    seat = s.to_act
    obs = s.observation(seat)
    a, _ = _halving_search(obs, seat, Limits(iterations=800), workers=2)
    b, _ = _halving_search(obs, seat, Limits(iterations=800), workers=2)
    assert a.iterations == 800 and a.best == b.best and stats(a) == stats(b)
    timed, order = _halving_search(obs, seat, Limits(seconds=0.05))
    assert timed.iterations >= 1 and timed.best in order and timed.candidates[0].action == timed.best


def _candidate_stats(state, candidates, iterations, paired):
    """Return {action: (visits, reward sums)} of a tree limited to `candidates` after `iterations`."""
    tree = _tree(state, SearchParams(paired_worlds=paired))
    tree.set_root_candidates(candidates)
    tree.run(iterations)
    return {a: (v, rewards) for a, v, _, rewards, *_ in tree.children()}


def test_paired_worlds_give_every_candidate_the_same_world_on_the_same_visit():
    """paired_worlds: a root candidate's k-th visit meets the search's k-th world (deal and random stream).

    So after one sweep of four candidates each has the reward it has when
    it is the only candidate and searched once: all four met world 0.
    Without it the sweep's visits draw the stream's next worlds, and only
    the first candidate's matches. (Later visits also descend the tree
    below the candidate, whose ties are rotated by node and so by the
    order the nodes were made in: the worlds pair, the subtrees need not.)
    """
    s = midgame(players=2, seed=3)
    candidates = [action for action, _ in _tree(s).lookahead_order()][:4]
    for paired in (True, False):
        sweep = _candidate_stats(s, candidates, 4, paired)
        alone = [_candidate_stats(s, [x], 1, paired)[x] for x in candidates]
        assert [sweep[x][0] for x in candidates] == [1, 1, 1, 1]
        same = [sweep[x] == first for x, first in zip(candidates, alone)]
        assert same == ([True] * 4 if paired else [True, False, False, False])


def test_paired_worlds_change_nothing_under_ucb_and_never_peek():
    s = midgame(players=3, seed=8)
    seat = s.to_act
    obs = s.observation(seat)
    plain = ISMCTS().search(obs, seat, Limits(iterations=400), seed=4)
    assert stats(ISMCTS(SearchParams(paired_worlds=True)).search(obs, seat, Limits(iterations=400), seed=4)) \
        == stats(plain)
    o1, o2 = two_worlds_seen_alike(obs, seat)
    r1, _ = _halving_search(o1, seat, Limits(iterations=600), paired_worlds=True)
    r2, _ = _halving_search(o2, seat, Limits(iterations=600), paired_worlds=True)
    unpaired, _ = _halving_search(obs, seat, Limits(iterations=600))
    assert stats(r1) == stats(r2) and r1.root_value == r2.root_value and stats(r1) != stats(unpaired)


def test_a_tree_limits_its_root_to_candidates_and_refuses_what_is_not_a_root_decision():
    s = midgame(players=2, seed=3)
    tree = _tree(s)
    order = [a for a, _ in tree.lookahead_order()]
    outside = next(a for a in range(1 << 14) if a not in order)
    for bad, message in (([order[0], outside], f"action {outside} is not one of the root's decisions"),
                         ([], "at least one candidate")):
        with pytest.raises(ValueError, match=message):
            tree.set_root_candidates(bad)
        assert tree.root_candidates() is None
    tree.set_root_candidates([order[5], order[2]])
    assert tree.root_candidates() == [order[2], order[5]]
    tree.run(300)
    visits = {a: v for a, v, *_ in tree.children()}
    assert set(visits) == {order[2], order[5]} and sorted(visits.values()) == [150, 150]
    tree.set_root_candidates(None)
    tree.run(300)
    assert tree.root_candidates() is None and len(tree.children()) > 2
    tree.set_root_candidates([order[0]])
    tree.reroot(s, [], 2)
    assert tree.root_candidates() is None
