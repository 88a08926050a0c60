"""For tests of the judge's link (the `ends` fixture, in conftest.py: a JudgeEnd and a KernelEnd over a
socketpair, no sandbox, no process): `in_kernel`, a function of the notebook as the judge sees it."""

from workbook.link.judge_end import JudgeEnd, KernelRef
from workbook.link.kernel_side import KernelEnd


def in_kernel(judge: JudgeEnd, kernel: KernelEnd, fn) -> KernelRef:
    """`fn` as the judge sees a function of the notebook: a KernelRef."""
    ref = judge.decode(kernel.encode(fn))
    assert isinstance(ref, KernelRef)
    return ref
