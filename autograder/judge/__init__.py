"""The judge: a notebook's test cells run in a trusted process outside the student's sandbox.

    grader (SafeExecute) ── commands, results (pipes) ──▶ judge process (runner.py)
                                                           │  test code, asserts, the fake model
    kernel (sandbox) ◀──────── unix socket: calls, data ───┘  and everything the asserts read

The modules:

    process         the grader's handle on one judge process (start, test, result, close)
    zygote          a warm process per grading worker that forks a fresh judge per notebook
    cells           how SafeExecute grades a test cell with the judge (the kernel's one line)
    runner          the judge process itself: runs test cells, under CPU and clock budgets
    limits          the judge process's own bounds: address space, file size, CPU per test
    clocks          the clocks the judge reads, bound when it starts (a test may patch time.*)
    cpu             CPU time of a process tree, and the idle clock, read from /proc
    watch           a cell's and a notebook's limits: CPU time, the idle clock (cpu.IdleClock), the wall
    another         the notebook run again in another process (another hash seed, the clock moved)
    files           the sandboxed notebook's files, read and written by a test on request, capped
    kernel_path     KernelPath: a path in the sandbox with pathlib's file methods, each a request
    nofollow        file operations under a folder's descriptor that follow no link (for files)

`workbook.link` is the link itself and both its ends (the judge's: `judge_end`), so a learner's
kernel can run a test cell through the same two ends in its own process (`workbook.loopback`).
"""
