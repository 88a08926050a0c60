"""The feedback page of a translated notebook, in its language (autograder/feedback_filter.py).

A notebook whose metadata names a language (the translated editions, autograder/i18n_release.py)
gets a page in that language: the page's own words (`page_words`, read by
feedback_page/course_feedback/page.html.j2), the grader's notes and labels (feedback_filter.py),
and each test's message (`translate_errors`, with the language's catalog). Its markdown cells are
the grader's own when they are the translated edition's (`edition_cells`), so they are shown after
the first hidden test as the English cells are.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.coursedir import CourseDirectory

from autograder import notebooks
from autograder.course import AutograderError
from workbook.i18n import ENGLISH, tr, translate


def page_words(lang: str) -> dict[str, str]:
    """English word -> the word in `lang`, for the page's template (which looks each up by its
    English text)."""
    return {"Score": tr(lang, "Score"), "Test cell": tr(lang, "Test cell"),
            "Coding free-response": tr(lang, "Coding free-response"),
            "Written response": tr(lang, "Written response"), "Comment": tr(lang, "Comment"),
            "Late submission penalty": tr(lang, "Late submission penalty"),
            "After the first hidden test this page shows less of your notebook:":
                tr(lang, "After the first hidden test this page shows less of your notebook:"),
            "why": tr(lang, "why"), "Student's answer": tr(lang, "Student's answer"),
            "Grade cell:": tr(lang, "Grade cell:"), "Top": tr(lang, "Top")}


def edition_cells(config, resources, lang: str) -> set[tuple[str, str]]:
    """(cell type, source) of every markdown cell of the released `lang` edition of the chapter
    being shown (chapters/<lang>/<chapter>/), or nothing for English or an edition not released."""
    if lang == ENGLISH:
        return set()
    coursedir = CourseDirectory(config=config)
    info = resources.get("nbgrader", {})
    path = (Path(coursedir.root) / coursedir.release_directory / lang / info.get("assignment", "")
            / f"{info.get('notebook', '')}.ipynb")
    try:
        edition = notebooks.read(path)
    except AutograderError:
        return set()
    return {(c.cell_type, c.source) for c in edition.cells if c.cell_type == "markdown"}


def translate_errors(cell, lang: str) -> None:
    """Each error output's message in `lang` (its `evalue`, and where its traceback says it)."""
    if lang == ENGLISH:
        return
    for output in cell.get("outputs", []):
        if output.get("output_type") != "error" or not isinstance(output.get("evalue"), str):
            continue
        said = translate(lang, output.evalue)
        if said != output.evalue:
            output.traceback = [line.replace(output.evalue, said) if isinstance(line, str) else line
                                for line in output.get("traceback", [])]
            output.evalue = said
