"""Hostile submissions aimed at in-process grading, graded by the judge (issue 24).

Each worked, or would work, against a grader that runs tests inside the student's kernel: an
untouched stub plus a few lines. Under the judge the test code never enters the kernel, so
each must score 0 on every exercise.
"""

from __future__ import annotations

from autograder.gates import variants
from tests.hostile import Expect


def closure_cells(course, chapter):
    """Every function in the kernel whose closure holds `compile` or `exec` gets a no-op instead
    (the in-kernel runner's captured builtins lived there)."""
    code = '''
import builtins, gc
_noop = lambda *a, **k: None
for _f in gc.get_objects():
    for _cell in (getattr(_f, "__closure__", None) or ()) if callable(_f) else ():
        try:
            if _cell.cell_contents in (builtins.compile, builtins.exec):
                _cell.cell_contents = _noop
        except ValueError:
            pass
'''
    return variants.insert(variants.stub(course, chapter), code)


def iopub_sender(course, chapter):
    """The kernel's own message sender drops every error and reports every cell as returned."""
    code = '''
_k = get_ipython().kernel
_send = _k.session.send
def _quiet(stream, msg_or_type, content=None, *args, **kwargs):
    kind = msg_or_type if isinstance(msg_or_type, str) else msg_or_type.get("msg_type")
    if kind == "error":
        return None
    if kind == "execute_reply" and isinstance(content, dict):
        content = {**content, "status": "ok"}
    return _send(stream, msg_or_type, content, *args, **kwargs)
_k.session.send = _quiet
'''
    return variants.insert(variants.stub(course, chapter), code)


def set_profile(course, chapter):
    """A profile hook (sys.setprofile and threading.setprofile) that marks every test as done."""
    code = '''
import sys, threading
def _mark(frame, event, arg):
    for name in list(frame.f_globals):
        if "autograder" in name or "proof" in name:
            frame.f_globals[name] = True
sys.setprofile(_mark)
threading.setprofile(_mark)
'''
    return variants.insert(variants.stub(course, chapter), code)


def frame_walk(course, chapter):
    """Answers that walk up the stack from inside a test and write 'passed' wherever they can."""
    body = '''    import sys
    frame = sys._getframe(1)
    while frame is not None:
        for key in list(frame.f_locals):
            if any(w in key for w in ("ended", "passed", "record", "result", "proof")):
                try:
                    frame.f_locals[key] = True
                except Exception:
                    pass
        frame.f_globals.setdefault("__test_passed__", True)
        frame = frame.f_back
    raise NotImplementedError()
'''
    return variants.answers_defined_as(course, chapter, body)


def gc_ctypes(course, chapter):
    """gc and ctypes look for the grader's objects in the kernel and make True stand for anything."""
    code = '''
import ctypes, gc
_found = [o for o in gc.get_objects() if "autograder" in type(o).__module__ or "Judge" in type(o).__name__]
for _o in _found:
    try:
        _o.__dict__.update(passed=True, ended=True)
    except Exception:
        pass
ctypes.pythonapi.Py_IncRef(ctypes.py_object(True))
'''
    return variants.insert(variants.stub(course, chapter), code)


def lying_values(course, chapter):
    """Answers that return an object equal to everything, true, long and full of itself."""
    body = '''    class Everything:
        def __eq__(self, other): return True
        def __ne__(self, other): return False
        def __bool__(self): return True
        def __len__(self): return 3
        def __hash__(self): return 0
        def __getitem__(self, key): return self
        def __getattr__(self, name): return self
        def __iter__(self): return iter([self, self, self])
        def __contains__(self, item): return True
        def __call__(self, *a, **k): return self
        def __str__(self): return "ok"
    return Everything()
'''
    return variants.answers_defined_as(course, chapter, body)


def forged_serve(course, chapter):
    """The kernel's end of the link replaced: it answers every call with the string 'ok'."""
    code = '''
import json, socket, struct, workbook.link.kernel_side as _ks
def _serve(path, token):
    s = socket.socket(socket.AF_UNIX); s.connect(path)
    def send(m):
        d = json.dumps(m).encode(); s.sendall(struct.pack(">I", len(d)) + d)
    send({"op": "hello", "id": 1, "parent": None, "token": token})
    while True:
        head = s.recv(4)
        if len(head) < 4:
            return
        msg = json.loads(s.recv(struct.unpack(">I", head)[0]))
        if msg.get("op") == "done":
            return
        if "id" in msg and "re" not in msg:
            send({"re": msg["id"], "ok": True, "after": []})
_ks.serve = _serve
'''
    return variants.insert(variants.stub(course, chapter), code)


CASES = {
    "closure_cells": (closure_cells, Expect("zero")),
    "iopub_sender": (iopub_sender, Expect("zero")),
    "set_profile": (set_profile, Expect("zero")),
    "frame_walk": (frame_walk, Expect("zero")),
    "gc_ctypes": (gc_ctypes, Expect("zero")),
    "lying_values": (lying_values, Expect("zero")),
    "forged_serve": (forged_serve, Expect("zero")),
}
JUDGE_CHAPTER = "01_one_step"  # the chapter these run on in the gates (a judged one)
