"""Taking decisions back without leaking tiles: shared by `tne-ai play` and `tne-ai serve`.

A player who undoes may have seen tiles drawn after the undo point (a swap,
a refill at the turn's end): replayed as they were, the next draws would be
those tiles. So an undo shuffles the tiles still in the bag again from a
secret seed (`secrets.randbits`, never stored or shown). Draws take the
bag's last tile, so the bag at the undo point is the initial bag's first
tiles: shuffling those in the initial position and replaying the decisions
kept gives the same game so far, as every seat saw it, with a new bag. The
other hands are not dealt again: their seats chose the decisions the player
saw from those hands, and the record replays them. The game's record then
starts from the new initial position (`[start ...]`), not from the seed.
"""
from __future__ import annotations

import random
import secrets

import engine
from engine.errors import EngineError
from engine.info import observation


def reshuffled_start(initial, actions: list, seat: int):
    """Return a copy of the State `initial` whose bag, after `actions`, is shuffled again from a secret seed.

    Replaying `actions` on it gives every decision and draw as before, so
    `seat`'s observation after them is unchanged (checked: EngineError if not).
    """
    state = initial.clone()
    for a in actions:
        state.apply(a)
    left, seen = state.snapshot()["bag"], observation(state.snapshot(), seat)
    start = initial.snapshot()
    if start["bag"][:len(left)] != left:   # the bag changed other than by draws: keep it (never reached)
        raise EngineError("the bag is not the initial bag less its drawn tiles: cannot shuffle it again")
    head = list(left)
    random.Random(secrets.randbits(64)).shuffle(head)   # the one unseeded choice: it must not be known
    start["bag"] = head + start["bag"][len(left):]
    fresh = engine.State.from_snapshot(start)
    replay = fresh.clone()
    for a in actions:
        replay.apply(a)
    if observation(replay.snapshot(), seat) != seen:     # the same game so far, as the player saw it
        raise EngineError("the game replayed differently after the bag was shuffled again")
    return fresh
