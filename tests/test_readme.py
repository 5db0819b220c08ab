"""The README's Python examples run as doctests (python-chess style)."""
import doctest
from pathlib import Path


def test_readme_examples_run():
    readme = Path(__file__).resolve().parent.parent / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5
    assert result.failed == 0
