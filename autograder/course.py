"""Where a course keeps its chapters, solutions, mutants and grading workspace."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHAPTER_ID = re.compile(r"^\d\d_[a-z0-9_]+$")
COURSE_ID = "agent-loop-by-hand"


class AutograderError(Exception):
    """A problem the user can fix; the CLI prints its message without a traceback."""


def json_object(path: Path, fix: str) -> dict:
    """The JSON object a course file holds (a record, a language's settings), {} when the file is
    not there; an AutograderError naming the file and saying how to `fix` it when it is not one."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise AutograderError(f"{path} is not JSON ({e}): {fix}") from None
    if not isinstance(data, dict):
        raise AutograderError(f"{path} is not a JSON object: {fix}")
    return data


@dataclass(frozen=True)
class Course:
    """One nbgrader course: solutions/ -> chapters/, grading state under `workspace`."""

    root: Path = REPO
    source: Path = field(default=None)  # solutions/: one folder per chapter
    release: Path = field(default=None)  # chapters/: generated
    mutants: Path = field(default=None)  # autograder/mutants/<chapter>/<exercise>-<mistake>.patch
    workspace: Path = field(default=None)  # submitted/, autograded/, feedback/, gradebook.db

    def __post_init__(self):
        root = Path(self.root).resolve()
        object.__setattr__(self, "root", root)
        defaults = {"source": root / "solutions", "release": root / "chapters",
                    "mutants": root / "autograder" / "mutants", "workspace": root / "autograder"}
        for name, default in defaults.items():
            value = getattr(self, name)
            object.__setattr__(self, name, Path(value).absolute() if value else default)
        for name in ("source", "workspace"):  # nbgrader matches its paths as regexps built from root
            if not getattr(self, name).is_relative_to(root):
                raise AutograderError(f"the {name} folder {getattr(self, name)} must be inside {root}")

    def with_workspace(self, workspace: Path) -> Course:
        """The same course, grading into another workspace (the demo uses its own)."""
        return Course(self.root, self.source, self.release, self.mutants, workspace)

    # -- workspace layout
    submitted = property(lambda self: self.workspace / "submitted")
    autograded = property(lambda self: self.workspace / "autograded")
    feedback = property(lambda self: self.workspace / "feedback")
    gradebook = property(lambda self: self.workspace / "gradebook.db")
    grades_csv = property(lambda self: self.workspace / "grades.csv")
    work = property(lambda self: self.workspace / "work")  # per-worker gradebooks, results, logs
    results = property(lambda self: self.workspace / "work" / "results")
    sample_cohort = property(lambda self: self.root / "autograder" / "sample_cohort")  # committed
    demo_workspace = property(lambda self: self.root / "autograder" / "work" / "demo")

    def chapters(self) -> list[str]:
        """Chapter ids found in the source folder, in order."""
        if not self.source.is_dir():
            return []
        found = []
        for folder in sorted(self.source.iterdir()):
            if not folder.is_dir() or not CHAPTER_ID.match(folder.name):
                continue
            if not (folder / f"{folder.name}.py").is_file() and not (folder / f"{folder.name}.ipynb").is_file():
                raise AutograderError(f"{folder} has neither {folder.name}.py nor {folder.name}.ipynb")
            found.append(folder.name)
        return found

    def check_chapter(self, chapter: str) -> str:
        """Return `chapter` if the course has it, else raise a readable error."""
        known = self.chapters()
        if chapter not in known:
            raise AutograderError(f"unknown chapter {chapter!r}; known: {', '.join(known) or 'none'}")
        return chapter

    def solution_py(self, chapter: str) -> Path:
        return self.source / chapter / f"{chapter}.py"

    def solution_ipynb(self, chapter: str) -> Path:
        return self.source / chapter / f"{chapter}.ipynb"

    def released(self, chapter: str) -> Path:
        return self.release / chapter / f"{chapter}.ipynb"

    def rel(self, path: Path) -> str:
        """`path` relative to the course root, as nbgrader wants its folders."""
        return str(Path(path).absolute().relative_to(self.root))

    def private_paths(self) -> list[Path]:
        """Folders a submission must not read while it is graded (solutions, mutants, gradebook)."""
        paths = {self.source, self.mutants, self.workspace, self.root / ".git", REPO / ".git"}
        if self.source.is_dir():
            paths |= {p.resolve() for p in self.source.iterdir() if p.is_dir()}
        return sorted({Path(p).resolve() for p in paths})
