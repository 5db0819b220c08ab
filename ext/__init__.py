"""The compiled (Cython) kernels: the rules kernel and the search kernels.

- ext.core: the rules kernel (the state, legal decisions, applying them,
  conflicts, turns and scoring, information sets), split into parts a reader
  finds by name (core.pyx says which; core.pxd documents every bit layout);
- ext.search: the search kernels (evaluation and priors, the ISMCTS tree and
  its move ordering, the greedy baseline), which cimport ext.core, never the
  reverse.
"""
import importlib

try:
    core = importlib.import_module("ext.core")   # "No module named 'ext.core'" when it is not built
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        f"tne-ai's compiled extension modules cannot be loaded ({exc}): they are missing or were "
        "built for another Python or platform. Installed from a package: reinstall it "
        "(`pip install --force-reinstall tne-ai`). Working from a source checkout: build them "
        "there with `pip install -e '.[test]'`."
    ) from exc
