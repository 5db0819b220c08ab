"""Information sets on snapshots: what one seat knows, and worlds consistent with it.

R-INFO-1: everything on the board, every score, the hand sizes and the bag
size are public; a seat also knows its own hand and the tiles it swapped
away. With perfect memory it knows the multiset of tiles it has not seen —
`unseen` = the bag + the other hands + the other seats' swapped tiles — which
is fixed by public facts alone (every colour's total, R-COMP-1, minus the
tiles on the board, discarded in view, in its hand and swapped by it).

An *observation* is a public snapshot (engine.position.public_snapshot:
`hands`, `bag`, `swapped` are None; `hand_sizes`, `bag_size`,
`swapped_sizes` are set) plus:

    seat         the observing seat
    hand         its hand [k, r, b, g]
    own_swapped  the tiles it swapped away [k, r, b, g]
    unseen       [k, r, b, g] tiles it has not seen

A player who does not remember the colours of tiles it swapped away (an
analysis from a public position without them) has an `own_swapped` of fewer
tiles than its public `swapped_sizes`: the rest of its pile is unknown to it,
counted in `unseen` and dealt with the other hidden tiles
(`unknown_own_swapped`). An observation read from a full snapshot always
knows the whole pile.

`determinize` deals the unseen tiles at random into a full snapshot with the
same observation: a sampled world for information-set search.
"""
from __future__ import annotations

from engine.errors import PositionError
from engine.position import (SNAPSHOT_KEYS, TILE_TOTALS, check_snapshot, is_public,
                             public_snapshot)

OBSERVATION_KEYS = ("seat", "hand", "own_swapped", "unseen")


def _check_seat(snap: dict, seat) -> None:
    if type(seat) is not int or not 0 <= seat < snap["players"]:
        raise PositionError(f"seat {seat!r} out of range 0..{snap['players'] - 1}")


def is_observation(x: dict) -> bool:
    """Return whether a dict is an observation (rather than a snapshot)."""
    return isinstance(x, dict) and "seat" in x and "unseen" in x


def unseen_tiles(snap: dict, seat: int) -> list:
    """Return [k, r, b, g] tiles `seat` has not seen in a full snapshot."""
    check_snapshot(snap)
    if is_public(snap):
        raise PositionError("position field 'hands': a public snapshot has no hand to observe from")
    _check_seat(snap, seat)
    seen = list(snap["discarded"])
    for v in snap["cells"]:
        if 1 <= v <= 8:
            seen[(v - 1) % 4] += 1
    out = [TILE_TOTALS[c] - seen[c] - snap["hands"][seat][c] - snap["swapped"][seat][c] for c in range(4)]
    if min(out) < 0:
        raise PositionError(f"position field 'cells': more tiles of a colour seen than exist ({out})")
    return out


def unknown_own_swapped(obs: dict) -> int:
    """Return how many of its own swapped tiles the observing seat does not know the colours of."""
    return obs["swapped_sizes"][obs["seat"]] - sum(obs["own_swapped"])


def observation(snap: dict, seat: int) -> dict:
    """Return what `seat` knows of a full snapshot (an observation passes through, copied)."""
    if is_observation(snap):
        if snap["seat"] != seat:
            raise PositionError(f"an observation of seat {snap['seat']} cannot be seen by seat {seat}")
        return _observation_copy(snap)
    unseen = unseen_tiles(snap, seat)
    obs = public_snapshot(snap)
    obs["seat"] = seat
    obs["hand"] = list(snap["hands"][seat])
    obs["own_swapped"] = list(snap["swapped"][seat])
    obs["unseen"] = unseen
    return obs


def _observation_copy(obs: dict) -> dict:
    check_snapshot(obs)
    out = public_snapshot(obs)
    for k in OBSERVATION_KEYS:
        out[k] = obs[k] if k == "seat" else list(obs[k])
    return out


def determinize(snap_or_obs: dict, seat: int, rng) -> dict:
    """Return a full snapshot dealing `seat`'s unseen tiles at random (rng: random.Random)."""
    obs = observation(snap_or_obs, seat)
    _check_seat(obs, seat)
    hand, own_swapped, unseen = obs["hand"], obs["own_swapped"], obs["unseen"]
    sizes, swapped_sizes = obs["hand_sizes"], obs["swapped_sizes"]
    if sum(hand) != sizes[seat] or not 0 <= sum(own_swapped) <= swapped_sizes[seat]:
        raise PositionError(f"position field 'hand_sizes': seat {seat}'s own tiles disagree with its public sizes")
    pool = [c for c in range(4) for _ in range(unseen[c])]
    # the seat's swapped tiles of unknown colour are dealt like the other seats' piles
    places = (sum(sizes) - sizes[seat] + sum(swapped_sizes) - sum(own_swapped) + obs["bag_size"])
    if len(pool) != places:
        raise PositionError(f"position field 'bag_size': {len(pool)} unseen tiles for {places} places "
                            f"(other hands, other swapped piles, bag): tiles are not conserved")
    rng.shuffle(pool)
    pos = 0

    def deal(n: int) -> list:
        nonlocal pos
        part = pool[pos:pos + n]
        pos += n
        return [part.count(c) for c in range(4)]

    hands, swapped = [], []
    for s in range(obs["players"]):
        hands.append(list(hand) if s == seat else deal(sizes[s]))
    for s in range(obs["players"]):
        if s == seat:
            swapped.append([k + d for k, d in zip(own_swapped, deal(swapped_sizes[s] - sum(own_swapped)))])
        else:
            swapped.append(deal(swapped_sizes[s]))
    out = {k: obs[k] for k in SNAPSHOT_KEYS}
    out["hands"], out["swapped"], out["bag"] = hands, swapped, pool[pos:]
    check_snapshot(out)
    return out
