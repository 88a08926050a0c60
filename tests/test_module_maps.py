"""Package docstrings that map their modules list every one, and every subpackage, and so does
docs/DESIGN.md's table of the autograder's parts (so a reader can trust the maps)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The autograder and each of its parts (the judge maps itself: tests/test_judge_link_maps.py),
# and the fake's engine.
PARTS = sorted(p.parent.name for p in (ROOT / "autograder").glob("*/__init__.py"))
PACKAGES = ["autograder", *(f"autograder/{p}" for p in PARTS if p != "judge"), "workbook/engine"]


@pytest.mark.parametrize("package", PACKAGES)
def test_the_package_docstring_names_every_module(package):
    folder = ROOT / package
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
    names = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("__")}
    names |= {p.parent.name for p in folder.glob("*/__init__.py")}  # its subpackages
    words = f" {doc} ".replace(",", " ").replace("/", " ").replace("\n", " ")
    missing = sorted(n for n in names if f" {n} " not in words)
    assert not missing, f"{package}/__init__.py's docstring does not mention {missing}"


def test_design_md_shows_every_part_of_the_autograder():
    """docs/DESIGN.md, "The autograder's layout": a row per folder of autograder/ naming its modules."""
    design = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    text = design.split("### The autograder's layout", 1)[-1]
    rows = dict(re.findall(r"^\| `(autograder/[\w/]*)` \|[^|\n]*\|(.*)\|$", text, re.M))
    for folder in ["autograder", *(f"autograder/{p}" for p in PARTS)]:
        assert f"{folder}/" in rows, f"docs/DESIGN.md's layout has no row for {folder}/"
        names = {p.stem for p in (ROOT / folder).glob("*.py") if p.stem != "__init__"}
        missing = sorted(names - set(re.findall(r"`(\w+)`", rows[f"{folder}/"])))
        assert not missing, f"docs/DESIGN.md's row for {folder}/ does not name {missing}"
