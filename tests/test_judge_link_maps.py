"""The judge's and the link's package docstrings name every module (so a reader can trust the map),
and every module of both stays under the size the developers' guide asks for."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["autograder/judge", "workbook/link"]
MAX_LINES = 300


@pytest.mark.parametrize("package", PACKAGES)
def test_the_package_docstring_names_every_module(package):
    folder = ROOT / package
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
    words = set(doc.replace(",", " ").replace("`", " ").split())
    missing = sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("__") and p.stem not in words)
    assert not missing, f"{package}/__init__.py's docstring does not name {missing}"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_is_under_the_size_limit(package):
    long = {p.name: n for p in (ROOT / package).glob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these along a seam (one job each, under {MAX_LINES} lines): {long}"
