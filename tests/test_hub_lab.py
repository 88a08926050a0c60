"""The labs `make lab` and `make lab-instructor` start, over HTTP (issue 31): the student's opens on
chapter 00 and its Validate dialog says what it knows; the instructor's Formgrader finds the
course (every chapter of solutions/, and a workspace's gradebook).

The servers run as the Makefile starts them (JUPYTER_CONFIG_PATH=lab/student or lab/instructor);
no browser is needed: the redirect, the CSS the page loads and the Formgrader's own API say it.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.browser.jupyter import ROLES, WORDS, JupyterServer

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "tests" / "pilot"
# A backstop, not a verdict: listing 24 chapters took over 30 s of wall time at load 30 on 2 cores.
WAIT = 300

pytestmark = pytest.mark.timeout(900)


def _get(server: JupyterServer, path: str) -> tuple[int, dict, bytes]:
    """One GET that does not follow redirects: (status, headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    try:
        conn.request("GET", server.url(path).removeprefix(server.base))
        reply = conn.getresponse()
        return reply.status, dict(reply.getheaders()), reply.read()
    finally:
        conn.close()


def _makefile_recipe(target: str) -> str:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, re.M)
    assert match, f"no recipe for {target} in the Makefile"
    return match.group(1)


@pytest.fixture
def student_lab(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(ROOT / "chapters" / "00_start_here", root / "00_start_here")
    server = JupyterServer(root, tmp_path, config_path=ROOT / "lab" / "student")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_student_lab_opens_chapter_00_and_validate_claims_only_the_visible_tests(student_lab):
    assert "lab/student" in _makefile_recipe("lab") and "--notebook-dir=chapters" in _makefile_recipe("lab")
    status, headers, _ = _get(student_lab, "/")
    assert status in (301, 302), status
    assert headers["Location"].split("?")[0].endswith("/lab/tree/00_start_here/00_start_here.ipynb")
    assert (ROOT / "chapters" / "00_start_here" / "00_start_here.ipynb").is_file()
    status, _, page = _get(student_lab, "/lab")
    assert status == 200 and b"custom/custom.css" in page  # the lab page loads the course's CSS
    status, _, css = _get(student_lab, "/custom/custom.css")
    assert status == 200
    text = css.decode()
    assert f'content: "{WORDS}"' in text
    # Only the success dialog is re-worded; a failure's lines only wrap (workbook/validate.py puts
    # what failed first).
    assert re.findall(r"^(#[^{]+)\{", text, re.M) == ["#validation-message.validation-success p ",
                                                      "#validation-message.validation-success > div::before ",
                                                      "#validation-message pre "]
    # No language server is installed, so jupyter_lsp's search is off (a second of CPU a start).
    assert _get(student_lab, "/lsp/status")[0] == 404
    # Nothing to build (every extension comes prebuilt), so no page load asks the server to check a
    # build: the check ran `node yarn.js config` each time, where node is on PATH.
    config = json.loads(re.search(rb'id="jupyter-config-data"[^>]*>(.*?)</script>', page, re.S).group(1))
    assert (config["buildCheck"], config["buildAvailable"]) == (False, False), config


@pytest.mark.parametrize("role", ROLES)
def test_every_role_turns_off_the_language_server_search_and_the_build_check(role):
    """lab/README.md: the same settings in each folder a lab or a hub server reads."""
    found = json.loads((ROOT / role / "jupyter_server_config.d" / "no-language-servers.json").read_text())
    assert found == {"ServerApp": {"jpserver_extensions": {"jupyter_lsp": False}}}
    pages = json.loads((ROOT / role / "labconfig" / "page_config.json").read_text())
    assert (pages["buildCheck"], pages["buildAvailable"]) == (False, False), pages


def test_nbgraders_success_text_is_the_one_the_css_replaces():
    """If nbgrader's lab extension changes its wording or its classes, the CSS must follow."""
    import nbgrader

    static = Path(nbgrader.__file__).parent / "labextension" / "static"
    bundle = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in static.glob("*.js"))
    assert 'innerText="Success! Your notebook passes all the tests."' in bundle
    assert 'id="validation-message"' in bundle and 'classList.add("validation-success")' in bundle


def _gradebook_with_one_submission(workspace: Path, chapter: str, student: str) -> None:
    from nbgrader.api import Gradebook

    workspace.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")  # its `alembic`
        with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gb:
            gb.add_assignment(chapter)
            gb.add_student(student)
            gb.add_submission(chapter, student)
    (workspace / "submitted" / student / chapter).mkdir(parents=True)


def test_instructor_lab_formgrader_shows_the_course(tmp_path):
    recipe = _makefile_recipe("lab-instructor")
    assert "lab/instructor" in recipe and "--notebook-dir=." in recipe and 'PATH="$(CURDIR)/$(BIN):' in recipe
    course = tmp_path / "course"  # the pilot course, laid out as the repository is
    for part in ("solutions", "chapters"):
        shutil.copytree(PILOT / part, course / part)
    _gradebook_with_one_submission(course / "autograder", "00_pilot", "ada")
    env_root = {"AUTOGRADER_ROOT": str(course), "AUTOGRADER_WORKSPACE": ""}
    server = JupyterServer(course, tmp_path, config_path=ROOT / "lab" / "instructor")
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env_root.items():
            mp.setenv(k, v)
        server.start()
    try:
        status, _, body = _get(server, "/formgrader/api/assignments")
        assert status == 200, body[:300]
        rows = {a["name"]: a for a in json.loads(body)}
        assert set(rows) == {"00_pilot"}
        assert rows["00_pilot"]["num_submissions"] == 1
        assert rows["00_pilot"]["source_path"].endswith("solutions/00_pilot")
        status, _, body = _get(server, "/formgrader/api/students")
        assert status == 200 and [s["id"] for s in json.loads(body)] == ["ada"]
        assert "exchange directory" not in server.tail(200).lower()  # it has an exchange of its own
        assert (course / "autograder" / "work" / "exchange").is_dir()
    finally:
        server.stop()


def test_instructor_lab_lists_every_chapter_of_the_repository(tmp_path):
    """With the repository as the lab's root, the Formgrader's assignments are solutions/'s."""
    workspace = ROOT / "autograder" / "work" / f"lab-test-{tmp_path.name}"  # git-ignored, removed below
    server = JupyterServer(ROOT, tmp_path, config_path=ROOT / "lab" / "instructor")
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("AUTOGRADER_WORKSPACE", str(workspace))
            mp.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")  # as make's
            mp.delenv("AUTOGRADER_ROOT", raising=False)
            server.start()
        with urllib.request.urlopen(server.url("/formgrader/api/assignments"), timeout=WAIT) as reply:
            names = {a["name"] for a in json.load(reply)}
        chapters = {p.name for p in (ROOT / "solutions").iterdir() if p.is_dir() and p.name[:2].isdigit()}
        assert chapters and names == chapters
    finally:
        server.stop()
        shutil.rmtree(workspace, ignore_errors=True)
