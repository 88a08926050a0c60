"""The students' copy of the course: the only course files their servers run from (docs/HUB.md,
"What students can read"; issue 46). hub/setup_hub.py builds it; after each release, as root:

    sudo .venv/bin/python hub/student_course.py [--state /srv/agent-loop-hub]

It holds the released chapters (the instructor's course's `chapters/`), `workbook/`,
`agent_files/` (the knowledge base the agent's file tools read), `lab/student/`, `hub/student/`
(the students' Jupyter settings), README.md and LICENSE, and `python/`: a venv of a Python every
account can run, holding the course venv's installed packages (hard links to the same files, or
copies across disks) but not the course's own distribution, whose editable finder names the clone.
`workbook` is imported from this copy. Never `solutions/`, the mutants, the sample cohort, `.git`,
the instructor's workspace or gradebook: every file of the course parts is read and the copy is
refused when one holds a solution or hidden-test marker or a forbidden name. The copy is built
beside the old one and swapped in, root-owned, folders 0755, files readable by all.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_STATE = Path("/srv/agent-loop-hub")
# (part, from the repository?) — chapters come from the instructor's course: what nbgrader releases
PARTS = (("chapters", False), ("workbook", True), ("agent_files", True), ("lab/student", True),
         ("hub/student", True), ("README.md", True), ("LICENSE", True), ("i18n", True))  # i18n: translations
SKIPPED = ("__pycache__", ".ipynb_checkpoints", "hidden.json")  # hidden.json: hidden tests' messages (i18n/)
MARKERS = (b"BEGIN SOLUTION", b"BEGIN HIDDEN TESTS", b"BEGIN MARK SCHEME")  # nbgrader's, in any cell
# what never belongs in a student's copy: the instructor's course, workspace and history
FORBIDDEN = frozenset({".git", "solutions", "mutants", "sample_cohort", "gradebook.db", "submitted",
                       "autograded", "exchange.json"})
PTH = "agent_loop_course.pth"  # puts the copy's root on sys.path: `import workbook` finds its workbook/


class SetupError(Exception):
    """Why the hub (or the students' copy) cannot be set up, in one line."""


def runnable_by_all(path: Path) -> bool:
    """True when any account can reach `path` (every folder above it has o+x) and read or run it."""
    path = Path(os.path.realpath(path))
    folders_ok = all(os.stat(p).st_mode & stat.S_IXOTH for p in path.parents)
    return folders_ok and bool(os.stat(path).st_mode & stat.S_IROTH)


def accounts_interpreter() -> Path:
    """A Python of this one's version that every account can run: this venv's base interpreter when
    it and its standard library are readable by all, else the system's (a pyenv under a 0700 /root)."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    base = Path(os.path.realpath(Path(sys.base_prefix) / "bin" / f"python{version}"))
    if base.is_file() and runnable_by_all(base) and runnable_by_all(Path(sys.base_prefix) / "lib" / f"python{version}"):
        return base
    system = shutil.which(f"python{version}", path="/usr/local/bin:/usr/bin:/bin")
    if system is None or not runnable_by_all(Path(system)):
        raise SetupError(f"the course's Python ({sys.base_prefix}) cannot be run by other accounts and there is "
                         f"no system python{version}: make the course's venv from a Python every account can run")
    return Path(system)


def course_distribution(repo: Path = REPO) -> str:
    """The course's own distribution name, normalized (pyproject.toml's project.name)."""
    with open(repo / "pyproject.toml", "rb") as f:
        return _norm(tomllib.load(f)["project"]["name"])


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def site_dirs() -> list[Path]:
    """The site-packages folders this Python imports from (the venv's, and any a .pth adds)."""
    return [Path(p) for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]


def distributions(exclude: str) -> list[importlib.metadata.Distribution]:
    """Every installed distribution but `exclude`, each once (the first on the path, as import finds it)."""
    seen, found = {exclude}, []
    for dist in importlib.metadata.distributions(path=[str(p) for p in site_dirs()]):
        name = _norm(dist.metadata["Name"] or "")
        if name in seen:
            continue
        seen.add(name)
        if dist.files is None:
            raise SetupError(f"{name} lists no files (no RECORD): reinstall it with pip")
        found.append(dist)
    return found


def env_files(env: Path, exclude: str) -> dict[Path, Path]:
    """Where each installed file goes in the venv `env` -> where it is now. A distribution's files
    are listed relative to its site-packages (`../../../share/jupyter/...` for data files); its
    scripts (bin/) are written anew by `write_scripts`, since theirs name the course venv's Python."""
    site = _site_packages(env)
    placed: dict[Path, Path] = {}
    for dist in distributions(exclude):
        for rel in dist.files or ():
            dest = Path(os.path.normpath(site / rel))
            if not dest.is_relative_to(env) or dest.is_relative_to(env / "bin") or dest in placed:
                continue
            src = Path(os.path.normpath(Path(str(dist.locate_file(rel)))))
            if src.is_file():
                placed[dest] = src
    return placed


def _site_packages(env: Path) -> Path:
    return env / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def _place(src: Path, dest: Path) -> None:
    """A hard link to `src` when every account may read it (the same file, no copy), else a copy
    made readable by all."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    mode = os.stat(src).st_mode
    if mode & stat.S_IROTH:
        try:
            os.link(src, dest)
            return
        except OSError:  # another disk, or links refused: copy
            pass
    shutil.copy2(src, dest)
    os.chmod(dest, 0o755 if mode & stat.S_IXUSR else 0o644)


def write_scripts(env: Path, final: Path, exclude: str) -> int:
    """Each distribution's console scripts (nbgrader, jupyter, jupyter-lab, ...) in env/bin, run by
    the copy's Python at its final place."""
    written = 0
    for dist in distributions(exclude):
        for ep in dist.entry_points.select(group="console_scripts"):
            script = env / "bin" / ep.name
            if "/" in ep.name or ep.name.startswith(".") or os.path.lexists(script):
                continue
            head, _, rest = ep.attr.partition(".")
            call = f"{head}.{rest}" if rest else head
            script.write_text(f"#!{final / 'bin' / 'python'}\nimport sys\nfrom {ep.module} import {head}\n"
                              f"if __name__ == '__main__':\n    sys.exit({call}())\n", encoding="utf-8")
            script.chmod(0o755)
            written += 1
    return written


def make_env(env: Path, final: Path, python: Path, root: Path, repo: Path = REPO) -> int:
    """A venv at `env` (to be moved to `final`) of `python`, with the installed packages but the
    course's own, and `root` on its path. Returns how many files it holds."""
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(env)], check=True)
    for name in os.listdir(env / "bin"):  # activate scripts name the temporary path; nobody activates
        if name.lower().startswith("activate"):
            (env / "bin" / name).unlink()
    cfg = env / "pyvenv.cfg"
    cfg.write_text("".join(line for line in cfg.read_text().splitlines(keepends=True)
                           if not line.startswith("command")), encoding="utf-8")
    exclude = course_distribution(repo)
    files = env_files(env, exclude)
    for dest, src in files.items():
        _place(src, dest)
    (_site_packages(env) / PTH).write_text(f"{root}\n", encoding="utf-8")
    return len(files) + write_scripts(env, final, exclude)


def copy_parts(into: Path, course: Path, repo: Path = REPO) -> int:
    """The course parts students need, copied (never linked: the instructor's files stay hers)."""
    copied = 0

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n in SKIPPED or n.startswith(".")}
        if Path(folder).name == "out" and Path(folder).parent.name == "agent_files":
            skip |= set(names)  # what the agent wrote while someone ran it; not course material
        return skip

    def copy(src: str, dst: str) -> str:
        nonlocal copied
        copied += 1
        shutil.copyfile(src, dst)  # a fifo or device raises: never read as root into the copy
        os.chmod(dst, 0o755 if os.stat(src).st_mode & stat.S_IXUSR else 0o644)
        return dst

    for part, from_repo in PARTS:
        src = (repo if from_repo else course) / part
        try:
            if src.is_symlink():
                raise SetupError(f"{src} is a link: the students' copy follows none")
            if src.is_dir():  # links inside are copied as links, and `problems` refuses them
                shutil.copytree(src, into / part, symlinks=True, ignore=ignore, copy_function=copy)
            elif src.is_file():
                (into / part).parent.mkdir(parents=True, exist_ok=True)
                copy(str(src), str(into / part))
            elif part == "chapters":
                raise SetupError(f"{course} has no chapters/: release the course first (make release)")
        except (shutil.Error, OSError) as e:
            raise SetupError(f"cannot copy {src} into the students' copy: {e}") from None
    return copied


def problems(tree: Path) -> list[str]:
    """What in the course parts of `tree` must not reach a student: a forbidden name, a link, a
    solution or hidden-test marker. (python/ is the installed packages, checked by what it holds:
    nbgrader's own tests carry the markers.)"""
    found = []
    for folder, dirs, files in os.walk(tree):
        here = Path(folder)
        if here == tree:
            dirs[:] = [d for d in dirs if d != "python"]
        for name in dirs + files:
            path = here / name
            if name in FORBIDDEN:
                found.append(f"{path.relative_to(tree)}: {name!r} never goes to students")
            elif path.is_symlink():
                found.append(f"{path.relative_to(tree)}: a link")
            elif name in files:
                data = path.read_bytes()
                found += [f"{path.relative_to(tree)}: holds {m.decode()!r}" for m in MARKERS if m in data]
    return found


def build(dest: Path, course: Path, python: Path | None = None, repo: Path = REPO) -> tuple[int, int]:
    """Build the students' copy at `dest` from the instructor's course `course` (its chapters/) and
    the repository; replace the old one only when the new one is whole and clean. Returns (course
    files, environment files)."""
    dest = Path(os.path.abspath(dest))
    python = python or accounts_interpreter()
    new = dest.with_name(dest.name + ".new")
    old = dest.with_name(dest.name + ".old")
    before = os.umask(0o022)
    try:
        for leftover in (new, old):
            if os.path.lexists(leftover):
                shutil.rmtree(leftover)
        new.mkdir(parents=True)
        course_files = copy_parts(new, Path(course), repo)
        found = problems(new)
        if found:
            raise SetupError(f"the students' copy of {course} would hold what students must not read "
                             f"(nothing was changed):\n  " + "\n  ".join(found))
        env_count = make_env(new / "python", dest / "python", python, dest, repo)
        for folder, _, _ in os.walk(new):
            os.chmod(folder, 0o755)
        if os.path.lexists(dest):
            os.rename(dest, old)
        os.rename(new, dest)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    finally:
        os.umask(before)
    return course_files, env_count


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--state", default=str(DEFAULT_STATE), help=f"the hub's folder (default {DEFAULT_STATE})")
    args = p.parse_args(argv)
    try:
        if os.geteuid() != 0:
            raise SetupError("run as root: the copy is root's, and reads the instructor's course")
        try:
            settings = json.loads((Path(args.state) / "hub.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise SetupError(f"cannot read {args.state}/hub.json ({e}): run hub/setup_hub.py first") from None
        if "student_course" not in settings:
            raise SetupError(f"{args.state}/hub.json predates the students' copy: run hub/setup_hub.py again")
        dest = Path(settings["student_course"])
        course_files, env_files_ = build(dest, Path(settings["course_root"]))
    except (SetupError, subprocess.CalledProcessError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"the students' copy: {dest} ({course_files} course files, {env_files_} in python/); "
          "new servers run from it (restart a running one: the hub's Control Panel)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
