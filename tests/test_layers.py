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
    assert upper_layers_loaded("search.ismcts, search.arena, search.baselines", ("tne_ai", "click")) == []


HEURISTIC_KERNELS = ("evaluate", "evaluate_terms", "seat_values", "score_actions", "war_prior",
                     "attacker_sure_commitment", "exposure_terms", "fix_needs", "greedy_playout",
                     "colour_values", "eval_params_from")


def test_the_rules_kernel_defines_no_evaluation_prior_or_playout_policy():
    """ext/core holds only rules: every evaluation, prior and greedy-policy kernel is ext/heuristics'."""
    import re
    from pathlib import Path
    import ext.core
    import ext.heuristics
    ext_dir = Path(ext.core.__file__).parent
    core = (ext_dir / "core.pyx").read_text() + (ext_dir / "core.pxd").read_text()
    defined = set(re.findall(r"^c?p?def\s+(?:inline\s+)?[\w*]+(?:\s+[\w*]+)?\s+\(?\*?(\w+)\(", core, re.M))
    assert defined & set(HEURISTIC_KERNELS) == set()
    assert "EvalParams" not in core
    assert not [n for n in dir(ext.core) if n in ("EVAL_FIELDS", "_evaluate", "_seat_values", "_score_actions", "_explain")]
    heur = (ext_dir / "heuristics.pyx").read_text()
    assert {"evaluate", "seat_values", "score_actions", "greedy_playout"} <= set(
        re.findall(r"^cdef\s+(?:inline\s+)?\w+\s+(\w+)\(", heur, re.M))
    assert ext.heuristics.EVAL_FIELDS[0] == "tau"


def test_the_rules_kernel_does_not_import_the_heuristics():
    """The dependency runs one way: heuristics and the tree cimport the rules, never back."""
    from pathlib import Path
    import ext.core
    core = (Path(ext.core.__file__).parent / "core.pyx").read_text()
    assert "heuristics" not in "".join(l for l in core.splitlines() if l.startswith(("from ", "cimport ", "import ")))


VAGUE_MODULE_NAMES = {"debug", "utils", "util", "misc", "helpers", "common", "stuff"}


def test_module_names_say_what_they_hold():
    """No package holds two modules named alike (agent / agents) or a module with a name that says nothing."""
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    for package in ("engine", "search", "tne_ai", "ext"):
        names = {p.stem for p in (root / package).glob("*.py*") if p.suffix in (".py", ".pyx")} - {"__init__", "__main__"}
        assert not [n for n in names if n + "s" in names], f"{package}: singular and plural modules"
        assert not names & VAGUE_MODULE_NAMES, f"{package}: {sorted(names & VAGUE_MODULE_NAMES)}"


def test_debug_asserts_are_single_calls_that_release_builds_skip():
    """A debug_assert's argument is one call: Cython computes any other expression into a temporary first, which NDEBUG does not remove."""
    import re
    from pathlib import Path
    import ext.core
    ext_dir = Path(ext.core.__file__).parent
    asserts = [line.strip() for f in sorted(ext_dir.glob("*.pyx")) for line in f.read_text().splitlines()
               if "debug_assert(" in line and "cdef" not in line and not line.strip().startswith("#")]
    assert len(asserts) >= 2
    single_call = re.compile(r"debug_assert\((self\.)?\w+\([^()]*\)\)")
    assert [a for a in asserts if not single_call.fullmatch(a)] == []
