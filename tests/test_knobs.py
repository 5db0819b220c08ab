"""One declaration per search knob (search.params.KNOBS): SearchParams, params files, the bot's options and flags, and the kernel's configuration all follow it."""
from __future__ import annotations

import dataclasses
import math

import pytest
from click.testing import CliRunner

from ext.search.evaluation import EVAL_FIELDS
from ext.search.tree import Tree
from search.agent import SearchError
from search.learned_value import weights_path
from search.params import FIELD_RANGES, KNOBS, SearchParams, check_value, field_kind, params_from_dict
from tne_ai.protocol.bot import BotSession, bot_command
from tne_ai.protocol.codec import OPTIONS, find_option

KERNEL_KNOBS = [k for k in KNOBS if k.kernel is not None]
OPTION_KNOBS = [k for k in KNOBS if k.option is not None]


def handshake(**options) -> list:
    lines = []
    session = BotSession(lines.extend, options)
    try:
        session.handle("tne")
    finally:
        session.close()
    return lines


def test_every_knob_is_a_searchparams_field_with_its_default_in_the_tables_order():
    assert [(f.name, f.default) for f in dataclasses.fields(SearchParams)] == [(k.name, k.default) for k in KNOBS]
    assert set(SearchParams().to_dict()) == {k.name for k in KNOBS}
    for k in KNOBS:
        assert field_kind(k.name) == k.type.__name__ + ("?" if k.default is None else "")
        assert (k.name in FIELD_RANGES) == (k.low is not None)
        if k.by_players is not None:
            assert k.default is None and set(k.by_players) == {2, 3, 4}
            for players, value in k.by_players.items():
                assert getattr(SearchParams().resolved(players), k.name) == value


@pytest.mark.parametrize("knob", KNOBS, ids=lambda k: k.name)
def test_a_params_file_checks_every_knob_by_the_table(knob):
    if knob.type is str:
        good = weights_path(2) if knob.check_file else knob.choices[-1]
    else:
        good = {float: 0.5 if knob.high is None or knob.high >= 0.5 else knob.high, int: 1, bool: False}[knob.type]
    assert getattr(params_from_dict({knob.name: good}), knob.name) == good
    bad = {float: "x", int: 1.5, bool: 1, str: "" if knob.check_file else "nonsense"}[knob.type]
    with pytest.raises(SearchError, match=repr(knob.name)):
        check_value(knob.name, bad)
    if knob.high is not None:
        with pytest.raises(SearchError, match="out of range"):
            check_value(knob.name, knob.high + 1)


def test_every_option_knob_is_announced_by_tne_and_is_a_bot_flag():
    lines = handshake()
    help_text = CliRunner().invoke(bot_command, ["--help"], terminal_width=200).output
    for k in OPTION_KNOBS:
        spec = find_option(k.option)
        assert spec.field == k.name and spec.default == k.default
        line = f"option name {k.option} type {spec.type} default {spec.text_value(k.default)}"
        assert any(x == line or x.startswith(line + " min ") for x in lines), (line, lines)
        if k.flag is not None:
            assert k.flag in help_text and f"Option {k.option}: {k.help}." in help_text
    # and only theirs: every option that sets a field is a knob's
    assert {o.field for o in OPTIONS if o.field} == {k.name for k in OPTION_KNOBS}


def test_the_options_set_the_searched_params_and_a_params_file_their_start():
    changed = {}
    for k in OPTION_KNOBS:
        spec = find_option(k.option)
        changed[k.option] = (not k.default if spec.type == "check" else
                             spec.max if spec.type == "spin" else spec.max / 2)
    session = BotSession(lambda lines: None, changed)
    try:
        params = session._params()
        for k in OPTION_KNOBS:
            if k.name != "reuse_tree":      # the session's affair: its kernel always may keep the tree
                assert getattr(params, k.name) == changed[k.option]
    finally:
        session.close()
    base = SearchParams().with_changes(**{k.name: changed[k.option] for k in OPTION_KNOBS})
    session = BotSession(lambda lines: None, params=base)
    try:
        assert all(session.options[k.option] == changed[k.option] for k in OPTION_KNOBS)
    finally:
        session.close()


def _other(value):
    """Return a value of the same type that differs from `value` (and fits any knob's range)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    return 0.25 if value != 0.25 else 0.5


def test_every_kernel_knob_round_trips_through_the_kernel_by_name():
    tree = Tree()
    values = SearchParams().kernel_values(4)
    assert set(values) == {k.kernel for k in KERNEL_KNOBS}
    tree.configure(values)
    assert set(tree.configuration()) == set(values)        # the kernel reads every knob the table gives it, no more
    for name, value in values.items():
        assert tree.configuration()[name] == pytest.approx(float(value), rel=1e-6)
    for name, value in values.items():
        new = _other(value)
        tree.configure({name: new})
        after = tree.configuration()
        assert after[name] == pytest.approx(float(new), rel=1e-6), name
        assert all(after[n] == pytest.approx(float(v), rel=1e-6) for n, v in values.items() if n != name)
        tree.configure({name: value})


def test_the_kernel_refuses_an_unknown_name_or_a_wrong_type_and_changes_nothing():
    tree = Tree()
    tree.configure(SearchParams().kernel_values(2))
    before = tree.configuration()
    with pytest.raises(ValueError, match="'explore'.*exploration"):
        tree.configure({"exploration": 2.0, "explore": 1.0})
    with pytest.raises(TypeError, match="rollout_depth"):
        tree.configure({"exploration": 2.0, "rollout_depth": 2.5})
    assert tree.configuration() == before


def test_the_evaluation_weights_follow_the_kernels_names():
    p = SearchParams(eval_scale=2.5, tau=3.0)
    weights = dict(zip(EVAL_FIELDS, p.eval_weights(3)))
    values = p.kernel_values(3)
    assert weights == {n: values[n] for n in EVAL_FIELDS}
    assert weights["scale"] == 2.5 and weights["tau"] == 3.0


def test_a_search_changes_with_a_knob_set_by_name():
    import engine
    from search.agent import Limits
    from search.ismcts import ISMCTS
    state = engine.new_game(2, 3)
    obs_seat = state.to_act
    from engine.info import observation
    obs = observation(state.snapshot(), obs_seat)
    runs = {c: ISMCTS(SearchParams(exploration=c)).search(obs, obs_seat, Limits(iterations=300), seed=1)
            for c in (0.05, 5.0)}
    assert [c.visits for c in runs[0.05].candidates] != [c.visits for c in runs[5.0].candidates]


def test_root_exploration_widens_the_root_alone():
    """root_exploration None explores the root as every node; a larger one spreads the root's visits wider."""
    import engine
    from engine.info import observation
    from search.agent import Limits
    from search.ismcts import ISMCTS
    state = engine.new_game(2, 3)
    seat = state.to_act
    obs = observation(state.snapshot(), seat)

    def visits(**knobs):
        result = ISMCTS(SearchParams(**knobs)).search(obs, seat, Limits(iterations=600), seed=4)
        return sorted((c.visits for c in result.candidates), reverse=True)

    same = visits()
    assert visits(root_exploration=SearchParams().resolved(2).exploration) == same
    wide, narrow = visits(root_exploration=2.0), visits(root_exploration=0.0)
    assert wide[0] < same[0] < narrow[0]        # the most visited decision's share falls as the root widens
    with pytest.raises(SearchError, match="root_exploration >= 0"):
        SearchParams(root_exploration=-0.1)


def test_reply_widen_coef_widens_the_other_seats_nodes_alone():
    """reply_widen_coef None widens replies as widen_coef does; another value changes the replies' width, not the observer's."""
    import engine
    state = engine.new_game(2, 3)
    observer = state.to_act

    def widths(**knobs):
        """Return the root's children and the children of the other seat's nodes, summed over the tree."""
        tree = Tree()
        SearchParams(**knobs).configure(tree, 2)
        tree.reset(state, observer, 1)
        tree.run(2000)
        replies = 0
        stack = [-1]
        while stack:
            for _action, visits, _avail, _rewards, _sq, actor, node in tree.children(stack.pop()):
                replies += actor != observer
                if visits > 1:
                    stack.append(node)
        return tree.children(), replies

    same = widths()
    assert widths(reply_widen_coef=SearchParams().resolved(2).widen_coef) == same
    narrow_root, narrow = widths(reply_widen_coef=0.0)
    wide_root, wide = widths(reply_widen_coef=2.0)
    assert narrow < same[1] < wide                  # the replies' children grow with their own coefficient
    assert len(narrow_root) == len(same[0]) == len(wide_root)   # the observer's root widens as before
    with pytest.raises(SearchError, match="reply_widen_coef"):
        params_from_dict({"reply_widen_coef": -0.5})


def test_nan_is_no_value_of_a_number_knob():
    for k in KNOBS:
        if k.type is float:
            with pytest.raises(SearchError, match="finite"):
                check_value(k.name, math.nan)
