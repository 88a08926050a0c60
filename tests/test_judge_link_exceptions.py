"""Exceptions the notebook raises, as the judge's asserts see them (workbook/link/errors.py,
exc_classes.py): a built-in or listed standard-library class arrives as that class with its
arguments, a workbook class as the test's own `fresh()` copy, an SDK error with its status and
JSON body; any other name, whatever it claims, becomes in the judge the stand-in of its built-in
base with the name as data (in a kernel, a class of its name). The two ends run in this process
over a socket pair, as the judge and a kernel do."""

from __future__ import annotations

import json
import sqlite3
import subprocess

import httpx2
import openai
import pytest

from autograder.judge.runner import Stop
from tests.judge_ends import in_kernel
from workbook.checks import fresh
from workbook.engine.function_face import TooManyCalls
from workbook.link import exc_classes
from workbook.link.names import Namespace
from workbook.scenarios import Crash

REQUEST = httpx2.Request("POST", "http://fake-llm.invalid/v1/chat/completions")


def raiser(error):
    def student(*_):
        raise error

    return student


def caught(judge, kernel, error) -> BaseException:
    """What the judge catches when the notebook's function raises `error`."""
    with pytest.raises(BaseException) as info:
        in_kernel(judge, kernel, raiser(error))()
    return info.value


@pytest.mark.parametrize("error", [
    ValueError("bad month"), KeyError("order_id"), TimeoutError("slow"), PermissionError("no"),
    FileNotFoundError(2, "No such file or directory"), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid"),
    sqlite3.OperationalError("no such table: facts"), subprocess.CalledProcessError(2, ["ls", "x"]),
    subprocess.TimeoutExpired(["sleep", "9"], 1.5)])
def test_a_standard_exception_arrives_as_its_class_with_its_arguments(ends, error):
    got = caught(*ends, error)
    assert type(got) is type(error)
    assert got.args == error.args and str(got) == str(error)


def test_a_json_error_keeps_where_it_failed(ends):
    try:
        json.loads('{"order_id": ')
    except json.JSONDecodeError as e:
        error = e
    got = caught(*ends, error)
    assert type(got) is json.JSONDecodeError and str(got) == str(error)
    assert (got.msg, got.doc, got.pos, got.lineno, got.colno) == (error.msg, error.doc, error.pos, 1, 14)


def test_except_clauses_and_raises_work_in_the_judge(ends):
    judge, kernel = ends
    with pytest.raises(KeyError) as info:
        in_kernel(judge, kernel, lambda d: d["missing"])({})
    assert info.value.args == ("missing",)
    with pytest.raises(json.JSONDecodeError):
        in_kernel(judge, kernel, lambda text: json.loads(text))("not json")


def test_an_os_error_keeps_its_file_name(ends):
    got = caught(*ends, FileNotFoundError(2, "No such file or directory", "memory.sqlite3"))
    assert type(got) is FileNotFoundError and got.filename == "memory.sqlite3" and got.errno == 2


def test_a_workbook_exception_is_the_tests_fresh_copy(ends):
    judge, kernel = ends
    ns = Namespace(judge)
    wb = ns["wb"] = fresh()
    copy = wb.scenarios.Crash
    assert copy is not Crash, "the test's copy is its own class"
    with pytest.raises(copy) as info:
        in_kernel(judge, kernel, raiser(Crash("died at step 3")))()
    assert type(info.value) is copy and info.value.args == ("died at step 3",)
    calls = wb.engine.function_face.TooManyCalls
    with pytest.raises(calls):
        in_kernel(judge, kernel, raiser(TooManyCalls(5)))()
    crash_class = judge.decode(kernel.encode(Crash))  # the notebook's name for the class: the same copy
    assert crash_class is copy


def test_without_a_fresh_copy_a_workbook_exception_is_the_judges_own(ends):
    got = caught(*ends, Crash("x"))
    assert type(got) is Crash


def test_an_sdk_error_keeps_its_status_and_body(ends):
    body = {"error": {"message": "max_tokens is too large", "type": "invalid_request_error",
                      "param": "max_tokens", "code": None}}
    error = openai.BadRequestError("max_tokens is too large", response=httpx2.Response(400, request=REQUEST),
                                   body=body)
    got = caught(*ends, error)
    assert type(got) is openai.BadRequestError and got.status_code == 400 and got.body == body


def test_an_sdk_error_body_is_json_data_only_and_bounded(ends):
    judge, kernel = ends

    class Secret:
        pass

    for body in ({"error": Secret()}, {"error": "x" * 100_000}, {1: "not a text key"}):
        error = openai.InternalServerError("boom", response=httpx2.Response(500, request=REQUEST), body=body)
        got = caught(judge, kernel, error)
        assert type(got) is openai.InternalServerError and got.status_code == 500 and got.body is None
    forged = {"$e": "openai:InternalServerError", "msg": "boom", "status": 500, "headers": [],
              "body": {"$h": 7, "side": "k", "kind": "object"}, "mro": ["InternalServerError"]}
    assert judge.decode(forged).body is None, "a handle in a body is not data"


@pytest.mark.parametrize("path", [
    "autograder.judge.runner:Stop",  # the judge's own stop
    "workbook.link.kernel_objects:KernelError",  # the judge's word for a kernel that broke the rules
    "workbook.link.channel:LinkClosed",  # the judge's word for a kernel that went away
    "workbook.link.channel:threading.BrokenBarrierError",  # an attribute chain out of a workbook module
    "workbook.checks:_Failure", "workbook.scenarios.errands:Crash.__base__",
    "openai._exceptions:APIStatusError", "_pytest.outcomes:Skipped", "unittest.case:SkipTest",
    "builtins:SystemExit", "builtins:KeyboardInterrupt", "builtins:GeneratorExit", "builtins:ExceptionGroup",
])
def test_a_name_the_kernel_chooses_never_picks_another_judge_class(ends, path):
    judge, _ = ends
    module, _, name = path.partition(":")
    got = judge.decode({"$e": path, "msg": "m", "mro": [name.split(".")[-1], "Exception", "BaseException"]})
    assert type(got).__module__ == "notebook" and type(got).__bases__ == (Exception,), type(got).__mro__
    assert got.notebook_class == name.split(".")[-1], "the kernel's name stays data on the error"
    assert not isinstance(got, Stop | SystemExit | KeyboardInterrupt | GeneratorExit | BaseExceptionGroup)


def test_a_kernels_stand_in_is_one_class_of_its_name():
    """In a kernel, a class of the judge's own code (a test's `class Boom(Exception)`) keeps its name."""
    one = exc_classes.find_exception("__main__:MCPError", ["MCPError", "RuntimeError", "Exception"])
    assert one is exc_classes.find_exception("__main__:MCPError", ["MCPError", "RuntimeError", "Exception"])
    assert one.__name__ == "MCPError" and one.__bases__ == (RuntimeError,)


def test_arguments_that_are_not_data_fall_back_to_the_message(ends):
    judge, kernel = ends

    class Thing:
        def __repr__(self):
            return "<thing>"

    got = caught(judge, kernel, ValueError(Thing()))
    assert type(got) is ValueError and got.args == ("<thing>",)
    forged = {"$e": "builtins:ValueError", "msg": "m", "args": {"$t": [{"$h": 3, "side": "k"}]}}
    assert judge.decode(forged).args == ("m",), "a handle never becomes an exception's argument"
