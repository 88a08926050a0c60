"""What `make` tells a learner on the first run (issue 45): the install it starts takes minutes, not
"a minute" (3 min 43 s for 942 MB on a loaded 2-core machine; a learner saw two), so it says so."""

import re
import subprocess

from workbook.paths import ROOT


def test_the_first_run_says_how_long_it_really_takes(tmp_path):
    # make -n prints the recipe of a venv that is not there yet, without running it.
    done = subprocess.run(["make", "-n", "--no-print-directory", f"VENV={tmp_path / 'venv'}", "venv"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    said = re.search(r'echo "(Installing the workbook[^"]*)"', done.stdout)
    assert said, done.stdout + done.stderr
    assert "a few minutes" in said.group(1) and "a minute)" not in said.group(1), said.group(1)
