"""pyproject.toml and environment.yml list the same dependencies with the same ranges, and
requirements.lock (what CI installs) pins one version inside each of them."""

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


def _lock() -> dict[str, str]:
    """requirements.lock: canonical name -> the one exact version it pins (comments skipped)."""
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep and version and not re.search(r"[<>=!~;@ ]", version), f"not an exact pin: {line!r}"
        assert canonicalize_name(name) not in pins, f"pinned twice: {name}"
        pins[canonicalize_name(name)] = version
    return pins


def test_the_lock_picks_a_version_in_every_range_of_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins, problems = _lock(), []
    extras = project["optional-dependencies"]  # hub: CI installs it for the hub test (.ci/run)
    for spec in project["dependencies"] + extras["dev"] + extras["hub"]:
        req = Requirement(spec)
        wanted = [canonicalize_name(req.name)] + (["distributed"] if req.name == "dask" else [])
        for name in wanted:
            if name not in pins:
                problems.append(f"{name} ({spec}) is not in requirements.lock")
        version = pins.get(canonicalize_name(req.name))
        if version is not None and not req.specifier.contains(version, prereleases=True):
            problems.append(f"requirements.lock has {req.name}=={version}, outside {spec}")
    assert not problems, "remake requirements.lock (its header says how):\n" + "\n".join(problems)


def test_the_lock_check_refuses_a_pin_outside_a_range():
    """The check above can fail: a version outside its range is not contained."""
    assert not Requirement("openai>=3,<4").specifier.contains("4.0.0", prereleases=True)
    assert Requirement("nbgrader==0.9.*").specifier.contains("0.9.5")


def test_make_installs_with_the_lock():
    makefile = (ROOT / "Makefile").read_text()
    assert "LOCK    := -c requirements.lock" in makefile and "$(LOCK) -e '.[dev]'" in makefile
    assert re.search(r"^\$\(STAMP\):.*\brequirements\.lock\b", makefile, re.M), "a new lock remakes .venv"


def test_ci_installs_the_hub_with_the_lock():
    """.ci/run adds '.[hub]' (jupyterhub for tests/browser/test_hub.py) at the lock's versions."""
    assert "-c requirements.lock -e '.[dev,hub]'" in (ROOT / ".ci" / "run").read_text()


def test_ci_rehearses_the_hub_after_the_tests():
    """`make test` leaves the hub rehearsal out (it needs root, accounts and Node; ~170 s of CPU):
    CI runs it as a step of its own, after `make test`, so no CI run skips it."""
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "make test" in steps and "make test-hub" in steps
    assert steps.index("make test") < steps.index("make test-hub")
    assert "HUB_REHEARSAL=1" in (ROOT / "Makefile").read_text()


def test_ci_grades_the_mutants_make_test_leaves_out():
    """`make test` grades each exercise's first mutant (issue 47's budget): CI runs `make
    test-mutants`, the rest, as a step of its own after it, so no CI run leaves a mutant out."""
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "make test-mutants" in steps and steps.index("make test") < steps.index("make test-mutants")
    makefile = (ROOT / "Makefile").read_text()
    assert "GATES_MUTANTS ?= $(if $(GATES_ONLY),all,first)" in makefile and "GATES_MUTANTS=rest" in makefile


def test_make_test_latest_installs_the_ranges_newest_not_the_lock():
    """Issue 47: a `pip install` without the lock gets the newest versions the ranges admit, so a
    tier tests those: its own venv, the install given no constraint file, then make test there."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^test-latest:\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe, "no test-latest recipe in the Makefile"
    make_test = next(line for line in recipe.group(1).splitlines() if "$(MAKE) test " in line)
    assert "VENV=.venv-latest" in make_test and 'LOCK="--upgrade' in make_test and "requirements.lock" not in make_test
    assert ".venv-latest/" in (ROOT / ".gitignore").read_text().splitlines()


def test_every_locked_package_installs_on_the_oldest_python_the_course_allows():
    """pyproject says Python 3.11+; Debian 12's python3 is 3.11.2. soupsieve 3.0+ says >=3.11.5, so
    with it in the lock a fresh `make lab` there stopped at pip's ResolutionImpossible (issue 46)."""
    from importlib import metadata

    from packaging.specifiers import SpecifierSet

    oldest = SpecifierSet(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"])
    floor = next(iter(oldest)).version  # ">=3.11": 3.11
    refused = []
    for name, version in _lock().items():
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # not installed here (the hub's extras): its pin is checked where it is
        needs = dist.metadata.get("Requires-Python")
        if dist.version == version and needs and not SpecifierSet(needs).contains(floor + ".0"):
            refused.append(f"{name}=={version} needs Python {needs}")
    assert not refused, f"pin a version that installs on Python {floor}.0: {refused}"
