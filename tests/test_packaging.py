"""pyproject.toml and environment.yml list the same dependencies with the same ranges."""

import re
import tomllib

from workbook.paths import ROOT


def _normalise(spec: str) -> str:
    return re.sub(r"\s+", "", spec).lower()


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_normalise(s) for s in project["dependencies"] + project["optional-dependencies"]["dev"]}
    lines = (ROOT / "environment.yml").read_text().splitlines()
    pip_start = next(i for i, line in enumerate(lines) if line.strip() == "- pip:")
    listed = {_normalise(line.strip()[2:]) for line in lines[pip_start + 1:]
              if line.strip().startswith("- ")}
    assert listed == wanted, (f"only in pyproject: {sorted(wanted - listed)}; "
                              f"only in environment.yml: {sorted(listed - wanted)}")
    python = next(line for line in lines if "python=" in line)
    assert project["requires-python"] == ">=3.11" and "3.11" in python


def test_quiz_files_ship_with_the_package():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {"quizzes/*.json", "trace/samples/*.jsonl"} <= set(data["package-data"]["workbook"])
