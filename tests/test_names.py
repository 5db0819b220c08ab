"""One name per concept: no two classes of the product share a name across modules or layers."""
import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# engine.reference is the pure-Python oracle of the rules: its State mirrors engine.state.State on purpose
SAME_CONCEPT = {"State": {"engine/reference.py", "engine/state.py"}}


def class_homes() -> dict:
    """Return each top-level class name of engine/, search/ and tne_ai/ with the files that define it."""
    homes = defaultdict(set)
    for package in ("engine", "search", "tne_ai"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.ClassDef):
                    homes[node.name].add(str(path.relative_to(ROOT)))
    return homes


def test_no_class_name_means_two_things():
    shared = {name: sorted(files) for name, files in class_homes().items()
              if len(files) > 1 and files != SAME_CONCEPT.get(name)}
    assert shared == {}


def test_the_scan_sees_the_classes_it_guards():
    homes = class_homes()
    assert homes["Limits"] == {"search/agent.py"} and homes["GoLimits"] == {"tne_ai/protocol/client.py"}
    assert homes["State"] == SAME_CONCEPT["State"]
