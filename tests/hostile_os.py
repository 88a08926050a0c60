"""Hostile submissions against the grading itself: one or more per class of issue 19.

Each class is defended by what the kernel cannot reach (the sandbox), by the judge (test cells
run outside the kernel, which only serves calls: its reports decide nothing) or by the grader's
own scoring rule. `os_level` cases rely on the sandbox and are graded only when it is on. Markers (`AGENTLOOP-HOSTILE-...`) let the gates look, after the run,
for anything an attacker managed to leave behind on the machine.
"""

from __future__ import annotations

import nbformat

from autograder.course import Course
from autograder.gates import variants
from tests.hostile import Expect

DETACHED = "AGENTLOOP-HOSTILE-DETACHED"
LEAK = "AGENTLOOP-HOSTILE-LEAK"
PLANTED = "agentloop_hostile_planted"


def _stub_answers(course: Course, chapter: str, code: str):
    """The released notebook whose every answer cell runs `code` (and answers nothing)."""
    nb = variants.stub(course, chapter)
    for grade_id in variants.answer_ids(nb):
        nb = variants.with_answer(nb, grade_id, code)
    return nb


def _append(nb, source: str):
    """A student cell at the very end, after every test cell (hidden ones included)."""
    cell = nbformat.v4.new_code_cell(source)
    cell["id"] = f"student-end-{len(nb.cells)}"
    nb.cells.append(cell)
    return nb


# 1. Scoring rule: an execute_result first, an error after it.
def interactivity_all(course, chapter):
    return variants.insert(variants.stub(course, chapter),
                           "get_ipython().ast_node_interactivity = 'all'\n")


def displayhook_then_raise(course, chapter):
    nb = variants.stub(course, chapter)
    for grade_id, source in variants.solution_answers(course, chapter).items():
        stubs = "\n".join(f"def {n}(*args, **kwargs):\n    import sys\n    sys.displayhook(1.0)\n"
                          f"    sys.displayhook('all good')\n    raise NotImplementedError()"
                          for k, n in variants.defined_names(source) if k == "def")
        nb = variants.with_answer(nb, grade_id, stubs + "\n")
    return nb


# 2. Test cells rewritten or skipped before they run. Under the judge a test cell never reaches the
# kernel: what these rewrite is the one line that serves the judge, so the judge is never served
# (and the test fails), whatever the kernel then reports.
def rewrite_do_execute(course, chapter):
    code = '''
_kernel = get_ipython().kernel
_real_do_execute = _kernel.do_execute
def _do_execute(code, silent, *args, **kwargs):
    return _real_do_execute(code if silent else "pass", silent, *args, **kwargs)
_kernel.do_execute = _do_execute
'''
    return variants.insert(variants.stub(course, chapter), code)


def rewrite_compile(course, chapter):
    code = '''
import ast
_shell = get_ipython()
class _NoChecks(ast.NodeTransformer):
    def visit_Assert(self, node):
        return ast.Pass()
    def visit_Raise(self, node):
        return ast.Pass()
_real_parse = _shell.compile.ast_parse
def _parse(source, *args, **kwargs):
    return ast.fix_missing_locations(_NoChecks().visit(_real_parse(source, *args, **kwargs)))
_shell.compile.ast_parse = _parse
'''
    return variants.insert(variants.stub(course, chapter), code)


def transformer_thread(course, chapter):
    code = '''
import threading, time
_shell = get_ipython()
def _blank(lines):
    return ["pass\\n"]
def _keep_adding():
    while True:
        if _blank not in _shell.input_transformers_post:
            _shell.input_transformers_post.append(_blank)
        time.sleep(0.0005)
threading.Thread(target=_keep_adding, daemon=True).start()
'''
    return variants.insert(variants.stub(course, chapter), code)


# 3. Reading what a student must not see, around the audit hook (kernel_limits.py).
def read_around_the_hook(course, chapter):
    targets = sorted({str(course.solution_py(chapter)), str(course.solution_py(chapter).resolve()),
                      str(course.solution_ipynb(chapter).resolve()), str(course.gradebook)})
    code = f'''
import os, subprocess, tempfile
_found = ""
for _path in {targets!r}:
    try:  # a subprocess: the audit hook sees only the kernel's own process
        _out = subprocess.run(["cat", _path], capture_output=True, text=True, timeout=5).stdout
        if _out:
            print("LEAKED by subprocess", _path)
            _found = _found or (_out if "BEGIN SOLUTION" in _out else "")
    except Exception as _e:
        print("blocked:", type(_e).__name__)
    try:  # dir_fd: the hook sees only a bare file name
        _fd = os.open(os.path.dirname(_path), os.O_RDONLY)
        _f = os.open(os.path.basename(_path), os.O_RDONLY, dir_fd=_fd)
        print("LEAKED by dir_fd", _path, os.read(_f, 100)[:20])
    except Exception as _e:
        print("blocked:", type(_e).__name__)
    try:  # a hard link in a folder the hook allows
        _link = os.path.join(tempfile.mkdtemp(), "x.py")
        os.link(_path, _link)
        print("LEAKED by link", _path, open(_link).read()[:20])
    except Exception as _e:
        print("blocked:", type(_e).__name__)
for _secret in [os.path.expanduser("~root/.bash_history"), "/root/.ssh", {str(course.root / ".env")!r}]:
    if os.path.exists(_secret):
        print("LEAKED: can see", _secret)
if _found:
    exec(_found.split("BEGIN SOLUTION")[1].split("END SOLUTION")[0])
'''
    return _stub_answers(course, chapter, code)


# 4. Contaminating later kernels and the instructor's own tools.
def contaminate(course, chapter):
    code = f'''
import os, pwd, site, sys, glob
_planted = []
def _plant(path, text):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        _planted.append(path)
    except Exception as e:
        print("blocked:", path, type(e).__name__)
_evil = "import builtins; builtins.{PLANTED} = True\\n"
for _sp in site.getsitepackages() + [site.getusersitepackages()]:
    _plant(os.path.join(_sp, "{PLANTED}.pth"), "import {PLANTED}\\n")
    _plant(os.path.join(_sp, "{PLANTED}.py"), _evil)
_home = pwd.getpwuid(os.getuid()).pw_dir
_plant(os.path.join(_home, ".ipython/profile_default/startup/00-{PLANTED}.py"), _evil)
import workbook
_cache = os.path.join(os.path.dirname(workbook.__file__), "__pycache__")
for _pyc in glob.glob(os.path.join(_cache, "checks.*.pyc")) or [os.path.join(_cache, "checks.cpython-311.pyc")]:
    _plant(_pyc, "{PLANTED}")
_plant(os.path.join(os.path.dirname(workbook.__file__), "{PLANTED}.py"), _evil)
print("planted:", _planted)
'''
    return _stub_answers(course, chapter, code)


# 5. A detached process that outlives the kernel and rewrites results after `export`.
def detached_child(course, chapter):
    results_dir = str(course.results)
    child = (f"import glob, json, time  # {DETACHED}\n"
             f"while True:\n"
             f"    for p in glob.glob({results_dir!r} + '/*/*.json'):\n"
             f"        try:\n"
             f"            r = json.load(open(p)); r['score'] = r['max_score']; json.dump(r, open(p, 'w'))\n"
             f"        except Exception:\n"
             f"            pass\n"
             f"    time.sleep(0.5)\n")
    code = f'''
import subprocess, sys
subprocess.Popen([sys.executable, "-c", {child!r}], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
'''
    return _stub_answers(course, chapter, code)


# 6. Denial of service: block where the grader writes other students' logs and results.
def block_the_grader(course, chapter):
    code = f'''
import glob, os
for _sub in glob.glob({str(course.submitted)!r} + "/*/*"):
    _student, _chapter = _sub.split(os.sep)[-2:]
    for _path in ({str(course.work / "logs")!r} + f"/{{_student}}/{{_chapter}}.log",
                  {str(course.results)!r} + f"/{{_student}}/{{_chapter}}.json",
                  {str(course.autograded)!r} + f"/{{_student}}/{{_chapter}}"):
        try:
            os.makedirs(os.path.join(_path, "blocked"), exist_ok=True)
        except Exception as _e:
            print("blocked:", type(_e).__name__)
try:
    os.makedirs({str(course.results)!r} + "/zz-junk", exist_ok=True)
    open({str(course.results)!r} + "/zz-junk/00_x.json", "w").write("[1, 2")
except Exception as _e:
    print("blocked:", type(_e).__name__)
'''
    return _stub_answers(course, chapter, code)


# 7. A kernel that ignores interrupts and keeps its shell channel busy: a wait that counts only
# silence never ends; the notebook's limit (CPU, with the clock as a backstop) does.
def flood_ignores_interrupt(course, chapter):
    code = '''
import threading
_kernel = get_ipython().kernel
def _flood_shell():
    while True:
        try:
            _kernel.session.send(_kernel.shell_stream, "status", {"execution_state": "busy"})
        except Exception:
            pass
_real_do_execute = _kernel.do_execute
def _do_execute(code, silent, *args, **kwargs):
    if "workbook.link.kernel_side" in code:  # the line that serves the judge never returns
        threading.Thread(target=_flood_shell, daemon=True).start()
        while True:
            try:
                while True:
                    pass
            except KeyboardInterrupt:
                pass
    return _real_do_execute(code, silent, *args, **kwargs)
_kernel.do_execute = _do_execute
'''
    return variants.insert(variants.solved(course, chapter), code)


# 8. Hidden tests leaking through feedback: In, _ih, history, linecache, frames, in every mimetype.
# The answers keep what every frame above them holds while a test calls them (under the judge: the
# serving loop's, and the call's arguments); the last cell prints it all, after the hidden tests.
def leak_hidden_tests(course, chapter):
    spy = f'''
import base64, gc, linecache, sys
import builtins
from IPython.display import HTML, display
_shell = get_ipython()
_texts = [str(_shell.user_ns.get("In", "")), str(_shell.user_ns.get("_ih", ""))]
_texts += ["".join(v[2]) for v in list(linecache.cache.values()) if len(v) > 2]
_texts += [str(s) for s in _shell.history_manager.get_range(raw=True)]
_texts += getattr(builtins, "_agentloop_frames", [])
_last = getattr(sys, "last_traceback", None)
while _last is not None:
    _texts.append(repr(_last.tb_frame.f_code.co_consts))
    _last = _last.tb_next
_blob = "\\n".join(_texts)
_mark = "{LEAK[:-4]}" + "LEAK"  # never written whole in the source, which feedback shows
print(_mark, base64.b64encode(_blob.encode()).decode())
display(HTML("<pre>" + _mark + _blob[:20000] + "</pre>"))
'''
    nb = variants.solved(course, chapter)
    for grade_id, source in variants.solution_answers(course, chapter).items():
        wraps = "\n".join(
            f"_spied_{n} = {n}\ndef {n}(*args, **kwargs):\n    import builtins, sys\n"
            f"    _seen = builtins.__dict__.setdefault('_agentloop_frames', [])\n"
            f"    _f, _new = sys._getframe(1), [repr(args)[:1000]]\n"
            f"    while _f is not None:\n"
            f"        _new.append(repr(_f.f_code.co_consts)[:1000] + repr(list(_f.f_locals))[:500])\n"
            f"        _f = _f.f_back\n"
            f"    _seen += [t for t in _new if t not in _seen]\n"
            f"    return _spied_{n}(*args, **kwargs)"
            for k, n in variants.defined_names(source) if k == "def")
        nb = variants.with_answer(nb, grade_id, source + "\n" + wraps + "\n")
    return _append(nb, spy)


# Cases whose notebooks or side effects the gates inspect after the run.
POST_CHECKED = ("read_around_the_hook", "contaminate", "detached_child", "block_the_grader",
                "leak_hidden_tests")
CASES = {
    "interactivity_all": (interactivity_all, Expect("zero")),
    "displayhook_then_raise": (displayhook_then_raise, Expect("zero")),
    "rewrite_do_execute": (rewrite_do_execute, Expect("zero")),
    "rewrite_compile": (rewrite_compile, Expect("zero")),
    "transformer_thread": (transformer_thread, Expect("zero")),
    "read_around_the_hook": (read_around_the_hook, Expect("zero", os_level=True)),
    "contaminate": (contaminate, Expect("zero", os_level=True)),
    "detached_child": (detached_child, Expect("zero", os_level=True)),
    "block_the_grader": (block_the_grader, Expect("zero", os_level=True)),
    "flood_ignores_interrupt": (flood_ignores_interrupt,
                                Expect("zero", "timeout", notebook_limit=6)),
    "leak_hidden_tests": (leak_hidden_tests, Expect("full")),
}
