"""The judge's scratch folder is copied around the test's own calls into the kernel only.

A fresh-clone CI run graded chapter 18's solution 0 on a hidden test: the kernel's hello (sent on
the link as each test starts) was served on a thread of its own, and its copy of the scratch
folder raced the test writing its files, so the kernel never found one of them."""

from __future__ import annotations

import os

from autograder.judge.scratch import DEPTH_CAP, Mirror
from autograder.sandbox.sandbox import remove_tree
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


def test_copying_out_never_writes_or_removes_through_the_judges_own_links(tmp_path):
    """The judge's folder holds a test's link out of it (`out` -> elsewhere). A kernel that makes
    `out` a real folder with a file in it must not have that file written through the link, as the
    grader (red team, issue 24); the judge's side gets a real folder instead, and a removal the
    kernel makes is not carried through a link either."""
    judge_side, sandbox_root, elsewhere = tmp_path / "judge", tmp_path / "sandbox", tmp_path / "elsewhere"
    for folder in (judge_side, sandbox_root, elsewhere):
        folder.mkdir()
    (elsewhere / "keep.md").write_text("outside")
    (judge_side / "out").symlink_to(elsewhere)
    mirror = Mirror(str(judge_side), str(sandbox_root))
    mirror.to_kernel()
    kernel_side = sandbox_root / str(judge_side).lstrip("/")
    assert (kernel_side / "out").is_symlink(), "the test's link is copied in"
    (kernel_side / "out").unlink()
    (kernel_side / "out").mkdir()
    (kernel_side / "out" / "pwn.md").write_text("written by the kernel")
    mirror.from_kernel()
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.md"], "written through the judge's link"
    assert not (judge_side / "out").is_symlink() and (judge_side / "out" / "pwn.md").read_text() == "written by the kernel"
    (judge_side / "out" / "pwn.md").unlink()
    (judge_side / "out").rmdir()
    (judge_side / "out").symlink_to(elsewhere)  # the link again, and the kernel removes its own out/keep.md
    mirror.kernel_state = {"out": ("d",), "out/keep.md": ("f", 7, 0)}
    mirror.from_kernel()
    assert (elsewhere / "keep.md").read_text() == "outside", "removed through the judge's link"


def _mirror(tmp_path):
    judge_side, sandbox_root = tmp_path / "judge", tmp_path / "sandbox"
    judge_side.mkdir()
    sandbox_root.mkdir()
    mirror = Mirror(str(judge_side), str(sandbox_root))
    return mirror, judge_side, sandbox_root / str(judge_side).lstrip("/")


def test_a_file_with_a_second_link_comes_out_like_any_file(tmp_path):
    """Red team 14: ch09's `save_checkpoint` hid its leftover temporary file from the test by giving
    it a second name elsewhere in the sandbox's /tmp (the walk skipped a file of two links)."""
    mirror, judge_side, kernel_side = _mirror(tmp_path)
    (kernel_side / ".run.json.tmp").write_text("half")
    os.link(kernel_side / ".run.json.tmp", kernel_side.parent / "keep")
    mirror.from_kernel()
    assert (judge_side / ".run.json.tmp").read_text() == "half"


def test_folders_come_out_at_most_depth_cap_levels_deep(tmp_path):
    """Red team 14: a chain of 975 folders came out whole, and the grader's clean-up then raised
    RecursionError, which left the judge's folder, the sandbox and its cgroups behind."""
    mirror, judge_side, kernel_side = _mirror(tmp_path)
    deep = kernel_side
    for _ in range(DEPTH_CAP + 20):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "f").write_text("x")
    mirror.from_kernel()
    levels = max(len(p.relative_to(judge_side).parts) for p in judge_side.rglob("*"))
    assert levels == DEPTH_CAP, f"{levels} levels came out"


def test_remove_tree_removes_a_tree_too_deep_for_shutil(tmp_path):
    top = tmp_path / "top"
    fd = os.open(tmp_path, os.O_RDONLY)
    try:  # 1,500 levels, made one descriptor at a time (a path that long is past PATH_MAX)
        os.mkdir("top", dir_fd=fd)
        cur = os.open("top", os.O_RDONLY, dir_fd=fd)
        for _ in range(1_500):
            os.mkdir("d", dir_fd=cur)
            nxt = os.open("d", os.O_RDONLY, dir_fd=cur)
            os.close(cur)
            cur = nxt
        os.close(cur)
    finally:
        os.close(fd)
    remove_tree(top)
    assert not top.exists()
