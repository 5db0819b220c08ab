"""A value learned from self-play: richer features of a position, a logistic model fitted with numpy.

Positions come from the game records of the calibration self-play
(search.tuning.calibrate: the default ISMCTS at 1,000 iterations a decision
on every seat), every action-phase position after the first `skip`
decisions, each labelled with every seat's share of the win. Whole games
are held out and measured.

The features of a seat (`seat_features`) start from the evaluation's own
terms as the kernel counts them (ext.search.evaluation.explain_terms: the
colour totals with treasures on the weakest, the concave colour value, the
leaders' prospects split into presence, temples, supporters, monuments and
treasures, the kings, the catastrophes in hand) and add the hand's tiles by
colour, the treasures taken and how near the end is. A seat is described
against its opponents (its feature less the best opponent's and less their
mean), and the terms that matter more as the end nears are repeated times
the progress (a tapered evaluation). The model is one logistic regression
over the calibrated handcrafted evaluation (the logit of its reward, the
progress and their product, free) and those features as corrections
(standardised, pulled towards 0 by a ridge), fitted by Newton's method: the
handcrafted evaluation plus what the richer features add.

It is measured against the handcrafted evaluation calibrated alone (the
same logistic without the corrections, fitted on the same training
positions): the Brier score and the log loss on held-out games.
The learned value is not yet evaluated inside the search's kernel; this is
the training and the measure of whether it predicts better.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import engine
from engine.errors import EngineError
from engine.record import replay_record, record_start
from ext.search import evaluation
from search.agent import SearchError
from search.params import SearchParams
from search.tuning.calibrate import fit_logistic, split_games
from search.tuning.texel import need_numpy, win_shares

BASE = ("weakest", "second", "third", "strongest", "concave", "presence", "temples", "supporters",
        "monuments", "treasure_near", "kings", "catastrophes", "hand_k", "hand_r", "hand_b", "hand_g",
        "treasures")
TAPERED = ("weakest", "concave", "presence", "kings", "treasures")
FEATURE_NAMES = (("bias", "progress")
                 + tuple(f"{f}-best" for f in BASE) + tuple(f"{f}-mean" for f in BASE)
                 + tuple(f"{f}-best*progress" for f in TAPERED))


def seat_terms(state, weights) -> tuple:
    """Return (each seat's base features in BASE order, the progress 0..1) of a state."""
    t = evaluation.explain_terms(state, weights, False)
    snap = state.snapshot()
    out = []
    for p, seat in enumerate(t["seats"]):
        totals = sorted(seat["totals"])
        parts = seat["leader_parts"]
        hand = snap["hands"][p] if snap.get("hands") else [0, 0, 0, 0]
        out.append([totals[0], totals[1], totals[2], totals[3], seat["concave"], parts["presence"],
                    parts["temples"], parts["supporters"], parts["monuments"], parts["treasure"],
                    seat["kings"], seat["catastrophes"], hand[0], hand[1], hand[2], hand[3],
                    snap["treasures_taken"][p]])
    return out, t["progress"]


def seat_features(base: list, progress: float, seat: int) -> list:
    """Return the model's inputs (FEATURE_NAMES) for one seat from every seat's base features."""
    mine = base[seat]
    others = [base[q] for q in range(len(base)) if q != seat]
    best = [mine[i] - max(o[i] for o in others) for i in range(len(BASE))]
    mean = [mine[i] - sum(o[i] for o in others) / len(others) for i in range(len(BASE))]
    tapered = [best[BASE.index(f)] * progress for f in TAPERED]
    return [1.0, progress] + best + mean + tapered


@dataclass
class Positions:
    """Labelled positions as arrays: learned features, the handcrafted reward, the target, the game."""

    x: object
    hand: object            # (n, 4): bias, logit(handcrafted reward), progress, logit * progress
    y: object
    game: object


def positions_of(games: list, params: SearchParams = SearchParams(), skip: int = 10, every: int = 1) -> Positions:
    """Return every `every`-th action-phase position after `skip` decisions of the games' records, each seat a row."""
    np = need_numpy()
    x, hand, y, game = [], [], [], []
    for g in games:
        text = g.get("record")
        if not text:
            continue
        try:
            final, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
            state = record_start(text, engine.new_game, engine.State.from_snapshot)
        except EngineError as e:
            raise SearchError(f"game {g['game']}: {e}") from None
        shares = win_shares(g["ranks"])
        weights = params.eval_weights(state.players)
        for ply, action in enumerate(actions):
            if ply >= skip and ply % every == 0 and state.phase == "action":
                base, progress = seat_terms(state, weights)
                rewards = evaluation.evaluate_of(state, weights)
                for s in range(state.players):
                    x.append(seat_features(base, progress, s))
                    r = min(1 - 1e-4, max(1e-4, rewards[s]))
                    z = math.log(r / (1 - r))
                    hand.append([1.0, z, progress, z * progress])
                    y.append(shares[s])
                    game.append(g["game"])
            state.apply(action)
    if not x:
        raise SearchError("no positions: the data holds no game records")
    return Positions(np.array(x, dtype=float), np.array(hand), np.array(y), np.array(game))


def log_loss(p, y) -> float:
    """Return the mean cross-entropy of predictions p against targets y."""
    np = need_numpy()
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


@dataclass
class ValueFit:
    """The learned weights (with the features' scale) and the held-out measures against the handcrafted value."""

    weights: list
    scale: list
    measures: dict

    def to_dict(self) -> dict:
        """Return the weights file's content."""
        return {"features": ["bias", "handcrafted_logit", "progress", "handcrafted_logit*progress"]
                + list(FEATURE_NAMES[1:]), "weights": self.weights, "scale": self.scale,
                "measures": self.measures}

    def report(self) -> str:
        """Return a few lines saying what was measured."""
        m = self.measures
        return (f"{m['train_positions']} training rows ({m['train_games']} games), {m['held_positions']} held out "
                f"({m['held_games']} games)\n"
                f"held out: learned value Brier {m['learned_brier']:.4f}, log loss {m['learned_log_loss']:.4f}; "
                f"calibrated handcrafted Brier {m['handcrafted_brier']:.4f}, log loss {m['handcrafted_log_loss']:.4f}")


def fit_value(pos: Positions, holdout: float = 0.25, seed: int = 0, ridge: float = 0.1) -> ValueFit:
    """Fit the learned value and the calibrated handcrafted one on the training games; measure both on the held-out ones."""
    np = need_numpy()
    train, held = split_games(pos.game, holdout, seed, "value-holdout")
    if not held.any() or not train.any():
        raise SearchError("need games to train on and games to hold out")
    scale = pos.x[train].std(axis=0)
    scale[scale == 0] = 1.0
    free = pos.hand.shape[1]
    x = np.hstack([pos.hand, pos.x[:, 1:] / scale[1:]])      # the learned bias is the handcrafted one's
    w = fit_logistic(x[train], pos.y[train], ridge, free=free)
    wh = fit_logistic(pos.hand[train], pos.y[train], 0.0, free=free)
    p = 1 / (1 + np.exp(-x[held] @ w))
    ph = 1 / (1 + np.exp(-pos.hand[held] @ wh))
    y = pos.y[held]
    measures = {"ridge": ridge, "train_positions": int(train.sum()), "held_positions": int(held.sum()),
                "train_games": len(set(pos.game[train].tolist())), "held_games": len(set(pos.game[held].tolist())),
                "learned_brier": float(((p - y) ** 2).mean()), "learned_log_loss": log_loss(p, y),
                "handcrafted_brier": float(((ph - y) ** 2).mean()), "handcrafted_log_loss": log_loss(ph, y)}
    return ValueFit([float(a) for a in w], [1.0] * free + [float(a) for a in scale[1:]], measures)


def save(fit: ValueFit, path: str) -> None:
    """Write the weights file."""
    with open(path, "w") as f:
        json.dump(fit.to_dict(), f, indent=1)
        f.write("\n")
