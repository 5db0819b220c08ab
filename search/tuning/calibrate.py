"""Fitting the win-chance map (search.calibration) from self-play: data, fit, held-out measures, picture.

Self-play: every seat is the default ISMCTS at a fixed budget; at each of
its decisions the seat notes its root value, the best decision's mean and
95% bounds (the value the map reads: the seat's value under the engine's
best play) and the position's public facts (search.calibration.position_facts);
when the game ends every noted decision is labelled with the seat's rank and
share of the win, and the game's record is kept beside them (the positions
the learned value trains on, search.tuning.value). A data file holds one game per JSON line, so a run can be
extended and refitted without replaying.

The fit: one logistic regression per cumulative rank, P(rank <= k), over
search.calibration.FEATURES, by Newton's method with a small ridge (numpy).
Whole games are held out (a seeded share) and measured: the expected
calibration error (ten equal-width bins of the predicted win chance,
weighted by their counts), the Brier score, and the reliability diagram
(predicted against observed, an SVG).
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import Callable, Optional

from search.agent import Limits, SearchError
from search.arena.backends import JobLost, SerialBackend
from search.arena.runner import derive_seed, play_game
from search.calibration import FEATURES, CalibrationMap, defaults_fingerprint, features, position_facts
from search.ismcts import ISMCTSAgent
from search.params import SearchParams
from search.tuning.texel import need_numpy, win_shares

BINS = 10


class NotingAgent(ISMCTSAgent):
    """The ISMCTS agent, noting what its search knew at the root of every decision."""

    def __init__(self, notes: list, **kw):
        super().__init__(**kw)
        self.notes = notes

    def choose(self, limits: Optional[Limits] = None) -> int:
        """Search, note the root, and return the decision."""
        facts = position_facts(self.observation)
        action = super().choose(limits)
        r = self.last_result
        best = next(c for c in r.candidates if c.action == r.best)
        self.notes.append({"seat": self.seat, "value": r.root_value[self.seat], "mean": best.mean, "low": best.low,
                           "high": best.high, "facts": facts})
        return action


def play_noted_game(job: tuple) -> Optional[dict]:
    """Play one self-play game (in this or a worker process); return its noted decisions and result."""
    index, deal, seeds, players, board, iterations, params = job
    notes: list = []
    agents = [NotingAgent(notes, seed=seeds[s], params=params) for s in range(players)]
    g = play_game(agents, deal, players, board, record=True, limits=Limits(iterations=iterations))
    game = {"game": index, "deal": deal, "players": players, "board": board, "iterations": iterations,
            "value": params.resolved(players).value}
    if g.end_reason not in ("treasures", "bag"):
        return {**game, "ended": False}          # noted, so a resumed run does not play it again
    return {**game, "ended": True, "ranks": list(g.ranks), "decisions": notes, "record": g.record}


def self_play(games: int, seed: int = 0, players: int = 2, board: str = "standard", iterations: int = 1000,
              params: SearchParams = SearchParams(), backend=None, progress: Optional[Callable] = None,
              first: int = 0):
    """Yield noted self-play games `first` .. `first + games - 1` as they finish (seeded: the same seed, the same games)."""
    jobs = [(i, derive_seed(seed, "calibrate-deal", players, board, i) % (1 << 62),
             [derive_seed(seed, "calibrate-agent", players, board, i, s) for s in range(players)],
             players, board, iterations, params) for i in range(first, first + games)]
    backend = backend if backend is not None else SerialBackend()
    with backend:
        for _, out in backend.stream(play_noted_game, jobs):
            if isinstance(out, JobLost):
                continue
            if isinstance(out, BaseException):
                backend.cancel()
                raise SearchError(f"self-play game failed: {type(out).__name__}: {out}")
            yield out


def read_games(paths: list, finished_only: bool = True) -> list:
    """Return the games of data files (one JSON game a line) in (settings, game) order; raise SearchError on a bad line.

    finished_only: only the games that ended by the rules (the others say nothing of who wins).
    """
    games = {}
    for path in paths:
        try:
            with open(path) as f:
                for n, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        g = json.loads(line)
                        key = (g["players"], g["board"], g["iterations"], g["game"])
                    except (ValueError, KeyError, TypeError) as e:
                        raise SearchError(f"{path}:{n}: not a calibration game ({type(e).__name__}: {e})") from None
                    if g.get("ended") or not finished_only:
                        games[key] = g
        except OSError as e:
            raise SearchError(f"cannot read {path}: {e.strerror or e}") from None
    return [games[k] for k in sorted(games)]


@dataclass
class Rows:
    """Labelled decisions as arrays: features, rank labels, win shares, the game each came from."""

    x: object            # (n, len(FEATURES))
    rank: object         # (n,) the seat's final rank (0 best, ties shared)
    share: object        # (n,) the seat's share of the win
    game: object         # (n,) game index
    low: object          # (n, len(FEATURES)) features at the value's lower bound
    high: object


def rows_of(games: list, skip: int = 0) -> Rows:
    """Return the labelled decisions of finished games (the first `skip` decisions of each left out)."""
    np = need_numpy()
    x, rank, share, game, low, high = [], [], [], [], [], []
    for g in games:
        shares = win_shares(g["ranks"])
        for d in g["decisions"][skip:]:
            s = d["seat"]
            # the best decision's mean (its bounds are symmetric about it, so older data without it keeps their midpoint)
            x.append(features(d["facts"], s, d.get("mean", (d["low"] + d["high"]) / 2)))
            low.append(features(d["facts"], s, d["low"]))
            high.append(features(d["facts"], s, d["high"]))
            rank.append(g["ranks"][s])
            share.append(shares[s])
            game.append(g["game"])
    if not x:
        raise SearchError("no decisions to fit: no finished game in the data")
    return Rows(np.array(x), np.array(rank), np.array(share), np.array(game), np.array(low), np.array(high))


def split_games(game, holdout: float, seed: int, label: str = "calibrate-holdout") -> tuple:
    """Return (training, held-out) masks over rows given each row's game, whole games held out (a seeded share)."""
    np = need_numpy()
    games = sorted(set(int(g) for g in game))
    rng = random.Random(derive_seed(seed, label))
    n = max(1, int(round(holdout * len(games)))) if len(games) > 1 else 0
    held = set(rng.sample(games, n))
    mask = np.array([int(g) in held for g in game])
    return ~mask, mask


def fit_logistic(x, y, ridge: float = 1e-3, iterations: int = 50, free: int = 1):
    """Return the weights of a logistic regression of y (in [0, 1]) on x, by Newton's method.

    The ridge pulls every weight but the first `free` (the bias, by default) towards 0.
    """
    np = need_numpy()
    w = np.zeros(x.shape[1])
    pen = ridge * len(y) * np.eye(x.shape[1])
    pen[:free, :free] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + pen @ w
        hess = (x * (p * (1 - p))[:, None]).T @ x + pen + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


def fit_map(rows: Rows, mask, players: int, board: str, iterations: int, ridge: float = 1e-3) -> CalibrationMap:
    """Fit the cumulative-rank logistics on the masked rows; return the map (its `fitted` filled by the caller)."""
    coefficients = []
    for k in range(players - 1):
        y = rows.share[mask] if k == 0 else (rows.rank[mask] <= k).astype(float)
        coefficients.append([float(a) for a in fit_logistic(rows.x[mask], y, ridge)])
    return CalibrationMap(players, board, coefficients, iterations, defaults_fingerprint(players), {})


def predict(cal: CalibrationMap, x):
    """Return the win chance for every row of features (numpy, the same as CalibrationMap.win_chance)."""
    np = need_numpy()
    return 1.0 / (1.0 + np.exp(-np.clip(x @ np.array(cal.coefficients[0]), -700, 700)))


def reliability(p, y, bins: int = BINS) -> list:
    """Return [(mean predicted, observed share, count)] over equal-width bins of the prediction (empty bins left out)."""
    np = need_numpy()
    idx = np.minimum((p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        m = idx == b
        if m.any():
            out.append((float(p[m].mean()), float(y[m].mean()), int(m.sum())))
    return out


def ece(p, y, bins: int = BINS) -> float:
    """Return the expected calibration error: the count-weighted mean |predicted - observed| over bins."""
    table = reliability(p, y, bins)
    n = sum(c for _, _, c in table)
    return sum(c * abs(a - b) for a, b, c in table) / n


def brier(p, y) -> float:
    """Return the Brier score: the mean squared difference between prediction and outcome."""
    return float(((p - y) ** 2).mean())


def game_interval(stat, rows: Rows, mask, p, y, seed: int, resamples: int = 200) -> tuple:
    """Return a 95% bootstrap interval of stat(p, y) resampling whole held-out games (positions of a game are not independent)."""
    np = need_numpy()
    games = rows.game[mask]
    ids = sorted(set(int(g) for g in games))
    by = {g: np.flatnonzero(games == g) for g in ids}
    rng = np.random.default_rng(derive_seed(seed, "calibrate-bootstrap"))
    vals = []
    for _ in range(resamples):
        pick = np.concatenate([by[ids[i]] for i in rng.integers(0, len(ids), len(ids))])
        vals.append(stat(p[pick], y[pick]))
    return float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))


@dataclass
class CalibrationFit:
    """What a fit did: the map, and the held-out measures of it and of the raw value."""

    cal: CalibrationMap
    table: list                  # reliability of the held-out win chance
    raw_table: list              # reliability of the raw search value, for comparison

    def report(self) -> str:
        """Return a few lines saying what was fitted and measured."""
        f = self.cal.fitted
        return (f"{f['train_games']} games ({f['train_positions']} decisions) fitted, "
                f"{f['held_games']} held out ({f['held_positions']} decisions), "
                f"{self.cal.players} players, {self.cal.board}, {self.cal.iterations} iterations\n"
                f"held out: ECE {f['ece']:.4f} [{f['ece_low']:.4f}, {f['ece_high']:.4f}], "
                f"Brier {f['brier']:.4f} [{f['brier_low']:.4f}, {f['brier_high']:.4f}]; "
                f"the raw search value: ECE {f['raw_ece']:.4f}, Brier {f['raw_brier']:.4f}")


def value_weights_read(players: int):
    """Return the fingerprint of the learned weights the default search reads with this many players (None: it reads the handcrafted value)."""
    from search.learned_value import weights_fingerprint
    from search.params import SearchParams
    return weights_fingerprint(players) if SearchParams().resolved(players).value == "learned" else None


def fit(games: list, holdout: float = 0.25, seed: int = 0, ridge: float = 1e-3) -> CalibrationFit:
    """Fit the map on the training games and measure it on the held-out ones."""
    np = need_numpy()
    if not games:
        raise SearchError("no finished games to fit")
    kinds = {(g["players"], g["board"], g["iterations"]) for g in games}
    if len(kinds) > 1:
        raise SearchError(f"games of several settings {sorted(kinds)}: fit one player count, board and budget at a time")
    players, board, iterations = kinds.pop()
    rows = rows_of(games)
    train, held = split_games(rows.game, holdout, seed)
    cal = fit_map(rows, train, players, board, iterations, ridge)
    p, y = predict(cal, rows.x[held]), rows.share[held]
    raw = 1.0 / (1.0 + np.exp(-rows.x[held][:, FEATURES.index("value_logit")]))
    e_lo, e_hi = game_interval(ece, rows, held, p, y, seed)
    b_lo, b_hi = game_interval(brier, rows, held, p, y, seed)
    cal.fitted = {"seed": seed, "holdout": holdout, "ridge": ridge,
                  "train_games": len(set(rows.game[train].tolist())), "train_positions": int(train.sum()),
                  "held_games": len(set(rows.game[held].tolist())), "held_positions": int(held.sum()),
                  "ece": ece(p, y), "ece_low": e_lo, "ece_high": e_hi,
                  "brier": brier(p, y), "brier_low": b_lo, "brier_high": b_hi,
                  "raw_ece": ece(raw, y), "raw_brier": brier(raw, y),
                  "value_weights": value_weights_read(players)}
    return CalibrationFit(cal, reliability(p, y), reliability(raw, y))


def reliability_svg(fits: list) -> str:
    """Return an SVG reliability diagram: held-out predicted win chance against the observed share, one panel per fit."""
    W, H, pad = 340, 340, 46
    side = W - 2 * pad
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W * len(fits)}" height="{H + 40}" '
           f'viewBox="0 0 {W * len(fits)} {H + 40}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W * len(fits)}" height="{H + 40}" fill="white"/>']
    for i, fr in enumerate(fits):
        ox, f = i * W + pad, fr.cal.fitted

        def px(v):
            return ox + v * side

        def py(v):
            return pad + (1 - v) * side
        out.append(f'<text x="{ox + side / 2}" y="{pad - 22}" text-anchor="middle" font-weight="bold">'
                   f'{fr.cal.players} players, {fr.cal.board}, {fr.cal.iterations} iterations</text>')
        out.append(f'<text x="{ox + side / 2}" y="{pad - 8}" text-anchor="middle">'
                   f'held out: ECE {f["ece"]:.3f}, Brier {f["brier"]:.3f} ({f["held_games"]} games)</text>')
        out.append(f'<rect x="{ox}" y="{pad}" width="{side}" height="{side}" fill="none" stroke="#888"/>')
        for t in (0.25, 0.5, 0.75):
            out.append(f'<line x1="{px(t)}" y1="{py(0)}" x2="{px(t)}" y2="{py(1)}" stroke="#eee"/>')
            out.append(f'<line x1="{px(0)}" y1="{py(t)}" x2="{px(1)}" y2="{py(t)}" stroke="#eee"/>')
        for t in (0, 0.5, 1):
            out.append(f'<text x="{px(t)}" y="{py(0) + 15}" text-anchor="middle">{t:g}</text>')
            out.append(f'<text x="{ox - 6}" y="{py(t) + 4}" text-anchor="end">{t:g}</text>')
        out.append(f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(1)}" y2="{py(1)}" stroke="#999" stroke-dasharray="4 3"/>')
        for table, colour in ((fr.raw_table, "#d08030"), (fr.table, "#2060c0")):
            pts = " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b, _ in table)
            out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
            for a, b, c in table:
                out.append(f'<circle cx="{px(a):.1f}" cy="{py(b):.1f}" r="{2 + min(4, math.sqrt(c) / 12):.1f}" '
                           f'fill="{colour}"/>')
        out.append(f'<text x="{ox + side / 2}" y="{py(0) + 32}" text-anchor="middle">predicted</text>')
        out.append(f'<text x="{ox - 32}" y="{pad + side / 2}" text-anchor="middle" '
                   f'transform="rotate(-90 {ox - 32} {pad + side / 2})">observed wins</text>')
    out.append(f'<text x="{pad}" y="{H + 10}" fill="#2060c0">&#9679; win chance (the shipped map)</text>')
    out.append(f'<text x="{pad}" y="{H + 28}" fill="#d08030">&#9679; the search value read as a chance</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
