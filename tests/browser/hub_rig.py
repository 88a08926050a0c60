"""The hub rehearsal's rig (tests/browser/test_hub.py): throw-away accounts on a real JupyterHub,
the course they are taught from, and what an account does in its terminal or in Chromium.

The course is the pilot chapter with this run's canaries written into what students must never
read: a line in every hidden test and in every solution (tests/browser/hub_attacks.py looks for
them in everything a student can read). Each student's answer carries their own tag.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat

from autograder.pipeline.exchange import uid_of
from tests.browser.jupyter import CHROMIUM, ROOT, skip_reason
from tests.browser.jupyter import shot as screenshot

sys.path.insert(0, str(ROOT / "hub"))
import setup_hub  # noqa: E402

PILOT = ROOT / "tests" / "pilot"
CHAPTER, COURSE_ID = "00_pilot", "hub-test"
# A server's start costs seconds of CPU, but at load 30 on 2 cores it took over 240 s of wall
# time: the hub and the page wait this long, so no verdict here depends on the machine's load.
START_SECONDS = 900


def hub_missing() -> str | None:
    """Why the hub cannot be rehearsed here, or None."""
    if os.geteuid() != 0:
        return "needs root: the hub makes throw-away accounts and starts each one's server as that account"
    for tool in ("useradd", "userdel", "runuser", "bwrap", "find", "xargs"):
        if shutil.which(tool) is None:
            return f"{tool} is missing" + (" (apt-get install bubblewrap)" if tool == "bwrap" else "")
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        return "jupyterhub is not installed: `.venv/bin/pip install -e '.[hub]'`"
    if shutil.which("configurable-http-proxy") is None:
        return "configurable-http-proxy is not installed: `npm install -g configurable-http-proxy`"
    if not setup_hub.runnable_by_all(ROOT / "workbook" / "__init__.py"):
        return f"{ROOT} is not readable by other accounts: the students' copy links the course venv's files"
    return skip_reason() or (None if Path(CHROMIUM).is_file() else f"{CHROMIUM} is missing")


def course_with_canaries(dest: Path, canaries: dict[str, str]) -> Path:
    """The pilot course at `dest`, its solutions holding canaries["hidden"] in every hidden test and
    canaries["solution"] in every solution (as comments: grading is unchanged)."""
    for part in ("solutions", "chapters", "autograder/mutants"):
        shutil.copytree(PILOT / part, dest / part)
    marks = {"### BEGIN HIDDEN TESTS\n": f"### BEGIN HIDDEN TESTS\n# {canaries['hidden']}\n",
             "    ### BEGIN SOLUTION\n": f"    ### BEGIN SOLUTION\n    # {canaries['solution']}\n"}
    source = dest / "solutions" / CHAPTER / f"{CHAPTER}.py"
    text = source.read_text(encoding="utf-8")
    notebook = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    for old, new in marks.items():
        assert old in text, f"the pilot has no {old.strip()!r}: the canaries would be missing"
        text = text.replace(old, new)
        for cell in notebook.cells:
            cell.source = cell.source.replace(old, new)
    source.write_text(text, encoding="utf-8")
    nbformat.write(notebook, source.with_suffix(".ipynb"))
    return dest


class Hub:
    """The hub's settings, its accounts and the commands an account runs."""

    def __init__(self, base: Path, settings: dict, proc: subprocess.Popen, users: dict[str, str]):
        self.base, self.s, self.proc, self.users = base, settings, proc, users
        self.url = f"http://{settings['ip']}:{settings['port']}"
        self.course = Path(settings["course_root"])
        self.exchange = Path(settings["exchange"])
        self.inbound = self.exchange / COURSE_ID / "inbound"

    def home(self, user: str) -> Path:
        return self.base / "home" / user

    def as_user(self, user: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """A command typed in the account's terminal: a login shell (`bash -l`, as jupyter_server's
        terminal starts it, so Debian's /etc/profile resets PATH) with its server's environment."""
        return subprocess.run(self.login_shell(user, shlex.join(args), cwd), cwd="/", capture_output=True,
                              text=True, timeout=900)

    def login_shell(self, user: str, line: str, cwd: Path | None = None) -> list[str]:
        env = ["env", "-i", f"HOME={self.home(user)}", f"USER={user}",
               *(f"{k}={v}" for k, v in setup_hub.account_env(self.s, user).items())]
        return ["runuser", "-u", user, "--", *env, "bash", "-lc",
                f"cd {shlex.quote(str(cwd or self.home(user)))} && {line}"]

    def autograder(self, *args: str) -> str:
        """The workbook's instructor CLI on her course, typed in her terminal without root (docs/HUB.md):
        her `python` is the accounts' Python, the clone her working folder."""
        done = self.as_user(self.s["instructor"], "python", "-m", "autograder", "--root", str(self.course),
                            *args, cwd=ROOT)
        assert done.returncode == 0, f"autograder {args[0]} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def chown(self, path: Path, user: str) -> None:
        account = pwd.getpwnam(user)
        os.chown(path, account.pw_uid, account.pw_gid)


def wait(ready, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, f"no {what} after {seconds:.0f} s"
        time.sleep(0.2)  # polling what the browser's terminal does; nothing to wait on


def wait_until_up(url: str, proc: subprocess.Popen, log: Path, timeout: float = 240) -> None:
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


def start_hub(base: Path, log: Path) -> subprocess.Popen:
    with log.open("wb") as out:
        return subprocess.Popen([str(Path(sys.executable).parent / "jupyterhub"), "-f",
                                 str(ROOT / "hub" / "jupyterhub_config.py")],
                                cwd=base / "state", env={**os.environ, "HUB_SETTINGS": str(base / "state" / "hub.json")},
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)


def stop_hub(proc: subprocess.Popen, uids: list[int]) -> None:
    """Stop the hub (it stops the servers it started), then any process the accounts still run."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        if owner(str(pid)) in uids:
            try:
                os.kill(pid, signal.SIGKILL)  # a kernel of one of this test's own accounts
            except ProcessLookupError:
                pass


def account_exists(user: str) -> bool:
    return uid_of(user) is not None


def owner(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except FileNotFoundError:
        return None


def server_pids(user: str) -> set[int]:
    """The user's single-user servers (not every process of theirs: a server's own short-lived
    children come and go, and one that ended is no server stopped)."""
    uid = pwd.getpwnam(user).pw_uid
    return {int(p) for p in os.listdir("/proc") if p.isdigit() and owner(p) == uid and _is_server(p)}


def _is_server(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
    except OSError:
        return False
    return b"jupyterhub-singleuser" in cmdline or b"jupyterhub.singleuser" in cmdline


def expect(locator):
    from playwright.sync_api import expect as _expect  # imported late: the module may be skipped

    return _expect(locator)


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


def open_terminal(page):
    """A terminal of the account's server (File > New > Terminal): a login shell, as a student gets."""
    page.get_by_text("File", exact=True).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^New$")).first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Terminal$")).first.click()
    terminal = page.locator(".jp-Terminal").last
    expect(terminal.locator(".xterm-screen")).to_be_visible()
    terminal.click()
    return terminal


def type_line(page, line: str) -> None:
    page.keyboard.type(line)
    page.keyboard.press("Enter")


def answer(path: Path, owner_name: str, tag: str, wrong: bool = False) -> None:
    """What the student typed: the solution's answers (or one wrong answer), saved as theirs; `add`
    carries `tag`, to find whose notebook a page or a grade comes from."""
    nb = nbformat.read(path, as_version=4)
    solved = nbformat.read(PILOT / "solutions" / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in solved.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
            if grade_id == "add":
                cell.source = cell.source.replace("return a + b", f"return a {'-' if wrong else '+'} b  # {tag}")
    nbformat.write(nb, path)
    account = pwd.getpwnam(owner_name)
    os.chown(path, account.pw_uid, account.pw_gid)


def score_line(page: str) -> tuple[float, float]:
    """The (score, max) a feedback page states at its top."""
    found = re.search(r"\(Score: ([\d.]+) / ([\d.]+)\)", page)
    assert found, "the feedback page states no score"
    return float(found[1]), float(found[2])


def hub_settings(base: Path) -> dict:
    return json.loads((base / "state" / "hub.json").read_text())
