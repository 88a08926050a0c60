"""Chapter 23's trace in Phoenix, in Chromium: the spans sent over OTLP to a Phoenix started on
127.0.0.1 (README, "Traces in Phoenix") show as a trace with the run's and the tools' spans.

Needs Phoenix (in a venv of its own, as the README says: found as $PHOENIX_BIN, on PATH or in
~/.venv-phoenix) and the `traces` extra (the OTLP exporter), neither of them in dev: where one is
missing the test is skipped and says so."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.browser.jupyter import ARTIFACTS
from workbook import trace
from workbook.trace import otel, spans

pytestmark = pytest.mark.browser

HOME_VENV = Path.home() / ".venv-phoenix" / "bin" / "phoenix"
PHOENIX = (os.environ.get("PHOENIX_BIN") or shutil.which("phoenix", path=os.path.dirname(sys.executable))
           or shutil.which("phoenix") or (str(HOME_VENV) if HOME_VENV.is_file() else None))
MISSING = ("Phoenix is not installed here (README, 'Traces in Phoenix': a venv of its own)" if PHOENIX is None else
           "the OTLP exporter is not installed here: pip install -e '.[traces]'"
           if importlib.util.find_spec("opentelemetry.exporter") is None else None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def phoenix(tmp_path):
    if MISSING:
        pytest.skip(MISSING)
    port = _free_port()
    env = {**os.environ, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(port),
           "PHOENIX_GRPC_PORT": str(_free_port()), "PHOENIX_WORKING_DIR": str(tmp_path),
           "PHOENIX_TELEMETRY_ENABLED": "false", "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false"}
    proc = subprocess.Popen([PHOENIX, "serve"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 180  # a readiness wait, not a verdict: Phoenix migrates its db first
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"Phoenix did not start on 127.0.0.1:{port} (exit code {proc.poll()})")
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_phoenix_shows_the_trace(phoenix, page):
    found = spans.from_trajectory(trace.sample("two_orders"), agent="support", start_ns=time.time_ns())
    otel.send(found, f"{phoenix}/v1/traces")
    page.goto(f"{phoenix}/projects", wait_until="domcontentloaded")
    page.get_by_text("default").first.click()  # spans without a project name go to "default"
    page.get_by_text("invoke_agent support").first.click()
    page.get_by_text("execute_tool get_order").first.wait_for()  # the trace's tree, once loaded
    page.screenshot(path=str(ARTIFACTS / "phoenix_trace.png"))
    for name, count in (("chat fake-model", 2), ("execute_tool get_order", 2)):
        assert page.get_by_text(name).count() >= count, f"Phoenix's trace does not show {count} x {name}"
