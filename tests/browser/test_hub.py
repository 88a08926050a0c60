"""A chapter goes round a real JupyterHub (issue 31): jupyterhub with configurable-http-proxy on
127.0.0.1, nbgrader's exchange and lab extensions, three throw-away Unix accounts (two students,
one instructor), each account's server running as that account.

The instructor releases the pilot chapter to the exchange (nbgrader release_assignment); ada, in
Chromium, fetches it in the Assignments tab, Validates (the dialog claims only the visible tests)
and submits; ben fetches and submits a wrong answer from a terminal; the instructor collects from
the exchange with the workbook's `collect --exchange`, grades in the sandbox, makes feedback and
`release-feedback`; ada fetches her feedback in the Assignments tab, ben from a terminal, and each
sees only their own. The instructor's Formgrader shows both submissions and their scores, and her
Course List names the course.
Screenshots: test-artifacts/hub-*.png.

Needs root (accounts, servers started as them), `pip install -e '.[hub]'`, `npm install -g
configurable-http-proxy`, Chromium and bubblewrap; skipped with the reason otherwise.
"""

from __future__ import annotations

import csv
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import pytest

from tests.browser.jupyter import CHROMIUM, ROOT, skip_reason
from tests.browser.jupyter import shot as screenshot

sys.path.insert(0, str(ROOT / "hub"))
import setup_hub  # noqa: E402

PILOT = ROOT / "tests" / "pilot"
CHAPTER, COURSE_ID = "00_pilot", "hub-test"
WORDS = "Visible tests passed; hidden tests run when your notebook is graded."
# A server's start costs seconds of CPU, but at load 30 on 2 cores it took over 240 s of wall
# time: the hub and the page wait this long, so no verdict here depends on the machine's load.
START_SECONDS = 900


def hub_missing() -> str | None:
    """Why the hub cannot be rehearsed here, or None."""
    if os.geteuid() != 0:
        return "needs root: the hub makes throw-away accounts and starts each one's server as that account"
    for tool in ("useradd", "userdel", "runuser", "bwrap"):
        if shutil.which(tool) is None:
            return f"{tool} is missing" + (" (apt-get install bubblewrap)" if tool == "bwrap" else "")
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        return "jupyterhub is not installed: `.venv/bin/pip install -e '.[hub]'`"
    if shutil.which("configurable-http-proxy") is None:
        return "configurable-http-proxy is not installed: `npm install -g configurable-http-proxy`"
    if not setup_hub.runnable_by_all(ROOT / "workbook" / "__init__.py"):
        return f"{ROOT} is not readable by other accounts: the students' kernels import workbook/ from it"
    return skip_reason() or (None if Path(CHROMIUM).is_file() else f"{CHROMIUM} is missing")


pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(hub_missing() is not None, reason=f"the hub rehearsal: {hub_missing()}"),
    pytest.mark.timeout(3600),
]


def expect(locator):
    from playwright.sync_api import expect as _expect  # imported late: the module may be skipped

    return _expect(locator)


class Hub:
    """The hub's settings, its accounts and the commands an account runs."""

    def __init__(self, base: Path, settings: dict, proc: subprocess.Popen):
        self.base, self.s, self.proc = base, settings, proc
        self.url = f"http://{settings['ip']}:{settings['port']}"
        self.course = Path(settings["course_root"])
        self.exchange = Path(settings["exchange"])

    def home(self, user: str) -> Path:
        return self.base / "home" / user

    def as_user(self, user: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """A command typed in the account's terminal: a login shell (`bash -l`, as jupyter_server's
        terminal starts it, so Debian's /etc/profile resets PATH) with its server's environment."""
        env = ["env", "-i", f"HOME={self.home(user)}", f"USER={user}",
               *(f"{k}={v}" for k, v in setup_hub.account_env(self.s, user).items())]
        line = f"cd {shlex.quote(str(cwd or self.home(user)))} && {shlex.join(args)}"
        return subprocess.run(["runuser", "-u", user, "--", *env, "bash", "-lc", line], cwd="/",
                              capture_output=True, text=True, timeout=900)

    def autograder(self, *args: str, root: bool = False) -> str:
        """The workbook's instructor CLI on her course, typed in her terminal without root (docs/HUB.md):
        her `python` is the accounts' Python, the clone her working folder. `root`: as root, with
        the clone's venv (HUB.md's other way)."""
        if root:
            python = ROOT / ".venv" / "bin" / "python"  # HUB.md's `sudo .venv/bin/python ...`
            done = subprocess.run([str(python if python.exists() else sys.executable), "-m", "autograder",
                                   "--root", str(self.course), *args],
                                  cwd=ROOT, capture_output=True, text=True, timeout=900)
            subprocess.run(["chown", "-R", f"{self.s['instructor']}:", str(self.course / "autograder")], check=True)
        else:
            done = self.as_user(self.s["instructor"], "python", "-m", "autograder", "--root", str(self.course),
                                *args, cwd=ROOT)
        assert done.returncode == 0, f"autograder {args[0]} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout


def _wait_until_up(url: str, proc: subprocess.Popen, log: Path, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyterhub exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/hub/health", timeout=5):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)  # polling a hub that is still starting; nothing to wait on
    raise RuntimeError(f"jupyterhub did not answer within {timeout:.0f} s:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen, uids: list[int]) -> None:
    """Stop the hub (it stops the servers it started), then any process the accounts still run."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        try:
            if os.stat(f"/proc/{pid}").st_uid in uids:
                os.kill(pid, signal.SIGKILL)  # a kernel of one of this test's own accounts
        except (FileNotFoundError, ProcessLookupError):
            pass


@pytest.fixture(scope="module")
def hub():
    import pwd

    base = Path(tempfile.mkdtemp(prefix="agentloop-hub-", dir="/tmp"))  # other accounts must reach it
    base.chmod(0o755)
    (base / "home").mkdir(mode=0o755)
    tag = secrets.token_hex(2)
    ada, ben, ines = (f"alh{tag}-{n}" for n in ("ada", "ben", "ines"))
    password = secrets.token_hex(8)
    code = setup_hub.main(["--instructor", ines, "--students", f"{ada},{ben}", "--state", str(base / "state"),
                           "--course", str(PILOT), "--course-id", COURSE_ID, "--port", "0",
                           "--password", password, "--create-users", "--homes", str(base / "home"),
                           "--start-timeout", str(START_SECONDS)])
    users = [u for u in (ada, ben, ines) if _exists(u)]
    uids = [pwd.getpwnam(u).pw_uid for u in users]
    proc = None
    try:
        assert code == 0, "hub/setup_hub.py failed (its error is above)"
        settings = json.loads((base / "state" / "hub.json").read_text())
        log = base / "state" / "hub.log"
        with log.open("wb") as out:
            proc = subprocess.Popen([str(Path(sys.executable).parent / "jupyterhub"), "-f",
                                     str(ROOT / "hub" / "jupyterhub_config.py")],
                                    cwd=base / "state", env={**os.environ, "HUB_SETTINGS": str(base / "state" / "hub.json")},
                                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        hub = Hub(base, settings, proc)
        _wait_until_up(hub.url, proc, log)
        hub.users = (ada, ben, ines)
        yield hub
    finally:
        cy = ada.replace("-ada", "-cy")  # the student a test adds to the running hub
        if _exists(cy):
            users.append(cy)
            uids.append(pwd.getpwnam(cy).pw_uid)
        if proc is not None:
            _stop(proc, uids)
        for user in users:
            subprocess.run(["userdel", "-r", user], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _exists(user: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def shot(page, name: str) -> None:
    screenshot(page, f"hub-{name}.png")


def log_in(browser, hub: Hub, user: str):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(START_SECONDS * 1000)  # a first server start on a busy 2-core machine
    page.goto(f"{hub.url}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", hub.s["admin_password" if user == hub.s["instructor"] else "password"])
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/lab**")
    page.locator(".jp-LabShell").wait_for()
    return context, page


def open_assignments(page):
    page.get_by_text("Nbgrader", exact=True).click()
    page.get_by_text("Assignment List", exact=True).click()
    panel = page.locator("#nbgrader-assignment-list")
    expect(panel).to_be_visible()
    return panel


def answer(path: Path, owner: str, wrong: bool = False) -> None:
    """What the student typed: the solution's answers (or one wrong answer), saved as theirs."""
    import pwd

    nb = nbformat.read(path, as_version=4)
    solved = nbformat.read(PILOT / "solutions" / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in solved.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
            if grade_id == "add":  # each student's answer carries their name, to find it on a page
                cell.source = cell.source.replace("return a + b", f"return a {'-' if wrong else '+'} b  # {owner}'s")
    nbformat.write(nb, path)
    user = pwd.getpwnam(owner)
    os.chown(path, user.pw_uid, user.pw_gid)


def score_line(page: str) -> tuple[float, float]:
    """The (score, max) a feedback page states at its top."""
    found = re.search(r"\(Score: ([\d.]+) / ([\d.]+)\)", page)
    assert found, "the feedback page states no score"
    return float(found[1]), float(found[2])


def test_a_chapter_goes_round_the_hub(hub, browser):
    ada, ben, ines = hub.users
    # 1. The instructor releases the chapter to the exchange, as in a terminal of their server.
    done = hub.as_user(ines, "nbgrader", "release_assignment", CHAPTER, cwd=hub.course)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (hub.exchange / COURSE_ID / "outbound" / CHAPTER / f"{CHAPTER}.ipynb").is_file()
    # The hub's database and the course's exchange folder were made closed (issue 46).
    for command in (["cat", f"{hub.s['state']}/jupyterhub.sqlite"], ["mkdir", f"{hub.exchange / COURSE_ID}/outbound/x"],
                    ["ls", str(hub.exchange / COURSE_ID / "inbound")]):
        done = hub.as_user(ben, *command)
        assert done.returncode != 0 and "Permission denied" in done.stderr, (command, done.stdout)

    # 2. ada fetches it in the Assignments tab, works, Validates and submits in the browser.
    context, page = log_in(browser, hub, ada)
    try:
        panel = open_assignments(page)
        released = panel.locator("#released_assignments_list")
        expect(released).to_contain_text(CHAPTER)
        shot(page, "student-assignments")
        released.get_by_role("button", name="Fetch").click()
        fetched = panel.locator("#fetched_assignments_list")
        expect(fetched).to_contain_text(CHAPTER)
        notebook = hub.home(ada) / CHAPTER / f"{CHAPTER}.ipynb"
        assert notebook.is_file() and notebook.stat().st_uid == os.stat(hub.home(ada)).st_uid
        answer(notebook, ada)
        page.goto(f"{hub.url}/user/{ada}/lab/tree/{CHAPTER}/{CHAPTER}.ipynb")
        toolbar = page.locator(".jp-NotebookPanel-toolbar")
        toolbar.get_by_text("Validate", exact=True).click()
        dialog = page.locator("#validation-message.validation-success")
        expect(dialog).to_be_visible()
        said = dialog.locator("p").evaluate("p => getComputedStyle(p, '::before').content")
        assert said == json.dumps(WORDS), said
        shot(page, "student-validate")
        page.locator(".jp-Dialog").get_by_role("button", name="Ok", exact=True).click()
        panel = open_assignments(page)
        panel.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
        expect(panel.locator("#submitted_assignments_list")).to_contain_text(CHAPTER)
        shot(page, "student-submitted")

        # 3. ben fetches and submits a wrong answer from a terminal.
        for step in (("fetch_assignment", CHAPTER), ("submit", CHAPTER)):
            if step[0] == "submit":
                answer(hub.home(ben) / CHAPTER / f"{CHAPTER}.ipynb", ben, wrong=True)
            done = hub.as_user(ben, "nbgrader", *step, "--course", COURSE_ID)
            assert done.returncode == 0, done.stdout + done.stderr

        # 4. The instructor collects from the exchange, grades, makes and releases feedback.
        collected = hub.autograder("collect", "--exchange", str(hub.exchange), "--course-id", COURSE_ID,
                                   "--roster", hub.s["state"] + "/roster")
        assert "collected 2 notebook(s) of 2 student(s)" in collected, collected
        hub.autograder("grade", "--workers", "1", "--sandbox", "bwrap")
        # As root, with the clone's venv (the lock's soupsieve 2.10 also works on the accounts' Debian
        # 12 Python 3.11.2: tests/test_packaging.py keeps every pin installable there).
        hub.autograder("feedback", "--workers", "1", root=True)
        hub.autograder("export")
        released_lines = hub.autograder("release-feedback", "--exchange", str(hub.exchange),
                                        "--course-id", COURSE_ID)
        assert "released 2 feedback page(s)" in released_lines, released_lines
        # nbgrader's own autograde, in her terminal, is not the course's grader: it grades nothing
        graded = hub.course / "autograder" / "autograded" / ada / CHAPTER / f"{CHAPTER}.ipynb"
        before = graded.read_bytes()
        done = hub.as_user(ines, "nbgrader", "autograde", CHAPTER, "--force", cwd=hub.course)
        assert done.returncode == 1 and "not this course's grader" in done.stdout + done.stderr, done
        assert graded.read_bytes() == before
        with (hub.course / "autograder" / "grades.csv").open() as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        assert float(rows[ada]["score"]) == float(rows[ada]["max_score"]) > float(rows[ben]["score"]), rows

        # 5. Each fetches their own feedback: ada in the Assignments tab, ben from a terminal.
        panel = open_assignments(page)  # opening it again lists the exchange again
        panel.locator("#submitted_assignments_list").get_by_role("button", name="Fetch Feedback").click()
        pages = sorted((hub.home(ada) / CHAPTER / "feedback").rglob(f"{CHAPTER}.html"))
        deadline = time.monotonic() + 120
        while not pages and time.monotonic() < deadline:
            time.sleep(0.5)  # the tab's request copies the page; nothing else to wait on
            pages = sorted((hub.home(ada) / CHAPTER / "feedback").rglob(f"{CHAPTER}.html"))
        assert len(pages) == 1, pages
        shot(page, "student-feedback-fetched")
        rel = pages[0].relative_to(hub.home(ada))
        page.goto(f"{hub.url}/user/{ada}/files/{urllib.parse.quote(str(rel))}")
        expect(page.locator("body")).to_contain_text("# hidden test")
        shot(page, "student-feedback-page")
        mine = pages[0].read_text(encoding="utf-8")
        assert score_line(mine) == (float(rows[ada]["score"]), float(rows[ada]["max_score"]))
        assert "# visible test" in mine and "# hidden test" in mine
        assert f"# {ada}'s" in mine and f"# {ben}'s" not in mine, "ada's page is not (only) hers"
    finally:
        context.close()
    done = hub.as_user(ben, "nbgrader", "fetch_feedback", CHAPTER, "--course", COURSE_ID)
    assert done.returncode == 0, done.stdout + done.stderr
    bens = sorted((hub.home(ben) / CHAPTER / "feedback").rglob(f"{CHAPTER}.html"))
    assert len(bens) == 1
    assert f"# {ben}'s" in bens[0].read_text(encoding="utf-8") and f"# {ada}'s" not in bens[0].read_text(encoding="utf-8")
    assert score_line(bens[0].read_text(encoding="utf-8")) == (float(rows[ben]["score"]), float(rows[ben]["max_score"]))
    # ben cannot list the released pages, nor read ada's submission or her home
    for path in (hub.exchange / COURSE_ID / "feedback", hub.exchange / COURSE_ID / "inbound", hub.home(ada)):
        done = hub.as_user(ben, "ls", str(path))
        assert done.returncode != 0 and "Permission denied" in done.stderr, (path, done.stdout)

    # 6. The instructor's Formgrader shows the chapter, both submissions and their scores.
    context, page = log_in(browser, hub, ines)
    try:
        page.goto(f"{hub.url}/user/{ines}/formgrader/gradebook/{CHAPTER}/{CHAPTER}")
        table = page.locator("tbody#main-table")
        expect(table.locator("tr")).to_have_count(2)
        page.get_by_role("button", name="Show All Names").click()  # names are hidden at first
        for student in (ada, ben):
            row = table.locator("tr", has=page.locator("a.name-shown", has_text=student))
            expect(row.locator("a.name-shown")).to_be_visible()
            expect(row.locator("td.score")).to_have_text(
                f"{float(rows[student]['score']):g} / {float(rows[student]['max_score']):g}")
        shot(page, "instructor-formgrader")
        # Her Course List names the course, with the Formgrader on her own server ("local").
        page.goto(f"{hub.url}/user/{ines}/lab")
        page.get_by_text("Nbgrader", exact=True).click()
        page.get_by_text("Course List", exact=True).click()
        courses = page.locator("#nbgrader-course-list")
        expect(courses.get_by_role("link", name=COURSE_ID)).to_be_visible()
        expect(courses).to_contain_text(re.compile(rf"{COURSE_ID}\s*local"))
        shot(page, "instructor-course-list")
    finally:
        context.close()


def _server_pids(user: str) -> set[int]:
    """The user's single-user servers (not every process of theirs: a server's own short-lived
    children come and go, and one that ended is no server stopped)."""
    import pwd

    uid = pwd.getpwnam(user).pw_uid
    return {int(p) for p in os.listdir("/proc") if p.isdigit() and _owner(p) == uid and _is_server(p)}


def _is_server(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
    except OSError:
        return False
    return b"jupyterhub-singleuser" in cmdline or b"jupyterhub.singleuser" in cmdline


def _owner(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except FileNotFoundError:
        return None


def test_a_new_student_joins_the_running_hub_and_no_server_stops(hub, browser):
    """hub/install.py with one more student runs setup again: the running hub lets them in through
    its API (hub/hub_state.py), and every server that runs keeps running (issue 46)."""
    ada, ben, ines = hub.users
    context, page = log_in(browser, hub, ada)
    try:
        running = _server_pids(ada)
        assert running, "ada's server is not running"
        cy = ada.replace("-ada", "-cy")
        hub.users = (*hub.users, cy)
        code = setup_hub.main(["--instructor", ines, "--students", f"{ada},{ben},{cy}", "--state", hub.s["state"],
                               "--course", str(PILOT), "--course-id", COURSE_ID, "--port", "0",
                               "--password", hub.s["password"], "--create-users", "--homes", str(hub.base / "home"),
                               "--start-timeout", str(START_SECONDS)])
        assert code == 0
        new_context, new_page = log_in(browser, hub, cy)  # a PAM or shared-password login, no restart
        new_context.close()
        assert running <= _server_pids(ada), "ada's server stopped"
        assert hub.proc.poll() is None
    finally:
        context.close()
