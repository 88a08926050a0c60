"""The feedback page of a translated notebook, in its language (autograder/pipeline/feedback_filter.py).

A notebook whose metadata names a language (the translated editions, autograder/i18n/i18n_release.py)
gets a page in that language: the page's own words (`page_words`, read by
pipeline/feedback_page/course_feedback/page.html.j2), the grader's notes and labels (feedback_filter.py),
and each test's message (`translate_errors`, with the language's catalog). Its markdown cells are
the grader's own when they are the translated edition's (`edition_cells`), so they are shown after
the first hidden test as the English cells are.
"""

from __future__ import annotations

import functools
from pathlib import Path

from nbgrader.coursedir import CourseDirectory

from autograder import notebooks
from autograder.course import AutograderError
from workbook.i18n import ENGLISH, catalog, tr, translate
from workbook.i18n.templates import Catalog, parse
from workbook.link.heard import VALUE, mask_values


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
        said = output.evalue
        if VALUE in said:  # a hidden test's message, its quoted values masked by the judge
            said = masked(lang).translate(said)
        if said == output.evalue:
            said = translate(lang, said)
        if said != output.evalue:
            output.traceback = [line.replace(output.evalue, said) if isinstance(line, str) else line
                                for line in output.get("traceback", [])]
            output.evalue = said


def _masked(template: str, quoted: bool = False) -> str:
    """A template as the judge masks a message made from it (workbook/link/heard.py): the
    values its own text quotes become VALUE, its placeholders stay; `quoted`: every placeholder's
    value was a quoted repr too (masked with the brackets around it), so none is left."""
    def escape(text: str) -> str:
        return text.replace("{", "{{").replace("}", "}}")

    if quoted:
        return escape(mask_values("".join("'…'" if kind == "field" else text for kind, text in parse(template))))
    return "".join("{" + text + "}" if kind == "field" else escape(mask_values(text)) for kind, text in parse(template))


@functools.cache
def masked(lang: str) -> Catalog:
    """The language's catalog for masked messages: each template that quotes a value of its own,
    and its translation, masked alike (the translation reveals no more than the English did)."""
    entries = {}
    for english, translation in catalog(lang).words.items():
        try:
            for quoted in (True, False):  # the values quoted, or numbers and names left as they were
                if _masked(english, quoted) != english:
                    entries[_masked(english, quoted)] = _masked(translation, quoted)
        except ValueError:
            continue
    return Catalog(entries)
