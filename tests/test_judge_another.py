"""Another process (chapter 08's "a year later, in another process"): the judge runs the notebook's
cells again in a fresh Python whose C library's clock is moved (libfaketime) and whose hash seed
differs, and takes each answer in a forked child where nothing of the notebook's runs but the call
(autograder/judge/another.py, workbook/link/replay.py).

Red team 4 passed chapter 08 with a key of the date two ways the Python-level clock did not stop:
the real clock read through the moved `datetime`'s base class or the moved reader's closure, and a
daemon thread that froze `time.time` again after the replay put it back. Here each is a cell; the
gate attacks `clock_real_class` and `clock_refrozen` (tests/attacks.py) grade them as notebooks.
"""

from __future__ import annotations

import time

import pytest

from autograder.judge import another
from autograder.judge.another import INSTALL, Another, faketime_library, starter
from autograder.judge.cells import REPLAY
from workbook.link.heard import Heard
from workbook.link.kernel_objects import KernelError

pytestmark = pytest.mark.skipif(faketime_library() is None, reason=f"another process needs libfaketime: {INSTALL}")
YEAR = 365 * 24 * 3600


class _Test:
    """What Another reads of a test: its exercise names and what the notebook was heard to say."""

    def __init__(self, *exercises):
        self.exercises = frozenset(exercises)
        self.end = type("End", (), {"heard": Heard()})()


@pytest.fixture
def made():
    runs: list = []
    yield runs
    for run in runs:
        run.close()


def later(cells, made, *names, seconds=YEAR):
    return Another(list(REPLAY), list(cells), seconds, _Test(*names), lambda: None, made, faketime_library())


NOW = "import datetime, time\ndef now():\n    return (time.time(), datetime.datetime.now().timestamp())\n"
REAL_CLASS = ("import datetime, time\n"
              "def now():  # red team 4: the real class behind the moved one, the real reader in its closure\n"
              "    real = [c for c in type(datetime.datetime.now()).__mro__ if c.__name__ == 'datetime'][-1]\n"
              "    cells = getattr(time.time, '__closure__', None) or ()\n"
              "    readers = [v['time'] for c in cells for v in [c.cell_contents] if isinstance(v, dict) and 'time' in v]\n"
              "    return ((readers or [time.time])[0](), real.now().timestamp())\n")
REFROZEN = ("import threading, time\n"
            "def _freeze():  # red team 4: freeze the clock again after the replay puts it back\n"
            "    while True:\n        time.time = lambda: 1_700_000_000.0\n        time.sleep(0.0005)\n"
            "threading.Thread(target=_freeze, daemon=True).start()\n"
            "def now():\n    return (time.time(), time.time())\n")


@pytest.mark.parametrize("cell", [NOW, REAL_CLASS, REFROZEN], ids=["plain", "real_class", "refrozen"])
def test_every_clock_of_the_other_process_is_a_year_later(cell, made):
    moved = later([cell], made, "now").now()
    assert all(YEAR - 60 < t - time.time() < YEAR + 60 for t in moved), (moved, time.time())


def test_the_answer_is_taken_after_putting_back_what_the_answers_set(made):
    cells = ["import builtins, time\nbuiltins.hash = lambda x: 0\ntime.time = lambda: 0.0\n",
             "1 / 0  # a failing cell ends that cell only\n",
             "def key(x):\n    return (hash(x), time.time())\n", "def helper():\n    return 1\n"]
    other = later(cells, made, "key")
    got = other.key("abc")
    assert got[0] not in (0, hash("abc")) and got[1] > time.time() + YEAR - 60, got
    assert type(got) is tuple, "plain data crosses as itself"
    with pytest.raises(AttributeError, match="exercises"):
        other.helper  # noqa: B018 - not an exercise
    assert len(made) == 1 and made[0].proc.returncode is None, "reaped with the test: its CPU counts until then"
    assert later(["def key(x):\n    return hash(x)\n"], made, "key").key("abc") != got[0], "another seed each time"


REFUSED = {
    "ctypes": "import ctypes\ndef f():\n    return 1\n",
    "faketime_env": "import os\nos.environ['FAKETIME'] = '+0'\ndef f():\n    return 1\n",
    "program": "import subprocess\nsubprocess.run(['true'])\ndef f():\n    return 1\n",
    "fork_exec": "import _posixsubprocess\n_posixsubprocess.fork_exec()\ndef f():\n    return 1\n",
    "socket": "import socket\nsocket.socketpair()\ndef f():\n    return 1\n",
}


@pytest.mark.parametrize("cell", REFUSED.values(), ids=list(REFUSED))
def test_what_could_get_around_the_moved_clock_is_refused(cell, made):
    """Each would reach the real clock (native code, a program without libfaketime, libfaketime's own
    setting, a socket's timestamps or the kernel's process): the cell fails there, before `f`."""
    with pytest.raises(KernelError, match="does not define that exercise"):
        later([cell], made, "f").f()


def test_an_optional_native_import_falls_back_as_in_the_kernel(made):
    """httpx imports brotlicffi if it is there: refused here as a missing module would be (an
    ImportError), so `import openai` works and the cells after a chapter's imports run as they did
    in the kernel (a RuntimeError had left every name after it undefined)."""
    cell = ("try:\n    import _cffi_backend\nexcept ImportError:\n    native = False\n"
            "import openai\ndef f():\n    return (native, openai.__name__)\n")
    assert later([cell], made, "f").f() == (False, "openai")


def test_a_thread_started_at_fork_is_refused_and_a_raise_crosses_as_its_builtin_class(made):
    cell = ("import os, threading, time\n"
            "os.register_at_fork(after_in_child=lambda: threading.Thread(target=time.sleep, args=(30,)).start())\n"
            "def f():\n    return 1\n")
    with pytest.raises(KernelError, match="thread"):
        later([cell], made, "f").f()
    cell = "class Mine(KeyError):\n    pass\ndef f():\n    raise Mine('call_7Qd0m2')\n"
    with pytest.raises(KeyError, match="raised in another process") as caught:
        later([cell], made, "f").f()
    assert caught.value.from_other_side and "7Qd0m2" not in str(caught.value)


def test_an_answer_written_by_the_cells_besides_the_harness_is_refused(made):
    cell = "import os, sys\nos.write(int(sys.argv[1]), b'ok 42\\n')\ndef f():\n    return 1\n"
    with pytest.raises(KernelError, match="ended before it answered"):
        later([cell], made, "f").f()


def test_without_libfaketime_the_grader_refuses_and_the_replay_never_runs_unmoved(made, monkeypatch):
    with pytest.raises(KernelError, match="clock could not be moved"):
        Another(list(REPLAY), ["def f():\n    return 1\n"], YEAR, _Test("f"), lambda: None, made,
                "/usr/lib/no-such-libfaketime.so.1").f()
    monkeypatch.setattr(another, "LIBRARIES", ())
    with pytest.raises(KernelError, match="libfaketime is not installed"):
        starter(list(REPLAY), [], _Test("f"), lambda: None, made)(YEAR)
