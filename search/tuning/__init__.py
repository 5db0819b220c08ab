"""Tuning by games: SPSA over the search's knobs and Texel fitting of the evaluation's weights (docs/tuning.md).

spsa   simultaneous perturbation stochastic approximation over SearchParams fields, with checkpoints;
texel  least-squares fit of the evaluation weights to game results (numpy).

The command line is `tne-ai tune spsa` and `tne-ai tune texel` (tne_ai/cli/tune.py).
"""
