"""A value learned from self-play: richer features of a position, a logistic model fitted with numpy.

Positions come from the game records of the calibration self-play
(search.tuning.calibrate: the default ISMCTS at 1,000 iterations a decision
on every seat), every action-phase position after the first `skip`
decisions, each labelled with every seat's share of the win. Whole games
are held out and measured.

The features are the kernel's own (ext.search.evaluation.value_features,
VALUE_FEATURE_NAMES), so the search evaluates exactly what was fitted: the
handcrafted evaluation's logit, the progress and their product (fitted
free), then the seat's facts against its opponents (the colour totals
sorted, the concave colour value, the leaders' prospects by part, kings,
catastrophes, the hand by colour, treasures, leaders on the board, who is
to act; each less the best opponent's and less their mean) and a few of
them times the progress (a tapered evaluation), standardised and pulled
towards 0 by a ridge. One logistic regression, fitted by Newton's method.
With `hidden` units (`tne-ai tune value --hidden N`), a layer of tanh units
over the same standardised features is added to that logit and the whole is
fitted again from the logistic's weights by Adam on the log loss, stopped
where a tenth of the training games, set aside, stop improving.

It is measured against the handcrafted evaluation calibrated alone (the
same logistic on its first four features, fitted on the same training
positions): the Brier score and the log loss on held-out games. The weights
file it writes is what search.learned_value loads when the search's
`value` knob is "learned".
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

import engine
from engine.errors import EngineError
from engine.record import replay_record, record_start
from ext.search import evaluation
from search.agent import SearchError
from search.params import SearchParams
from search.tuning.calibrate import fit_logistic, split_games
from search.arena.runner import derive_seed
from search.tuning.texel import need_numpy, win_shares

FREE = 4        # the bias, the handcrafted logit, the progress and their product: the calibrated handcrafted value
SEARCH_FREE = (0, 1)    # the learned value's columns fitted without ridge: the bias and the handcrafted logit


@dataclass
class Positions:
    """Labelled positions as arrays: learned features, the handcrafted reward, the target, the game."""

    x: object               # (n, VALUE_FEATURES): ext.search.evaluation.value_features, the first FREE handcrafted
    y: object
    game: object

    @property
    def hand(self):
        """Return the handcrafted columns: bias, its logit, the progress, their product."""
        return self.x[:, :FREE]


def positions_of(games: list, params: SearchParams = SearchParams(), skip: int = 10, every: int = 1) -> Positions:
    """Return every `every`-th action-phase position after `skip` decisions of the games' records, each seat a row."""
    np = need_numpy()
    x, y, game = [], [], []
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
                for s, row in enumerate(evaluation.value_features_of(state, weights)):
                    x.append(row)
                    y.append(shares[s])
                    game.append(g["game"])
            state.apply(action)
    if not x:
        raise SearchError("no positions: the data holds no game records")
    return Positions(np.array(x, dtype=float), np.array(y), np.array(game))


def record_paths(paths: list) -> list:
    """Return the game records given as folders of game*.txt or files, in order; SearchError names a missing one."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            names = sorted(f for f in os.listdir(path) if f.startswith("game") and f.endswith(".txt"))
            if not names:
                raise SearchError(f"{path}: no game records (game*.txt) in the folder")
            files += [os.path.join(path, f) for f in names]
        elif os.path.isfile(path):
            files.append(path)
        else:
            raise SearchError(f"{path}: no such file or folder")
    return files


def games_of_records(paths: list, players: int, board: str = "standard") -> tuple:
    """Return (games as the data file holds them, games left out) from arena records: folders of game*.txt or files.

    A record is replayed through the rules and labelled with its final
    ranking; a game stopped before the rules ended it (capped or forfeited)
    says nothing of who wins and is left out. A record that does not replay,
    or is of another player count or board, raises SearchError naming it.
    """
    games, left_out = [], 0
    for path in record_paths(paths):
        try:
            with open(path) as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise SearchError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
        try:
            final, _ = replay_record(text, engine.new_game, engine.State.from_snapshot)
        except EngineError as e:
            raise SearchError(f"{path}: {e}") from None
        if final.players != players:
            raise SearchError(f"{path}: a game of {final.players} players, not {players}")
        if final.board_name != board:
            raise SearchError(f"{path}: a game on the {final.board_name} board, not the {board} one")
        if not final.is_terminal():
            left_out += 1
            continue
        games.append({"game": len(games), "players": players, "board": board, "ended": True,
                      "ranks": list(final.result()), "record": text, "source": path})
    return games, left_out


def log_loss(p, y) -> float:
    """Return the mean cross-entropy of predictions p against targets y."""
    np = need_numpy()
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


@dataclass
class ValueFit:
    """The learned weights as the kernel takes them (the features' scale folded in) and the held-out measures."""

    players: int
    weights: list
    measures: dict
    self_play: dict = None      # what the games were: budget, board, games, seed (tne-ai tune value)
    hidden: dict = None         # the hidden units as the kernel takes them (None: the logistic alone)

    def to_dict(self) -> dict:
        """Return the weights file's content (search.learned_value reads it)."""
        from search.learned_value import VALUE_FORMAT, evaluation_fingerprint
        doc = {"format": VALUE_FORMAT, "players": self.players, "evaluation": evaluation_fingerprint(self.players),
               "features": list(evaluation.VALUE_FEATURE_NAMES), "weights": self.weights}
        if self.hidden:
            doc["hidden"] = self.hidden
        doc.update({"self_play": self.self_play, "measures": self.measures})
        return doc

    def report(self) -> str:
        """Return a few lines saying what was measured."""
        m = self.measures
        units = f"{m['hidden']} hidden units (epoch {m['epoch_kept']} kept), " if m.get("hidden") else ""
        return (f"{units}{m['train_positions']} training rows ({m['train_games']} games), {m['held_positions']} held out "
                f"({m['held_games']} games)\n"
                f"held out: learned value Brier {m['learned_brier']:.4f}, log loss {m['learned_log_loss']:.4f}; "
                f"calibrated handcrafted Brier {m['handcrafted_brier']:.4f}, log loss {m['handcrafted_log_loss']:.4f}")


def fit_value(pos: Positions, players: int, holdout: float = 0.25, seed: int = 0, ridge: float = 0.1,
              hidden: int = 0, decay: float = 1e-4) -> ValueFit:
    """Fit the learned value and the calibrated handcrafted one on the training games; measure both on the held-out ones.

    The learned value's logit is a + b * (the handcrafted logit) + the
    corrections; its weight on the handcrafted logit does not change with
    the progress (SEARCH_FREE), so that no stage of the game sees it vanish
    or turn negative, as a product with the progress fitted for prediction
    does at the opening. The corrections are standardised for the fit (so
    one ridge suits them all). The kernel's weights are the fitted ones
    divided by the corrections' scale and by b: the search reads the learned
    value in the handcrafted logit's units, for which its exploration was
    tuned (the win chance a player sees comes from search.calibration).
    """
    np = need_numpy()
    train, held = split_games(pos.game, holdout, seed, "value-holdout")
    if not held.any() or not train.any():
        raise SearchError("need games to train on and games to hold out")
    cols = list(SEARCH_FREE) + list(range(FREE, pos.x.shape[1]))
    x = pos.x[:, cols]
    scale = x[train].std(axis=0)
    scale[:len(SEARCH_FREE)] = 1.0
    scale[scale == 0] = 1.0
    x = x / scale
    w = fit_logistic(x[train], pos.y[train], ridge, free=len(SEARCH_FREE))
    wh = fit_logistic(pos.hand[train], pos.y[train], 0.0, free=FREE)
    p = 1 / (1 + np.exp(-np.clip(x[held] @ w, -700, 700)))
    ph = 1 / (1 + np.exp(-np.clip(pos.hand[held] @ wh, -700, 700)))
    y = pos.y[held]
    if hidden:
        w, hw, hb, hv, epochs = fit_hidden(x, pos.y, pos.game, train, w, hidden, seed, decay)
    slope = float(w[1])
    if slope <= 0:
        raise SearchError(f"the fit gives the handcrafted logit a weight of {slope:.3f}: too little data to learn from")
    hidden_units = None
    if hidden:
        rows = [[0.0] * pos.x.shape[1] for _ in range(hidden)]
        for j in range(hidden):
            for i, c in enumerate(cols):
                rows[j][c] = float(hw[i, j] / scale[i])
        hidden_units = {"weights": rows, "bias": [float(b) for b in hb], "out": [float(v / slope) for v in hv]}
    kernel = [0.0] * pos.x.shape[1]
    for i, c in enumerate(cols):
        kernel[c] = float(w[i] / scale[i] / slope)
    if hidden:
        # measured as the kernel will read it: its weights on the raw features, times the slope
        p = 1 / (1 + np.exp(-np.clip(slope * kernel_logits(pos.x[held], kernel, hidden_units), -700, 700)))
    measures = {"ridge": ridge, "seed": seed, "holdout": holdout, "handcrafted_weight": slope,
                "train_positions": int(train.sum()), "held_positions": int(held.sum()),
                "train_games": len(set(pos.game[train].tolist())), "held_games": len(set(pos.game[held].tolist())),
                "learned_brier": float(((p - y) ** 2).mean()), "learned_log_loss": log_loss(p, y),
                "handcrafted_brier": float(((ph - y) ** 2).mean()), "handcrafted_log_loss": log_loss(ph, y)}
    if hidden:
        measures.update({"hidden": hidden, "decay": decay, "epoch_kept": epochs})
    return ValueFit(players, kernel, measures, hidden=hidden_units)


def kernel_logits(x, kernel: list, hidden_units: dict = None):
    """Return the learned value's logit of feature rows x as the kernel computes it (in the handcrafted logit's units)."""
    np = need_numpy()
    z = x @ np.array(kernel)
    if hidden_units:
        h = np.tanh(x @ np.array(hidden_units["weights"]).T + np.array(hidden_units["bias"]))
        z = z + h @ np.array(hidden_units["out"])
    return z


def fit_hidden(x, y, game, train, w, hidden: int, seed: int, decay: float, batch: int = 2048, rate: float = 3e-3,
               max_epochs: int = 60, patience: int = 4) -> tuple:
    """Return (linear weights, hidden weights, biases, outputs, the epoch kept) of the logistic plus tanh units, fitted by Adam.

    x is standardised; w, the logistic's weights, starts the linear part and
    the units start small with outputs at 0, so the fit begins at the
    logistic. A tenth of the training games is set aside and the weights of
    the epoch that predicted them best are kept (at most `patience` epochs
    without improvement; epoch 0, the start, where none improved on it).
    Every random draw comes from `seed`.
    """
    np = need_numpy()
    rng = np.random.default_rng(derive_seed(seed, "value-hidden"))
    rows_train = np.flatnonzero(train)
    fit_mask, val_mask = split_games(game[rows_train], 0.1, seed, "value-hidden-stop")
    fit, val = rows_train[fit_mask], rows_train[val_mask]
    xf, yf, xv, yv = x[fit], y[fit], x[val], y[val]
    params = [np.array(w, dtype=float), rng.normal(0, 0.5 / math.sqrt(x.shape[1]), (x.shape[1], hidden)),
              np.zeros(hidden), np.zeros(hidden)]
    m = [np.zeros_like(a) for a in params]
    v2 = [np.zeros_like(a) for a in params]

    def logit(xx, wl, hw, hb, hv):
        h = np.tanh(xx @ hw + hb)
        return xx @ wl + h @ hv, h

    def loss(xx, yy):
        return log_loss(1 / (1 + np.exp(-np.clip(logit(xx, *params)[0], -30, 30))), yy)

    best, kept, kept_at, stale, t, epochs = loss(xv, yv), [a.copy() for a in params], 0, 0, 0, 0
    for epochs in range(1, max_epochs + 1):
        order = rng.permutation(len(yf))
        for i in range(0, len(order), batch):
            rows = order[i:i + batch]
            xx, yy = xf[rows], yf[rows]
            z, h = logit(xx, *params)
            g = (1 / (1 + np.exp(-np.clip(z, -30, 30))) - yy) / len(yy)
            gh = np.outer(g, params[3]) * (1 - h * h)
            grads = [xx.T @ g, xx.T @ gh + decay * params[1], gh.sum(axis=0), h.T @ g + decay * params[3]]
            t += 1
            for k, gr in enumerate(grads):
                m[k] = 0.9 * m[k] + 0.1 * gr
                v2[k] = 0.999 * v2[k] + 0.001 * gr * gr
                params[k] -= rate * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v2[k] / (1 - 0.999 ** t)) + 1e-8)
        now = loss(xv, yv)
        if now < best - 1e-5:
            best, kept, kept_at, stale = now, [a.copy() for a in params], epochs, 0
        else:
            stale += 1
            if stale >= patience:
                break
    return (*kept, kept_at)


def save(fit: ValueFit, path: str) -> None:
    """Write the weights file."""
    with open(path, "w") as f:
        json.dump(fit.to_dict(), f, indent=1)
        f.write("\n")
