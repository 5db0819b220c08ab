"""Texel-style tuning of the evaluation weights: fit them so the evaluation's reward predicts who wins.

Positions come from game records (seeded self-play through search.arena.runner,
or record files): from every finished game, `per_game` positions with the
seat to act in the action phase (what a settled rollout ends on) are drawn
with a seeded rng, each labelled with every seat's share of the win (1 for
the winner, 1/k each in a k-way tie, 0 otherwise). The loss is the mean
squared error between ext.search.evaluation's reward (the logistic of a seat's
margin over its opponents, as the search evaluates a leaf) and that share,
over positions and seats. The weights are fitted by Levenberg-Marquardt
with numpy on a Jacobian of central differences, the seat values being the
kernel's own (ext.search.evaluation.seat_values_of); whole games are held out, so the
held-out loss tells a fit from an overfit.

eval_centre and endgame act only relative to the search root (the kernel's
fixed needs and margins), not on a lone position, so they cannot be fitted
here; building and wonder count only in games with those variants.

numpy is needed (pip install -e '.[tune]'): it is imported when a fit
starts, so this module loads without it.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import engine
from engine.errors import EngineError
from engine.record import replay_record
from ext.search import evaluation
from search.agent import Limits, SearchError
from search.arena.runner import derive_seed, play_game
from search.arena.backends import JobLost, SerialBackend
from search.baselines import GreedyAgent
from search.ismcts import ISMCTSAgent
from search.params import KNOB, SearchParams, check_value

# The weights that move evaluate_of's reward of a position (the variants' two only with their variants).
FITTABLE = ("tau", "min_bonus", "leader", "king", "temple", "supporter", "monument", "treasure_near",
            "catastrophe", "opponents_max", "eval_scale", "building", "wonder")
DEFAULT_FIELDS = FITTABLE[:11]
ROOT_ONLY = ("eval_centre", "endgame")
# the fit keeps a weight in these bounds (the kernel divides by tau and the scale; opponents_max is a share)
_BOUNDS = {"tau": (0.05, 1e3), "eval_scale": (0.05, 1e3), "opponents_max": (0.0, 1.0)}
_FREE = (-1e3, 1e3)


def need_numpy():
    """Return numpy, or raise SearchError saying how to install it."""
    try:
        import numpy
    except ImportError:
        raise SearchError("Texel tuning needs numpy: pip install -e '.[tune]' (or pip install numpy)") from None
    return numpy


@dataclass
class LabelledPosition:
    """One labelled position: the state, each seat's share of the win, the game it came from."""

    state: object
    target: list
    game: int


def _self_play_game(job: tuple) -> Optional[str]:
    """Play one self-play game (in this or a worker process); return its record."""
    agent, deal, seeds, players, board, iterations, variants, params = job
    if agent == "greedy":
        agents = [GreedyAgent(seeds[s]) for s in range(players)]
    else:
        agents = [ISMCTSAgent(seed=seeds[s], params=params) for s in range(players)]
    g = play_game(agents, deal, players, board, record=True, limits=Limits(iterations=iterations),
                  variants=variants)
    return g.record


def self_play(games: int, seed: int = 0, players: int = 2, board: str = "standard", agent: str = "greedy",
              iterations: int = 100, variants=(), params: SearchParams = SearchParams(),
              backend=None, progress: Optional[Callable] = None) -> list:
    """Play seeded self-play games (greedy, or ISMCTS at `iterations` a decision); return their records in order."""
    if agent not in ("greedy", "ismcts"):
        raise SearchError(f"unknown self-play agent {agent!r}; expected greedy or ismcts")
    jobs = [(agent, derive_seed(seed, "texel-deal", i) % (1 << 62),
             [derive_seed(seed, "texel-agent", i, s) for s in range(players)],
             players, board, iterations, tuple(variants), params) for i in range(games)]
    backend = backend if backend is not None else SerialBackend()
    records: dict = {}
    with backend:
        for i, out in backend.stream(_self_play_game, jobs):
            if isinstance(out, JobLost):
                continue
            if isinstance(out, BaseException):
                backend.cancel()
                raise SearchError(f"self-play game {i + 1} failed: {type(out).__name__}: {out}")
            records[i] = out
            if progress is not None:
                progress(len(records), games)
    return [records[i] for i in sorted(records)]


def win_shares(ranks: list) -> list:
    """Return each seat's share of the win: 1 alone first, 1/k in a k-way tie for first, else 0."""
    first = ranks.count(0)
    return [1.0 / first if r == 0 else 0.0 for r in ranks]


def sample_positions(records: list, per_game: int = 20, seed: int = 0, skip: int = 10,
                     sources: Optional[list] = None) -> list:
    """Return Positions drawn from finished game records: `per_game` a game, after the first `skip` decisions.

    A record that does not replay raises SearchError naming it (`sources`:
    a name per record); a game that did not end by the rules (stopped at
    the decision cap, forfeited) says nothing about who wins and is skipped.
    """
    out = []
    for g, text in enumerate(records):
        name = sources[g] if sources else f"record {g + 1}"
        try:
            final, actions_ = replay_record(text, engine.new_game, engine.State.from_snapshot)
        except EngineError as e:
            raise SearchError(f"{name}: {e}") from None
        if not final.is_terminal():
            continue
        target = win_shares(final.result())
        start = _start(text)
        candidates, state = [], start
        for ply, action in enumerate(actions_):
            if ply >= skip and state.phase == "action":
                candidates.append(state.clone())
            state.apply(action)
        rng = random.Random(derive_seed(seed, "texel-sample", g))
        chosen = sorted(rng.sample(range(len(candidates)), min(per_game, len(candidates))))
        out.extend(LabelledPosition(candidates[i], target, g) for i in chosen)
    return out


def _start(text: str):
    from engine.record import record_start
    return record_start(text, engine.new_game, engine.State.from_snapshot)


def split_games(positions: list, holdout: float, seed: int = 0) -> tuple:
    """Return (training, held-out) positions, whole games held out (a seeded `holdout` share of them)."""
    games = sorted({p.game for p in positions})
    rng = random.Random(derive_seed(seed, "texel-holdout"))
    n = int(round(holdout * len(games)))
    if holdout > 0 and n == 0 and len(games) > 1:
        n = 1
    held = set(rng.sample(games, n)) if n < len(games) else set(games[1:])
    return ([p for p in positions if p.game not in held], [p for p in positions if p.game in held])


def _index(name: str) -> int:
    return evaluation.EVAL_FIELDS.index(KNOB[name].kernel)


class Evaluator:
    """The evaluation's rewards of a set of positions as numpy arrays, for any weights."""

    def __init__(self, positions: list):
        np = need_numpy()
        self.np = np
        players = {p.state.players for p in positions}
        if len(players) > 1:
            raise SearchError(f"positions of {' and '.join(map(str, sorted(players)))} players: "
                              f"fit one player count at a time")
        if not positions:
            raise SearchError("no positions to fit: every game was unfinished or too short")
        self.players = players.pop()
        self.states = [p.state for p in positions]
        self.target = np.array([p.target for p in positions], dtype=float)

    def rewards(self, weights: list):
        """Return the (positions, seats) rewards as ext.search.evaluation.evaluate_of computes them (in double)."""
        np = self.np
        vals = np.array([evaluation.seat_values_of(s, weights) for s in self.states], dtype=float)
        om, scale = weights[_index("opponents_max")], weights[_index("eval_scale")]
        margins = np.empty_like(vals)
        for p in range(self.players):
            others = np.delete(vals, p, axis=1)
            margins[:, p] = vals[:, p] - (om * others.max(axis=1) + (1.0 - om) * others.mean(axis=1))
        # clipped where the logistic is 0 or 1 in doubles anyway, so exp cannot overflow
        return 1.0 / (1.0 + np.exp(np.clip(-margins / scale, -700.0, 700.0)))

    def loss(self, weights: list) -> float:
        """Return the mean squared error of the rewards against the win shares."""
        r = self.rewards(weights) - self.target
        return float((r * r).mean())


@dataclass
class TexelFit:
    """What a fit did: the weights before and after, the losses, the iterations."""

    before: SearchParams
    after: SearchParams
    fields: tuple                    # the fitted fields
    train_positions: int
    held_positions: int
    train_loss: tuple                # (before, after)
    held_loss: tuple                 # (before, after); (nan, nan) with nothing held out
    iterations: int
    unused: tuple = ()               # fields no position moved (left as they were)
    history: list = field(default_factory=list)   # training loss per accepted step

    def report(self) -> str:
        """Return the fit's summary as text."""
        out = [f"positions: {self.train_positions} training, {self.held_positions} held out",
               f"training loss (MSE): {self.train_loss[0]:.6f} -> {self.train_loss[1]:.6f}"]
        if self.held_positions:
            out.append(f"held-out loss (MSE): {self.held_loss[0]:.6f} -> {self.held_loss[1]:.6f}")
        out.append(f"{self.iterations} Levenberg-Marquardt iterations")
        for name in self.fields:
            out.append(f"  {name:<14}{getattr(self.before, name):>10.4f} -> {getattr(self.after, name):>10.4f}")
        if self.unused:
            out.append("not fitted (no position moves them): " + ", ".join(self.unused))
        return "\n".join(out)


def check_fields(names) -> tuple:
    """Return the fields to fit, checked; SearchError names one that cannot be fitted."""
    names = tuple(names)
    if not names:
        raise SearchError("name at least one field to fit")
    for name in names:
        if name in ROOT_ONLY:
            raise SearchError(f"{name} acts relative to the search root only: a lone position's "
                              f"evaluation does not depend on it, so it cannot be fitted")
        if name not in FITTABLE:
            check_value(name, 0, "--field")         # an unknown name: says so, with a suggestion
            raise SearchError(f"{name} is not an evaluation weight; the weights: {', '.join(FITTABLE)}")
        if names.count(name) > 1:
            raise SearchError(f"field {name!r} named twice")
    return names


def fit(train: list, held: list = (), params: SearchParams = SearchParams(), fields_=DEFAULT_FIELDS,
        iterations: int = 30, l2: float = 0.0, progress: Optional[Callable] = None) -> TexelFit:
    """Fit the named weights of params to the training positions; return the TexelFit.

    Levenberg-Marquardt on the residuals reward - win share: each step
    solves (J'J + lambda * diag(J'J)) d = -J'r with J by central differences
    (steps of 1e-2 * max(1, |w|): the kernel's seat values are floats), keeps
    a step that lowers the objective (and lowers lambda), else raises lambda;
    it stops after `iterations` steps or when lambda grows past 1e10. The
    objective is the loss plus `l2` times the squared relative change of the
    weights (sum of ((w - w0) / max(1, |w0|))^2), which keeps a fit on few
    positions near its start; the losses reported leave that term out.
    """
    if isinstance(l2, bool) or not isinstance(l2, (int, float)) or not 0 <= l2 < math.inf:
        raise SearchError(f"l2 must be a number >= 0, got {l2!r}")
    np = need_numpy()
    names = check_fields(fields_)
    ev = Evaluator(list(train))
    held_ev = Evaluator(list(held)) if held else None
    # weights left None start from the defaults for the positions' player count
    if held_ev is not None and held_ev.players != ev.players:
        raise SearchError(f"training positions of {ev.players} players, held-out ones of {held_ev.players}")
    params = params.resolved(ev.players)
    w0 = list(params.eval_weights(ev.players))
    idx = [_index(n) for n in names]
    bounds = [_BOUNDS.get(n, _FREE) for n in names]

    def with_x(x) -> list:
        w = list(w0)
        for i, v in zip(idx, x):
            w[i] = float(v)
        return w

    x0 = np.array([w0[i] for i in idx], dtype=float)
    size = ev.target.size
    spread = np.maximum(1.0, np.abs(x0))

    def residuals(x):
        # scaled so that r @ r is the mean squared error plus the l2 term
        fit_part = (ev.rewards(with_x(x)) - ev.target).ravel() / math.sqrt(size)
        return np.concatenate([fit_part, math.sqrt(l2) * (x - x0) / spread])

    x = x0.copy()
    r = residuals(x)
    cost = float(r @ r)
    lam = 1e-3
    history = [ev.loss(with_x(x))]
    steps = 0
    unused = ()
    for _ in range(iterations):
        jac = np.empty((r.size, len(x)))
        for j in range(len(x)):
            h = 1e-2 * max(1.0, abs(x[j]))
            up, down = x.copy(), x.copy()
            up[j] = min(bounds[j][1], x[j] + h)
            down[j] = max(bounds[j][0], x[j] - h)
            jac[:, j] = (residuals(up) - residuals(down)) / (up[j] - down[j])
        jtj = jac.T @ jac
        grad = jac.T @ r
        moved = np.abs(jac[:size]).max(axis=0) > 0
        unused = tuple(n for n, m in zip(names, moved) if not m)
        improved = False
        while lam < 1e10:
            a = jtj + lam * np.diag(np.diag(jtj)) + np.diag(np.where(moved, 1e-12, 1.0))
            step = np.linalg.solve(a, -grad)
            trial = np.array([min(hi, max(lo, v)) for v, (lo, hi) in zip(x + step, bounds)])
            tr = residuals(trial)
            tcost = float(tr @ tr)
            if tcost < cost:
                x, r, cost = trial, tr, tcost
                lam = max(lam / 3.0, 1e-9)
                improved = True
                break
            lam *= 3.0
        if not improved:
            break
        steps += 1
        history.append(ev.loss(with_x(x)))
        if progress is not None:
            progress(steps, history[-1])
    after = replace(params, **{n: float(v) for n, v in zip(names, x)})
    nan = float("nan")
    train_loss = (history[0], ev.loss(after.eval_weights(ev.players)))
    held_loss = ((held_ev.loss(w0), held_ev.loss(after.eval_weights(ev.players))) if held_ev else (nan, nan))
    return TexelFit(before=params, after=after, fields=names, train_positions=len(ev.states),
                    held_positions=len(held_ev.states) if held_ev else 0, train_loss=train_loss,
                    held_loss=held_loss, iterations=steps, unused=unused, history=history)
