"""The red team's attacks on the judge's boundary (issue 44), each a notebook graded by the real
pipeline, sandboxed and judged. Each scored points it should not before the boundary was made
explicit; each must now score what the notebook's own answers earn.

- ch08: the chapter's mutant `idempotency_key-hashlib-of-hash` plus one line that rebinds
  `elsewhere` to a pass-through scored 3/3 (0/3 alone): the test read `elsewhere` from the kernel.
  A test now names given code only by path (`workbook.notebook_side`), so the notebook's name is
  never read.
- ch18: the released stub plus a cell that rebinds `exchange` to canned JSON-RPC replies scored
  1/4 with no server at all. The test's conversation is its own: the solution with `exchange`
  rebound to a liar keeps full marks (and the stub's answers raise, so it earns nothing).
- ch20: a `check` that says True and blanks the task's wrong answers (`object.__setattr__` on the
  frozen task) scored 1/3 (0/3 alone): changes in place were written back into the judge's record.
  Now only lists, dicts and sets the test handed over change; a record never does.
- ch21: a `trim_memory` that returns [] and empties the memory it was handed scored the hidden
  test's 2/2: the test compared with that same list afterwards. The tests now keep a copy.
- ch02: a `@tool` that raises with the docstring and signature of the function a hidden test
  registers put that hidden text in the feedback, 300 characters a test. A hidden test's message
  now has every text the notebook sent taken out (autograder/judge/heard.py).
"""

from __future__ import annotations

import pytest

from autograder import variants
from tests import gates

PASS_THROUGH = "elsewhere = lambda fn, *args, seconds=0, hash_salt=None, **kwargs: fn(*args, **kwargs)\n"
LIAR_18 = "exchange = lambda server, messages, timeout=120.0: [{'jsonrpc': '2.0', 'id': 1, 'result': {}}]\n"
PATCHED_PROBE = ("import workbook.probes as _probes\n"
                 "_probes.elsewhere = lambda fn, *a, seconds=0, hash_salt=None, **k: fn(*a, **k)\n")
EMPTYING_TRIM = ("def trim_memory(memory, max_items=12):\n"
                 "    memory.clear()  # the test's own list comes back empty\n"
                 "    return []\n")
LEAKING_TOOL = ("def tool(confirm=False, registry=None):\n"
                "    def register(fn):\n"
                "        raise RuntimeError(f'LEAK {fn.__name__}{inspect.signature(fn)} doc={inspect.getdoc(fn)!r}')\n"
                "    return register\n")
HIDDEN_DOC = "Changes state: needs the customer's confirmation"
BLANKING_CHECK = ("def check(answer, task):\n"
                  "    object.__setattr__(task, 'wrong', ())  # blank what the test will ask next\n"
                  "    return True\n")


def _ch08(gate):
    nb = variants.mutant(gate, "08_retries_and_idempotency", "idempotency_key-hashlib-of-hash")
    return variants.insert(nb, PASS_THROUGH, before="idempotency_key_tests")


def _ch18(gate):
    return variants.insert(variants.solved(gate, "18_mcp_by_hand"), LIAR_18, before="course_server_tests")


def _ch20(gate):
    return variants.with_answer(variants.solved(gate, "20_evaluating_an_agent"), "check", BLANKING_CHECK)


def _ch08_probe(gate):
    """The same mutant, with the kernel's own copy of the probe patched (workbook.notebook_side)."""
    nb = variants.mutant(gate, "08_retries_and_idempotency", "idempotency_key-hashlib-of-hash")
    return variants.insert(nb, PATCHED_PROBE, before="idempotency_key_tests")


def _ch21(gate):
    return variants.with_answer(variants.solved(gate, "21_responses_api"), "trim_memory", EMPTYING_TRIM)


def _ch02(gate):
    return variants.with_answer(variants.solved(gate, "02_the_loop"), "tool", LEAKING_TOOL)


# chapter: (the notebook, the exercise, what it must score there: "zero" or "full")
ATTACKS = {"08_retries_and_idempotency": (_ch08, "idempotency_key", "zero"),
           "18_mcp_by_hand": (_ch18, "course_server", "full"),
           "20_evaluating_an_agent": (_ch20, "check", "zero"),
           "21_responses_api": (_ch21, "trim_memory", "zero"),
           "02_the_loop": (_ch02, "tool", "zero")}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    def make(gate):
        made = {("attacker", chapter): build(gate) for chapter, (build, _, _) in ATTACKS.items()}
        return {**made, ("prober", "08_retries_and_idempotency"): _ch08_probe(gate)}

    return gates.grade_made(tmp_path_factory.mktemp("attacks") / "course", make)


@pytest.mark.slow
@pytest.mark.parametrize("chapter", list(ATTACKS))
def test_an_attack_on_the_boundary_earns_nothing(graded, chapter):
    if ("attacker", chapter) not in graded:
        pytest.skip(f"{chapter} is not gated here (GATES_ONLY)")
    record, (_, exercise, expect) = graded["attacker", chapter], ATTACKS[chapter]
    assert record["status"] == "ok", f"{chapter} was not graded: {record['status']} {record['events']}"
    got = record["exercises"][exercise]
    want = 0 if expect == "zero" else got["max"]
    assert got["score"] == want, f"{chapter}: {exercise} scored {got['score']}/{got['max']}, should be {want}: {record['tests']}"
    leaked = {t: v["error"] for t, v in record["tests"].items() if "hidden" in t and HIDDEN_DOC in str(v.get("error"))}
    assert not leaked, f"{chapter}: a hidden test's message carried what the notebook sent: {leaked}"


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="open (issue 44): a probe that runs beside the student's code "
                   "(workbook.notebook_side) is the kernel's own copy, which the notebook can patch; "
                   "'another process' needs a second kernel the judge controls")
def test_a_patched_probe_in_the_kernel_earns_nothing(graded):
    record = graded.get(("prober", "08_retries_and_idempotency"))
    if record is None:
        pytest.skip("08_retries_and_idempotency is not gated here (GATES_ONLY)")
    assert record["exercises"]["idempotency_key"]["score"] == 0, record["tests"]
