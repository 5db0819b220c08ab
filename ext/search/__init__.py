"""The search kernels: compiled (Cython, nogil) code that searches, never rules.

- ext.search.evaluation: the evaluation and value of a position, the move
  priors and the ε-greedy playout policy;
- ext.search.tree: the single-observer ISMCTS tree (class Tree), with its
  move ordering (ordering.pxi: the look-ahead near the root, the cheap prior
  elsewhere);
- ext.search.greedy: the greedy baseline's decision kernel.

They cimport the rules kernel (ext.core) for the state, the legal decisions
and applying them; the rules kernel never imports them.
"""
