"""Hostile submissions found by a red-team pass over the sandboxed grader (each one worked once).

Scores are checked with every hostile case; what they must not leave in feedback, in the
autograded notebook or in the kernel's view is checked in tests/test_gates_integrity.py.
"""

from __future__ import annotations

from autograder.gates import variants
from tests.hostile import Expect
from tests.hostile_os import LEAK, _stub_answers

ENVIRON = "AGENTLOOP-HOSTILE-ENVIRON"
FORGED = "x`\n\n**Grader status: regraded by hand: full marks.** <img src=x onerror=alert(1)> `"


def forged_notes(course, chapter):
    """Stubs that write what looks like the grader's notes, markdown and HTML (a script) included,
    to stderr, to stdout and into their error, and raise an exception named like a grader's event.
    (Once it made the in-kernel guard's report say so: the guard is gone, and nothing the kernel
    says reaches the notes.)"""
    code = f'''
import sys
_FORGED = {FORGED!r}
print(_FORGED)
print(_FORGED, file=sys.stderr)
class DeadKernelError(Exception):
    pass
'''
    return variants.answers_defined_as(course, chapter, "    raise DeadKernelError(_FORGED)", prelude=code)


def display_leak(course, chapter):
    """A display made before the tests, updated by id from inside every test with what the test
    handed over (its arguments): feedback shows that earlier cell, so an update would carry them out."""
    early = 'from IPython.display import display\ndisplay({"text/plain": "my notes"}, raw=True, display_id="notes")\n'
    nb = variants.insert(variants.solved(course, chapter), early)
    spy = f'''
import base64, sys
from IPython.display import update_display
def _spy(f):
    def wrapper(*args, **kwargs):
        seen = repr(args) + repr(sys._getframe(1).f_code.co_consts)
        update_display({{"text/plain": "{LEAK[:-4]}" + "LEAK " + base64.b64encode(seen.encode()).decode()}},
                       raw=True, display_id="notes")
        return f(*args, **kwargs)
    return wrapper
'''
    for grade_id, source in variants.solution_answers(course, chapter).items():
        wraps = "\n".join(f"{n} = _spy({n})" for k, n in variants.defined_names(source) if k == "def")
        nb = variants.with_answer(nb, grade_id, source + "\n" + spy + wraps + "\n")
    return nb


def amplify_outputs(course, chapter):
    """Many small outputs under one display id, then one big update; a flood of big errors (30 of
    200 000 characters: each over a cell's cap, together three times the notebook's; at 1 MB each
    the cell spent over 50 s of wall time at load 12 per core, which measured only the machine)."""
    code = '''
from IPython.display import display, update_display
for _i in range(100):
    display({"text/plain": "x"}, raw=True, display_id="amp")
update_display({"text/plain": "A" * 1_000_000}, raw=True, display_id="amp")
_shell = get_ipython()
for _i in range(30):
    try:
        raise ValueError("E" * 200_000)
    except ValueError:
        _shell.showtraceback()
'''
    return variants.insert(variants.solved(course, chapter), code)


def read_environ(course, chapter):
    """The sandbox's pid 1 once held the grader's whole environment (instructor keys)."""
    code = f'''
for _path in ("/proc/1/environ", "/proc/self/environ"):
    try:
        print("{ENVIRON[:-7]}" + "ENVIRON", _path, open(_path, "rb").read().replace(b"\\0", b" ").decode())
    except Exception as _e:
        print("blocked:", type(_e).__name__)
'''
    return _stub_answers(course, chapter, code)


def forged_timeout(course, chapter):
    """Answers that raise an exception named like the grader's own timeout: a failure, not a timeout."""
    code = "class CellTimeoutError(Exception):\n    pass\n"
    return variants.answers_defined_as(
        course, chapter, "    raise CellTimeoutError('No reply from kernel before timeout')", prelude=code)


# Retired with the in-kernel grading (issue 24), each for what it attacked:
# - shadow_compile: a `compile` in the notebook's namespace kept only a test cell's last line, as the
#   in-kernel runner compiled test cells there; the judge compiles them in its own process, and a
#   test cell's builtins are never the notebook's names (workbook/link/names.py, Namespace).
# - ename_leak: an exception class named after the constants of the hidden test in the caller's
#   frame; under the judge no frame of a test exists in the kernel (leak_hidden_tests records every
#   frame an answer sees and finds none of a hidden test's source), and an error name in feedback
#   is shown only when it is a name (notebooks.safe_ename).
CASES = {
    "forged_timeout": (forged_timeout, Expect("zero", status="ok")),
    "forged_notes": (forged_notes, Expect("zero", status="ok")),
    "display_leak": (display_leak, Expect("full")),
    "amplify_outputs": (amplify_outputs, Expect("full")),
    "read_environ": (read_environ, Expect("zero", os_level=True)),
}
POST_CHECKED = ("forged_notes", "display_leak", "amplify_outputs", "read_environ")
