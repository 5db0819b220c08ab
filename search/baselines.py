"""Baseline agents: a uniform random player and a one-decision greedy heuristic.

Both play from their seat's observation alone (search.agent.Agent): to get a
State to enumerate and try decisions on, they deal the tiles hidden from them
at random with their own seeded rng (engine.info.determinize). The legal
decisions of the seat to act never depend on what that deal invents: they
follow from the board, the phase and conflict (public) and the actor's own
hand (known), never from another hand or the bag. What the deal does invent
(other hands, the bag order, so the tiles a swap or refill would draw) the
greedy evaluation never reads: it scores public facts plus its own hand, and
sizes up opponents' hidden tiles only through the public `unseen` counts.

GreedyAgent tries every legal decision on a clone and keeps the one whose
resulting position evaluates best for its seat (own value minus the
opponents'), where a seat's value is a concave function of its colour scores
(treasures as wild, R-END-2) plus terms for its leaders on the board (temples
beside them, supporters and monuments in their kingdoms). A decision that
starts a conflict is valued as a mix of the two outcomes, weighted by the odds
of winning it given public strengths, its own tiles and a hypergeometric model
of the opponent's hand. Commitments commit what wins when that is possible.
Two stall rules keep a game of greedy seats moving: after a full round of
passes, or four rounds without a tile placed or swapped, a seat places its
best tile (or swaps) rather than pass, place a leader or a catastrophe.

Two implementations play exactly the same decisions: `GreedyAgent` runs the
decision in the nogil kernel ext/search/greedy.pyx (about 80 times faster), and
`PyGreedyAgent`, the Python reference below, is what the kernel follows step
for step (tests/test_greedy_kernel.py compares them over seeded games). Both
draw one 64-bit salt from their rng per decision; it keys the tie-breaking
noise of every tried decision (`tie_noise`) and, for the reference, the
world it deals. The kernel agent deals the unseen tiles in colour order
instead (`kernel_world`): the evaluation never reads them, and that the two
agents agree in every game shows it. Sums of floats run left to right in both
(a seat's leaders seat by seat, colour by colour), so no rounding tells them
apart.
"""
from __future__ import annotations

import math
import random

import engine
from engine import actions as A
from engine.boards import SQUARES, neighbours
from engine.info import determinize
from engine.legality import conflict_bases, temples_beside
from ext.search.greedy import GreedyParams, greedy_choose
from search.agent import Agent, Limits

NB = tuple(tuple(neighbours(sq)) for sq in range(SQUARES))
RED = A.RED
COMMIT_PHASES = ("revolt_attack", "revolt_defend", "war_attack", "war_defend")

# Evaluation weights (points of the weakest colour are the unit).
DEFAULT_WEIGHTS = {
    "tau": 5.0,           # scale of the concave per-colour utility tau*(1-exp(-x/tau))
    "min_bonus": 0.6,     # extra weight of the weakest colour (R-END-2 ranks by it)
    "leader": 1.6,        # a leader on the board, times the seat's need for its colour
    "king": 0.5,          # extra for a king (scores every colour lacking a leader)
    "temple": 0.3,        # per face-up temple beside a leader (revolt strength), up to 4
    "supporter": 0.08,    # per face-up tile of the leader's colour in its kingdom, up to 12
    "monument": 1.5,      # per monument with the leader's colour in its kingdom
    "treasure_near": 0.2, # a trader whose kingdom holds a treasure
    "catastrophe": 0.5,   # per catastrophe left in hand
    "opponents_max": 0.5, # 3-4 players: weight of the best opponent vs the mean
    "commit_cost": 0.08,  # per tile committed beyond need (tiles leave the game)
    "terminal": 100.0,    # a finished game: per unit of win share above 1/players
}


_MASK64 = (1 << 64) - 1


def _world(obs: dict, seat: int, rng: random.Random) -> engine.State:
    return engine.State.from_snapshot(determinize(obs, seat, rng))


def kernel_world(obs: dict) -> engine.State:
    """Return a world of an observation with the unseen tiles dealt in colour order (no checks).

    The observation comes from the rules (the arena's or the bot's view), so the
    checked engine.State.from_snapshot (hundreds of microseconds) is skipped.
    """
    seat = obs["seat"]
    unseen = obs["unseen"]
    pool = [c for c in range(4) for _ in range(unseen[c])]
    pos = 0
    hands, swapped = [], []
    for key, own, sizes, out in (("hand", obs["hand"], obs["hand_sizes"], hands),
                                 ("swapped", obs["own_swapped"], obs["swapped_sizes"], swapped)):
        for p in range(obs["players"]):
            if p == seat:
                out.append(list(own))
                continue
            part = pool[pos:pos + sizes[p]]
            pos += sizes[p]
            out.append([part.count(c) for c in range(4)])
    snap = dict(obs)
    snap["hands"], snap["swapped"], snap["bag"] = hands, swapped, pool[pos:]
    world = engine.State.__new__(engine.State)
    world._load(snap)
    return world


def tie_noise(salt: int, action: int) -> float:
    """Return the tie-breaking noise in [0, 1e-9) of a tried decision, from (salt, action) alone (as the kernel)."""
    z = (salt + (action + 1) * 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    z ^= z >> 31
    return (z >> 11) * (1.0 / 9007199254740992.0) * 1e-9


class RandomAgent(Agent):
    """Pick uniformly among the legal decisions (of a world dealt from its own observation)."""

    name = "random"

    def __init__(self, seed: int = 0):
        """Create the agent with its own seeded rng."""
        self.rng = random.Random(seed)

    def choose(self, limits: Limits = Limits()) -> int:
        """Return a uniformly random legal decision."""
        self.check_turn()
        return self.rng.choice(_world(self.observation, self.seat, self.rng).legal_actions())


# ---------------------------------------------------------------- evaluation helpers

def colour_value(scores, treasures: int, w: dict) -> float:
    """Return a seat's value of its colour scores, treasures added to the weakest (R-END-2)."""
    x = list(scores)
    for _ in range(treasures):
        x[x.index(min(x))] += 1
    tau = w["tau"]
    total = 0.0
    for v in x:         # left to right, as the kernel (sum() of floats differs across Pythons)
        total += tau * (1.0 - math.exp(-v / tau))
    return total + w["min_bonus"] * min(x)


def colour_need(scores, treasures: int, w: dict) -> list:
    """Return the value of one more point of each colour for a seat."""
    base = colour_value(scores, treasures, w)
    out = []
    for c in range(4):
        s = list(scores)
        s[c] += 1
        out.append(colour_value(s, treasures, w) - base)
    return out


def hyper_at_least(total: int, good: int, drawn: int, k: int) -> float:
    """Return P(X >= k) for X hypergeometric: `drawn` tiles from `total` of which `good` are wanted."""
    if k <= 0:
        return 1.0
    drawn = min(drawn, total)
    if total <= 0 or k > min(good, drawn):
        return 0.0
    denom = math.comb(total, drawn)
    p = sum(math.comb(good, i) * math.comb(total - good, drawn - i)
            for i in range(k, min(good, drawn) + 1))
    return p / denom


def connects(cell: int) -> bool:
    """Return whether a cell value joins groups: a tile face up or down, or the wonder (R-KING-1)."""
    return cell != 0 and cell != 9


class _Board:
    """Kingdom analysis of one position: groups, their tiles, leaders, monuments, treasures."""

    __slots__ = ("cells", "leaders", "groups", "label")

    def __init__(self, snap: dict, removed_leader: int = -1):
        cells = snap["cells"]
        self.cells = cells
        leader_at = {}
        for p, row in enumerate(snap["leaders"]):
            for c, sq in enumerate(row):
                if sq >= 0 and sq != removed_leader:
                    leader_at[sq] = (p, c)
        self.leaders = leader_at
        label = [-1] * SQUARES
        groups = []
        treasures = set(snap["treasures"])
        mon_at = {sq: m for m, sq in enumerate(snap["monuments"]) if sq >= 0}
        # Only groups reachable from leaders matter for the evaluation (kingdoms).
        for start in leader_at:
            if label[start] >= 0:
                continue
            gid = len(groups)
            up = [0, 0, 0, 0]
            lds, mons = [], []
            ntre = 0
            label[start] = gid
            stack = [start]
            while stack:
                sq = stack.pop()
                v = cells[sq]
                if 1 <= v <= 4:
                    up[v - 1] += 1
                if sq in leader_at:
                    lds.append(sq)
                if sq in treasures:
                    ntre += 1
                if sq in mon_at:
                    mons.append(mon_at[sq])
                for n in NB[sq]:
                    if label[n] < 0:
                        vn = cells[n]
                        if connects(vn) or n in leader_at:
                            label[n] = gid
                            stack.append(n)
            groups.append((up, lds, mons, ntre))
        self.groups = groups
        self.label = label

    def positional(self, needs, w: dict, players: int) -> list:
        """Return each seat's leader terms summed (seat by seat, colour by colour, as the kernel)."""
        out = [0.0] * players
        cells = self.cells
        for sq, (p, c) in self.leaders.items():        # built seat by seat, colour by colour
            up, lds, mons, ntre = self.groups[self.label[sq]]
            need = needs[p]
            nc = need[c]
            v = w["leader"] + w["temple"] * min(temples_beside(cells, sq), 4) \
                + w["supporter"] * min(up[c], 12)
            for m in mons:
                if c in A.MONUMENTS[m]:
                    v += w["monument"]
            if c == A.GREEN and ntre:
                v += w["treasure_near"]
            val = nc * v
            if c == A.BLACK:
                val += w["king"] * max(need)
            out[p] += val
        return out


# ---------------------------------------------------------------- the greedy agent

# Action-phase decisions in a row that placed no tile and swapped none, per player,
# after which a greedy seat places a tile if it can (a stall that is not all passes:
# revolts lost with nothing committed, over and over, draw nothing and end nothing).
STALL_ACTIONS_PER_PLAYER = 8            # four rounds of two actions


def stall_step(passes: int, idle: int, action) -> tuple:
    """Return (passes in a row, action-phase decisions in a row placing no tile) after a decision.

    `action` None is another seat's hidden swap. A swap or a tile placement
    resets both counts; a leader, a catastrophe or a pass adds to the second;
    a conflict's or a choice's decision leaves it as it is.
    """
    if action is None:
        return 0, 0
    passes = passes + 1 if action == A.PASS else 0
    if action < A.LEADER_BASE or A.SWAP_BASE <= action < A.PASS:
        idle = 0
    elif action <= A.PASS:
        idle += 1
    return passes, idle


class _Greedy(Agent):
    """What both greedy agents share: the weights, the seeded rng and the counts that break a stall."""

    name = "greedy"

    def __init__(self, seed: int = 0, weights: dict | None = None):
        """Create the agent with its own seeded rng and optional evaluation weight overrides."""
        self.rng = random.Random(seed)
        self.w = dict(DEFAULT_WEIGHTS)
        if weights:
            unknown = set(weights) - set(DEFAULT_WEIGHTS)
            if unknown:
                raise ValueError(f"unknown weight(s) {sorted(unknown)}; known: {sorted(DEFAULT_WEIGHTS)}")
            self.w.update(weights)

    # --- entry point

    def new_game(self, seat: int, observation: dict) -> None:
        """Start a game as `seat` (and reset the counts that break a stall)."""
        super().new_game(seat, observation)
        self.passes = 0
        self.idle = 0

    def apply(self, action: int, observation: dict) -> None:
        """Take note of a decision; count passes, and action-phase decisions placing no tile, in a row."""
        super().apply(action, observation)
        self.passes, self.idle = stall_step(self.passes, self.idle, action)

    def stalled(self) -> bool:
        """Return whether the action phase has gone on for long without a tile placed or swapped."""
        return self.idle >= STALL_ACTIONS_PER_PLAYER * self.observation["players"]



class GreedyAgent(_Greedy):
    """Try each legal decision on a copy and keep the best-evaluated one, in the nogil kernel (observation only)."""

    def __init__(self, seed: int = 0, weights: dict | None = None):
        """Create the agent with its own seeded rng and optional evaluation weight overrides."""
        super().__init__(seed, weights)
        self.params = GreedyParams(self.w)

    def choose(self, limits: Limits = Limits()) -> int:
        """Return the decision whose result evaluates best for this seat."""
        self.check_turn()
        salt = self.rng.getrandbits(64)
        return greedy_choose(kernel_world(self.observation), self.seat, self.params, self.passes, salt,
                             self.stalled())


class PyGreedyAgent(_Greedy):
    """The greedy agent in Python: the reference the kernel (GreedyAgent) follows step for step."""

    def choose(self, limits: Limits = Limits()) -> int:
        """Return the decision whose result evaluates best for this seat."""
        self.check_turn()
        obs = self.observation
        self.salt = self.rng.getrandbits(64)
        world = _world(obs, self.seat, random.Random(self.salt))
        legal = world.legal_actions()
        if len(legal) == 1:
            return legal[0]
        snap = world.snapshot()
        self._prepare(obs, snap)
        phase = snap["phase"]
        if phase in COMMIT_PHASES:
            return self._commit(snap, legal)
        if phase == "action":
            return self._action(world, legal)
        return self._best_of(world, legal)

    def _prepare(self, obs: dict, snap: dict) -> None:
        self.players = snap["players"]
        self.unseen = list(obs["unseen"])
        self.hand_sizes = list(obs["hand_sizes"])
        sc = snap["scores"]
        tt = snap["treasures_taken"]
        self.needs = [colour_need(sc[p], tt[p], self.w) for p in range(self.players)]

    # --- evaluation

    def _combine(self, values: list) -> float:
        me = self.seat
        opp = [v for p, v in enumerate(values) if p != me]
        if len(opp) == 1:
            return values[me] - opp[0]
        k = self.w["opponents_max"]
        total = 0.0
        for v in opp:       # left to right, as the kernel
            total += v
        return values[me] - (k * max(opp) + (1 - k) * total / len(opp))

    def _static(self, snap: dict, removed_leader: int = -1, bonus=None, pos=None) -> float:
        """Evaluate a position with no conflict pending (optionally a leader removed, points added)."""
        w = self.w
        P = snap["players"]
        scores = [list(s) for s in snap["scores"]]
        if bonus:
            for p, c, n in bonus:
                scores[p][c] += n
        if pos is None:
            pos = _Board(snap, removed_leader).positional(self.needs, w, P)
        return self._combine_parts(scores, snap["treasures_taken"], snap["catastrophes_left"], pos)

    def _combine_parts(self, scores, treasures_taken, cats, pos) -> float:
        w = self.w
        return self._combine([colour_value(scores[p], treasures_taken[p], w) + pos[p]
                              + w["catastrophe"] * cats[p] for p in range(len(pos))])

    def _terminal(self, state) -> float:
        ranks = state.result()
        P = len(ranks)
        me = self.seat
        share = (1.0 / ranks.count(0)) if ranks[me] == 0 else 0.0
        return self.w["terminal"] * (share - 1.0 / P) + self._static(state.snapshot())

    def _win_odds(self, snap: dict, base_a: int, base_d: int) -> float:
        """Return P(attacker wins) of the snapshot's conflict, from this seat's knowledge.

        Not for this seat's own attack still to commit: _attack_commitment
        gives those odds, of the commitment it will make.
        """
        cf = snap["conflict"]
        c = RED if cf["kind"] == "revolt" else cf["colour"]
        me = self.seat
        att, dfd = cf["attacker"], cf["defender"]
        my_tiles = snap["hands"][me][c]   # own hand: exact in any determinisation
        total, good = sum(self.unseen), self.unseen[c]
        if cf["attacker_commit"] >= 0:
            t = base_a + cf["attacker_commit"]
            if dfd == me:
                return 0.0 if base_d + my_tiles >= t else 1.0
            # the defender wins iff it holds >= t - base_d tiles of c
            return 1.0 - hyper_at_least(total, good, self.hand_sizes[dfd], t - base_d)
        if dfd == me:
            # the attacker wins iff it commits more than my total lead: assume it commits all it has
            need = base_d + my_tiles - base_a + 1
            return hyper_at_least(total, good, self.hand_sizes[att], need)
        # two opponents: compare expected strengths
        mean = good / total if total else 0.0
        ea = base_a + mean * self.hand_sizes[att]
        ed = base_d + mean * self.hand_sizes[dfd]
        return 1.0 / (1.0 + math.exp(-(ea - ed - 0.5)))

    def _outcomes(self, snap: dict, base_a: int, base_d: int) -> tuple:
        """Return (value if the attacker wins, value if the defender wins) of a conflict."""
        cf = snap["conflict"]
        att, dfd = cf["attacker"], cf["defender"]
        if cf["kind"] == "revolt":
            wa = self._static(snap, cf["defender_leader"], [(att, RED, 1)])
            wd = self._static(snap, cf["attacker_leader"], [(dfd, RED, 1)])
        else:
            c = cf["colour"]
            wa = self._static(snap, cf["defender_leader"], [(att, c, 1 + base_d)])
            wd = self._static(snap, cf["attacker_leader"], [(dfd, c, 1 + base_a)])
        return wa, wd

    def _attack_commitment(self, snap: dict, legal: list, base_a: int, base_d: int, stake: float) -> tuple:
        """Return (tiles this seat commits as the attacker, its odds of winning with them).

        A certain win as cheaply as possible when one is legal, else the legal
        count that trades the odds (a hypergeometric model of the defender's
        hand) against the tiles spent best: `stake` is the value of winning
        minus that of losing.
        """
        cf = snap["conflict"]
        c = RED if cf["kind"] == "revolt" else cf["colour"]
        mine = snap["hands"][self.seat][c]
        total, good = sum(self.unseen), self.unseen[c]
        held = self.hand_sizes[cf["defender"]]
        most = min(held, good)              # the most the defender can hold of c
        sure = max(0, base_d + most + 1 - base_a)
        if sure <= mine and A.COMMIT_BASE + sure in legal:
            return sure, 1.0                # a certain win: take it as cheaply as possible
        best_n, best_u, best_p = 0, -math.inf, 0.0
        # the legal counts (all of 0..mine, or with R-VAR-ENGLISH none or the exact one)
        for n in (a - A.COMMIT_BASE for a in legal):
            p = 1.0 - hyper_at_least(total, good, held, base_a + n - base_d)
            u = p * stake - self.w["commit_cost"] * n
            if u > best_u + 1e-9:
                best_n, best_u, best_p = n, u, p
        return best_n, best_p

    def _conflict_value(self, state) -> float:
        """Return a pending conflict's value: its two outcomes weighted by the attacker's odds.

        This seat's own attack, still to commit, is valued by the commitment
        it will make (_attack_commitment), its tiles' cost taken off: a revolt
        it would not pay for, with no more temples than the defender, is a
        certain loss (R-REV-4: a tie goes to the defender), not a chance.
        """
        snap = state.snapshot()
        cf = snap["conflict"]
        base_a, base_d = conflict_bases(snap)
        wa, wd = self._outcomes(snap, base_a, base_d)
        if cf["attacker"] == self.seat and cf["attacker_commit"] < 0:
            n, p = self._attack_commitment(snap, state.legal_actions(), base_a, base_d, wa - wd)
            return p * wa + (1.0 - p) * wd - self.w["commit_cost"] * n
        p = self._win_odds(snap, base_a, base_d)
        return p * wa + (1.0 - p) * wd

    def _value(self, state, depth: int = 0) -> float:
        """Evaluate a state reached by a tried decision (resolving own follow-up choices greedily)."""
        if state.is_terminal():
            return self._terminal(state)
        phase = state.phase
        if phase == "action":
            return self._static(state.snapshot())
        if phase in COMMIT_PHASES:
            return self._conflict_value(state)
        snap = state.snapshot()
        if depth >= 3:
            return self._static(snap)
        options = state.legal_actions()
        if state.to_act != self.seat:
            # another seat's treasure choice: any candidate gives it the same count
            options = options[:1]
        best = -math.inf
        for a in options:
            nxt = state.clone()
            nxt.apply(a)
            best = max(best, self._value(nxt, depth + 1))
        return best

    # --- decisions by phase

    def _best_of(self, world, legal) -> int:
        """Return the option with the best value (monument, treasure, war choice)."""
        best, best_v = legal[0], -math.inf
        for a in legal:
            nxt = world.clone()
            nxt.apply(a)
            v = self._value(nxt) + tie_noise(self.salt, a)
            if v > best_v:
                best, best_v = a, v
        return best

    def _action(self, world, legal) -> int:
        """Return the best action-phase decision; swap only when nothing else gains."""
        snap = world.snapshot()
        here = self._static(snap)
        me = self.seat
        cells = snap["cells"]
        own = snap["leaders"][me]
        lsq = self._leader_squares(snap)
        best, best_v = A.PASS, -math.inf
        moving, moving_v = None, -math.inf      # the best tile placement (it draws: progress)
        swaps = []
        useful = [False] * 4
        root = _Board(snap)
        root_pos = root.positional(self.needs, self.w, snap["players"])
        label = root.label
        cats_left = snap["catastrophes_left"]
        for a in legal:
            if A.SWAP_BASE <= a < A.PASS:
                swaps.append(a)
                continue
            if a < A.LEADER_BASE and not any(label[n] >= 0 for n in NB[a % SQUARES]):
                # a tile touching no kingdom leaves every kingdom as it was: only scores can
                # change (monument points at the end of the turn)
                nxt = world.clone()
                nxt.apply(a)
                if nxt.is_terminal():
                    v = self._terminal(nxt)
                else:
                    sc = nxt.scores()
                    v = self._combine_parts([x[:4] for x in sc], [x[4] for x in sc], cats_left, root_pos)
                v += tie_noise(self.salt, a)
                if v > best_v:
                    best, best_v = a, v
                if v > moving_v:
                    moving, moving_v = a, v
                continue
            if A.CAT_BASE <= a < A.SWAP_BASE:
                sq = a - A.CAT_BASE
                # a catastrophe on an empty square changes nothing this evaluation sees
                if not 1 <= cells[sq] <= 4 or not any(cells[n] or n in lsq for n in NB[sq]):
                    continue
            nxt = world.clone()
            nxt.apply(a)
            v = self._value(nxt) + tie_noise(self.salt, a)
            if a < A.LEADER_BASE and v > here + 0.05:
                useful[a // SQUARES] = True
            if v > best_v:
                best, best_v = a, v
            if a < A.LEADER_BASE and v > moving_v:
                moving, moving_v = a, v
        if swaps and best_v < here + 0.05:
            sw = self._swap_choice(snap, useful, swaps)
            if sw is not None:
                return sw
        # everyone passed a full round, or no tile was placed for rounds: passing on (or
        # losing the same revolt) could go on for ever, since a full hand draws nothing and
        # neither end condition comes nearer; make progress instead
        if ((best == A.PASS and self.passes >= self.players)
                or (self.stalled() and not (best < A.LEADER_BASE or A.SWAP_BASE <= best < A.PASS))):
            if moving is not None:
                return moving
            if swaps:
                return swaps[0]
        return best

    def _leader_squares(self, snap: dict) -> set:
        return {sq for row in snap["leaders"] for sq in row if sq >= 0}

    def _swap_choice(self, snap: dict, useful: list, swaps: list):
        """Return a swap of the tiles that could not score (keeping a few red), or None."""
        me = self.seat
        hand = snap["hands"][me]
        bag = len(snap["bag"])
        counts = [0 if useful[c] else hand[c] for c in range(4)]
        counts[RED] = max(0, counts[RED] - 2)
        n = sum(counts)
        if n == 0 or bag < n + 2 * self.players * 6:
            return None
        a = A.swap_action(counts)
        return a if a in swaps else None

    def _commit(self, snap: dict, legal: list) -> int:
        """Return the commitment: what wins when it can, else nothing (a defender); an attacker's, _attack_commitment."""
        cf = snap["conflict"]
        me = self.seat
        c = RED if cf["kind"] == "revolt" else cf["colour"]
        mine = snap["hands"][me][c]
        base_a, base_d = conflict_bases(snap)
        if snap["phase"].endswith("defend"):
            need = max(0, base_a + cf["attacker_commit"] - base_d)
            n = need if need <= mine else 0
            return A.COMMIT_BASE + n
        # attacker: trade the odds against the tiles spent
        wa, wd = self._outcomes(snap, base_a, base_d)
        return A.COMMIT_BASE + self._attack_commitment(snap, legal, base_a, base_d, wa - wd)[0]
