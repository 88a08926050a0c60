"""The red team's attacks on the judge's boundary (issue 44) earn nothing (tests/attacks.py has
each notebook and what it did before the fix).

- ch08: the chapter's mutant `idempotency_key-hashlib-of-hash` plus one line that rebinds
  `elsewhere` to a pass-through scored 3/3 (0/3 alone): the test read `elsewhere` from the kernel.
  A test now names given code only by path (`workbook.notebook_side`).
- ch18: the released stub plus a cell that rebinds `exchange` to canned JSON-RPC replies scored
  1/4 with no server at all. The solution with `exchange` rebound to a liar keeps full marks.
- ch20: a `check` that says True and blanks the task's wrong answers (`object.__setattr__` on the
  frozen task) scored 1/3 (0/3 alone): changes in place were written back into the judge's record.
- ch21: a `trim_memory` that returns [] and empties the memory it was handed scored the hidden
  test's 2/2: the test compared with that same list afterwards. The tests now keep a copy.
- ch02: a `@tool` that raises with the docstring and signature of the function a hidden test
  registers put that hidden text in the feedback. A hidden test's message now has every text the
  notebook sent taken out (workbook/link/heard.py).
- ch08 (second pass): a key of the date read through `_datetime` (the C module) scored 3/3 in
  another process whose clock only `datetime` moved; answers that returned what hidden tests handed
  them, cut into 11-character strings, put hidden inputs and helper names in the feedback through
  "got {x!r}"; a hidden test's message, and every test's after one, now has its values masked.
- ch10: a `request_options` of shared dicts that replaced the kernel's `after_changing` scored 3/3.
  A dict handed out twice is seen only in the process that holds it (the student's), so the
  chapter no longer grades it: an ungraded cell checks it in the notebook.
- ch25: the mutants `run_code-kills-child-only` and `run_code-timeout-leaves-child` behind a
  `run_code` that rewrote its result ("alive" -> "gone", exit code -9) scored 13/13: the tests asked
  the notebook's own run_code whether a process was still running. The judge now reads the
  kernel's processes from /proc (`workbook.notebook_side.watch_processes`).
Graded with the gates (the fast runner, the grader's judge), so they cost a fork each. `make test`
grades each chapter's first (`tests/gates.py` `attack_names`), `make test-mutants` the others.
"""

from __future__ import annotations

import pytest

from tests import attacks, gates

SUBS = [s for _, s in gates.plan() if s.kind == "attack" and attacks.ATTACKS[s.name].regression]
HIDDEN_DOC = "Changes state: needs the customer's confirmation"


def _case(sub):
    attack = attacks.ATTACKS[sub.name]
    marks = [pytest.mark.xfail(strict=True, reason=f"open (issue 44): {attack.open}")] if attack.open else []
    return pytest.param(sub, id=sub.student, marks=marks)


@pytest.mark.parametrize("sub", [_case(s) for s in SUBS])
def test_an_attack_on_the_boundary_earns_nothing(graded, sub):
    attack, record = attacks.ATTACKS[sub.name], graded["records"][sub.student]
    assert record["status"] == "ok", f"{sub.student} was not graded: {record['status']} {record['events']}"
    got = record["exercises"][attack.exercise]
    want = 0 if attack.expect == "zero" else got["max"]
    assert got["score"] == want, (
        f"{sub.student}: {attack.exercise} scored {got['score']}/{got['max']}, should be {want}: {record['tests']}")
    leaked = {t: v["error"] for t, v in record["tests"].items()
              if ("hidden" in t and HIDDEN_DOC in str(v.get("error"))) or any(m in str(v.get("error")) for m in attack.secrets)}
    assert not leaked, f"{sub.student}: a test's message carried hidden test text the notebook sent back: {leaked}"
