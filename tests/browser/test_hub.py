"""A hostile class goes round a real JupyterHub (issues 31 and 46): jupyterhub with
configurable-http-proxy on 127.0.0.1, nbgrader's exchange and lab extensions, seven throw-away
Unix accounts (six students, one instructor), each account's server run as that account, every
command typed in a login shell with its server's environment (hub_py).

The instructor releases the pilot chapter. ada, in Chromium, fetches, Validates and submits. ben
submits a wrong answer from his terminal, then attacks (hub_attacks.py): he submits in ada's name
(dated now, and 2099), future-dates and backdates his own, and reads every file he can for the
hidden tests, the solutions, the others' work and the hub's secrets. cat, in her lab's terminal in
Chromium, submits a link to the instructor's solution and a folder that is a link to ada's work.
dan submits a corrupt notebook, eve another chapter's, fay nothing. The instructor presses the
Formgrader's Collect, then collects, grades, makes feedback, exports and releases it from her
terminal without root (docs/HUB.md). Afterwards: no attack changed anyone's grade, each row and
each feedback page is its student's own, every student on the roster has a row, and each who
submitted something ungradable fetches a page that says why.
Screenshots: test-artifacts/hub-*.png.

Run by `make test-hub` (HUB_REHEARSAL=1), which CI runs after `make test`: about 190 s and 170 s of
CPU on 2 cores, a third of what `make test` may take. Needs root (accounts, servers started as
them), `pip install -e '.[hub]'`, `npm install -g configurable-http-proxy`, Chromium and bubblewrap;
skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.browser.hub_attacks import forge, read_everything, stamp, symlink_lines
from tests.browser.hub_checks import (
    STUDENTS,
    collect_says,
    each_row_is_its_own,
    feedback_in_terminals,
    feedback_in_the_browser,
    formgrader_shows,
    rows_of,
)
from tests.browser.hub_rig import (
    CHAPTER,
    COURSE_ID,
    ROOT,
    START_SECONDS,
    Hub,
    account_exists,
    answer,
    course_with_canaries,
    expect,
    hub_missing,
    hub_settings,
    log_in,
    open_assignments,
    open_terminal,
    server_pids,
    setup_hub,
    shot,
    start_hub,
    stop_hub,
    type_line,
    wait,
    wait_until_up,
)
from tests.browser.jupyter import WORDS, click_validate

# The Formgrader's dialogs are Bootstrap 3 modals, which fade in (opacity 0 to 1).
FADED_IN = "() => [...document.querySelectorAll('.modal.in')].some(m => getComputedStyle(m).opacity === '1')"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("HUB_REHEARSAL") != "1",
                       reason="the hub rehearsal runs in `make test-hub` (CI runs it after `make test`)"),
    pytest.mark.skipif(hub_missing() is not None, reason=f"the hub rehearsal: {hub_missing()}"),
    pytest.mark.timeout(3600),
]


@pytest.fixture(scope="module")
def hub():
    base = Path(tempfile.mkdtemp(prefix="agentloop-hub-", dir="/tmp"))  # other accounts must reach it
    base.chmod(0o755)
    (base / "home").mkdir(mode=0o755)
    since = base / "before-the-canaries"  # no file older than this can hold them (hub_attacks)
    since.touch()
    tag = secrets.token_hex(2)
    users = {n: f"alh{tag}-{n}" for n in (*STUDENTS, "ines")}
    canaries = {"hidden": f"canary-hidden-{secrets.token_hex(8)}", "solution": f"canary-solution-{secrets.token_hex(8)}"}
    course = course_with_canaries(base / "course", canaries)
    password = secrets.token_hex(8)
    students = ",".join(users[n] for n in STUDENTS)
    code = setup_hub.main(["--instructor", users["ines"], "--students", students, "--state", str(base / "state"),
                               "--course", str(course), "--course-id", COURSE_ID, "--port", "0",
                               "--password", password, "--create-users", "--homes", str(base / "home"),
                               "--start-timeout", str(START_SECONDS)])
    made = [u for u in users.values() if account_exists(u)]
    uids = [pwd.getpwnam(u).pw_uid for u in made]
    proc = None
    try:
        assert code == 0, "hub/setup_hub.py failed (its error is above)"
        os.chown(course, 0, pwd.getpwnam(users["ines"]).pw_gid)  # the course's source closed, as
        course.chmod(0o750)  # hub/install.py's step 9 closes the clone (tests/test_hub_install.py)
        proc = start_hub(base, base / "state" / "hub.log")
        hub = Hub(base, hub_settings(base), proc, users)
        wait_until_up(hub.url, proc, base / "state" / "hub.log")
        hub.since, hub.canaries = since, canaries
        hub.decoy = base / "decoy.txt"  # readable by all, written after `since`: found by every search
        hub.decoy.write_text(f"decoy-{secrets.token_hex(8)}\n", encoding="utf-8")
        hub.decoy.chmod(0o644)
        yield hub
    finally:
        cy = users["ada"].replace("-ada", "-cy")  # the student a test adds to the running hub
        if account_exists(cy):
            made.append(cy)
            uids.append(pwd.getpwnam(cy).pw_uid)
        if proc is not None:
            stop_hub(proc, uids)
        for user in made:
            subprocess.run(["userdel", "-r", user], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _tags(hub) -> dict[str, str]:
    """Each student's mark in their answer, and the one ben puts in what he forges."""
    return {**{n: f"{n}'s answer {hub.users[n]}" for n in STUDENTS}, "forged": f"forged by {hub.users['ben']}"}


def _terminal_submission(hub, who: str, prepare) -> None:
    """`who` fetches in a terminal, `prepare(notebook)` is what they do to it, then they submit."""
    user = hub.users[who]
    done = hub.as_user(user, "nbgrader", "fetch_assignment", CHAPTER, "--course", COURSE_ID)
    assert done.returncode == 0, done.stdout + done.stderr
    prepare(hub.home(user) / CHAPTER / f"{CHAPTER}.ipynb")
    done = hub.as_user(user, "nbgrader", "submit", CHAPTER, "--course", COURSE_ID)
    assert done.returncode == 0, done.stdout + done.stderr


def _secrets(hub) -> dict[str, str]:
    """What no student may read: the canaries, every other student's tag, the hub's own secrets."""
    state = Path(hub.s["state"])
    return {**hub.canaries, "admin password": hub.s["admin_password"],
            "setup token": (state / "setup-token").read_text().strip(),
            "cookie secret": (state / "jupyterhub_cookie_secret").read_text().strip()[:32]}


def test_a_hostile_class_goes_round_the_hub(hub, browser):
    u, tags = hub.users, _tags(hub)
    ines = u["ines"]
    # 1. The instructor releases the chapter to the exchange, as in a terminal of her server.
    done = hub.as_user(ines, "nbgrader", "release_assignment", CHAPTER, cwd=hub.course)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (hub.exchange / COURSE_ID / "outbound" / CHAPTER / f"{CHAPTER}.ipynb").is_file()
    # The hub's database and the course's exchange folder were made closed (issue 46).
    for command in (["cat", f"{hub.s['state']}/jupyterhub.sqlite"], ["mkdir", f"{hub.exchange / COURSE_ID}/outbound/x"],
                    ["ls", str(hub.inbound)]):
        done = hub.as_user(u["ben"], *command)
        assert done.returncode != 0 and "Permission denied" in done.stderr, (command, done.stdout)

    # 2. ada fetches it in the Assignments tab, works, Validates and submits in the browser.
    context, page = log_in(browser, hub, u["ada"])
    try:
        panel = open_assignments(page)
        released = panel.locator("#released_assignments_list")
        expect(released).to_contain_text(CHAPTER)
        shot(page, "student-assignments")
        released.get_by_role("button", name="Fetch").click()
        expect(panel.locator("#fetched_assignments_list")).to_contain_text(CHAPTER)
        notebook = hub.home(u["ada"]) / CHAPTER / f"{CHAPTER}.ipynb"
        assert notebook.is_file() and notebook.stat().st_uid == os.stat(hub.home(u["ada"])).st_uid
        answer(notebook, u["ada"], tags["ada"])
        page.goto(f"{hub.url}/user/{u['ada']}/lab/tree/{CHAPTER}/{CHAPTER}.ipynb")
        click_validate(page)
        dialog = page.locator("#validation-message.validation-success")
        expect(dialog).to_be_visible()
        said = dialog.locator("div").first.evaluate("d => getComputedStyle(d, '::before').content")
        assert said == json.dumps(WORDS), said
        shot(page, "student-validate")
        page.locator(".jp-Dialog").get_by_role("button", name="Ok", exact=True).click()
        panel = open_assignments(page)
        panel.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
        expect(panel.locator("#submitted_assignments_list")).to_contain_text(CHAPTER)
        shot(page, "student-submitted")
    finally:
        context.close()

    # 3. From their terminals: ben a wrong answer, dan a corrupt notebook, eve another chapter's.
    _terminal_submission(hub, "ben", lambda nb: answer(nb, u["ben"], tags["ben"], wrong=True))
    _terminal_submission(hub, "dan", lambda nb: nb.write_text("{not a notebook"))
    other = ROOT / "chapters" / "00_start_here" / "00_start_here.ipynb"
    _terminal_submission(hub, "eve", lambda nb: (shutil.copyfile(other, nb), hub.chown(nb, u["eve"])))

    # 4. ben forges: in ada's name (now, and 2099), his own dated 2099, and his own backdated.
    forged = hub.home(u["ben"]) / "forged.ipynb"
    shutil.copyfile(hub.home(u["ben"]) / CHAPTER / f"{CHAPTER}.ipynb", forged)
    answer(forged, u["ben"], tags["forged"])
    names = {"as ada, now": forge(hub, u["ben"], u["ada"], stamp(), forged),
             "as ada, 2099": forge(hub, u["ben"], u["ada"], stamp(datetime(2099, 1, 1, tzinfo=UTC)), forged),
             "his own, 2099": forge(hub, u["ben"], u["ben"], stamp(datetime(2099, 1, 1, tzinfo=UTC)), forged),
             "his own, 2020": forge(hub, u["ben"], u["ben"], stamp(datetime(2020, 1, 1, tzinfo=UTC)), forged)}

    # 5. cat, in her lab's terminal in Chromium: a link to the solution, a folder linking ada's work.
    solution = hub.course / "solutions" / CHAPTER / f"{CHAPTER}.ipynb"
    lines, linked = symlink_lines(u["cat"], solution, hub.home(u["ada"]) / CHAPTER)
    context, page = log_in(browser, hub, u["cat"])
    try:
        open_terminal(page)
        for line in lines:
            type_line(page, line)
        wait(lambda: all(os.path.lexists(hub.inbound / n) for n in linked), "cat's two links in inbound")
        shot(page, "student-terminal-links")
    finally:
        context.close()

    # 6. The instructor presses the Formgrader's Collect: the course's collect, which follows no link.
    context, page = log_in(browser, hub, ines)
    try:
        page.goto(f"{hub.url}/user/{ines}/formgrader")
        page.locator("tr", has_text=CHAPTER).first.locator("td.collect a").click()
        dialog = page.locator(".modal-dialog")
        expect(dialog).to_contain_text("collected 2 notebook(s) of 2 student(s)")
        page.wait_for_function(FADED_IN)  # Bootstrap fades the dialog in: the screenshot waits for it
        shot(page, "instructor-collect-button")
        said = " ".join(dialog.inner_text().split())  # its lines are wrapped to fit it
    finally:
        context.close()
    assert f"{linked[0]}/{CHAPTER}.ipynb: refused" in said and "link" in said, said
    assert not (hub.course / "autograder" / "submitted" / u["cat"]).exists()

    # 7. The instructor's round, in her terminal without root (docs/HUB.md, Run the course); ben
    # reads everything he can while she grades.
    collected = hub.autograder("collect", "--exchange", str(hub.exchange), "--course-id", COURSE_ID,
                               "--roster", hub.s["state"] + "/roster")
    collect_says(collected, u, names, linked)
    with ThreadPoolExecutor(1) as pool:
        during = pool.submit(read_everything, hub, u["ben"], _others(hub, "ben", tags), hub.since)
        hub.autograder("grade", "--workers", "1", "--sandbox", "bwrap")
        hits = during.result()
    assert hits == [f"decoy: {hub.decoy}"], f"ben read, while she graded: {hits}"  # the decoy alone
    hub.autograder("feedback", "--workers", "1")
    hub.autograder("export")
    canvas = hub.autograder("export", "--lms", "canvas")
    released = hub.autograder("release-feedback", "--exchange", str(hub.exchange), "--course-id", COURSE_ID)
    assert "released 5 feedback page(s)" in released, released  # all but fay, who submitted nothing
    # nbgrader's own autograde, in her terminal, is not the course's grader: it grades nothing
    graded = hub.course / "autograder" / "autograded" / u["ada"] / CHAPTER / f"{CHAPTER}.ipynb"
    before = graded.read_bytes()
    done = hub.as_user(ines, "nbgrader", "autograde", CHAPTER, "--force", cwd=hub.course)
    assert done.returncode == 1 and "not this course's grader" in done.stdout + done.stderr, done
    assert graded.read_bytes() == before

    # 8. No attack changed a grade: each row is its student's own, every student has one.
    rows = rows_of(hub)
    each_row_is_its_own(hub, rows, tags)
    assert "late" not in canvas and f"left empty: {u['cat']} / {CHAPTER}: refused" in canvas, canvas

    # 9. Each fetches their own feedback: ada in the Assignments tab, the others from a terminal.
    feedback_in_the_browser(hub, browser, rows, tags)
    feedback_in_terminals(hub, rows, tags)
    hits = read_everything(hub, u["cat"], _others(hub, "cat", tags), hub.since)
    assert hits == [f"decoy: {hub.decoy}"], f"cat read, after the round: {hits}"

    # 10. The instructor's Formgrader shows the graded submissions and their scores.
    formgrader_shows(hub, browser, rows)


def _others(hub, who: str, tags: dict[str, str]) -> dict[str, str]:
    """What `who` must not read: the hub's secrets and every tag but their own; and a decoy that
    every account may read, which the search must find (the check of the search)."""
    return {**_secrets(hub), **{f"{n}'s work": t for n, t in tags.items() if n != who and n != "forged"},
            "decoy": hub.decoy.read_text(encoding="utf-8").strip()}


def test_a_new_student_joins_the_running_hub_and_no_server_stops(hub, browser):
    """hub/install.py with one more student runs setup again: the running hub lets them in through
    its API (hub/hub_state.py), and every server that runs keeps running (issue 46)."""
    ada = hub.users["ada"]
    context, page = log_in(browser, hub, ada)
    try:
        running = server_pids(ada)
        assert running, "ada's server is not running"
        cy = ada.replace("-ada", "-cy")
        students = ",".join([*(hub.users[n] for n in STUDENTS), cy])
        code = setup_hub.main(["--instructor", hub.users["ines"], "--students", students, "--state", hub.s["state"],
                                   "--course", str(hub.base / "course"), "--course-id", COURSE_ID, "--port", "0",
                                   "--password", hub.s["password"], "--create-users", "--homes", str(hub.base / "home"),
                                   "--start-timeout", str(START_SECONDS)])
        assert code == 0
        new_context, _ = log_in(browser, hub, cy)  # a PAM or shared-password login, no restart
        new_context.close()
        assert running <= server_pids(ada), "ada's server stopped"
        assert hub.proc.poll() is None
    finally:
        context.close()
