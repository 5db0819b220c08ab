"""Teaching mode: a decision valued before it is final, with a warning when it loses too much win chance.

Shared by `tne-ai play --teach` and the web game (`tne-ai serve`), as
KaTrain's teaching mode does it: the human's decision is valued against the
engine's best from the seat's own knowledge (search.review.review_decision,
the review's valuation: one world dealt from the seat's observation, both
decisions applied to it and valued by equal searches with one seed). The
true state is not touched, so tiles the decision would draw are not drawn
yet: the check's world deals them from what the seat knows.

The warning goes by the loss's 95% lower bound, as the review's marks do:
a decision is called a loss only when the noise of the search does not
explain it. With the default threshold of 0.10 teaching mode warns of
exactly the decisions `tne-ai review` marks as mistakes or blunders.
"""
from __future__ import annotations

import math

from engine.actions import format_action
from search.agent import Limits
from search.calibration import load_map
from search.ismcts import ISMCTS
from search.review import review_decision

DEFAULT_THRESHOLD = 0.10      # win-chance points (0.10: ten points), the review's `mistake`
TEACH_ITERATIONS = 1000       # the check's search size: a fixed limit, so its cost per decision is known
ANSWERS = {"play": "play it anyway", "back": "take it back", "best": "play the engine's best instead"}


def parse_threshold(value) -> float:
    """Return a teaching threshold as a float in (0, 1); ValueError naming what is wrong."""
    if isinstance(value, bool):
        raise ValueError(f"the teaching threshold is a number between 0 and 1 (win chance), got {value!r}")
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"the teaching threshold is a number between 0 and 1 (win chance), "
                         f"got {str(value)[:20]!r}") from None
    if not math.isfinite(t) or not 0 < t < 1:
        raise ValueError(f"the teaching threshold must be above 0 and below 1 (win chance: 0.10 is ten "
                         f"points), got {str(value)[:20]}")
    return t


def check_decision(searcher: ISMCTS, obs: dict, action: int, ply: int, seed: int, threshold: float,
                   iterations: int = TEACH_ITERATIONS) -> dict:
    """Value a decision from its seat's observation against the engine's best; return the check as plain data.

    `ply` (the decision's number in the game) and `seed` seed the searches as
    the review's do, so the same decision in the same position gets the same
    answer. `warn` is whether the loss's lower bound reaches `threshold`.
    """
    seat = obs["to_act"]
    r = review_decision(searcher, (ply, seat, obs, action, None), Limits(iterations), seed)
    units = "win chance" if load_map(int(obs["players"]), str(obs["board"])) is not None else "search value"
    return {"move": format_action(action), "action": action, "best": r["best"], "best_action": r["best_action"],
            "loss": r["loss"], "loss_low": r["loss_low"], "loss_high": r["loss_high"], "units": units,
            "played_win": r["played_win"], "best_win": r["best_win"], "threshold": threshold,
            "warn": r["best_action"] != action and r["loss_low"] >= threshold - 1e-12,
            "iterations": iterations, "searches": r["searches"]}


def warning_text(check: dict, dash: str = "-") -> str:
    """Return the warning in words, e.g. 'this decision loses about 0.14 win chance (0.08-0.20); the engine prefers X'."""
    return (f"{check['move']}: this decision loses about {check['loss']:.2f} {check['units']} "
            f"({check['loss_low']:.2f}{dash}{check['loss_high']:.2f}); the engine prefers {check['best']}")
