"""The README's rehearsal works as written: `serve` prints how to use it, a second server on a taken
port says so in one line, and chapter 00's live cell shows what came back (issue 17 §4)."""

import os
import re
import subprocess
import sys

from autograder import notebooks
from workbook.paths import ROOT
from workbook.providers import PROVIDERS

SERVE = [sys.executable, "-m", "workbook.fake_llm", "serve", "--scenario", "two_orders"]


def _live_cell() -> str:
    nb = notebooks.read(ROOT / "chapters" / "00_start_here" / "00_start_here.ipynb")
    return next(c.source for c in nb.cells if c.cell_type == "code" and "live_enabled()" in c.source)


def test_rehearsal_with_the_readme_settings_shows_the_tool_calls():
    first = subprocess.Popen(SERVE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        serving, hint = first.stdout.readline(), first.stdout.readline()
        base_url = serving.split("serving at ")[1].strip()
        assert f"LLM_PROVIDER=openai OPENAI_API_KEY=any-key LLM_BASE_URL={base_url}" in hint, hint
        port = re.search(r":(\d+)/v1", base_url).group(1)

        taken = subprocess.run([*SERVE, "--port", port], capture_output=True, text=True, timeout=30)
        assert taken.returncode == 1 and "Traceback" not in taken.stderr
        assert f"cannot serve on 127.0.0.1:{port}" in taken.stderr and "pick another --port" in taken.stderr

        env = {**os.environ, "LLM_PROVIDER": "openai", "OPENAI_API_KEY": "x", "LLM_BASE_URL": base_url}
        done = subprocess.run([sys.executable, "-c", _live_cell()], capture_output=True, text=True,
                              timeout=60, env=env, cwd=ROOT)
        assert done.stdout.splitlines() == [
            f"{PROVIDERS['openai'].model} replied (finish_reason 'tool_calls'):",
            '  tool call: get_order({"order_id": "A-1001"})',
            '  tool call: get_order({"order_id": "A-1002"})'], done.stdout + done.stderr
    finally:
        first.terminate()
        first.wait(5)
