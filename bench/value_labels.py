"""A 2-player learned value fitted on targets a search gives, mixed with the games' outcomes (bootstrapped targets).

    python -m bench.value_labels label OUT RECORDS... [--iterations 1000] [--every 6] [--jobs 2]
    python -m bench.value_labels fit LABELS --outcome-weight 0.5 --out WEIGHTS

**label.** Every `--every`-th decision of each finished 2-player record
(the first 10 skipped) that is an action-phase decision is searched from
the acting seat's observation at `--iterations`, a fresh tree each, with
the root's centring and the end's pull off (`eval_centre` 0, `endgame`
0), so that a reward is the learned value's plain σ(logit). The seed of
each search is derived from the record's path and the decision's index,
so the labels are a function of the options. OUT (JSON) maps each record
to its rows [decision, seat, the chosen decision's mean, the root's
visit-weighted mean]; an unfinished record maps to null.

**fit.** Each labelled position gives a row per seat. A search's mean m
is turned into a win chance as the shipped value reads its logit: σ(b ·
logit m), b the shipped fit's weight on the handcrafted logit; the other
seat gets its complement. The target is `outcome_weight` × the seat's win
share + (1 − `outcome_weight`) × that chance; search.tuning.value fits it
as it fits outcomes, whole games held out. It prints the held-out Brier
against the outcomes and against the targets, the shipped weights' beside.

With `outcome_weight` 0.5 (labels at 1,000 iterations, every 6th decision
of the 8,344 games of four kept SPRTs) the fit plays no better than the
shipped weights at equal time (SPRT H0, −7 Elo); on targets alone it loses (docs/strength.md, "The
learned value").
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys

SKIP = 10


def _label_record(job: tuple) -> tuple:
    """Search the labelled positions of one record; return (path, rows or None if unfinished)."""
    import engine
    from engine.record import replay_record, record_start
    from search.agent import Limits
    from search.arena.runner import derive_seed
    from search.ismcts import ISMCTS
    from search.params import SearchParams
    path, iterations, every = job
    with open(path) as f:
        text = f.read()
    final, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
    if final.players != 2:
        raise SystemExit(f"{path}: a game of {final.players} players; labels are for 2")
    if not final.is_terminal():
        return path, None
    state = record_start(text, engine.new_game, engine.State.from_snapshot)
    search = ISMCTS(params=SearchParams(eval_centre=0.0, endgame=0.0, reuse_tree=False))
    rows = []
    for ply, action in enumerate(actions):
        if ply >= SKIP and ply % every == 0 and state.phase == "action":
            seat = state.to_act
            r = search.search(state.observation(seat), seat, Limits(iterations=iterations),
                              seed=derive_seed(66, os.path.basename(path), ply))
            total = sum(c.visits for c in r.candidates)
            rows.append([ply, seat, r.candidates[0].mean, sum(c.mean * c.visits for c in r.candidates) / total])
            search.forget()
        state.apply(action)
    return path, rows


def record_files(paths: list) -> list:
    """Return the game records of folders and files, in order (search.tuning.value.record_paths); exit naming a bad one."""
    from search.agent import SearchError
    from search.tuning.value import record_paths
    try:
        return record_paths(paths)
    except SearchError as e:
        raise SystemExit(str(e)) from None


def label(files: list, iterations: int, every: int, jobs: int = 1) -> dict:
    """Return each record's labelled rows (see the module's docstring)."""
    jobs_list = [(f, iterations, every) for f in files]
    if jobs <= 1:
        return dict(map(_label_record, jobs_list))
    with multiprocessing.Pool(jobs) as pool:
        return dict(pool.map(_label_record, jobs_list, chunksize=4))


def fit(labels: dict, outcome_weight: float):
    """Return (ValueFit, held-out measures) of the learned value on the labelled positions' mixed targets."""
    import numpy as np
    import engine
    from engine.record import replay_record, record_start
    from ext.search import evaluation
    from search.learned_value import load_weights, weights_path
    from search.params import SearchParams
    from search.tuning.calibrate import split_games
    from search.tuning.texel import win_shares
    from search.tuning.value import Positions, fit_value, kernel_logits
    with open(weights_path(2)) as f:
        slope = json.load(f)["measures"]["handcrafted_weight"]
    shipped = load_weights(2)
    weights = SearchParams().eval_weights(2)
    x, target, outcome, game = [], [], [], []
    for g, (path, rows) in enumerate(sorted(labels.items())):
        if not rows:
            continue
        with open(path) as f:
            text = f.read()
        final, actions = replay_record(text, engine.new_game, engine.State.from_snapshot)
        shares = win_shares(list(final.result()))
        state = record_start(text, engine.new_game, engine.State.from_snapshot)
        at = {row[0]: row for row in rows}
        for ply, action in enumerate(actions):
            if ply in at:
                seat, m = at[ply][1], min(max(at[ply][2], 1e-4), 1 - 1e-4)
                chance = 1 / (1 + math.exp(-slope * math.log(m / (1 - m))))
                for s, features in enumerate(evaluation.value_features_of(state, weights)):
                    c = chance if s == seat else 1 - chance
                    x.append(features)
                    outcome.append(shares[s])
                    target.append(outcome_weight * shares[s] + (1 - outcome_weight) * c)
                    game.append(g)
            state.apply(action)
    x, target, outcome, game = (np.array(a, dtype=float) for a in (x, target, outcome, game))
    result = fit_value(Positions(x, target, game), 2)
    _, held = split_games(game, 0.25, 0, "value-holdout")

    def brier(kernel, b):
        p = 1 / (1 + np.exp(-b * kernel_logits(x[held], kernel)))
        return {"outcomes": float(((p - outcome[held]) ** 2).mean()), "targets": float(((p - target[held]) ** 2).mean())}

    measures = {"fitted": brier(result.weights, result.measures["handcrafted_weight"]), "shipped": brier(shipped, slope)}
    result.self_play = {"board": "standard", "outcome_weight": outcome_weight, "games": len(set(game.tolist()))}
    return result, measures


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.value_labels", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    lab = sub.add_parser("label", help="search positions of 2-player records")
    lab.add_argument("out")
    lab.add_argument("records", nargs="+")
    lab.add_argument("--iterations", type=int, default=1000)
    lab.add_argument("--every", type=int, default=6)
    lab.add_argument("--jobs", type=int, default=1)
    ft = sub.add_parser("fit", help="fit the value on the labels' mixed targets")
    ft.add_argument("labels")
    ft.add_argument("--outcome-weight", type=float, default=0.5)
    ft.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    if a.command == "label":
        if a.iterations < 1 or a.every < 1 or a.jobs < 1:
            ap.error("--iterations, --every and --jobs must be positive")
        labels = label(record_files(a.records), a.iterations, a.every, a.jobs)
        with open(a.out, "w") as f:
            json.dump(labels, f)
        print(f"{sum(len(r) for r in labels.values() if r)} positions of {len(labels)} records")
        return labels
    if not 0.0 <= a.outcome_weight <= 1.0:
        ap.error("--outcome-weight must be in 0..1")
    try:
        with open(a.labels) as f:
            labels = json.load(f)
    except (OSError, ValueError) as e:
        ap.error(f"cannot read {a.labels}: {e}")
    from search.tuning.value import save
    result, measures = fit(labels, a.outcome_weight)
    save(result, a.out)
    print(result.report())
    print("held-out Brier, against outcomes / targets: fitted {fitted[outcomes]:.4f} / {fitted[targets]:.4f}; "
          "shipped {shipped[outcomes]:.4f} / {shipped[targets]:.4f}".format(**measures))
    return result, measures


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
