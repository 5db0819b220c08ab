"""A plain-Python single-observer ISMCTS on the reference engine: the speed baseline.

Same algorithm shape as search.ismcts (fresh determinisation per iteration,
UCB1 with availability, uniform rollouts cut after a few decisions, a
score-based evaluation), written the obvious way in Python. It exists only to
measure how much the Cython kernel gains; it is not used to play.
"""
from __future__ import annotations

import math
import random

from engine import reference
from engine.info import determinize


class Node:
    __slots__ = ("children", "visits", "avail", "reward")

    def __init__(self, players: int):
        self.children = {}
        self.visits = 0
        self.avail = 0
        self.reward = [0.0] * players


def evaluate(state) -> list:
    """Reward per seat: logistic of (weakest colour with treasures) against the best other."""
    vals = []
    for row in state.scores():
        x = list(row[:4])
        for _ in range(row[4]):
            x[x.index(min(x))] += 1
        vals.append(min(x) + 0.3 * sorted(x)[1])
    out = []
    for p, v in enumerate(vals):
        best = max(w for q, w in enumerate(vals) if q != p)
        out.append(1.0 / (1.0 + math.exp(-(v - best) / 1.5)))
    return out


def search(observation: dict, seat: int, iterations: int, seed: int = 0,
           rollout_depth: int = 10, c: float = 0.7) -> Node:
    """Run the baseline search for `iterations` and return its root."""
    rng = random.Random(seed)
    players = observation["players"]
    root = Node(players)
    for _ in range(iterations):
        world = reference.State.from_snapshot(determinize(observation, seat, rng))
        node, path = root, [root]
        while not world.is_terminal():
            legal = world.legal_actions()
            actor = world.to_act
            untried = [a for a in legal if a not in node.children]
            for a in legal:
                if a in node.children:
                    node.children[a][1].avail += 1
            if untried:
                a = rng.choice(untried)
                child = Node(players)
                child.avail = 1
                node.children[a] = (actor, child)
                world.apply(a)
                path.append(child)
                break
            best, best_a = -1.0, None
            for a in legal:
                who, ch = node.children[a]
                u = ch.reward[who] / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if u > best:
                    best, best_a = u, a
            world.apply(best_a)
            node = node.children[best_a][1]
            path.append(node)
        for _ in range(rollout_depth):
            if world.is_terminal():
                break
            world.apply(rng.choice(world.legal_actions()))
        r = evaluate(world)
        for n in path:
            n.visits += 1
            n.reward = [a + b for a, b in zip(n.reward, r)]
    return root
