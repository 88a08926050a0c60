"""Package docstrings that map their modules list every one (so a reader can trust the map)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("package", ["autograder", "workbook/engine"])
def test_the_package_docstring_names_every_module(package):
    folder = ROOT / package
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
    names = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("__")}
    missing = sorted(n for n in names if f" {n} " not in f" {doc} ".replace(",", " ").replace("\n", " "))
    assert not missing, f"{package}/__init__.py's docstring does not mention {missing}"
