"""Progress for self-learners: per chapter, the visible tests passed, the quiz answered right,
and the next thing to do. Offline and local: read from the student's own notebooks (their saved
outputs) and the quiz answers in workbook.saved_answers.

Saved outputs, not a fresh run: reading twelve notebooks takes milliseconds, while running a
chapter's tests (`make check`) takes seconds per chapter. So a cell counts as it was last run
and saved; a row says "run ... and save" where a test cell has no saved result.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

from workbook import quiz, saved_answers
from workbook.i18n import ENGLISH, current, tr
from workbook.paths import ROOT

CHAPTERS = ROOT / "chapters"
DONE = "done ✓ (visible tests passed; hidden tests run when graded)"  # never claims the grade


@dataclass(frozen=True)
class TestCell:
    """One visible test cell as last saved: "passed", "failed", "not answered" or "not run"."""

    grade_id: str
    state: str


@dataclass(frozen=True)
class Row:
    """One chapter's progress."""

    chapter: str
    tests: tuple[TestCell, ...]
    quiz_right: int
    quiz_total: int
    missing: str = ""  # why there is no notebook to read, if there is none
    lang: str = ENGLISH  # the language its sentences are said in

    @property
    def passed(self) -> int:
        return sum(t.state == "passed" for t in self.tests)

    @property
    def next(self) -> str:
        """The next thing to do in this chapter, or DONE."""
        lang = self.lang
        if self.missing:
            return self.missing
        for t in self.tests:
            if t.state in ("failed", "not answered"):
                exercise = t.grade_id.removesuffix('_tests')
                if t.state == "not answered":
                    return tr(lang, "answer {exercise} (its test: {test})", exercise=exercise, test=t.grade_id)
                return tr(lang, "fix {exercise} (its test: {test})", exercise=exercise, test=t.grade_id)
        if unrun := [t.grade_id for t in self.tests if t.state == "not run"]:
            if len(unrun) > 1:
                return tr(lang, "run {test} and {more} more, then save the notebook", test=unrun[0], more=len(unrun) - 1)
            return tr(lang, "run {test}, then save the notebook", test=unrun[0])
        if self.quiz_right < self.quiz_total:
            return tr(lang, "answer the quiz ({left} question(s) left)", left=self.quiz_total - self.quiz_right)
        return tr(lang, DONE)

    @property
    def done(self) -> bool:
        return self.next == tr(self.lang, DONE)


def _stubs(nb: dict) -> set[str]:
    """The grade_ids of answer cells still holding the released stub."""
    return {c.get("metadata", {}).get("nbgrader", {}).get("grade_id", "") for c in nb.get("cells", [])
            if c.get("metadata", {}).get("nbgrader", {}).get("solution")
            and "raise NotImplementedError" in "".join(c.get("source", ""))}


def visible_tests(nb: dict) -> tuple[TestCell, ...]:
    """The visible test cells of a notebook (as JSON data) with their saved results."""
    out, stubs = [], _stubs(nb)
    for cell in nb.get("cells", []):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        grade_id = str(meta.get("grade_id", ""))
        if cell.get("cell_type") != "code" or not meta.get("grade") or meta.get("solution") \
                or "hidden" in grade_id:
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            state = "not answered" if errors[0].get("ename") == "NotImplementedError" else "failed"
        elif cell.get("execution_count") is None:
            state = "not answered" if grade_id.removesuffix("_tests") in stubs else "not run"
        else:
            state = "passed"
        out.append(TestCell(grade_id, state))
    return tuple(out)


def quiz_score(chapter: str, saved: dict[str, dict[str, list[str]]]) -> tuple[int, int]:
    """(questions answered right, questions) for a chapter's quiz; (0, 0) when it has none."""
    if chapter not in quiz.chapters():
        return 0, 0
    questions = quiz.load(chapter)
    answers = saved.get(chapter, {})
    right = 0
    for q in questions:
        picks = [i for i, a in enumerate(q.answers) if a.text in answers.get(q.text, [])]
        right += bool(picks) and quiz.check(q, picks).correct
    return right, len(questions)


def chapters_folder(lang: str = ENGLISH) -> Path:
    """Where a learner's notebooks are: chapters/, or chapters/<lang>/ for a translated edition."""
    edition = CHAPTERS / lang
    return edition if lang != ENGLISH and edition.is_dir() else CHAPTERS


def rows(folder: Path | None = None, progress_file: Path | None = None, lang: str = ENGLISH) -> list[Row]:
    """One Row per chapter folder (NN_name/NN_name.ipynb) under `folder` (default chapters/, or
    the `lang` edition's)."""
    folder = Path(folder or chapters_folder(lang))
    if not folder.is_dir():
        raise ValueError(tr(lang, "no chapters folder at {folder}: pass the folder your notebooks are in", folder=folder))
    saved = saved_answers.load(progress_file)
    out = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and p.name[:2].isdigit()):
        notebook = sub / f"{sub.name}.ipynb"
        right, total = quiz_score(sub.name, saved)
        try:
            tests = visible_tests(json.loads(notebook.read_text(encoding="utf-8")))
            missing = ""
        except (OSError, ValueError) as e:
            tests, missing = (), tr(lang, "cannot read {name} ({error})", name=notebook.name, error=type(e).__name__)
        out.append(Row(sub.name, tests, right, total, missing, lang))
    return out


def next_step(table: list[Row]) -> str:
    """The one thing to do next, over all chapters."""
    lang = table[0].lang if table else ENGLISH
    for row in table:
        if not row.done:
            return tr(lang, "Next: {chapter}: {step}.", chapter=row.chapter, step=row.next)
    return tr(lang, "Every chapter is done: visible tests passed and quizzes right; "
                    "hidden tests run when your notebooks are graded.")


def _cells(row: Row) -> tuple[str, str, str, str]:
    tests = f"{row.passed}/{len(row.tests)}" if row.tests else "-"
    quiz_cell = f"{row.quiz_right}/{row.quiz_total}" if row.quiz_total else "-"
    return row.chapter, tests, quiz_cell, row.next


def head(lang: str = ENGLISH) -> tuple[str, ...]:
    return (tr(lang, "chapter"), tr(lang, "visible tests passed"), tr(lang, "quiz right"), tr(lang, "next"))


def text(table: list[Row]) -> str:
    """The table as plain text (the command line)."""
    lang = table[0].lang if table else ENGLISH
    lines = [head(lang), *(_cells(r) for r in table)]
    widths = [max(len(line[i]) for line in lines) for i in range(3)]
    out = ["  ".join([c.ljust(w) for c, w in zip(line[:3], widths, strict=True)] + [line[3]])
           for line in lines]
    out.insert(1, "  ".join("-" * w for w in widths) + "  ----")
    return "\n".join(out + ["", next_step(table), source(lang)])


def source(lang: str = ENGLISH) -> str:
    """Where the table's numbers come from."""
    return tr(lang, "Visible tests as last run and saved in each notebook; quiz answers as saved by "
                    "Check in {path}.", path=saved_answers.path())


def as_html(table: list[Row]) -> str:
    """The table as HTML (a notebook cell)."""
    lang = table[0].lang if table else ENGLISH
    top = "".join(f"<th style='text-align:left'>{h}</th>" for h in head(lang))
    body = "".join("<tr>" + "".join(f"<td style='text-align:left'>{html.escape(c)}</td>"
                                    for c in _cells(r)) + "</tr>" for r in table)
    return (f"<div class='wb-progress'><h3>{tr(lang, 'Your progress')}</h3><table><tr>{top}</tr>{body}</table>"
            f"<p><b>{html.escape(next_step(table))}</b></p><p><i>{html.escape(source(lang))}</i></p></div>")


def show(folder: Path | None = None) -> None:
    """Show the progress table: HTML in a notebook, text elsewhere."""
    table = rows(folder, lang=current())
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and getattr(get_ipython(), "kernel", None) is not None:
        display(HTML(as_html(table)))
    else:
        print(text(table))
