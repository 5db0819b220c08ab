"""Imports go one way only, engine < search < tne_ai (docs/design.md "Layers"): engine must not load search, click or
tne_ai; search not tne_ai or click. No module takes another's private names."""
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
    assert upper_layers_loaded("search.ismcts, search.arena.runner, search.baselines", ("tne_ai", "click")) == []


HEURISTIC_KERNELS = ("evaluate", "evaluate_terms", "seat_values", "score_actions", "war_prior",
                     "attacker_sure_commitment", "exposure_terms", "fix_needs", "greedy_playout",
                     "colour_values", "eval_params_from", "merge_scored")
EVALUATION_NAMES = ("EVAL_FIELDS", "LEADER_PARTS", "evaluate_of", "seat_values_of", "score_actions_of", "explain_terms",
                    "_greedy_choices", "_merge_scored", "_MOVE_PRIOR_MAX")
SEARCH_KERNELS = ("ext.search", "ext.search.evaluation", "ext.search.tree", "ext.search.greedy")


def test_the_rules_kernel_loads_no_search_kernel():
    """The dependency runs one way: the search kernels (ext.search) cimport the rules kernel, never back."""
    assert upper_layers_loaded("ext.core", SEARCH_KERNELS) == []
    assert upper_layers_loaded("engine, ext.core", SEARCH_KERNELS) == []


def test_the_rules_kernel_exposes_no_evaluation_prior_or_playout_policy():
    """ext.core holds only rules: every evaluation, prior and greedy-policy kernel is ext.search.evaluation's."""
    import ext.core
    from ext.search import evaluation
    assert [n for n in dir(ext.core) if n in EVALUATION_NAMES] == []
    # the C functions a module shares with those that cimport it (Cython's __pyx_capi__)
    assert set(ext.core.__pyx_capi__) & set(HEURISTIC_KERNELS) == set()
    assert {"evaluate", "score_actions", "greedy_playout"} <= set(evaluation.__pyx_capi__)
    assert evaluation.EVAL_FIELDS[0] == "tau"


VAGUE_MODULE_NAMES = {"debug", "utils", "util", "misc", "helpers", "common", "stuff"}


def test_module_names_say_what_they_hold():
    """No package holds two modules named alike (agent / agents) or a module with a name that says nothing."""
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    for package in ("engine", "search", "tne_ai", "ext", "ext/search"):
        names = {p.stem for p in (root / package).glob("*.p[xy]*") if p.suffix in (".py", ".pyx", ".pxi")} - {"__init__", "__main__"}
        assert not [n for n in names if n + "s" in names], f"{package}: singular and plural modules"
        assert not names & VAGUE_MODULE_NAMES, f"{package}: {sorted(names & VAGUE_MODULE_NAMES)}"


def test_debug_asserts_are_single_calls_that_release_builds_skip():
    """A debug_assert's argument is one call: Cython computes any other expression into a temporary first, which NDEBUG does not remove."""
    import re
    from pathlib import Path
    import ext.core
    ext_dir = Path(ext.core.__file__).parent
    sources = sorted(ext_dir.glob("**/*.pyx")) + sorted(ext_dir.glob("**/*.pxi"))
    asserts = [line.strip() for f in sources for line in f.read_text().splitlines()
               if "debug_assert(" in line and "cdef" not in line and not line.strip().startswith("#")]
    assert len(asserts) >= 2
    single_call = re.compile(r"debug_assert\((self\.)?\w+\([^()]*\)\)")
    assert [a for a in asserts if not single_call.fullmatch(a)] == []


PROJECT_PACKAGES = ("engine", "search", "tne_ai", "ext", "bench", "tools")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_module_takes_another_modules_private_names():
    """No module of the project imports another's private name (`from x import _y`, `import x._y`): what two
    modules share is public; dunder names (__version__) are fine. Parenthesised imports are read whole (ast)."""
    import ast
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    found = []
    for package in PROJECT_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root)
            here = list(rel.with_suffix("").parts)       # the module's dotted name, as parts
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(rel))):
                if isinstance(node, ast.ImportFrom):
                    if node.level:                        # relative: resolve against this module's package
                        module = ".".join(here[:-node.level] + ([node.module] if node.module else []))
                    else:
                        module = node.module or ""
                    if module.split(".")[0] not in PROJECT_PACKAGES:
                        continue
                    parts = module.split(".")
                    found += [f"{rel}:{node.lineno}: from {module} import {a.name}" for a in node.names
                              if _private(a.name) or any(_private(p) for p in parts)]
                elif isinstance(node, ast.Import):
                    found += [f"{rel}:{node.lineno}: import {a.name}" for a in node.names
                              if a.name.split(".")[0] in PROJECT_PACKAGES
                              and any(_private(p) for p in a.name.split("."))]
    assert found == [], "private names taken across modules:\n" + "\n".join(found)
