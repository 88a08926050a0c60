"""Fixtures for the real-browser suite: one JupyterLab server and one Chromium for the session."""

from __future__ import annotations

import re

import pytest

from tests.browser.jupyter import (
    ARTIFACTS,
    BACKSTOP_S,
    CHROMIUM,
    CHROMIUM_ARGS,
    JupyterServer,
    chapter_missing,
    finished_chapter,
    missing,
    viewer_notebook,
)


@pytest.fixture(scope="session")
def jupyter(tmp_path_factory):
    """A running server whose root is a temp copy of chapters/ plus the viewer notebook."""
    tmp = tmp_path_factory.mktemp("jupyter")
    root = tmp / "root"
    root.mkdir()
    if chapter_missing() is None:
        finished_chapter(root)
    viewer_notebook(root)
    server = JupyterServer(root, tmp)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser():
    if reason := missing():
        # Only reached in CI (elsewhere the tests are skipped): .ci/run installs Chromium.
        pytest.fail(f"the browser tests cannot run: {reason}")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=BACKSTOP_S * 1000)  # assertions wait as long as the page's own actions

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, request):
    """A fresh browser context per test; a failing test leaves a screenshot in test-artifacts/, and
    the page's console warnings and errors beside it."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    said: list[str] = []
    pg.on("console", lambda m: said.append(f"{m.type}: {m.text}"[:2000]) if m.type in ("error", "warning") else None)
    pg.on("pageerror", lambda e: said.append(f"pageerror: {e}"[:2000]))
    pg.set_default_timeout(BACKSTOP_S * 1000)  # a kernel start and "Run All" at any load
    try:
        yield pg
    finally:
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            ARTIFACTS.mkdir(exist_ok=True)
            name = re.sub(r"[^\w.-]+", "_", request.node.name)
            pg.screenshot(path=str(ARTIFACTS / f"FAILED-{name}.png"), full_page=True)
            (ARTIFACTS / f"FAILED-{name}.console.txt").write_text("\n".join(said[-300:]), encoding="utf-8")
        context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)  # the page fixture reads it at teardown
    return report
