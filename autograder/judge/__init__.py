"""The judge: a notebook's test cells run in a trusted process outside the student's sandbox.

    grader (SafeExecute) ── commands, results (pipes) ──▶ judge process (runner.py)
                                                           │  test code, asserts, the fake model
    kernel (sandbox) ◀──────── unix socket: calls, data ───┘  and everything the asserts read

`process.JudgeProcess` is the grader's handle on one judge; `remote` is the judge's end of the
link; `workbook.link` is the link itself and the kernel's end.
"""
