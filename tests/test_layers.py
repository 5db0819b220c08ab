"""Imports go one way only (DESIGN.md): engine must not load search, click or tne_ai."""
import subprocess
import sys


def test_importing_engine_loads_no_upper_layer():
    code = ("import sys, engine, engine.reference, engine.position, engine.record, engine.render, engine.info;"
            "bad = [m for m in ('search', 'tne_ai', 'click') if m in sys.modules];"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_reference_imports_nothing_of_the_cython_engine():
    import engine.reference as ref
    src = open(ref.__file__).read()
    imported = {line.split()[1] for line in src.splitlines() if line.startswith(("import ", "from "))}
    assert not any(name.split(".")[0] == "ext" or name == "engine.state" for name in imported)
    assert {"engine.actions", "engine.boards"} <= imported


def test_importing_search_loads_no_application_layer():
    code = ("import sys, search.ismcts, search.arena, search.agents;"
            "bad = [m for m in ('tne_ai', 'click') if m in sys.modules];"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
