"""One seat's view of a game as a stream of events, and the referee's side of it.

R-INFO-1 says what a seat sees: every decision (but of another seat's swap
only how many tiles it discarded, R-SWAP-1), and of the bag only the tiles it
drew itself. A *seat view* is that stream, written as event strings:

    tile k a1          a decision in action notation (engine.actions)
    swap 3             another seat swapped 3 tiles (colours hidden)
    draw kr            the tiles this seat drew after the decision before

`events_for_seat` turns one true decision into the events one seat may see
(the referee side); `SeatView` rebuilds that seat's observation
(engine.info) from the start and the events alone (the engine side), so a
bot never needs, and is never given, another seat's tiles. A decision that
makes this seat draw must be followed by its `draw` event.

Internally an event is applied to a world dealt from the observation (any
world will do: what the rules do with a decision never depends on tiles the
seat cannot see, except the tiles drawn, which the `draw` event then puts
right), and the observation is read back from that world.
"""
from __future__ import annotations

import random

from engine.actions import (COLOURS, COMMIT_BASE, LEADER_BASE, PASS, RED, SWAP_BASE, format_action,
                            parse_action, swap_action, swap_counts)
from engine.boards import BOARD_NAMES, SQUARES
from engine.errors import EngineError, IllegalActionError, NotationError, PositionError
from engine.info import determinize, observation
from engine.position import TILE_TOTALS, check_snapshot, public_snapshot
from engine.record import drawn_tiles

HAND_SIZE = 6


class ViewError(EngineError):
    """An event that cannot follow the seat view so far (the view is left unchanged)."""


def parse_letters(text: str, what: str = "tiles") -> list:
    """Return [k, r, b, g] counts of tile letters such as 'kkrg' ('-' for none)."""
    t = text.strip()
    if t == "-":
        return [0, 0, 0, 0]
    if not t or any(ch not in COLOURS for ch in t):
        raise ViewError(f"{what} {text!r}: expected letters from {COLOURS!r} or '-'")
    return [t.count(ch) for ch in COLOURS]


def letters(counts) -> str:
    """Return tile counts [k, r, b, g] as letters ('-' for none)."""
    return "".join(ch * n for ch, n in zip(COLOURS, counts)) or "-"


def is_swap(action: int) -> bool:
    """Return whether an action is a swap."""
    return SWAP_BASE <= action < PASS


def events_for_seat(before: dict, action: int, after: dict, seat: int) -> list:
    """Return the events `seat` may see of one decision between two full snapshots."""
    actor = before["to_act"]
    if is_swap(action) and actor != seat:
        out = [f"swap {sum(swap_counts(action))}"]
    else:
        out = [format_action(action)]
    for s, tiles in drawn_tiles(before, after):
        if s == seat:
            out.append("draw " + "".join(COLOURS[c] for c in tiles))
    return out


def observation_from_public(public: dict, seat: int, hand, own_swapped=(0, 0, 0, 0),
                            partial_swapped: bool = False) -> dict:
    """Return the observation of `seat` from a public snapshot plus its own tiles.

    `own_swapped` is the tiles the seat swapped away; `None` when it does not
    know their colours. With `partial_swapped` it may name fewer tiles than the
    seat swapped (the colours of the rest unknown to it). Unknown swapped tiles
    are counted unseen and dealt with the other hidden tiles (engine.info).
    """
    if type(seat) is not int or not 0 <= seat < public["players"]:
        raise PositionError(f"seat {seat!r} out of range 0..{public['players'] - 1}")
    snap = dict(public)
    if own_swapped is None:
        own_swapped, partial_swapped = (0, 0, 0, 0), True
    hand, own_swapped = list(hand), list(own_swapped)
    if sum(hand) != public["hand_sizes"][seat]:
        raise PositionError(f"position field 'hands': seat {seat} holds {public['hand_sizes'][seat]} tiles, "
                            f"not {sum(hand)}")
    if (sum(own_swapped) > public["swapped_sizes"][seat] if partial_swapped
            else sum(own_swapped) != public["swapped_sizes"][seat]):
        raise PositionError(f"position field 'swapped': seat {seat} swapped {public['swapped_sizes'][seat]} "
                            f"tiles, not {sum(own_swapped)}")
    seen = list(public["discarded"])
    for v in public["cells"]:
        if 1 <= v <= 8:
            seen[(v - 1) % 4] += 1
    unseen = [TILE_TOTALS[c] - seen[c] - hand[c] - own_swapped[c] for c in range(4)]
    if min(unseen) < 0:
        c = min(range(4), key=lambda i: unseen[i])
        raise PositionError(f"position field 'hands': more {COLOURS[c]} tiles than exist "
                            f"(board, discarded and own tiles)")
    # the seat's swapped tiles of unknown colour are among the unseen ones
    places = (sum(public["hand_sizes"]) - sum(hand) + sum(public["swapped_sizes"])
              - sum(own_swapped) + public["bag_size"])
    if sum(unseen) != places:
        raise PositionError(f"position field 'bag_size': {sum(unseen)} unseen tiles for {places} places "
                            f"(other hands, swapped piles, bag)")
    snap.update(seat=seat, hand=hand, own_swapped=own_swapped, unseen=unseen)
    check_snapshot(snap)
    return snap


def start_observation(players: int, board: str, seat: int, first: int, hand, variants=()) -> dict:
    """Return `seat`'s observation of a new game: `first` to act, its six tiles `hand`."""
    from engine.state import new_game, variant_bits   # engine.state imports ext; keep this module light
    if type(players) is not int or not 2 <= players <= 4:
        raise PositionError(f"players must be 2..4, got {players!r}")
    if board not in BOARD_NAMES:
        raise PositionError(f"board must be one of {', '.join(BOARD_NAMES)}, got {board!r}")
    for name, v in (("seat", seat), ("first", first)):
        if type(v) is not int or not 0 <= v < players:
            raise PositionError(f"{name} {v!r} out of range 0..{players - 1}")
    if sum(hand) != HAND_SIZE:
        raise PositionError(f"a starting hand has {HAND_SIZE} tiles, not {sum(hand)}")
    variant_bits(variants, PositionError)
    pub = public_snapshot(new_game(players, 0, board, variants).snapshot())
    pub["turn_owner"] = pub["to_act"] = first
    return observation_from_public(pub, seat, hand)


class SeatView:
    """What one seat knows of a game, kept up to date from the events it sees."""

    def __init__(self, obs: dict):
        """Start from an observation (engine.info) of the seat."""
        self.obs = observation(obs, obs["seat"])
        # after a decision that drew tiles for this seat: (public snapshot
        # after it, own hand before the draw, own swapped, tiles drawn)
        self.pending = None

    @classmethod
    def start(cls, players: int, board: str, seat: int, first: int, hand, variants=()) -> "SeatView":
        """Return the view of a new game (see start_observation)."""
        return cls(start_observation(players, board, seat, first, hand, variants))

    @property
    def seat(self) -> int:
        return self.obs["seat"]

    @property
    def pending_draw(self) -> int:
        """Return how many tiles the last decision drew for this seat that no `draw` event told yet."""
        return self.pending[3] if self.pending else 0

    def observation(self) -> dict:
        """Return a copy of the observation (ViewError while a `draw` event is due)."""
        if self.pending:
            raise ViewError(f"the last decision drew {self.pending_draw} tile(s) for seat {self.seat}; "
                            f"a 'draw' event is due")
        return observation(self.obs, self.seat)

    def apply(self, event: str) -> None:
        """Apply one event (a decision, `swap n` of another seat, or `draw letters`); ViewError if it cannot follow."""
        text = " ".join(event.split())
        if text.startswith("draw ") or text == "draw":
            self._draw(text[5:])
            return
        if self.pending_draw:
            raise ViewError(f"event {text!r}: the last decision drew {self.pending_draw} tile(s) for seat "
                            f"{self.seat}; a 'draw' event must come first")
        self._decide(text)

    def apply_all(self, events) -> None:
        """Apply events in order; on a ViewError nothing is applied and the error names the event."""
        saved = (self.obs, self.pending)
        for i, ev in enumerate(events):
            try:
                self.apply(ev)
            except ViewError as e:
                self.obs, self.pending = saved
                raise ViewError(f"event {i + 1} ({ev.strip()!r}): {e}") from None

    # ------------------------------------------------------------ internals

    def _world(self) -> dict:
        return determinize(self.obs, self.seat, random.Random(0))

    def _decide(self, text: str) -> None:
        obs = self.obs
        if obs["phase"] == "over":
            raise ViewError("the game is over")
        actor = obs["to_act"]
        world = self._world()
        parts = text.split()
        if len(parts) == 2 and parts[0] == "swap" and parts[1].isdigit():
            if actor == self.seat:
                raise ViewError(f"{text!r}: this seat's own swap names its tiles, e.g. 'swap kkr'")
            n = int(parts[1])
            hand = world["hands"][actor]
            if not 1 <= n <= sum(hand):
                raise ViewError(f"{text!r}: seat {actor} holds {sum(hand)} tiles")
            counts, left = [0, 0, 0, 0], n
            for c in range(4):      # any n tiles will do: their colours are hidden from this seat
                counts[c] = min(hand[c], left)
                left -= counts[c]
            action = swap_action(counts)
        else:
            try:
                action = parse_action(text)
            except NotationError as e:
                raise ViewError(str(e)) from None
            if is_swap(action) and actor != self.seat:
                raise ViewError(f"{text!r}: another seat's swapped tiles are hidden; write 'swap "
                                f"{sum(swap_counts(action))}'")
        if actor != self.seat:
            self._hand_must_hold(world, actor, action)
        from engine.state import State
        state = State.from_snapshot(world)
        try:
            state.apply(action)
        except IllegalActionError as e:
            raise ViewError(str(e)) from None
        after = state.snapshot()
        drew = [0, 0, 0, 0]
        for s, tiles in drawn_tiles(world, after):
            if s == self.seat:
                for c in tiles:
                    drew[c] += 1
        hand = [after["hands"][self.seat][c] - drew[c] for c in range(4)]
        public = public_snapshot(after)
        # the world dealt colours to the seat's swapped tiles it does not know: they stay unknown
        dealt = [w - k for w, k in zip(world["swapped"][self.seat], obs["own_swapped"])]
        own = [a - d for a, d in zip(after["swapped"][self.seat], dealt)]
        if sum(drew):
            self.pending = (public, hand, own, sum(drew))
        else:
            self.obs = observation_from_public(public, self.seat, hand, own, partial_swapped=True)

    def _hand_must_hold(self, world: dict, actor: int, action: int) -> None:
        """Re-deal the world so that `actor` holds the tiles `action` shows it had (a placed or committed tile)."""
        if action < LEADER_BASE:
            colour, need = action // SQUARES, 1
        elif COMMIT_BASE <= action < COMMIT_BASE + 7 and world["conflict"]:
            cf = world["conflict"]
            colour, need = (RED if cf["kind"] == "revolt" else cf["colour"]), action - COMMIT_BASE
        else:
            return
        hand = world["hands"][actor]
        while hand[colour] < need:
            give = next((c for c in range(4) if c != colour and hand[c] > 0), None)
            if give is None:
                return                      # the hand is too small: the move is illegal anyway
            if colour in world["bag"]:
                world["bag"][world["bag"].index(colour)] = give
            else:
                other = next((o for o in range(world["players"]) if o not in (actor, self.seat)
                              and world["hands"][o][colour] > 0), None)
                pile = world["hands"] if other is not None else world["swapped"]
                if other is None:
                    other = next((o for o in range(world["players"]) if o != self.seat
                                  and world["swapped"][o][colour] > 0), None)
                if other is None:
                    raise ViewError(f"seat {actor} cannot hold {need} {COLOURS[colour]} tile(s): "
                                    f"this seat has seen the others")
                pile[other][colour] -= 1
                pile[other][give] += 1
            hand[colour] += 1
            hand[give] -= 1

    def _draw(self, text: str) -> None:
        counts = parse_letters(text, "draw")
        if not self.pending_draw:
            raise ViewError(f"'draw {text.strip()}': the last decision drew no tiles for seat {self.seat}")
        if sum(counts) != self.pending_draw:
            raise ViewError(f"'draw {text.strip()}': the last decision drew {self.pending_draw} tile(s) "
                            f"for seat {self.seat}, not {sum(counts)}")
        public, before, swapped, _ = self.pending
        hand = [before[c] + counts[c] for c in range(4)]
        try:
            self.obs = observation_from_public(public, self.seat, hand, swapped, partial_swapped=True)
        except PositionError as e:
            raise ViewError(f"'draw {text.strip()}': {e}") from None
        self.pending = None
