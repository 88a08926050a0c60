"""Instruments for test cells: which tool calls ran at the same time, which responses a model
client returned.

Reached as `wb.checks.Overlap` (docs/CHAPTERS.md, "Test helpers");
`Recorder`, `elsewhere`, `after_changing` and `in_place` are imported from here (`from workbook.probes import Recorder`).
"""

from __future__ import annotations

import builtins
import copy
import datetime
import inspect
import sys
import threading
import time
import types

from workbook.i18n import current, tr


class Overlap:
    """Tools that show which calls ran at the same time, decided by latches, not by timing. A call in
    a worker thread holds until all `parties` calls have started (`hold` seconds are reached only by
    code that never runs them together); a call in the test's own thread holds nothing, since nothing
    else can start while it runs. `together`: the calls that were all running at once."""

    def __init__(self, parties, hold=5.0):
        self.parties, self.hold, self.caller = parties, hold, threading.get_ident()
        self.cv, self.running, self.together = threading.Condition(), set(), set()
        self.order, self.events, self.overlaps, self.threads = [], [], 0, set()

    def tool(self, name, fn=None, hold=True):
        def call(**kwargs):
            key = kwargs.get("order_id")
            with self.cv:
                self.order.append((name, key))
                self.events.append(("start", key))
                self.threads.add(threading.get_ident())
                self.overlaps += bool(self.running)  # another call is still running
                self.running.add(key)
                if len(self.running) >= self.parties:
                    self.together |= self.running
                self.cv.notify_all()
                if hold and threading.get_ident() != self.caller:
                    self.cv.wait_for(lambda: len(self.order) >= self.parties, timeout=self.hold)
                self.running.discard(key)
                self.events.append(("end", key))
            return fn(**kwargs) if fn else {"order_id": key, "tool": name}
        return call


class Recorder:
    """A Chat Completions client for a test: passes each request to `client`, keeps every response
    in `responses`, and refuses call `cap + 1` with an AssertionError that asks whether `what` (the
    function under test) stops at max_steps."""

    LINK_DATA = ("chat",)  # what a graded notebook may read of it (workbook/link/trust.py)

    def __init__(self, client, cap, what):
        self.client, self.cap, self.what, self.responses = client, cap, what, []
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **kwargs):
        if len(self.responses) >= self.cap:
            raise AssertionError(f"more than {self.cap} model calls: does {self.what} stop at max_steps?")
        self.responses.append(self.client.chat.completions.create(**kwargs))
        return self.responses[-1]


def _later_clock(seconds):
    """Replacements for the wall clock's readers, `seconds` later: {name in time: moved reader},
    and {real object: its moved stand-in} for names bound to them elsewhere."""
    real = {name: getattr(time, name) for name in ("time", "time_ns", "localtime", "gmtime", "ctime", "strftime",
                                                   "clock_gettime", "clock_gettime_ns")}
    wall = {getattr(time, c) for c in ("CLOCK_REALTIME", "CLOCK_REALTIME_COARSE", "CLOCK_TAI") if hasattr(time, c)}

    def moved_time() -> float:
        return real["time"]() + seconds

    def at(name):
        return lambda t=None: real[name](moved_time() if t is None else t)

    def moved_strftime(fmt, t=None):
        return real["strftime"](fmt, real["localtime"](moved_time()) if t is None else t)

    moved = {"time": moved_time, "time_ns": lambda: real["time_ns"]() + int(seconds * 10**9),
             "localtime": at("localtime"), "gmtime": at("gmtime"), "ctime": at("ctime"),
             "strftime": moved_strftime,
             "clock_gettime": lambda c: real["clock_gettime"](c) + (seconds if c in wall else 0),
             "clock_gettime_ns": lambda c: real["clock_gettime_ns"](c) + (int(seconds * 10**9) if c in wall else 0)}
    shift = datetime.timedelta(seconds=seconds)

    class Datetime(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.datetime.now(tz) + shift

        @classmethod
        def utcnow(cls):
            return datetime.datetime.now(datetime.UTC).replace(tzinfo=None) + shift

        @classmethod
        def today(cls):
            return cls.now()

    class Date(datetime.date):
        @classmethod
        def today(cls):
            return (datetime.datetime.now() + shift).date()

    pairs = {real[name]: fn for name, fn in moved.items()}
    pairs.update({datetime.datetime: Datetime, datetime.date: Date})
    module = types.ModuleType("datetime")
    module.__dict__.update(vars(datetime), datetime=Datetime, date=Date)
    pairs[datetime] = module
    return moved, pairs


def elsewhere(fn, *args, seconds=0, hash_salt=None, **kwargs):
    """fn(*args, **kwargs) as it would run `seconds` later on the wall clock and, with a
    `hash_salt`, in a Python process whose built-in `hash()` differs (what another PYTHONHASHSEED
    does); everything is as it was afterwards, whatever happens.

    The clock moves for `time.time()` and its kin read through the module (`clock_gettime` of the
    wall clocks too), for `datetime` imported during the call, and for readers bound elsewhere:
    names in fn's module (`from time import time`, `from datetime import datetime`, a `now =
    time.time` kept aside), and the default arguments and closures of fn and of the functions of
    its module. It changes the process it runs in: a graded test calls the copy in the student's
    kernel (the notebook imports it), since the test's own process is not where the student's code
    runs. What it cannot move: a type's own method called directly (`str.__hash__`), a reader kept
    in an object's attribute. The exercise's other tests decide those cases."""
    moved, pairs = _later_clock(seconds) if seconds else ({}, {})
    real_hash = builtins.hash
    if hash_salt is not None:
        pairs[real_hash] = lambda obj: real_hash((hash_salt, obj))
    names = getattr(fn, "__globals__", None)
    names = names if isinstance(names, dict) else {}
    kept = {name: value for name, value in list(names.items()) if _known(pairs, value)}
    functions = [fn] + [f for f in list(names.values()) if isinstance(f, types.FunctionType) and f is not fn
                        and f.__globals__ is names]
    swapped = [_swap_bound(f, pairs) for f in functions if isinstance(f, types.FunctionType)]
    real_time = {name: getattr(time, name) for name in moved}
    real_module = sys.modules.get("datetime")
    try:
        for name, value in kept.items():
            names[name] = pairs[value]
        for name, reader in moved.items():
            setattr(time, name, reader)
        if seconds:
            sys.modules["datetime"] = pairs[datetime]
        if hash_salt is not None:
            builtins.hash = pairs[real_hash]
        return fn(*args, **kwargs)
    finally:
        for name, reader in real_time.items():
            setattr(time, name, reader)
        builtins.hash = real_hash
        if real_module is not None:
            sys.modules["datetime"] = real_module
        names.update(kept)
        for undo in swapped:
            undo()


def _swap_bound(f: types.FunctionType, pairs: dict):
    """Swap the readers among f's default arguments and closure cells; the function that undoes it."""
    defaults, kwdefaults = f.__defaults__, f.__kwdefaults__
    cells = [(c, c.cell_contents) for c in f.__closure__ or () if _filled(c) and _known(pairs, c.cell_contents)]
    if defaults and any(_known(pairs, v) for v in defaults):
        f.__defaults__ = tuple(pairs[v] if _known(pairs, v) else v for v in defaults)
    if kwdefaults and any(_known(pairs, v) for v in kwdefaults.values()):
        f.__kwdefaults__ = {k: pairs[v] if _known(pairs, v) else v for k, v in kwdefaults.items()}
    for cell, value in cells:
        cell.cell_contents = pairs[value]

    def undo():
        f.__defaults__, f.__kwdefaults__ = defaults, kwdefaults
        for cell, value in cells:
            cell.cell_contents = value

    return undo


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
        return True
    except ValueError:
        return False


def _known(pairs, value) -> bool:
    try:
        return value in pairs
    except TypeError:  # an unhashable value is none of the clock's readers
        return False


def after_changing(fn, change: dict, *args, **kwargs):
    """fn(*args, **kwargs) called a second time after its first result was changed in place as a
    caller may change it (`change`'s keys set, nested dicts merged into nested dicts): a function
    that hands out one shared dict returns the change. It acts in the process it runs in, so a
    graded test calls the kernel's copy, as with `elsewhere` (a change the test made to its own
    copy of a result would never reach the kernel)."""
    _merge(fn(*args, **kwargs), change)
    return fn(*args, **kwargs)


def _merge(target, change: dict) -> None:
    if not isinstance(target, dict):
        return
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value


def in_place(fn, *args, **kwargs) -> str:
    """Not graded: a line that says whether fn(*args, **kwargs) changed one of the lists, dicts and
    sets among its arguments in place. Only the process that holds an argument can see whether it
    changed; graded, a test has only the kernel's word for it, which a notebook can make say
    anything, so no test grades it and an ungraded cell after the tests prints this instead."""
    name = getattr(fn, "__name__", "the function")
    try:
        positional = [p.name for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        positional = []
    named = [(positional[i] if i < len(positional) else f"#{i + 1}", value) for i, value in enumerate(args)]
    watched = [(param, value, copy.deepcopy(value)) for param, value in named + list(kwargs.items())
               if isinstance(value, (list, dict, set))]
    try:
        fn(*args, **kwargs)
    except NotImplementedError:
        return tr(current(), "Write {name} first.", name=name)
    for param, value, was in watched:
        if type(value) is not type(was) or value != was:
            return tr(current(), "{name} changed its argument `{param}` in place: build a new value and leave the "
                      "caller's as it was.", name=name, param=param)
    return tr(current(), "{name} left its arguments as it found them.", name=name)
