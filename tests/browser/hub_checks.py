"""What the hub rehearsal checks after a hostile class's round (tests/browser/test_hub.py): what
collect said of each attack, one row a student on the roster and each its own, each feedback page
its student's own (or saying why there is none), and the instructor's Formgrader.
"""

from __future__ import annotations

import csv
import html
import re
import urllib.parse

from nbgrader.utils import notebook_hash

from tests.browser.hub_rig import (
    CHAPTER,
    COURSE_ID,
    expect,
    log_in,
    open_assignments,
    score_line,
    shot,
    wait,
)

STUDENTS = ("ada", "ben", "cat", "dan", "eve", "fay")


def collect_says(lines: str, u: dict, names: dict, linked: list[str]) -> None:
    ben, ada = u["ben"], u["ada"]
    assert "collected 2 notebook(s) of 2 student(s)" in lines, lines  # ada's and ben's
    for what in ("as ada, now", "as ada, 2099"):
        assert f"skipped: {names[what]}: made by {ben} (uid " in lines and f"not by {ada}'s account" in lines, lines
    assert f"skipped: {names['his own, 2099']}: dated 2099-01-01 00:00:00 UTC, later than now" in lines, lines
    assert "not collected: 1 earlier submission(s) (the latest of each is)" in lines, lines  # ben's 2020
    assert f"skipped: {linked[1]}: not a folder (a link or a file)" in lines, lines
    assert f"refused: {linked[0]}/{CHAPTER}.ipynb: refused" in lines, lines
    assert f"{u['dan']}" in lines and "file is not a notebook (not valid JSON)" in lines, lines
    assert f"wrong chapter: none of its graded cells is one of chapter {CHAPTER}'s" in lines, lines


def rows_of(hub) -> dict[str, dict]:
    with (hub.course / "autograder" / "grades.csv").open() as f:
        found = list(csv.DictReader(f))
    rows = {r["student"]: r for r in found}
    assert len(rows) == len(found) == len(STUDENTS), found  # one row a student, on the roster
    return {n: rows[hub.users[n]] for n in STUDENTS}


def each_row_is_its_own(hub, rows: dict, tags: dict) -> None:
    assert float(rows["ada"]["score"]) == float(rows["ada"]["max_score"]) > 0, rows["ada"]
    assert rows["ben"]["status"] == "ok" and 0 < float(rows["ben"]["score"]) < float(rows["ben"]["max_score"]), rows
    statuses = {n: rows[n]["status"] for n in ("cat", "dan", "eve", "fay")}
    assert statuses == {"cat": "refused", "dan": "unreadable", "eve": "wrong_chapter", "fay": "missing"}, rows
    assert all(float(rows[n]["score"]) == 0 for n in statuses), rows
    work = hub.course / "autograder"
    for who in ("ada", "ben"):  # the notebook graded is the one the student submitted, and only it
        for stage in ("submitted", "autograded"):
            text = (work / stage / hub.users[who] / CHAPTER / f"{CHAPTER}.ipynb").read_text()
            assert tags[who] in text and tags["forged"] not in text, (who, stage)
    everything = "".join(p.read_text(errors="replace") for p in (work / "submitted").rglob("*.ipynb"))
    assert hub.canaries["solution"] not in everything and hub.canaries["hidden"] not in everything


def feedback_in_the_browser(hub, browser, rows: dict, tags: dict) -> None:
    ada = hub.users["ada"]
    context, page = log_in(browser, hub, ada)
    try:
        panel = open_assignments(page)
        panel.locator("#submitted_assignments_list").get_by_role("button", name="Fetch Feedback").click()
        wait(lambda: any((hub.home(ada) / CHAPTER / "feedback").rglob(f"{CHAPTER}.html")), "feedback page")
        shot(page, "student-feedback-fetched")
        mine = next((hub.home(ada) / CHAPTER / "feedback").rglob(f"{CHAPTER}.html"))
        page.goto(f"{hub.url}/user/{ada}/files/{urllib.parse.quote(str(mine.relative_to(hub.home(ada))))}")
        expect(page.locator("body")).to_contain_text("# hidden test")
        shot(page, "student-feedback-page")
    finally:
        context.close()
    text = mine.read_text(encoding="utf-8")
    assert score_line(text) == (float(rows["ada"]["score"]), float(rows["ada"]["max_score"]))
    assert tags["ada"] in text and tags["forged"] not in text and hub.canaries["hidden"] not in text


def feedback_in_terminals(hub, rows: dict, tags: dict) -> None:
    """ben, dan and eve fetch a page that is their own (dan's and eve's say why there is no grade).
    cat and fay fetch nothing: nbgrader finds a page through the secret its own submit kept, and
    fay submitted nothing, cat only folders made by hand; the page released for cat's says why."""
    says = {"dan": "it was not graded: unreadable", "eve": f"wrong chapter: none of its graded cells is one of "
            f"chapter {CHAPTER}'s", "cat": "it was not graded: refused"}
    for who in ("ben", "cat", "dan", "eve", "fay"):
        user = hub.users[who]
        done = hub.as_user(user, "nbgrader", "fetch_feedback", CHAPTER, "--course", COURSE_ID)
        assert done.returncode == 0, (who, done.stdout + done.stderr)
        pages = sorted((hub.home(user) / CHAPTER / "feedback").rglob(f"{CHAPTER}.html"))
        if who in ("cat", "fay"):
            assert not pages, pages
            continue
        assert len(pages) == 1, (who, done.stdout + done.stderr, pages)
        text = pages[-1].read_text(encoding="utf-8")
        assert not [n for n in STUDENTS if n != who and tags[n] in text] and tags["forged"] not in text, who
        if who == "ben":
            assert tags["ben"] in text
            assert score_line(text) == (float(rows["ben"]["score"]), float(rows["ben"]["max_score"]))
        else:
            assert says[who] in html.unescape(text), (who, text[:2000])
    cats = hub.exchange / COURSE_ID / "feedback" / (notebook_hash(secret="linked", notebook_id=CHAPTER) + ".html")
    assert says["cat"] in html.unescape(cats.read_text(encoding="utf-8"))
    # ben cannot list the released pages, nor read ada's submission or her home
    for path in (hub.exchange / COURSE_ID / "feedback", hub.inbound, hub.home(hub.users["ada"])):
        done = hub.as_user(hub.users["ben"], "ls", str(path))
        assert done.returncode != 0 and "Permission denied" in done.stderr, (path, done.stdout)


def formgrader_shows(hub, browser, rows: dict) -> None:
    ines = hub.users["ines"]
    context, page = log_in(browser, hub, ines)
    try:
        page.goto(f"{hub.url}/user/{ines}/formgrader/gradebook/{CHAPTER}/{CHAPTER}")
        table = page.locator("tbody#main-table")
        expect(table.locator("tr")).to_have_count(2)  # the two graded: ada's and ben's
        page.get_by_role("button", name="Show All Names").click()  # names are hidden at first
        for who in ("ada", "ben"):
            row = table.locator("tr", has=page.locator("a.name-shown", has_text=hub.users[who]))
            expect(row.locator("td.score")).to_have_text(
                f"{float(rows[who]['score']):g} / {float(rows[who]['max_score']):g}")
        shot(page, "instructor-formgrader")
        page.goto(f"{hub.url}/user/{ines}/lab")  # her Course List: the course, on her own server
        page.get_by_text("Nbgrader", exact=True).click()
        page.get_by_text("Course List", exact=True).click()
        courses = page.locator("#nbgrader-course-list")
        expect(courses.get_by_role("link", name=COURSE_ID)).to_be_visible()
        expect(courses).to_contain_text(re.compile(rf"{COURSE_ID}\s*local"))
        shot(page, "instructor-course-list")
    finally:
        context.close()
