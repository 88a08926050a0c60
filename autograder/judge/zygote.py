"""A warm parent for judges: `python -P -m autograder.judge.zygote` imports what every judge needs
(the runner, the fake's engine, openai and anthropic: about 4.5 s of CPU), READY private copies of
the workbook for the tests' `fresh()` and the SDKs' first use (`warm`) once per grading worker, then
forks one judge per notebook.

Trust: the zygote is the grader's own code and never sees a submission; it reads only fork
requests from the worker that started it, over a socket pair nothing else holds. Each judge is a
fresh fork of that clean state (the same as a new process for everything the judge keeps: its
handle ids come from `secrets`, and tempfile reseeds by pid), so one notebook's judge can never
see another's. A judge that the zygote cannot make is made the old way (`process.spawn_plain`).

Protocol: the worker sends one byte with two file descriptors (the judge's stdin and stdout); the
zygote answers the new judge's pid as 8 bytes. End of file on the socket ends the zygote (its
worker is gone); judges it forked live on until their own stdin closes. A `b` with one socket
instead branches a zygote: a fork of this one that serves the same protocol on that socket, for
a process of its own (the gates' fast runner gives each chapter process one: tests/fast_runner.py).
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import sys

import autograder.judge.runner as runner
from autograder.judge.process import PID
from workbook import fresh

READY = 24  # fresh() copies of the workbook made here once, for each judge to use (a notebook's tests)


def _child(fds: list[int], control: socket.socket) -> None:
    control.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    stdin, stdout = fds
    os.dup2(stdin, 0)
    os.dup2(stdout, 1)
    for fd in (stdin, stdout):
        if fd > 2:
            os.close(fd)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115  (the judge reads it to its end)
    try:
        runner.main()
    finally:
        os._exit(1)


def _branch(fd: int, control: socket.socket) -> int:
    """A zygote forked from this one, serving the socket `fd`: its pid."""
    pid = os.fork()
    if pid == 0:
        control.close()
        try:
            serve(socket.socket(fileno=fd))
        finally:
            os._exit(0)
    os.close(fd)
    return pid


def serve(control: socket.socket) -> None:
    """Fork a judge for every request until the worker hangs up."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps judges: no zombies
    gc.freeze()  # what every judge inherits is never walked (nor copied) by a judge's collections
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(control, 1, 2)
        except OSError:
            return
        if not data:
            return
        if data == b"b" and len(fds) == 1:
            control.sendall(PID.pack(_branch(fds[0], control)))
            continue
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            control.sendall(PID.pack(-1))
            continue
        pid = os.fork()
        if pid == 0:
            _child(fds, control)
        for fd in fds:
            os.close(fd)
        control.sendall(PID.pack(pid))


def prepare(count: int, modules: tuple[str, ...] = ("fake_llm", "scenarios", "checks")) -> None:
    """Make `count` copies of the workbook for the tests' `fresh()`, each with `modules` loaded
    (~30 ms of CPU each, paid once here rather than in every test cell); every fork gets its own."""
    for _ in range(count):
        copy = fresh.Fresh(fresh.PACKAGE_DIR)
        for name in modules:
            getattr(copy, name)
        fresh._ready.append(copy)


def warm() -> None:
    """Use the SDKs once, as tests do (Chat Completions, Responses and Messages, streamed and not),
    through a throwaway copy of the workbook: the resources they import on first use, their type
    adapters and deferred model schemas are then made here once, not in every judge (~1.5 s of CPU
    each). Nothing of the copy is kept; a failure here only leaves the judges to do it themselves."""
    try:
        wb = fresh.Fresh(fresh.PACKAGE_DIR)
        scenario = wb.scenarios.taxi_spending()
        question, tools = [{"role": "user", "content": "hi"}], scenario.openai_tools()
        for stream in (False, True):
            def llm():
                return wb.fake_llm.FakeLLM(wb.scenarios.taxi_spending())

            chat = llm().client().chat.completions.create(model="fake-model", messages=question, tools=tools,
                                                          stream=stream)
            answer = llm().client().responses.create(model="fake-model", input=question, stream=stream)
            claude = llm().anthropic_client().messages.create(model="fake-model", max_tokens=100, messages=question,
                                                              stream=stream)
            for reply in (chat, answer, claude):
                for item in (list(reply) if stream else [reply]):
                    item.model_dump()
    except Exception:  # noqa: BLE001 - a warm-up, never a reason for a judge not to start
        pass


def main() -> None:
    prepare(READY)
    warm()
    serve(socket.socket(fileno=int(sys.argv[1])))  # stdin, stdout and stderr are /dev/null
    os._exit(0)


if __name__ == "__main__":
    main()
