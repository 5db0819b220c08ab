"""Compiled kernels of the rules engine (see core.pxd for every bit layout)."""
try:
    from ext import core  # noqa: F401
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "tne-ai's compiled modules are missing: run `pip install -e '.[test]'` "
        f"from the repository root first ({exc})"
    ) from exc
