"""Feedback shows which test failed and its message, and what the grader saw; never hidden tests.

Hidden-test blocks are found only in the grader's own cells: a cell whose nbgrader metadata
(grade_id, grade/solution/locked flags, points) and checksum match the chapter's source notebook.
They are found by one pass over its lines (`### BEGIN HIDDEN TESTS` ... `### END HIDDEN TESTS`),
never by a pattern run over a student's text. After the first hidden test, the page shows only
what the grader wrote: placeholders, the grader's own cells, and a test cell's error name and
message.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import nbgrader
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import compute_checksum, is_grade, is_locked, is_solution

from autograder import notebooks
from autograder.course import AutograderError
from autograder.i18n import i18n_feedback
from workbook.i18n import ENGLISH, notebook_language, tr
from workbook.link import heard

BEGIN, END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
PLACEHOLDER = "# (hidden tests: run by the grader, not shown)\n"
MIN_LINE = 12  # shorter hidden lines (`wb = fresh()`) are too common to be worth redacting


def hidden_spans(text: str) -> list[tuple[int, int]]:
    """(first, last) line numbers of each hidden block, by one pass over the lines: a block opens
    at a line that starts (after spaces or tabs) with BEGIN and closes at the next line that starts
    with END; a block that never closes is no block (as nbgrader's own rule)."""
    spans, start = [], None
    for number, line in enumerate(text.split("\n")):
        head = line.lstrip(" \t")
        if start is None and head.startswith(BEGIN):
            start = number
        elif start is not None and head.startswith(END):
            spans.append((start, number))
            start = None
    return spans


class _HiddenScan:
    """What the hidden-test regexp used to offer (`search`, `sub`, `findall`), in linear time, for
    the grader's own cells (execute.py asks `HIDDEN.search(source)` of instructor test cells)."""

    def search(self, text: str) -> tuple[int, int] | None:
        spans = hidden_spans(text)
        return spans[0] if spans else None

    def findall(self, text: str) -> list[str]:
        lines = text.split("\n")
        return ["\n".join(lines[a:b + 1]) + "\n" for a, b in hidden_spans(text)]

    def sub(self, replacement: str, text: str) -> str:
        lines, out, at = text.split("\n"), [], 0
        for a, b in hidden_spans(text):
            out += lines[at:a] + [replacement.rstrip("\n")] if replacement else lines[at:a]
            at = b + 1
        return "\n".join(out + lines[at:])


HIDDEN = _HiddenScan()


def hidden_lines(nb) -> set[str]:
    """The distinctive lines of hidden test blocks that appear nowhere else in the notebook, for
    the grader's own notebook (the chapter's source: every cell is the grader's)."""
    hidden, visible = set(), []
    for cell in nb.cells:
        for block in HIDDEN.findall(cell.source if cell.cell_type == "code" else ""):
            hidden |= {s.strip() for s in block.splitlines()[1:-1] if len(s.strip()) >= MIN_LINE}
        visible.append(HIDDEN.sub("", cell.source))
    shown = "\n".join(visible)  # a line also in visible code or prose is no secret
    return {line for line in hidden if line not in shown}


def source_notebook(config, resources) -> Path:
    """The chapter's source notebook (with the hidden tests) for the page being made."""
    coursedir = CourseDirectory(config=config)
    info = resources.get("nbgrader", {})
    return (Path(coursedir.root) / coursedir.source_directory / info.get("assignment", "")
            / f"{info.get('notebook', '')}.ipynb")


def _flags(cell) -> tuple:
    return cell.cell_type, is_grade(cell), is_solution(cell), is_locked(cell)


def grader_cell(cell, source_cells: dict) -> bool | None:
    """True for one of the grader's cells (not an answer) that matches the source notebook: same
    flags, same text, and the checksum nbgrader stored equal to the source cell's. False for a cell
    that claims to be one (a grader's grade_id, or graded/locked) but does not match; None otherwise."""
    meta = notebooks.nbmeta(cell)
    src = source_cells.get(meta.get("grade_id"))
    if src is None:  # nbgrader keeps only the gradebook's grade_ids: a graded, locked one is the grader's
        claims = meta.get("grade_id") and not meta.get("solution") and (meta.get("grade") or meta.get("locked"))
        return False if claims else None
    if is_solution(src):
        return None
    try:
        expected = compute_checksum(src)
        return (_flags(cell) == _flags(src) and cell.source == src.source
                and meta.get("checksum") == expected and compute_checksum(cell) == expected)
    except (KeyError, TypeError, ValueError):  # metadata a student mangled
        return False


def _redact(text: str, secret: set[str]) -> str:
    if not secret:
        return text
    return "\n".join("[hidden test code redacted]" if any(s in line for s in secret) else line
                     for line in text.split("\n"))


def grader_notes(meta: dict, lang: str = ENGLISH) -> str:
    """A short markdown summary of the run: status, timeouts, dead kernel, stderr."""
    if not meta:
        return ""
    lines = []
    status = meta.get("status", "ok")
    if status != "ok":
        lines.append(tr(lang, "**Grader status: {status}.**", status=status.replace('_', ' ')))
    for event in meta.get("events", []):
        where = (tr(lang, "test `{test}`", test=event["grade_id"]) if event.get("grade_id")
                 else tr(lang, "cell {cell}", cell=event["cell"]))
        detail = event.get("detail", "")
        text = {"timeout": tr(lang, "{where} was interrupted: {detail}", where=where, detail=detail),
                "unresponsive": tr(lang, "{where} did not stop when interrupted; later cells were not run", where=where),
                "dead_kernel": tr(lang, "{detail}; later test cells were not run", detail=detail),
                "notebook_timeout": tr(lang, "{detail}; later test cells were not run", detail=detail),
                "stderr": tr(lang, "{where} wrote to stderr (shown as normal output; it costs no points)", where=where),
                }.get(event["kind"])
        if text:
            lines.append(f"- {text}")
    return tr(lang, "### Notes from the grader") + "\n\n" + "\n".join(lines) if lines else ""


WITHHELD = "[output withheld: this cell ran after the first hidden test (why: the note after it)]"
WITHHELD_HIDDEN = "[output of a hidden test cell withheld; its result and message are above]"
NOT_SHOWN = "*[a cell after the first hidden test that the grader did not write: not shown]*"
# Each of the grader's test cells says which kind it is: the judge runs them outside the kernel,
# so their "In [n]" alone cannot tell a visible test from a hidden one (they often share it).
VISIBLE_LABEL = "# visible test: the same cell is in your notebook (Validate and make check run it)\n"
HIDDEN_LABEL = "# hidden test: run only when your notebook is graded; its code is not shown\n"
CHANGED = ("# (this test cell is not shown: it does not match the chapter's source, which may have\n"
           "# changed since grading; grade again, then make feedback)\n")


# Said once, after the first hidden test (what is masked there: workbook/link/heard.py).
WITHHELD_TITLE = "Withheld after the first hidden test"
WITHHELD_ANCHOR = WITHHELD_TITLE.replace(" ", "-")  # the id nbconvert gives the heading
WITHHELD_TEXT = """### {title}

From the hidden test above on, this page shows what the grader wrote, not what your notebook
printed:

- the outputs of your cells that ran after it say `[output withheld]`, and a hidden test cell
  shows only its score, its error and its message;
- in a test's message, text your code sent back reads `{redacted}` and a value the
  message quotes reads `{value}`.

Why: a hidden test hands your code its inputs, and your code could print them, or return or raise
them into a later test's message, and so carry the hidden test onto this page. Your own outputs
are all in your notebook: run its visible tests there (Validate, or `make check`)."""
WITHHELD_NOTE = WITHHELD_TEXT.format(title=WITHHELD_TITLE, redacted=heard.REDACTED, value=heard.VALUE)


def exercise_label(grade_id: str, lang: str = ENGLISH) -> str:
    """The summary's name for a test cell: `parse_reply_tests` is "parse_reply: visible test",
    `parse_reply_hidden_tests_2` is "parse_reply: hidden tests (2)"."""
    match = notebooks.TEST_ID.match(grade_id)
    if match is None:
        return grade_id
    kind = tr(lang, "hidden tests") if match.group(2) else tr(lang, "visible test")
    number = f" ({match.group(3)[1:]})" if match.group(3) else ""
    return f"{match.group('exercise')}: {kind}{number}"


def _withhold(cell, note: str, keep_errors: bool) -> None:
    """Keep a grader's test cell's error names and messages; drop every other output, in every
    mimetype."""
    kept = [o for o in cell.get("outputs", []) if o.output_type == "error" and keep_errors]
    for output in kept:
        output.ename = notebooks.safe_ename(output.ename)
        output.evalue = notebooks.ANSI.sub("", str(output.evalue))[:300]
        output.traceback = [f"{output.ename}: {output.evalue}"]
    if len(kept) < len(cell.get("outputs", [])):
        kept.append(new_output("stream", name="stdout", text=note + "\n"))
    cell.outputs = kept


def _redact_outputs(cell, secret: set[str]) -> None:
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            output.ename = notebooks.safe_ename(output.ename)
            output.traceback = [_redact(t, secret) for t in output.traceback]
        elif output.output_type == "stream":
            output.text = _redact(output.text, secret)
        elif "data" in output:
            for mime, value in list(output.data.items()):
                if isinstance(value, str):
                    output.data[mime] = _redact(value, secret)


def _label(cell, lang: str = ENGLISH) -> None:
    """Start a grader's test cell with what kind of test it is; drop its shared "In [n]"."""
    cell.source = (tr(lang, HIDDEN_LABEL) if HIDDEN.search(cell.source) else tr(lang, VISIBLE_LABEL)) + cell.source
    cell.execution_count = None


class HideHiddenTests(NbGraderPreprocessor):
    """Replace hidden test code in the grader's cells by a placeholder and redact echoes of it;
    withhold every output of hidden test cells and of the cells after one, in every mimetype
    (except a grader's test cell's error name and message), and every markdown or raw cell after
    one that the grader did not write."""

    def preprocess(self, nb, resources):
        path = source_notebook(self.config, resources)
        try:
            source = notebooks.read(path)
        except AutograderError as e:  # no source, no way to tell the grader's cells: no page
            raise AutograderError(f"feedback needs the chapter's source notebook: {e}") from None
        source_cells = {notebooks.nbmeta(c)["grade_id"]: c for c in source.cells
                        if notebooks.nbmeta(c).get("grade_id")}
        lang = notebook_language(nb) or ENGLISH  # a translated edition's page is in its language
        written = {(c.cell_type, c.source) for c in source.cells} | i18n_feedback.edition_cells(self.config, resources, lang)
        secret = hidden_lines(source)
        after_hidden, first_hidden, labels = False, None, {}
        for at, cell in enumerate(nb.cells):
            if after_hidden and first_hidden is None:
                first_hidden = at  # the cell after the first hidden test: where the note goes
            if cell.cell_type != "code":
                if after_hidden and (cell.cell_type, cell.source) not in written:
                    cell.cell_type, cell.source = "markdown", tr(lang, NOT_SHOWN)
                    cell.pop("attachments", None)
                continue
            mine = grader_cell(cell, source_cells)
            if mine is False:  # looks like a grader's cell and is not: show none of it
                cell.source = tr(lang, CHANGED)
                _withhold(cell, tr(lang, WITHHELD_HIDDEN), keep_errors=False)
                after_hidden = True
                continue
            if mine and notebooks.is_test(cell):
                _label(cell, lang)
                labels[notebooks.nbmeta(cell)["grade_id"]] = exercise_label(notebooks.nbmeta(cell)["grade_id"], lang)
            if mine and HIDDEN.search(cell.source):
                cell.source = HIDDEN.sub(tr(lang, PLACEHOLDER), cell.source)
                _withhold(cell, tr(lang, WITHHELD_HIDDEN), keep_errors=True)
                after_hidden = True
            elif after_hidden:  # a grader's test cell keeps its error name and message, nothing else
                _withhold(cell, tr(lang, WITHHELD), keep_errors=bool(mine) and notebooks.is_test(cell))
            else:
                _redact_outputs(cell, secret)
            i18n_feedback.translate_errors(cell, lang)
        title = tr(lang, WITHHELD_TITLE)
        if after_hidden:  # said once, where outputs start to be withheld
            note = tr(lang, WITHHELD_TEXT, title=title, redacted=heard.REDACTED, value=heard.VALUE)
            nb.cells.insert(len(nb.cells) if first_hidden is None else first_hidden, new_markdown_cell(note))
        resources["course_labels"] = labels  # the summary's names (feedback_page/course_feedback)
        # the heading's id, as nbconvert makes it (nbconvert.filters.strings._convert_header_id)
        resources["course_withheld"] = quote(title.replace(" ", "-"), safe="?/:@!$&'()*+,;=") if after_hidden else ""
        resources["course_words"] = i18n_feedback.page_words(lang)  # the page's own words
        notes = grader_notes(nb.metadata.get("autograder", {}), lang)
        if notes:
            nb.cells.insert(0, new_markdown_cell(notes))
        return nb, resources


FEEDBACK_PAGE = Path(__file__).resolve().parent / "feedback_page"


def use_course_page(config) -> None:
    """Make nbgrader's GenerateFeedback render the course's page (feedback_page/course_feedback:
    nbgrader's page, its summary naming each exercise, long lines wrapped)."""
    nbgrader_templates = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    config.HTMLExporter.template_name = "course_feedback"
    config.HTMLExporter.template_file = "page.html.j2"  # it extends nbgrader's index.html.j2
    config.HTMLExporter.extra_template_basedirs = [str(FEEDBACK_PAGE), str(nbgrader_templates)]
