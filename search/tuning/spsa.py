"""SPSA tuning of SearchParams: game pairs of theta + c*delta against theta - c*delta, with checkpoints and resume.

Spall's simultaneous perturbation stochastic approximation over the named
numeric fields of SearchParams, each with bounds and a step. Every field
is measured in its own steps: iteration k (from 0) draws a sign delta_i =
+-1 per field (from the seed and k alone), plays `pairs` game pairs of
ISMCTS with theta_i + c_k * step_i * delta_i against theta_i - c_k * step_i *
delta_i (each clipped to the field's bounds; an int field rounded), and
moves

    theta_i += step_i * a_k * (score+ - score-) / (2 * c_k * delta_i)

clipped to the bounds, with a_k = a / (A + k + 1)^0.602 and c_k = c /
(k + 1)^0.101. score+ - score- is the mean over the games of the pairwise
score (1, 1/2, 0 per plus seat against each minus seat) of the plus side
less the minus side's, in [-1, 1]. A pair is two games on one deal with
every seat's side swapped (2 players: plus first, then minus first; 3: + - +,
then - + -). Defaults: c = 1 (the perturbation is one step), A = a tenth of
the iterations, a = c * (A + 1)^0.602, so that a first iteration won
outright moves every field half its step.

After every iteration the state (theta, k, the settings, the history) is
written to a checkpoint; `Spsa.resume(path)` continues from it exactly as
if never interrupted: the signs, deals and agent seeds of an iteration come
from (seed, k) alone, and JSON keeps every float exactly.

    tne-ai tune spsa --param exploration:0.2:2.0:0.1 --iterations 20 --out tuned.json
"""
from __future__ import annotations

import json
import math
import os
import random
from dataclasses import dataclass, fields, replace
from typing import Callable, Optional

from engine import actions
from engine.state import variant_bits
from search.agent import Limits, SearchError
from search.arena.runner import derive_seed, play_game
from search.arena.backends import JobLost, SerialBackend
from search.ismcts import ISMCTSAgent
from search.params import SearchParams, check_value, field_kind, params_from_dict, read_text_file

CHECKPOINT_FORMAT = "tne-ai spsa checkpoint 1"
ALPHA = 0.602          # Spall's exponents of the gain and perturbation sequences
GAMMA = 0.101
MAX_CHECKPOINT_BYTES = 64 << 20


@dataclass(frozen=True)
class TunedField:
    """One field SPSA moves: its name, bounds and step (the perturbation at c = 1)."""

    name: str
    low: float
    high: float
    step: float

    @classmethod
    def parse(cls, spec: str) -> "TunedField":
        """Return the field a NAME:LOW:HIGH:STEP spec names, e.g. exploration:0.2:2.0:0.1; SearchError if bad."""
        parts = str(spec).split(":")
        if len(parts) != 4:
            raise SearchError(f"--param {spec!r}: expected NAME:LOW:HIGH:STEP, e.g. exploration:0.2:2.0:0.1")
        name = parts[0].strip()
        try:
            low, high, step = (float(x) for x in parts[1:])
        except ValueError:
            raise SearchError(f"--param {spec!r}: LOW, HIGH and STEP must be numbers") from None
        return cls(name, low, high, step).checked()

    def checked(self) -> "TunedField":
        """Return self once the name is a tunable field and the bounds and step are sane; SearchError if not."""
        where = f"--param {self.name}"
        if self.name not in {f.name for f in fields(SearchParams)}:
            check_value(self.name, 0, where)            # raises: unknown field, with a suggestion
        kind = field_kind(self.name)
        if kind not in ("float", "int", "float?", "int?"):
            raise SearchError(f"{where}: a {kind} field cannot be tuned by SPSA (only numbers)")
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                   for x in (self.low, self.high, self.step)):
            raise SearchError(f"{where}: LOW, HIGH and STEP must be finite numbers")
        if not self.low < self.high:
            raise SearchError(f"{where}: LOW {self.low} must be below HIGH {self.high}")
        if not 0 < self.step <= self.high - self.low:
            raise SearchError(f"{where}: STEP {self.step} must be > 0 and at most HIGH - LOW")
        for bound in (self.low, self.high):
            value = int(round(bound)) if kind in ("int", "int?") else bound
            try:
                params_from_dict({self.name: value}, source=where + " bound")
            except SearchError as e:
                raise SearchError(f"{where}: bound {bound} is not a valid value ({e})") from None
        return self

    def value(self, x: float):
        """Return the field's value for a coordinate (an int field rounded)."""
        return int(round(x)) if field_kind(self.name) in ("int", "int?") else x


@dataclass
class SpsaConfig:
    """Everything an SPSA run is made of, kept in its checkpoint."""

    fields: tuple                      # TunedField per tuned field
    base: SearchParams = SearchParams()  # the untuned fields, and theta's start
    iterations: int = 20               # SPSA iterations in all
    pairs: int = 1                     # game pairs per iteration
    budget: int = 200                  # ISMCTS iterations per decision
    players: int = 2
    board: str = "standard"
    variants: tuple = ()
    seed: int = 0
    a: Optional[float] = None          # None: c * (A + 1)^0.602
    c: float = 1.0
    A: Optional[float] = None          # None: iterations / 10

    def __post_init__(self):
        if not self.fields:
            raise SearchError("name at least one field to tune (--param NAME:LOW:HIGH:STEP)")
        self.fields = tuple(f.checked() for f in self.fields)
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise SearchError(f"field {next(n for n in names if names.count(n) > 1)!r} named twice")
        for name, value, lo in (("iterations", self.iterations, 0), ("pairs", self.pairs, 1),
                                ("budget", self.budget, 1), ("seed", self.seed, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < lo:
                raise SearchError(f"{name} must be an integer >= {lo}, got {value!r}")
        if isinstance(self.players, bool) or self.players not in (2, 3, 4):
            raise SearchError(f"players must be 2, 3 or 4, got {self.players!r}")
        if self.board not in ("standard", "advanced"):
            raise SearchError(f"board must be standard or advanced, got {self.board!r}")
        try:
            bits = variant_bits(tuple(self.variants), ValueError)
        except ValueError as e:
            raise SearchError(f"variants: {e}") from None
        self.variants = tuple(actions.VARIANTS[i] for i in range(len(actions.VARIANTS)) if bits >> i & 1)
        if self.A is None:
            self.A = self.iterations / 10
        if self.a is None:
            self.a = self.c * (self.A + 1) ** ALPHA
        for name in ("a", "c", "A"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0 or (name != "A" and value == 0):
                raise SearchError(f"{name} must be a finite number > 0 (A: >= 0), got {value!r}")
        # theta starts from the weights a game of this many players uses
        self.base = self.base.resolved(self.players)
        for f in self.fields:
            start = getattr(self.base, f.name)
            if start is None or not f.low <= start <= f.high:
                raise SearchError(f"--param {f.name}: the start value {start!r} is outside "
                                  f"[{f.low}, {f.high}] (set it with the base params file)")

    def to_dict(self) -> dict:
        """Return the settings as JSON-ready data."""
        return {"fields": [[f.name, f.low, f.high, f.step] for f in self.fields],
                "base": self.base.to_dict(), "iterations": self.iterations, "pairs": self.pairs,
                "budget": self.budget, "players": self.players, "board": self.board,
                "variants": list(self.variants), "seed": self.seed, "a": self.a, "c": self.c, "A": self.A}

    @classmethod
    def from_dict(cls, d: dict, source: str = "checkpoint") -> "SpsaConfig":
        """Return the settings of a checkpoint's "config"; SearchError names what is wrong."""
        if not isinstance(d, dict):
            raise SearchError(f"{source}: \"config\" must be an object")
        known = {"fields", "base", "iterations", "pairs", "budget", "players", "board", "variants",
                 "seed", "a", "c", "A"}
        missing = sorted(known - set(d))
        extra = sorted(set(d) - known)
        if missing or extra:
            raise SearchError(f"{source}: config " + (f"lacks {missing[0]!r}" if missing else
                                                       f"has an unknown key {extra[0]!r}"))
        if not isinstance(d["fields"], list) or not all(isinstance(x, list) and len(x) == 4 and isinstance(x[0], str)
                                                         for x in d["fields"]):
            raise SearchError(f"{source}: config fields must be [[name, low, high, step], ...]")
        if not isinstance(d["variants"], list):
            raise SearchError(f"{source}: config variants must be a list")
        base = params_from_dict(d["base"], source=f"{source}: config base")
        try:
            return cls(fields=tuple(TunedField(*x) for x in d["fields"]), base=base,
                       **{k: d[k] for k in known - {"fields", "base", "variants"}},
                       variants=tuple(d["variants"]))
        except SearchError as e:
            raise SearchError(f"{source}: {e}") from None
        except TypeError as e:
            raise SearchError(f"{source}: bad config: {e}") from None


def gains(config: SpsaConfig, k: int) -> tuple:
    """Return (a_k, c_k) of iteration k (from 0): Spall's a / (A + k + 1)^0.602 and c / (k + 1)^0.101."""
    return config.a / (config.A + k + 1) ** ALPHA, config.c / (k + 1) ** GAMMA


def _clip(x: float, f: TunedField) -> float:
    return min(f.high, max(f.low, x))


def _pair_score(ranks: list, sides: tuple) -> float:
    """Return the plus side's pairwise score less the minus side's in one game, in [-1, 1]."""
    plus = [s for s, side in enumerate(sides) if side > 0]
    minus = [s for s, side in enumerate(sides) if side < 0]
    pts = 0.0
    for i in plus:
        for j in minus:
            pts += 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
    return 2.0 * pts / (len(plus) * len(minus)) - 1.0


def _play_spsa_game(job: tuple) -> list:
    """Play one game of a pair (in this or a worker process); return its ranks."""
    plus, minus, sides, deal, seeds, players, board, budget, variants = job
    agents = [ISMCTSAgent(seed=seeds[s], params=plus if sides[s] > 0 else minus) for s in range(players)]
    g = play_game(agents, deal, players, board, record=False, limits=Limits(iterations=budget),
                  variants=variants)
    return g.ranks


class Spsa:
    """An SPSA run: its settings, theta, the next iteration k and the history so far."""

    def __init__(self, config: SpsaConfig, theta: Optional[dict] = None, k: int = 0,
                 history: Optional[list] = None):
        """Start at the base params' values (or theta, {field: value}) at iteration k."""
        self.config = config
        self.theta = {f.name: float(getattr(config.base, f.name)) for f in config.fields}
        if theta is not None:
            self.theta.update(theta)
        self.k = k
        self.history = list(history or [])

    # ------------------------------------------------------------ state

    def params(self, theta: Optional[dict] = None) -> SearchParams:
        """Return the base params with theta's fields (int fields rounded)."""
        theta = self.theta if theta is None else theta
        return replace(self.config.base, **{f.name: f.value(theta[f.name]) for f in self.config.fields})

    def checkpoint(self) -> dict:
        """Return the run's state as JSON-ready data."""
        return {"format": CHECKPOINT_FORMAT, "config": self.config.to_dict(), "k": self.k,
                "theta": dict(self.theta), "history": self.history}

    def save(self, path: str) -> None:
        """Write the checkpoint (to a temporary file first, so an interruption never leaves half a file)."""
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.checkpoint(), f, indent=1)
            f.write("\n")
        os.replace(tmp, path)

    @classmethod
    def resume(cls, path: str) -> "Spsa":
        """Return the run a checkpoint file holds; SearchError names what is wrong (a truncated file too)."""
        text = read_text_file(path, MAX_CHECKPOINT_BYTES, "SPSA checkpoint")
        try:
            doc = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError) as e:
            raise SearchError(f"{path}: not an SPSA checkpoint (bad JSON, truncated?: {e})") from None
        if not isinstance(doc, dict) or doc.get("format") != CHECKPOINT_FORMAT:
            raise SearchError(f"{path}: not an SPSA checkpoint (\"format\" must be {CHECKPOINT_FORMAT!r})")
        extra = sorted(set(doc) - {"format", "config", "k", "theta", "history"})
        if extra:
            raise SearchError(f"{path}: unknown key {extra[0]!r}")
        for key in ("config", "k", "theta", "history"):
            if key not in doc:
                raise SearchError(f"{path}: no {key!r}")
        config = SpsaConfig.from_dict(doc["config"], path)
        k, theta, history = doc["k"], doc["theta"], doc["history"]
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise SearchError(f"{path}: k must be an integer >= 0, got {k!r}")
        if not isinstance(history, list) or len(history) != k:
            raise SearchError(f"{path}: history must list the {k} iterations done")
        names = [f.name for f in config.fields]
        if not isinstance(theta, dict) or sorted(theta) != sorted(names):
            raise SearchError(f"{path}: theta must give exactly the tuned fields {', '.join(names)}")
        for f in config.fields:
            x = theta[f.name]
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not f.low <= x <= f.high:
                raise SearchError(f"{path}: theta {f.name} = {x!r} is not a number in [{f.low}, {f.high}]")
        return cls(config, {n: float(x) for n, x in theta.items()}, k, history)

    # ------------------------------------------------------------ iterations

    def plan(self, k: int) -> tuple:
        """Return (delta per field, plus theta, minus theta, jobs) of iteration k."""
        cfg = self.config
        _, ck = gains(cfg, k)
        rng = random.Random(derive_seed(cfg.seed, "spsa-delta", k))
        delta = {f.name: rng.choice((-1, 1)) for f in cfg.fields}
        plus = {f.name: _clip(self.theta[f.name] + ck * f.step * delta[f.name], f) for f in cfg.fields}
        minus = {f.name: _clip(self.theta[f.name] - ck * f.step * delta[f.name], f) for f in cfg.fields}
        p_plus, p_minus = self.params(plus), self.params(minus)
        jobs = []
        for j in range(cfg.pairs):
            deal = derive_seed(cfg.seed, "spsa-deal", k, j) % (1 << 62)
            for g in range(2):
                sides = tuple((1 if (s + g) % 2 == 0 else -1) for s in range(cfg.players))
                seeds = [derive_seed(cfg.seed, "spsa-agent", k, j, g, s) for s in range(cfg.players)]
                jobs.append((p_plus, p_minus, sides, deal, seeds, cfg.players, cfg.board, cfg.budget,
                             cfg.variants))
        return delta, plus, minus, jobs

    def step(self, backend=None) -> dict:
        """Play iteration k's game pairs on a backend (default: this process), move theta; return the history entry.

        The backend is left open (its workers serve the next iterations);
        whoever made it closes it.
        """
        cfg = self.config
        k = self.k
        ak, ck = gains(cfg, k)
        delta, plus, minus, jobs = self.plan(k)
        backend = backend if backend is not None else SerialBackend()
        diffs, lost = {}, 0
        try:
            for i, out in backend.stream(_play_spsa_game, jobs):
                if isinstance(out, JobLost):
                    lost += 1
                    continue
                if isinstance(out, BaseException):
                    raise SearchError(f"SPSA iteration {k}: a game failed: {type(out).__name__}: {out}")
                diffs[i] = _pair_score(out, jobs[i][2])
        except BaseException:
            backend.cancel()
            raise
        # summed in game order, not finishing order, so a parallel run moves theta exactly as a serial one
        diff = sum(diffs[i] for i in sorted(diffs)) / len(diffs) if diffs else 0.0
        before = dict(self.theta)
        for f in cfg.fields:
            ghat = diff / (2.0 * ck * delta[f.name])
            self.theta[f.name] = _clip(self.theta[f.name] + f.step * ak * ghat, f)
        entry = {"k": k, "a_k": ak, "c_k": ck, "delta": delta, "plus": plus, "minus": minus,
                 "games": len(diffs), "lost": lost, "score": (1.0 + diff) / 2.0,
                 "before": before, "theta": dict(self.theta)}
        self.history.append(entry)
        self.k += 1
        return entry

    def run(self, backend=None, checkpoint: Optional[str] = None,
            progress: Optional[Callable] = None, until: Optional[int] = None) -> SearchParams:
        """Run iterations up to `until` (default the config's), saving the checkpoint after each; return the params.

        `backend`: a search.arena.backends backend every iteration plays on
        (default: this process); it stays open. `progress(entry)` is called
        after each iteration.
        """
        until = self.config.iterations if until is None else until
        while self.k < until:
            entry = self.step(backend)
            if checkpoint:
                self.save(checkpoint)
            if progress is not None:
                progress(entry)
        return self.params()


def _no_constant(text: str):
    raise ValueError(f"{text} is not a number JSON allows")


def describe(entry: dict, fields_: tuple, iterations: int) -> str:
    """Return one progress line of an iteration."""
    moves = ", ".join(f"{f.name} {entry['before'][f.name]:.4g}->{entry['theta'][f.name]:.4g}" for f in fields_)
    lost = f", {entry['lost']} lost" if entry["lost"] else ""
    return (f"iteration {entry['k'] + 1}/{iterations}: theta+ scored {entry['score']:.3f} over "
            f"{entry['games']} games{lost}; {moves}")
