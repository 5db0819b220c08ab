"""Imports go one way only, engine < search < tne_ai (README "Layout"): engine must not load search, click or
tne_ai; search not tne_ai or click."""
import subprocess
import sys


def upper_layers_loaded(modules: str, forbidden: tuple) -> list:
    """Return which of `forbidden` a fresh interpreter has loaded after importing `modules`."""
    code = (f"import sys, {modules};"
            f"print(','.join(m for m in {forbidden!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_importing_engine_loads_no_upper_layer():
    modules = "engine, engine.reference, engine.position, engine.record, engine.render, engine.info, engine.view"
    assert upper_layers_loaded(modules, ("search", "tne_ai", "click")) == []


def test_reference_imports_nothing_of_the_cython_engine():
    import engine.reference as ref
    src = open(ref.__file__).read()
    imported = {line.split()[1] for line in src.splitlines() if line.startswith(("import ", "from "))}
    assert not any(name.split(".")[0] == "ext" or name == "engine.state" for name in imported)
    assert {"engine.actions", "engine.boards"} <= imported


def test_importing_search_loads_no_application_layer():
    assert upper_layers_loaded("search.ismcts, search.arena, search.agents", ("tne_ai", "click")) == []
