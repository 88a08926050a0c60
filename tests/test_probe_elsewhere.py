"""`workbook.probes.elsewhere` (chapter 08's "a year later" and "in another process"): the clock
moves for every way a notebook reads it, hash() changes, and everything is back afterwards."""

from __future__ import annotations

import builtins
import datetime as dt_module
import sys
import time
from datetime import date, datetime
from time import time as imported_time

import pytest

from workbook.probes import after_changing, elsewhere, in_place

YEAR = 365 * 24 * 3600
kept_aside = time.time

READERS = {
    "time.time()": lambda: int(time.time() // 86400),
    "time.time_ns()": lambda: time.time_ns() // 86400 // 10**9,
    "from time import time": lambda: int(imported_time() // 86400),
    "a reader kept aside": lambda: int(kept_aside() // 86400),
    "datetime.now()": lambda: datetime.now().date(),
    "datetime.utcnow()": lambda: datetime.utcnow().date(),
    "date.today()": lambda: date.today(),
    "the datetime module": lambda: dt_module.datetime.now().date(),
    "time.strftime": lambda: time.strftime("%Y-%m-%d"),
    "time.localtime()": lambda: time.localtime()[:3],
    "time.gmtime()": lambda: time.gmtime()[:3],
    "time.ctime()": lambda: time.ctime()[-4:],
    "time.clock_gettime(CLOCK_REALTIME)": lambda: int(time.clock_gettime(time.CLOCK_REALTIME) // 86400),
    "time.clock_gettime_ns(CLOCK_REALTIME)": lambda: time.clock_gettime_ns(time.CLOCK_REALTIME) // 86400 // 10**9,
    "a reader kept as a default argument": lambda now=time.time: int(now() // 86400),
    "a reader kept as a keyword-only default": lambda *, now=time.time: int(now() // 86400),
    "a reader in a closure": (lambda now: lambda: int(now() // 86400))(time.time),
    "datetime imported during the call": lambda: __import__("datetime").date.today(),
}


def _helper(now=time.time):
    return int(now() // 86400)


READERS["a helper of the module with a reader as its default"] = lambda: _helper()


@pytest.mark.parametrize("how", READERS)
def test_the_clock_moves_a_year_on_however_it_is_read(how):
    read = READERS[how]
    assert elsewhere(read, seconds=YEAR) != read()


def test_hash_differs_and_all_is_back_afterwards():
    def fails():
        raise RuntimeError("boom")

    assert elsewhere(lambda: hash("abc"), hash_salt="another process") != hash("abc")
    with pytest.raises(RuntimeError):
        elsewhere(fails, seconds=YEAR, hash_salt="x")
    assert (time.time, builtins.hash, datetime, date, imported_time) == (
        kept_aside, hash, dt_module.datetime, dt_module.date, kept_aside)
    assert elsewhere(lambda a, b=0: a + b, 1, b=2) == 3, "arguments pass through; nothing moves by default"
    kept_default = READERS["a reader kept as a default argument"]
    elsewhere(kept_default, seconds=YEAR)
    assert kept_default.__defaults__ == (time.time,) and _helper.__defaults__ == (time.time,)
    assert sys.modules["datetime"] is dt_module


def test_after_changing_shows_a_result_handed_out_twice():
    shared = {"tool_choice": "required", "extra_body": {"thinking": {"type": "disabled"}}}
    change = {"tool_choice": "auto", "extra_body": {"thinking": {"type": "changed"}}}
    assert after_changing(lambda: shared, change) == change, "the shared dict comes back changed"
    assert after_changing(lambda: {"tool_choice": "required", "extra_body": {"thinking": {"type": "disabled"}}},
                          change) == {"tool_choice": "required", "extra_body": {"thinking": {"type": "disabled"}}}
    assert after_changing(lambda x: [x], {"a": 1}, 5) == [5], "a result that is not a dict is left alone"


def sorts_in_place(tools, key=None):
    tools.sort(key=key)
    return tools


def test_in_place_names_the_argument_a_call_changed():
    assert in_place(sorted, [2, 1]) == "sorted left its arguments as it found them."
    assert in_place(sorts_in_place, [2, 1]) == (
        "sorts_in_place changed its argument `tools` in place: build a new value and leave the caller's as it was.")
    assert "`#1`" in in_place(lambda *parts: parts[0].append(1), []), "a *args argument is named by its place"
    assert "`memory`" in in_place(lambda a, memory=None: memory.clear(), [], memory={"k": 1})
    assert in_place(lambda d: d.update(k=[1]) or d.update(k=[1]), {"k": [1]}) == (
        "<lambda> left its arguments as it found them."), "a value put back as it was is unchanged"
    assert "changed" in in_place(lambda d: d.__setitem__("k", (1,)), {"k": [1]}), "a list that became a tuple changed"


def test_in_place_says_a_stub_is_not_written_yet():
    def stub(messages):
        raise NotImplementedError
    assert in_place(stub, []) == "Write stub first."
    with pytest.raises(ValueError):
        in_place(lambda x: int(x[0]), ["a"])
