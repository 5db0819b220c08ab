"""The sdist stands alone: it holds every file of the repository, so its tests run from it.

The required list is not written by hand: it is `git ls-files` (skipped
outside a git checkout, e.g. in an unpacked sdist). The sdist is built from
a copy of the checkout in a scratch directory, so the build leaves nothing
in the working tree.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOT_SHIPPED = {".gitignore"}          # tracked files an sdist user has no use for


def git_files(*options: str) -> list:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: no list of the repository's files to check against")
    out = subprocess.run(["git", "ls-files", "-z", *options], cwd=ROOT, capture_output=True, check=True)
    return [f for f in out.stdout.decode().split("\0") if f and (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def sdist_names(tmp_path_factory) -> set:
    """The file names (relative to its top folder) of an sdist built from a copy of this checkout."""
    tracked = git_files("--cached")
    untracked = git_files("--others", "--exclude-standard")    # new files not yet committed build too
    src = tmp_path_factory.mktemp("checkout")
    for name in tracked + untracked:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(out)], cwd=src,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (archive,) = out.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        return {m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile() and "/" in m.name}


@pytest.mark.slow
def test_the_sdist_holds_every_tracked_file(sdist_names):
    required = set(git_files("--cached")) - NOT_SHIPPED
    assert {"tests/conftest.py", "docs/rules.md", "tools/doc_examples.py", "LICENSE"} <= required
    missing = sorted(required - sdist_names)
    assert missing == [], f"{len(missing)} files of the repository are not in the sdist (MANIFEST.in): {missing[:20]}"


@pytest.mark.slow
def test_the_sdist_holds_no_build_products(sdist_names):
    junk = sorted(n for n in sdist_names
                  if n.endswith((".so", ".pyc", ".pyo")) or "__pycache__" in n
                  or (n.startswith("ext/") and n.endswith((".c", ".html"))) or n.startswith("build/"))
    assert junk == []


def test_a_missing_build_says_to_reinstall_and_names_the_module(tmp_path):
    """The ImportError of an install without its compiled modules (a wheel for another Python, a
    broken install) names the module and says how to reinstall; it does not assume a checkout."""
    (tmp_path / "ext").mkdir()
    shutil.copy2(ROOT / "ext" / "__init__.py", tmp_path / "ext" / "__init__.py")   # the package, no .so
    # -S: no site-packages, so neither an installed tne-ai nor an editable one's import hook is seen
    proc = subprocess.run([sys.executable, "-S", "-c", "import ext"], cwd=tmp_path, capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin"}, timeout=60)
    assert proc.returncode != 0
    message = proc.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: ") and "compiled extension modules" in message
    assert "ext.core" in message
    assert "pip install --force-reinstall tne-ai" in message
    assert "repository root" not in message
