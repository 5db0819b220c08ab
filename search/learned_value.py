"""The learned value's shipped weights: read, checked against the evaluation weights they were fitted on, cached.

The model is ext.search.evaluation's: a logistic over value_features (the
handcrafted evaluation's logit and progress, then richer facts of each seat
against its opponents); `tne-ai tune value` fits it (search.tuning.value)
and writes a weights file. A file holds {"format", "players", "evaluation"
(evaluation_fingerprint: the handcrafted weights its features were counted
with, which a test checks against today's defaults), "features" (the
kernel's VALUE_FEATURE_NAMES, in order), "weights" (the kernel's, one a
feature), "self_play" (the games it was fitted on), "measures"}, and may
hold "hidden" ({"weights": a row of feature weights a unit, "bias", "out"}:
units whose out * tanh(bias + weights . features) the logit adds; `tne-ai
tune value --hidden N`). The search uses the weights when its `value` knob
is "learned" (search.params).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from typing import Optional

from search.agent import SearchError

VALUE_FORMAT = "tne-ai value 1"
DATA_DIR = os.path.join(os.path.dirname(__file__), "data", "value")
_CACHE: dict = {}


def evaluation_fingerprint(players: int) -> str:
    """Return a short hash of what the learned value's features depend on: the default evaluation weights for a player count and the features' names."""
    from ext.search import evaluation
    from search.params import SearchParams
    text = json.dumps({"weights": list(SearchParams().eval_weights(players)), "eval": list(evaluation.EVAL_FIELDS),
                       "features": list(evaluation.VALUE_FEATURE_NAMES)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def weights_path(players: int) -> str:
    """Return where the shipped weights for a player count live (fitted on the standard board)."""
    return os.path.join(DATA_DIR, f"{int(players)}p.json")


def check_weights(doc, source: str):
    """Return a weights file's kernel weights (a list, or with hidden units a dict); SearchError names what is wrong."""
    from ext.search.evaluation import VALUE_FEATURE_NAMES
    if not isinstance(doc, dict) or doc.get("format") != VALUE_FORMAT:
        raise SearchError(f"{source}: not a learned-value file (\"format\" must be {VALUE_FORMAT!r})")
    if doc.get("features") != list(VALUE_FEATURE_NAMES):
        raise SearchError(f"{source}: fitted on other features than the kernel's value_features (refit it)")
    w = doc.get("weights")
    if (not isinstance(w, list) or len(w) != len(VALUE_FEATURE_NAMES)
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in w)):
        raise SearchError(f"{source}: \"weights\" must be {len(VALUE_FEATURE_NAMES)} finite numbers")
    linear = [float(x) for x in w]
    if "hidden" not in doc:
        return linear
    from ext.search.evaluation import value_parts
    kernel = {"linear": linear, "hidden": doc["hidden"]}
    try:
        _, rows, bias, out = value_parts(kernel)
    except ValueError as e:
        raise SearchError(f"{source}: \"hidden\": {e}") from None
    return {"linear": linear, "hidden": {"weights": rows, "bias": bias, "out": out}}


def read_weights(path: str) -> tuple:
    """Return (players, kernel weights) of a weights file; SearchError names what is wrong with it."""
    try:
        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size)     # a file written again is read again
    except OSError:
        key = (path, None, None)
    if key not in _CACHE:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except FileNotFoundError:
            raise SearchError(f"no learned value at {path} (the file is missing)") from None
        except (OSError, ValueError, UnicodeDecodeError, RecursionError) as e:
            raise SearchError(f"cannot read the learned value {path}: {getattr(e, 'strerror', None) or e}") from None
        weights = check_weights(doc, path)
        players = doc.get("players")
        if isinstance(players, bool) or players not in (2, 3, 4):
            raise SearchError(f"{path}: \"players\" must be 2, 3 or 4, got {players!r}")
        _CACHE[key] = (players, weights)
    return _CACHE[key]


def weights_fingerprint(players: int, path: Optional[str] = None) -> str:
    """Return a short hash of the learned value's weights (the shipped ones, or the file at path), which a win-chance map fitted on the search reading them records."""
    return hashlib.sha256(json.dumps(load_weights(players, path)).encode()).hexdigest()[:16]


def load_weights(players: int, path: Optional[str] = None):
    """Return the learned value's kernel weights for a player count (the shipped file, or the one at path): a list, or a dict with hidden units."""
    path = path or weights_path(players)
    fitted_for, weights = read_weights(path)
    if fitted_for != players:
        raise SearchError(f"{path}: fitted for {fitted_for} players, not {players}")
    return weights
