"""A fresh lab asks nothing about Jupyter news (issue 31): the student's and the instructor's labs
(`make lab`, `make lab-instructor`) and the hub's servers set JupyterLab's notification defaults
in their labconfig/default_setting_overrides.json (fetchNews "false", checkForUpdates false).

The browser tests start a lab with the course's settings folder, as the Makefile and the hub do,
and no user setting of fetchNews. When the frontend has read the setting it either asks (fetchNews
"none") or goes on to check for updates, which is a request to /lab/api/update: the test turns that
check on in the user's settings (the server's NeverCheckForUpdate answers it without a network),
so that request is the observed moment after which the question would be on screen. A plain lab,
without the course's settings, is the control: the same page shows the question.
Screenshots: test-artifacts/lab-news-*.png.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.browser.jupyter import (
    ARTIFACTS,
    BACKSTOP_S,
    CHAPTERS,
    ROLES,
    ROOT,
    TEST_BACKSTOP_S,
    JupyterServer,
    skip_reason,
)

PLUGIN = "@jupyterlab/apputils-extension:notification"
QUESTION = "Would you like to get notified about official Jupyter news?"
COURSE_DEFAULTS = {"fetchNews": "false", "checkForUpdates": False}


def in_browser(test):
    """The browser suite's marks (the first test here needs no browser)."""
    test = pytest.mark.browser(test)
    test = pytest.mark.skipif(skip_reason() is not None, reason=f"browser tests: {skip_reason()}")(test)
    return pytest.mark.timeout(TEST_BACKSTOP_S)(test)


def test_every_role_sets_the_notification_defaults():
    """JupyterLab's own reader of the overrides finds the course's defaults in each folder (one
    process reads them all: it reads JUPYTER_CONFIG_PATH on each call; an import is ~2 s of CPU)."""
    code = ("import json, os, sys; from jupyterlab_server.settings_utils import _get_overrides\n"
            "for folder in sys.argv[1:]:\n"
            "    os.environ['JUPYTER_CONFIG_PATH'] = folder\n"
            "    print(json.dumps(_get_overrides('/nonexistent')[0]))")
    env = {**os.environ, "JUPYTER_CONFIG_DIR": "/nonexistent", "JUPYTER_PLATFORM_DIRS": "1"}
    out = subprocess.run([sys.executable, "-c", code, *(str(ROOT / role) for role in ROLES)], env=env,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(ROLES), out
    for role, line in zip(ROLES, out, strict=True):
        assert json.loads(line).get(PLUGIN) == COURSE_DEFAULTS, f"{role}/labconfig: {line}"


@pytest.fixture
def fresh_lab(request, tmp_path):
    """A lab on a copy of chapter 00 with the given settings folder (None: plain JupyterLab)."""
    role = request.param
    root = tmp_path / "root"
    root.mkdir()
    shutil.copytree(CHAPTERS / "00_start_here", root / "00_start_here")
    server = JupyterServer(root, tmp_path, config_path=ROOT / role if role else None,
                           extra_args=("--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",))
    server.start()
    # JupyterServer writes a user setting that hides the question; a fresh student has none. Only
    # the update check is turned on, so that the frontend's decision shows as a request.
    user = tmp_path / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    user.write_text(json.dumps({"checkForUpdates": True}), encoding="utf-8")
    try:
        yield role, server
    finally:
        server.stop()


def settings_of(server):
    from urllib.request import urlopen

    with urlopen(server.url(f"/lab/api/settings/{PLUGIN}"), timeout=BACKSTOP_S) as r:
        return json.load(r)


def open_lab(page, server):
    """Open the lab's own first page (the student's: chapter 00); return once the frontend has
    decided about the news (see the module's docstring) and the file browser shows the root."""
    from playwright.sync_api import expect

    with page.expect_request(lambda r: "/lab/api/update" in r.url, timeout=BACKSTOP_S * 1000):
        page.goto(server.url("/"))
    expect(page.locator(".jp-DirListing-item").first).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)


@in_browser
@pytest.mark.parametrize("fresh_lab", ["lab/student"], indirect=True)
def test_a_fresh_lab_asks_nothing_about_news(fresh_lab, page):
    """One role in the browser (a lab start costs ~20 s of CPU): every role's folder holds the same
    defaults, which JupyterLab's own reader finds (test_every_role_sets_the_notification_defaults);
    this shows that those defaults keep the question away, and the control that it would ask."""
    role, server = fresh_lab
    from playwright.sync_api import expect

    got = settings_of(server)
    assert got["schema"]["properties"]["fetchNews"]["default"] == "false"
    assert got["schema"]["properties"]["checkForUpdates"]["default"] is False
    assert "fetchNews" not in got["settings"], "the user's settings must not be what hides it"
    name = role.replace("/", "-")
    open_lab(page, server)
    expect(page.locator(".jp-Notification-Status-Text")).to_have_text("0")
    expect(page.get_by_text(QUESTION)).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / f"lab-news-{name}.png"))


@in_browser
@pytest.mark.parametrize("fresh_lab", [None], indirect=True)
def test_control_a_plain_lab_asks(fresh_lab, page):
    """Without the course's settings the same page asks: the test above can fail."""
    _, server = fresh_lab
    from playwright.sync_api import expect

    assert settings_of(server)["schema"]["properties"]["fetchNews"]["default"] == "none"
    page.goto(server.url("/lab"))
    expect(page.get_by_text(QUESTION)).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lab-news-control.png"))

