"""Information-set search and what is built on it (docs/design.md).

The search proper: agent (the Agent interface and limits), params (the one table of
knobs), ismcts (the tree's Python face), baselines, analysis, explain, review.
The machinery that plays many games lives apart: search.arena (runner, backends,
SPRT) and search.tuning (SPSA, Texel). Imports engine and ext, never tne_ai.
"""
