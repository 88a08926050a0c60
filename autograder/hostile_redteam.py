"""Hostile submissions found by a red-team pass over the sandboxed grader (each one worked once).

Scores are checked with every hostile case; what they must not leave in feedback, in the
autograded notebook or in the kernel's view is checked in tests/test_gates_integrity.py.
"""

from __future__ import annotations

from autograder import variants
from autograder.hostile import Expect
from autograder.hostile_os import LEAK, _stub_answers

ENVIRON = "AGENTLOOP-HOSTILE-ENVIRON"


def shadow_compile(course, chapter):
    """A `compile` in the notebook's namespace that keeps only a test cell's last line."""
    code = '''
import builtins
def compile(source, filename, mode, *args, **kwargs):
    if isinstance(filename, str) and filename.startswith(("<test ", "<hidden test ")):
        source = source.rstrip().splitlines()[-1]
    return builtins.compile(source, filename, mode, *args, **kwargs)
exec = lambda code, *args, **kwargs: builtins.exec(code, *args, **kwargs)
'''
    return variants.insert(variants.stub(course, chapter), code)


def forged_guard_notes(course, chapter):
    """The guard made to report markdown and HTML, and to restore nothing."""
    code = '''
for _c in ().__class__.__base__.__subclasses__():
    if _c.__name__.startswith("_AutograderGuard_"):
        _c.run = staticmethod(lambda: ["x`\\n\\n**Grader status: regraded by hand: full marks.** <img src=x onerror=alert(1)> `"])
'''
    return variants.insert(variants.stub(course, chapter), code)


def ename_leak(course, chapter):
    """Answers that raise an exception whose class name carries what the calling test holds."""
    code = f'''
import sys
def _leak(*args, **kwargs):
    frame = sys._getframe(1)
    if not frame.f_code.co_filename.startswith("<hidden"):
        raise NotImplementedError()
    text = repr(frame.f_code.co_consts) + repr(list(frame.f_locals))
    raise type("{LEAK[:-4]}" + "LEAK<<" + text.replace(" ", "_") + ">>", (Exception,), {{}})("x")
'''
    return variants.answers_defined_as(course, chapter, "    _leak()", prelude=code)


def display_leak(course, chapter):
    """A display made before the tests, updated by id from inside a hidden test."""
    early = 'from IPython.display import display\ndisplay({"text/plain": "my notes"}, raw=True, display_id="notes")\n'
    nb = variants.insert(variants.solved(course, chapter), early)
    spy = f'''
import base64, sys
from IPython.display import update_display
def _spy(f):
    def wrapper(*args, **kwargs):
        consts = repr(sys._getframe(1).f_code.co_consts)
        update_display({{"text/plain": "{LEAK[:-4]}" + "LEAK " + base64.b64encode(consts.encode()).decode()}},
                       raw=True, display_id="notes")
        return f(*args, **kwargs)
    return wrapper
'''
    for grade_id, source in variants.solution_answers(course, chapter).items():
        wraps = "\n".join(f"{n} = _spy({n})" for k, n in variants.defined_names(source) if k == "def")
        nb = variants.with_answer(nb, grade_id, source + "\n" + spy + wraps + "\n")
    return nb


def amplify_outputs(course, chapter):
    """Many small outputs under one display id, then one big update; a flood of big errors."""
    code = '''
from IPython.display import display, update_display
for _i in range(100):
    display({"text/plain": "x"}, raw=True, display_id="amp")
update_display({"text/plain": "A" * 1_000_000}, raw=True, display_id="amp")
_shell = get_ipython()
for _i in range(30):
    try:
        raise ValueError("E" * 1_000_000)
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


CASES = {
    "shadow_compile": (shadow_compile, Expect("zero")),
    "forged_timeout": (forged_timeout, Expect("zero", status="ok")),
    "forged_guard_notes": (forged_guard_notes, Expect("zero", tampered=True)),
    "ename_leak": (ename_leak, Expect("zero")),
    "display_leak": (display_leak, Expect("full")),
    "amplify_outputs": (amplify_outputs, Expect("full")),
    "read_environ": (read_environ, Expect("zero", os_level=True)),
}
POST_CHECKED = ("forged_guard_notes", "ename_leak", "display_leak", "amplify_outputs", "read_environ")
