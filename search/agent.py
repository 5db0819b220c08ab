"""The one interface every player program implements, and the limits it is given.

An agent sees only its own seat's information: the arena (or the protocol)
tells it the seat and the observation at the start (`new_game`), every
decision taken by anyone with the observation after it (`apply`), and asks it
for a decision when its seat is to act (`choose`). It never receives another
seat's tiles or the bag order.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Optional

from engine.errors import EngineError


class SearchError(EngineError):
    """Raise when a search cannot be run: terminal state, wrong seat, bad observation."""


@dataclass(frozen=True)
class Limits:
    """How long one decision may take: iterations, wall time in seconds, or both."""

    iterations: Optional[int] = None
    seconds: Optional[float] = None

    def __post_init__(self):
        if self.iterations is not None and (isinstance(self.iterations, bool) or self.iterations < 1):
            raise SearchError(f"iterations must be a positive int, got {self.iterations!r}")
        if self.seconds is not None and not self.seconds > 0:
            raise SearchError(f"seconds must be positive, got {self.seconds!r}")


class Agent(ABC):
    """A player: told what its seat sees, asked for decisions."""

    name = "agent"

    def new_game(self, seat: int, observation: dict) -> None:
        """Start a game as `seat` from its observation (engine.info.observation)."""
        self.seat = seat
        self.observation = observation

    def apply(self, action: int, observation: dict) -> None:
        """Take note of a decision (anyone's) and the seat's observation after it."""
        self.observation = observation

    @abstractmethod
    def choose(self, limits: Limits = Limits()) -> int:
        """Return the decision for the current observation (this seat must be to act)."""

    def stop(self) -> None:
        """Ask a running choose() to return as soon as it can (from another thread)."""

    def check_turn(self) -> None:
        """Raise SearchError unless this agent's seat is to act in a live game."""
        obs = self.observation
        if obs["phase"] == "over":
            raise SearchError("the game is over: there is no decision to make")
        if obs["to_act"] != self.seat:
            raise SearchError(f"seat {obs['to_act']} is to act, not this agent's seat {self.seat}")
