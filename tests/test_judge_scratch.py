"""The judge's scratch folder is copied around the test's own calls into the kernel only.

A fresh-clone CI run graded chapter 18's solution 0 on a hidden test: the kernel's hello (sent on
the link as each test starts) was served on a thread of its own, and its copy of the scratch
folder raced the test writing its files, so the kernel never found one of them."""

from __future__ import annotations

from tests.judge_ends import in_kernel


class Recorder:
    """Stands for the Mirror: records each copy."""

    def __init__(self):
        self.copies: list[str] = []

    def to_kernel(self):
        self.copies.append("in")

    def from_kernel(self):
        self.copies.append("out")


def test_the_kernels_hello_copies_nothing(ends):
    judge, kernel = ends
    judge.mirror = mirror = Recorder()
    judge.token = "t0"
    judge.greeted.clear()  # a new test's connection
    assert kernel.channel.request({"op": "hello", "token": "t0"}).get("ok", "refused") is None
    assert mirror.copies == [], "the kernel's hello came while the test may be writing files"


def test_a_call_and_a_call_back_inside_it_copy_around_each(ends):
    judge, kernel = ends
    judge.mirror = mirror = Recorder()
    call_back = in_kernel(judge, kernel, lambda f: f(2) or 6)
    seen: list = []
    assert call_back(seen.append) == 6 and seen == [2]
    assert mirror.copies == ["in", "out", "in", "out"], (
        "the test's call copies in and out; the kernel's call back, while the test waits, copies "
        "out (what the kernel wrote) and in (what the judge's function wrote)")
