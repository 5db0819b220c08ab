"""Twins: the search told what it may not know, to measure what hiding costs (the arena only).

`twin-hands` is the shipped search told every other seat's hand: each
iteration keeps the hands as they are and deals only the bag and the swapped
piles afresh. `twin-all` is told everything: hands, swapped piles and the
bag's order, and deals nothing. Either against the shipped search measures
what the hidden tiles cost it (docs/strength.md, "The cost of hidden
information").

A twin reads the true state, so it exists for measurement alone: the arena
(`tne-ai arena --a twin-hands`) tells it the truth before each decision, and
every other way in (`tne-ai bot`, `play`, `analyze`, `serve`, the analysis
server, the referee's engine processes) refuses it by name through
`refuse_twin`. Nothing the protocol carries can tell a twin the truth.
"""
from __future__ import annotations

from typing import Optional

import engine
from search.agent import Limits, SearchError
from search.ismcts import ISMCTS, ISMCTSAgent
from search.params import SearchParams

# name -> how its tree deals what its seat has not seen (ext.search.tree DEAL_MODES)
TWINS = {"twin-hands": "hands-told", "twin-all": "none"}


class TwinError(SearchError):
    """Raise when a twin is asked for where only a seat's own knowledge may be used."""


def refuse_twin(name: str, where: str) -> None:
    """Raise TwinError if `name` names a twin: `where` (a command, a server) plays only from what a seat knows."""
    if str(name).strip().lower() in TWINS:
        raise TwinError(f"{name} is told hidden tiles: it measures what hiding costs in `tne-ai arena` "
                        f"only, and {where} plays from what a seat knows")


class TwinSearch(ISMCTS):
    """The search rooted in the true state, dealing only what its twin kind is not told."""

    def __init__(self, deal: str, params: SearchParams = SearchParams()):
        if deal not in TWINS.values():
            raise SearchError(f"unknown twin deal {deal!r}")
        super().__init__(params, workers=1)
        self.deal = deal
        self.truth: Optional[dict] = None       # the true snapshot, set by the arena before each search

    def _world(self, observation: dict, seat: int, seed: int) -> engine.State:
        if self.truth is None:
            raise SearchError("a twin searches the true state: the arena tells it before each decision")
        if self.truth["to_act"] != seat or self.truth["phase"] != observation["phase"]:
            raise SearchError("the true state told to the twin is not the observation's position")
        return engine.State.from_snapshot(self.truth)

    def _prepare(self, tree, state, seat, seed) -> None:
        tree.set_deal(self.deal)


class TwinAgent(ISMCTSAgent):
    """An ISMCTSAgent told the hidden tiles (`told_hidden`: the arena calls tell(snapshot) before each choose)."""

    told_hidden = True

    def __init__(self, kind: str, seed: int = 0, params: SearchParams = SearchParams(),
                 limits: Limits = Limits(iterations=1000)):
        if kind not in TWINS:
            raise SearchError(f"unknown twin {kind!r}; known: {', '.join(TWINS)}")
        super().__init__(seed=seed, params=params, workers=1, limits=limits)
        self.name = kind
        self.search_engine = TwinSearch(TWINS[kind], params)

    def tell(self, snapshot: dict) -> None:
        """Take the true state of the game (the arena's, before this seat decides)."""
        self.search_engine.truth = snapshot


def twin_hands(seed: int = 0, params: SearchParams = SearchParams(), limits: Limits = Limits(iterations=1000)):
    """Return a twin told the other seats' hands (the bag stays hidden)."""
    return TwinAgent("twin-hands", seed, params, limits)


def twin_all(seed: int = 0, params: SearchParams = SearchParams(), limits: Limits = Limits(iterations=1000)):
    """Return a twin told everything (hands, swapped piles, the bag's order)."""
    return TwinAgent("twin-all", seed, params, limits)
