"""What ships is what users run (issue 47): the installed packages and the benchmarks import no
test module, and the gates' hostile submissions live with the tests, not in the package."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ("workbook", "autograder")  # pyproject.toml: [tool.setuptools.packages.find] include


def imports_of(path: Path) -> set[str]:
    """Every module an `import` or `from ... import` in `path` names (absolute imports)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_imports_of_sees_both_forms(tmp_path):
    """The check can fail: both import forms of a test module are found."""
    code = tmp_path / "m.py"
    code.write_text("import tests.gates\nfrom tests import hostile\nfrom . import near\n")
    assert imports_of(code) == {"tests.gates", "tests"}


def _python_files(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


def test_the_package_and_the_benchmarks_import_no_test_module():
    wrong = [f"{path.relative_to(ROOT)} imports {name}"
             for folder in (*SHIPPED, "bench") for path in _python_files(folder)
             for name in sorted(imports_of(path)) if name == "tests" or name.startswith("tests.")]
    assert not wrong, "move what is shared out of tests/ (bench/dask_cluster.py is an example):\n" + "\n".join(wrong)


def test_hostile_submissions_are_not_installed():
    shipped = [str(p.relative_to(ROOT)) for folder in SHIPPED for p in _python_files(folder)
               if p.stem.startswith("hostile")]
    assert not shipped, f"hostile gate submissions belong in tests/, not in the package: {shipped}"
    assert (ROOT / "tests" / "hostile.py").is_file()
