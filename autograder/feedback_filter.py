"""Feedback shows which test failed and its message, and what the grader saw; never hidden tests."""

from __future__ import annotations

import re

from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder import notebooks

HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.M | re.S)
PLACEHOLDER = "# (hidden tests: run by the grader, not shown)\n"
MIN_LINE = 12  # shorter hidden lines (`wb = fresh()`) are too common to be worth redacting


def hidden_lines(nb) -> set[str]:
    """The distinctive lines of hidden test blocks that appear nowhere else in the notebook."""
    hidden, visible = set(), []
    for cell in nb.cells:
        for block in HIDDEN.findall(cell.source if cell.cell_type == "code" else ""):
            hidden |= {s.strip() for s in block.splitlines()[1:-1] if len(s.strip()) >= MIN_LINE}
        visible.append(HIDDEN.sub("", cell.source))
    shown = "\n".join(visible)  # a line also in visible code or prose is no secret
    return {line for line in hidden if line not in shown}


def _redact(text: str, secret: set[str]) -> str:
    if not secret:
        return text
    return "\n".join("[hidden test code redacted]" if any(s in line for s in secret) else line
                     for line in text.split("\n"))


def grader_notes(meta: dict) -> str:
    """A short markdown summary of the run: status, timeouts, dead kernel, restored tampering."""
    if not meta:
        return ""
    lines = []
    status = meta.get("status", "ok")
    if status != "ok":
        lines.append(f"**Grader status: {status.replace('_', ' ')}.**")
    for event in meta.get("events", []):
        where = f"test `{event['grade_id']}`" if event.get("grade_id") else f"cell {event['cell']}"
        text = {"timeout": f"{where} was interrupted: {event['detail']}",
                "unresponsive": f"{where} did not stop when interrupted; later cells were not run",
                "dead_kernel": f"{event['detail']}; later test cells were not run",
                "notebook_timeout": f"{event['detail']}; later test cells were not run",
                "stderr": f"{where} wrote to stderr (shown as normal output; it costs no points)",
                }.get(event["kind"])
        if text:
            lines.append(f"- {text}")
    if meta.get("tamper"):
        lines.append("- before test cells ran, the grader had to restore: "
                     + ", ".join(f"`{t}`" for t in meta["tamper"][:12]))
    return "### Notes from the grader\n\n" + "\n".join(lines) if lines else ""


WITHHELD = "[output withheld: this cell ran after a hidden test, so it could show what that test did]"
WITHHELD_HIDDEN = "[output of a hidden test cell withheld; its result and message are above]"


def _withhold(cell, note: str) -> None:
    """Keep error names and messages of test cells; drop every other output, in every mimetype."""
    kept = [o for o in cell.get("outputs", []) if o.output_type == "error" and notebooks.is_test(cell)]
    for output in kept:
        output.ename = notebooks.safe_ename(output.ename)
        output.evalue = notebooks.ANSI.sub("", str(output.evalue))[:300]
        output.traceback = [f"{output.ename}: {output.evalue}"]
    if len(kept) < len(cell.get("outputs", [])):
        kept.append(new_output("stream", name="stdout", text=note + "\n"))
    cell.outputs = kept


class HideHiddenTests(NbGraderPreprocessor):
    """Replace hidden test code by a placeholder, shorten their tracebacks, redact echoes of it, and
    withhold every output of hidden test cells and of the cells that ran after one, in every
    mimetype, except the error name and message of a test cell (feedback says why it failed)."""

    def preprocess(self, nb, resources):
        secret = hidden_lines(nb)
        after_hidden = False
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            has_hidden = bool(HIDDEN.search(cell.source))
            cell.source = HIDDEN.sub(PLACEHOLDER, cell.source)
            if has_hidden:
                _withhold(cell, WITHHELD_HIDDEN)
                after_hidden = True
                continue
            if after_hidden:  # a test cell keeps its error name and message, nothing else
                _withhold(cell, WITHHELD)
                continue
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
        notes = grader_notes(nb.metadata.get("autograder", {}))
        if notes:
            nb.cells.insert(0, new_markdown_cell(notes))
        return nb, resources
