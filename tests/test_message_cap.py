"""A kernel's message the grader reads is capped before it is parsed (autograder/sandbox/caps.py,
`MAX_MESSAGE`). Red team 13: a cell that published four 400 MB displays cost the student nothing and
took the grader's worker from about 100 MB to 2-2.8 GB (a message is parsed, at four to five times
its size, before the output caps cut it). Now a part over the cap never reaches the grader: the
kernel's messages are lost from there on, its cell is ended as unresponsive, and the row is a
timeout, the notebook's own doing."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import pytest

from autograder.sandbox import caps, sandbox

FLOOD = 256 << 20  # bytes in one display: four times the cap

GRADE = r'''
import json, resource, sys
import nbformat
from autograder.pipeline.execute import SafeExecute
nb = nbformat.read(sys.argv[1], as_version=4)
SafeExecute(timeout=60, notebook_timeout=300, private_paths=[], memory_mb=0, sandbox=sys.argv[2],
            judge=False).preprocess(nb, {"metadata": {"path": sys.argv[3]}})
texts = [[o.get("text") or json.dumps(o.get("data", {}))[:80] for o in c.outputs] for c in nb.cells]
print(json.dumps({"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, "outputs": texts,
                  "status": nb.metadata.get("autograder", {}).get("status")}))
'''


def test_a_message_over_the_cap_never_reaches_the_grader(tmp_path):
    mode = "bwrap" if sandbox.bwrap_problem() is None else "none"
    cells = ["print('before')",
             f"from IPython.display import publish_display_data\npublish_display_data({{'text/plain': 'x' * {FLOOD}}})\n"
             "print('published')",
             "print('after')"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "flood.ipynb"
    nbformat.write(nb, path)
    done = subprocess.run([sys.executable, "-c", GRADE, str(path), mode, str(tmp_path)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["outputs"][0] == ["before\n"] and got["status"] == "timeout", got
    assert "x" * 1000 not in json.dumps(got["outputs"]), "the display never reached the grader"
    assert got["peak_mb"] < 600, f"the grader held {got['peak_mb']} MB for a {FLOOD >> 20} MB display"


@pytest.mark.parametrize("size", [caps.MAX_MESSAGE // 4])
def test_a_large_display_still_arrives(tmp_path, size):
    """A display far over any plot (16 MB) arrives, and the output caps cut it as before."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"from IPython.display import publish_display_data\npublish_display_data({{'text/plain': 'y' * {size}}})")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "plot.ipynb"
    nbformat.write(nb, path)
    done = subprocess.run([sys.executable, "-c", GRADE, str(path), "none", str(tmp_path)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["status"] == "ok" and got["outputs"][0] and "y" in got["outputs"][0][0], got
