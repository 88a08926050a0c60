"""The student's Validate button (`make lab`, lab/README.md): what failed, first.

nbgrader's Validate dialog lists each failed test cell as its whole source (a chapter's visible
test is 20 to 50 lines) and then its traceback, whose last line is the one that says what is
wrong. This Jupyter server extension answers the same two requests as nbgrader's
`validate_assignment` (which the student's lab turns off for it) with nbgrader's own Validator,
changed in one thing: a failed cell is shown as the test's name and the error's own line
(`AssertionError: <what is wrong> — <hint>`, the message a test helper writes), then the traceback
(the test's failing line and the student's frames). The test's code stays in the notebook.
nbgrader's dialog draws both parts: the first as text, the second as the traceback's HTML.
"""

from __future__ import annotations

import copy
from pathlib import Path

from jupyter_server.utils import url_path_join
from nbconvert.filters import strip_ansi
from nbgrader.server_extensions.validate_assignment.handlers import (
    NbGraderVersionHandler,
    ValidateAssignmentHandler,
)
from nbgrader.validator import Validator
from tornado import web

from workbook.i18n import ENGLISH, language, tr, translate_error


def headline(cell, error: str, lang: str = ENGLISH) -> str:
    """Two lines for a failed test cell: its name, then its error's own line (`Name: message`,
    whole: the dialog wraps it), the message in the notebook's language `lang`. `error` is what
    nbgrader shows below (used when the cell raised nothing: stderr, partial credit)."""
    name = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or tr(lang, "a test cell")
    said = next((f"{o.get('ename', 'Error')}: {o.get('evalue', '')}" for o in cell.get("outputs", [])
                 if o.get("output_type") == "error"), None)
    if said is None:
        said = next((line for line in strip_ansi(error).splitlines() if line.strip()), tr(lang, "it failed"))
    return f"{name}\n{translate_error(lang, strip_ansi(said).strip())}"


class HeadlineValidator(Validator):
    """nbgrader's Validator; each failed cell's `source` in its results is the cell's headline."""

    def _get_failed_cells(self, nb):
        shown, lang = [], language(nb)
        for cell in super()._get_failed_cells(nb):
            cell = copy.deepcopy(cell)  # the results are built from these copies, never saved
            cell.source = headline(cell, self._extract_error(cell), lang)
            shown.append(cell)
        return shown


class HeadlineValidateHandler(ValidateAssignmentHandler):
    """POST /assignments/validate, as nbgrader's, with the HeadlineValidator; an error is one line."""

    def validate_notebook(self, path):
        root = Path(self.root_dir).resolve()
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            raise web.HTTPError(403, "Access denied: path outside allowed directory")
        try:
            result = HeadlineValidator(config=self.load_config()).validate(str(target))
        except Exception as e:  # noqa: BLE001 - the dialog says what went wrong; the log keeps the rest
            self.log.exception("Validate failed on %s", target)
            return {"success": False, "value": f"{type(e).__name__}: {e}"}
        return {"success": True, "value": result}


HANDLERS = [(r"/assignments/validate", HeadlineValidateHandler), (r"/nbgrader_version", NbGraderVersionHandler)]


def _jupyter_server_extension_points():
    return [{"module": "workbook.validate"}]


def _load_jupyter_server_extension(server_app) -> None:
    """Serve nbgrader's Validate requests with HeadlineValidateHandler (in place of nbgrader's
    `validate_assignment`, which must be off: both answer the same paths)."""
    webapp = server_app.web_app
    webapp.settings["root_dir"] = server_app.root_dir  # where nbgrader's handler finds notebooks
    base_url = webapp.settings["base_url"]
    webapp.add_handlers(".*$", [(url_path_join(base_url, pattern), handler) for pattern, handler in HANDLERS])
