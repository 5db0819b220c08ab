"""Fixtures shared by the rules tests: `impl` runs each test on every engine.

`impl` is parametrised with ids "reference" (the pure-Python `engine.reference`)
and "cython" (`engine.State` / `engine.new_game`). When the Cython engine is
not importable the "cython" cases FAIL with the import error: a missing build
must never pass as a skip.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# tests' helpers (diagram, records) and the checkout's bench/ and tools/, which
# the package does not install: any single test module runs alone
for path in (HERE, ROOT):
    if path not in sys.path:
        sys.path.insert(0, path)

from diagram import position  # noqa: E402


@dataclass
class Impl:
    """One engine implementation: its new_game and State.from_snapshot."""

    name: str
    new_game: Callable
    from_snapshot: Callable

    def position(self, diagram=None, **kw):
        """Return a State built from a diagram (tests/diagram.py), consistency-checked."""
        state = self.from_snapshot(position(diagram, **kw))
        state.check_consistency()
        return state


def _reference() -> Impl:
    from engine import reference
    return Impl("reference", reference.new_game, reference.State.from_snapshot)


def _cython() -> Impl:
    import engine
    return Impl("cython", engine.new_game, engine.State.from_snapshot)


def _cython_status() -> str:
    try:
        _cython()
        return "available"
    except (ImportError, AttributeError) as err:
        return f"unavailable ({type(err).__name__}: {err})"


def pytest_report_header(config):
    return f"tne-ai engines: reference always; cython {_cython_status()}"


@pytest.fixture(params=["reference", "cython"])
def impl(request) -> Impl:
    """The engine implementation under test."""
    if request.param == "reference":
        return _reference()
    try:
        return _cython()
    except (ImportError, AttributeError) as err:
        pytest.fail(f"cython engine unavailable (run `pip install -e '.[test]'`): "
                    f"{type(err).__name__}: {err}")


@pytest.fixture
def searched(monkeypatch) -> list:
    """Record the observation every ISMCTS search of this test is given (in this process), in order."""
    from search.ismcts import ISMCTS
    seen = []
    real = ISMCTS.search

    def spy(self, obs, seat, *args, **kw):
        seen.append(obs)
        return real(self, obs, seat, *args, **kw)

    monkeypatch.setattr(ISMCTS, "search", spy)
    return seen
