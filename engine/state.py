"""The rules engine's Python face: a checked, documented API over ext.core.

`State` is the Cython state (`ext.core.CoreState`) with typed errors and the
text helpers; snapshots are checked by engine.position.check_snapshot and the
rules themselves live in the kernels.
"""
from __future__ import annotations

from ext import core
from engine import actions as A
from engine.boards import BOARD_NAMES, load_board
import operator

from engine.errors import ConsistencyError, EngineError, IllegalActionError, PositionError, shown
from engine.legality import why_illegal
from engine.position import check_snapshot

for _bid, _name in enumerate(BOARD_NAMES):
    _b = load_board(_name)
    core.register_board(_name, _bid, sorted(_b.river), list(_b.temples), sorted(_b.special))

PHASES = core.PHASE_NAMES
_SEED_MASK = (1 << 64) - 1


class State(core.CoreState):
    """A Tigris & Euphrates game state (Cython core, struct-copy clone)."""

    __slots__ = ()

    @classmethod
    def new_game(cls, players: int = 2, seed: int = 0, board: str = "standard",
                 variants=()) -> "State":
        """Return a new game set up from a seed, with any of the 2015 variants (docs/engine.md)."""
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise EngineError(f"players must be 2, 3 or 4, got {players!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise EngineError(f"seed must be an int, got {seed!r}")
        if board not in BOARD_NAMES:
            raise EngineError(f"unknown board {board!r}; expected one of {', '.join(BOARD_NAMES)}")
        bits = variant_bits(variants, EngineError)
        st = cls.__new__(cls)
        st._setup(players, BOARD_NAMES.index(board), seed & _SEED_MASK, bits)
        return st

    @classmethod
    def from_snapshot(cls, snap: dict) -> "State":
        """Return the state a snapshot dict describes; PositionError names a bad field."""
        check_snapshot(snap, full=True)
        st = cls.__new__(cls)
        st._load(snap)
        problems = st._consistency_problems()
        if problems:
            raise PositionError(f"inconsistent position: {problems[0]}")
        return st

    def apply(self, action: int) -> None:
        """Apply a legal decision; raise IllegalActionError and keep the state if not legal."""
        if isinstance(action, bool):
            raise IllegalActionError(f"action must be an int, got {action!r}")
        try:
            action = operator.index(action)     # ints and numpy ints, like engine.reference
        except TypeError:
            raise IllegalActionError(f"action must be an int, got {shown(action)}") from None
        if not 0 <= action < A.NUM_ACTIONS:     # before the C int conversion (OverflowError)
            raise IllegalActionError(f"action {shown(action)} does not exist (0..{A.NUM_ACTIONS - 1})")
        if not self._apply_raw(action):
            raise IllegalActionError(self._why_illegal(action))

    def _why_illegal(self, action: int) -> str:
        try:
            text = A.format_action(action)
        except A.NotationError:
            return f"action {action} does not exist (0..{A.NUM_ACTIONS - 1})"
        reason = why_illegal(self.snapshot(), action)
        if reason is None:      # the reasons disagree with the kernel: a bug, but say what we know
            reason = f"not legal in phase {self.phase} for seat {self.to_act}"
        return f"illegal action {text!r}: {reason}"

    def result(self) -> list:
        """Return each seat's rank, 0 = winner; full ties share a rank (R-END-2)."""
        return rank_scores(self.scores())

    def check_consistency(self) -> None:
        """Check every invariant from scratch; raise ConsistencyError on the first broken one."""
        problems = self._consistency_problems()
        if problems:
            raise ConsistencyError("; ".join(problems[:5]))

    # ------------------------------------------------------------ text and information

    def legal_moves(self) -> list:
        """Return the legal decisions as notation strings, sorted like legal_actions()."""
        return [A.format_action(a) for a in self.legal_actions()]

    def apply_text(self, text: str) -> int:
        """Parse a decision in notation (e.g. 'tile r f7'), apply it and return its int."""
        action = A.parse_action(text)
        self.apply(action)
        return action

    def position(self, hidden: bool = False) -> str:
        """Return the one-line position string (with the hidden part if asked)."""
        from engine.position import format_position
        return format_position(self.snapshot(), hidden=hidden)

    @classmethod
    def from_position(cls, text: str) -> "State":
        """Return the state of a full position string (hidden part included)."""
        from engine.position import parse_position
        return cls.from_snapshot(parse_position(text))

    def render(self, seat=None) -> str:
        """Return an ASCII drawing of the board and the public state (and seat's hand)."""
        from engine.render import render
        return render(self.snapshot(), seat)

    def observation(self, seat: int) -> dict:
        """Return what a seat knows with perfect memory (R-INFO-1)."""
        from engine.info import observation
        return observation(self.snapshot(), seat)

    def determinize(self, seat: int, rng) -> "State":
        """Return a state dealing seat's unseen tiles at random (rng: random.Random)."""
        from engine.info import determinize
        return type(self).from_snapshot(determinize(self.snapshot(), seat, rng))

    def __repr__(self) -> str:
        return (f"<State {self.players}p {self.board_name} turn_owner={self.turn_owner} "
                f"to_act={self.to_act} phase={self.phase}>")


def strength_vector(colour_scores, treasures: int) -> tuple:
    """Return the ascending colour totals after placing treasures on the weakest (R-END-2)."""
    totals = list(colour_scores)
    for _ in range(treasures):
        totals[totals.index(min(totals))] += 1
    return tuple(sorted(totals))


def rank_scores(scores) -> list:
    """Return ranks (0 best, ties shared) from [[k, r, b, g, treasures] per seat]."""
    keys = [strength_vector(s[:4], s[4]) for s in scores]
    return [sum(1 for other in keys if other > k) for k in keys]


def perft(state, depth: int) -> int:
    """Count the decision sequences of a given length from a state (any implementation)."""
    if depth == 0 or state.is_terminal():
        return 1
    legal = state.legal_actions()
    if depth == 1:
        return len(legal)
    total = 0
    for a in legal:
        child = state.clone()
        child.apply(a)
        total += perft(child, depth - 1)
    return total


def new_game(players: int = 2, seed: int = 0, board: str = "standard", variants=()) -> State:
    """Return a new game (see State.new_game)."""
    return State.new_game(players, seed, board, variants)


def variant_bits(variants, error=EngineError) -> int:
    """Return the bit set of variant names (engine.actions.VARIANTS); raise `error` naming a bad one."""
    if isinstance(variants, str):
        variants = [v for v in variants.replace(",", " ").split() if v]
    try:
        names = list(variants)
    except TypeError:
        raise error(f"variants must be a list of names, got {variants!r}") from None
    bits = 0
    for name in names:
        if not isinstance(name, str) or name not in A.VARIANTS:
            raise error(f"unknown variant {name!r}; expected some of {', '.join(A.VARIANTS)}")
        bits |= 1 << A.VARIANTS.index(name)
    return bits
