"""Compiled kernels of the rules engine (see core.pxd for every bit layout)."""
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
