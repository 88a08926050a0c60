"""The judge process's own bounds (autograder/judge/limits.py) and verdicts matched to their test.

The red team's judge ran far past every budget: its CPU was charged only while it waited for the
kernel, and a SIGALRM never interrupts SQLite's C code. Now the kernel bounds the judge itself
(address space, file size, and before each test its CPU time), so a runaway judge dies and its
test fails with a clear message; and a verdict is taken only for the test it names."""

from __future__ import annotations

import queue
import resource
import threading

from autograder.judge import limits
from autograder.judge.process import DIED, JudgeProcess
from workbook.link import kernel_side

ENDLESS_SQL = ("import sqlite3\n"  # C code that no Python signal handler interrupts
               "sqlite3.connect(':memory:').execute('WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL "
               "SELECT x + 1 FROM n) SELECT COUNT(*) FROM n').fetchall()\n")


def _run(judge: JudgeProcess, folder, name: str, source: str, cpu: float = 20) -> dict:
    sock = str(folder / f"{name}.sock")
    judge.start(sock, None, None, cpu=cpu, wall=600)
    judge.test(name, source, hidden=False, token=name)
    kernel = threading.Thread(target=kernel_side.serve, args=(sock, name), daemon=True)
    kernel.start()
    kernel.join(600)
    judge.cell_done()
    return judge.result(900)  # a backstop for a broken judge, never the verdict's clock


def test_a_judge_that_asks_for_too_much_memory_fails_its_test_and_lives(tmp_path):
    judge = JudgeProcess()
    try:
        big = _run(judge, tmp_path, "big", f"x = bytearray({limits.MEMORY + (1 << 30)})\n")
        after = _run(judge, tmp_path, "after", "assert 1 + 1 == 2\n")
    finally:
        judge.close()
    assert not big["passed"] and big["ename"] == "JudgeMemoryError" and "MB" in big["evalue"], big
    assert after["passed"], after


def test_a_judge_stuck_in_c_code_is_ended_by_its_cpu_limit(tmp_path):
    judge = JudgeProcess()
    try:
        try:
            got = _run(judge, tmp_path, "spin", ENDLESS_SQL, cpu=1)
        except RuntimeError as e:
            got = {"error": str(e)}
    finally:
        judge.close()
    assert got == {"error": DIED}, got


class _Fake:
    def __init__(self):
        self.killed = False

    def kill(self):
        self.killed = True


def _judge_with(*replies) -> JudgeProcess:
    judge = JudgeProcess.__new__(JudgeProcess)
    judge.results, judge.dead, judge.pending, judge.proc = queue.Queue(), False, None, _Fake()
    judge._send = lambda msg: None
    for reply in replies:
        judge.results.put(reply)
    return judge


def test_a_late_verdict_is_never_the_next_tests():
    judge = _judge_with({"op": "result", "grade_id": "first", "passed": True},
                        {"op": "result", "grade_id": "second", "passed": False})
    judge.test("second", "pass", hidden=True, token="t")
    assert judge.result(5) == {"op": "result", "grade_id": "second", "passed": False}


def test_a_judge_that_does_not_answer_is_ended():
    judge = _judge_with()
    judge.test("only", "pass", hidden=True, token="t")
    try:
        judge.result(0.01)
    except RuntimeError as e:
        assert "did not answer" in str(e)
    else:
        raise AssertionError("a silent judge gave a verdict")
    assert judge.proc.killed and judge.dead


def test_the_cpu_limit_is_relative_to_what_the_process_used():
    soft = limits.limit_cpu(1000.0)
    try:
        assert limits.used_cpu() + 1000 <= soft <= limits.used_cpu() + 1000 + limits.GRACE + 1
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.getrlimit(resource.RLIMIT_CPU)[1]))
