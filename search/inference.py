"""Inference over the hidden tiles: weigh the other seats' possible hands by how likely their play was.

A `HandFilter` follows one seat's game from that seat's observations alone
(engine.info.observation, R-INFO-1) and keeps a pool of sets of the other
seats' hands with weights: a particle filter along the game.

- Every public fact is exact: a set loses the tiles its seat is seen to
  place or commit (a set without them drops out), draws refill each hand to
  its public size from what the set leaves unseen, and the observer's own
  draws weigh each set by the chance of drawing exactly those tiles from
  what it leaves unseen (multivariate hypergeometric).
- Every decision another seat takes weighs each set by the chance that a
  player holding those hands takes it: the search's own prior
  (evaluation.score_actions) as a softmax at a fitted temperature
  (evaluation.prior_chances; docs/strength.md, "Inference").
- A swap says only how many tiles went: its colours are never read (an
  arena hands agents the decision itself; the protocol says `swap n`). The
  tiles leave each set at random.
- When the effective sample size falls below half the pool the sets are
  drawn again by weight (systematic resampling); if no set is left (the
  model called something impossible) the pool is dealt afresh.

The search draws each iteration's hands from the pool by weight and deals
the rest uniformly (Tree.set_deal "weighted"); SearchParams.inference turns
it on. Nothing here reads a tile the seat has not seen: the filter's inputs
are the seat's observations and the decisions as the seat may see them.
"""
from __future__ import annotations

import math
import random
from itertools import chain
from typing import Optional

from engine.actions import COLOURS, COMMIT_BASE, LEADER_BASE, PASS, SWAP_BASE, swap_counts
from engine.boards import SQUARES
from engine.position import SNAPSHOT_KEYS
from engine.state import State
from ext.search.evaluation import prior_chances

RED = COLOURS.index("r")
DEFAULT_SETS = 128
DEFAULT_TEMPERATURE = 4.0       # the best of a sweep on recorded games (bench/inference_bench.py)
RESAMPLE_BELOW = 0.5            # resample when the effective sample size is below this share of the pool


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def draw_log_chance(drawn: list, left: list) -> float:
    """Return the log chance of drawing exactly `drawn` (counts by colour) from `left` (counts), or -inf."""
    if any(d > l for d, l in zip(drawn, left)):
        return -math.inf
    out = -_log_comb(sum(left), sum(drawn))
    for d, l in zip(drawn, left):
        out += _log_comb(l, d)
    return out


def tiles_used(action: int, before: dict) -> Optional[list]:
    """Return the tiles by colour a decision takes from its seat's hand in public view, or None for a swap."""
    if action < LEADER_BASE:                                   # a tile: its colour is on the board
        used = [0, 0, 0, 0]
        used[action // SQUARES] = 1
        return used
    if SWAP_BASE <= action < PASS:
        return None
    if COMMIT_BASE <= action < COMMIT_BASE + 7:                # tiles committed to a conflict
        conflict = before.get("conflict") or {}
        colour = RED if conflict.get("kind") == "revolt" else conflict.get("colour", 0)
        used = [0, 0, 0, 0]
        used[colour] = action - COMMIT_BASE
        return used
    return [0, 0, 0, 0]


class HandFilter:
    """Sets of the other seats' hands, weighted by their play, following one seat's observations.

    `weigh_play=False` keeps the public facts only (a yardstick for the play model).
    """

    def __init__(self, seat: int, observation: dict, sets: int = DEFAULT_SETS,
                 temperature: float = DEFAULT_TEMPERATURE, seed: int = 0, weigh_play: bool = True):
        if sets < 1:
            raise ValueError(f"sets must be at least 1, got {sets}")
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        self.seat = seat
        self.players = observation["players"]
        self.size = sets
        self.temperature = temperature
        self.weigh_play = weigh_play
        self.rng = random.Random(seed)
        self.observed = 0           # decisions of other seats weighed
        self.last_effective_size = float(sets)   # after the last update, before any resampling
        self.resets = 0             # times the pool was dealt afresh
        self.hands: list = []
        self.logw: list = []
        self._deal_afresh(observation)

    # ------------------------------------------------------------ the pool

    def _deal_afresh(self, obs: dict) -> None:
        """Deal every set uniformly from what the seat has not seen (the prior before any play is weighed)."""
        self.hands, self.logw = [], []
        for _ in range(self.size):
            left = list(obs["unseen"])
            hands = [[0, 0, 0, 0] for _ in range(self.players)]
            for q in range(self.players):
                if q != self.seat:
                    self._draw(left, hands[q], obs["hand_sizes"][q])
            self.hands.append(hands)
            self.logw.append(0.0)

    def _draw(self, left: list, hand: list, n: int) -> bool:
        """Move n tiles at random from `left` to `hand`; False if `left` has fewer."""
        total = sum(left)
        if n > total:
            return False
        for _ in range(n):
            r = self.rng.randrange(total)
            c = 0
            while r >= left[c]:
                r -= left[c]
                c += 1
            left[c] -= 1
            hand[c] += 1
            total -= 1
        return True

    def weights(self) -> list:
        """Return the normalised weights of the sets."""
        top = max(self.logw)
        if top == -math.inf:
            return [1.0 / self.size] * self.size
        w = [math.exp(x - top) for x in self.logw]
        s = sum(w)
        return [x / s for x in w]

    def effective_size(self) -> float:
        """Return the effective sample size of the weighted sets (1 to the pool's size)."""
        w = self.weights()
        return 1.0 / sum(x * x for x in w)

    def distinct(self) -> int:
        """Return how many different sets of hands the pool holds."""
        return len({str(h) for h in self.hands})

    def weighted_hands(self) -> tuple:
        """Return (sets of hands, weights) for Tree.set_deal("weighted", ...), the sets ruled out left out."""
        w = self.weights()
        keep = [k for k in range(self.size) if w[k] > 0]
        return [[list(h) for h in self.hands[k]] for k in keep], [w[k] for k in keep]

    def _systematic(self, w: list) -> list:
        """Return the pool's size of indices drawn by weight (systematic resampling), in pool order."""
        step = 1.0 / self.size
        u = self.rng.random() * step
        out, acc, i = [], w[0], 0
        for k in range(self.size):
            target = u + k * step
            while target > acc and i < self.size - 1:
                i += 1
                acc += w[i]
            out.append(i)
        return out

    def _resample(self, unseen: list) -> None:
        """Draw the pool again by weight, each other seat's hand apart from the others'.

        Copying whole sets would leave, after a decision only a few sets could
        explain (a commitment of a rare colour), every other seat's hands copies
        of those few. The play and a seat's own tiles weigh a set through the
        actor's hand alone, so each seat's hand is drawn by the sets' weights
        on its own and the hands are joined at random; a join that holds more of
        a colour than the seat has not seen is drawn again, then falls back to
        a whole set.
        """
        w = self.weights()
        others = [q for q in range(self.players) if q != self.seat]
        picks = {q: self._systematic(w) for q in others}
        for q in others[1:]:
            self.rng.shuffle(picks[q])
        out = []
        for k in range(self.size):
            for attempt in range(8):
                if attempt:
                    for q in others[1:]:
                        picks[q][k] = picks[q][self.rng.randrange(self.size)]
                joined = [list(self.hands[picks[q][k]][q]) if q in picks else [0, 0, 0, 0]
                          for q in range(self.players)]
                if all(sum(h[c] for h in joined) <= unseen[c] for c in range(4)):
                    break
            else:
                joined = [list(h) for h in self.hands[picks[others[0]][k]]]
            out.append(joined)
        self.hands, self.logw = out, [0.0] * self.size

    # ------------------------------------------------------------ one decision

    def _world(self, obs: dict) -> State:
        """Return a state with the observation's public part and the set 0's hands (prior_chances deals each set into it)."""
        snap = {k: obs[k] for k in SNAPSHOT_KEYS if k in obs}
        left = list(obs["unseen"])
        hands, swapped = [], []
        for q in range(self.players):
            hands.append(list(obs["hand"]) if q == self.seat else [0, 0, 0, 0])
            swapped.append(list(obs["own_swapped"]) if q == self.seat else [0, 0, 0, 0])
        for q in range(self.players):           # in colour order: any deal will do
            if q != self.seat:
                for part, size in ((hands[q], obs["hand_sizes"][q]), (swapped[q], obs["swapped_sizes"][q])):
                    for c in range(4):
                        take = min(size, left[c])
                        part[c] += take
                        left[c] -= take
                        size -= take
        snap["hands"], snap["swapped"] = hands, swapped
        snap["bag"] = [c for c in range(4) for _ in range(left[c])]
        return State.from_snapshot(snap)

    def update(self, action: int, before: dict, after: dict) -> None:
        """Take in a decision (by anyone) with the seat's observations before and after it."""
        if before["phase"] == "over":
            return
        actor = before["to_act"]
        if self.weigh_play and actor != self.seat and not SWAP_BASE <= action < PASS:
            world = self._world(before)
            flat = bytes(chain.from_iterable(chain.from_iterable(self.hands)))
            for k, p in enumerate(prior_chances(world, self.seat, flat, action, self.temperature)):
                self.logw[k] += math.log(p) if p > 0 else -math.inf
            self.observed += 1
        if after["phase"] == "over":
            return
        used = tiles_used(action, before) if actor != self.seat else [0, 0, 0, 0]
        swapped = sum(swap_counts(action)) if used is None else 0
        used = used or [0, 0, 0, 0]
        # what left the seat's unseen tiles and was not another seat's public play: its own draws
        drawn = [b - a - u for b, a, u in zip(before["unseen"], after["unseen"], used)]
        if any(d < 0 for d in drawn):
            return self._restart(after)
        others = [q for q in range(self.players) if q != self.seat]
        # the tiles each hand takes from the unseen ones: the same in every set (sizes are public)
        need = {q: after["hand_sizes"][q] - before["hand_sizes"][q]
                + (sum(used) + swapped if q == actor else 0) for q in others}
        if any(n < 0 for n in need.values()):
            return self._restart(after)
        refills = any(need.values()) or any(drawn)
        for k, hands in enumerate(self.hands):
            if self.logw[k] == -math.inf:
                continue
            if actor != self.seat:
                mine = hands[actor]
                if mine[0] < used[0] or mine[1] < used[1] or mine[2] < used[2] or mine[3] < used[3]:
                    self.logw[k] = -math.inf
                    continue
                for c in range(4):
                    mine[c] -= used[c]
                if swapped:                      # the colours are not seen: any of its tiles went
                    if not self._draw(mine, [0, 0, 0, 0], swapped):
                        self.logw[k] = -math.inf
                        continue
            if not refills:
                continue
            # what the set leaves unseen before the seat's own draw
            left = [after["unseen"][c] + drawn[c] - sum(hands[q][c] for q in others) for c in range(4)]
            if min(left) < 0:
                self.logw[k] = -math.inf
                continue
            if any(drawn):
                self.logw[k] += draw_log_chance(drawn, left)
                left = [x - d for x, d in zip(left, drawn)]
            for q in others:
                if need[q] and not self._draw(left, hands[q], need[q]):
                    self.logw[k] = -math.inf
                    break
        if max(self.logw) == -math.inf:
            return self._restart(after)
        self.last_effective_size = self.effective_size()
        if self.last_effective_size < RESAMPLE_BELOW * self.size:
            self._resample(after["unseen"])

    def _restart(self, obs: dict) -> None:
        """Deal the pool afresh: every set was ruled out (the model called the play impossible)."""
        self.resets += 1
        self._deal_afresh(obs)
