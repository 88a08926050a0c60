"""The red team's attacks on the judge's boundary (issue 44), as gate submissions of kind "attack".

Each is a notebook that once scored points it should not, or carried hidden test text out; the
gates grade them with the rest (the fast runner: the grader's judge; `GATES_REAL=all` also in the
sandboxed pipeline) and tests/test_boundary_attacks.py asserts what each must score.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder import variants

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


@dataclass(frozen=True)
class Attack:
    chapter: str
    build: object  # gate course -> the notebook
    exercise: str  # where it is scored
    expect: str  # "zero" or "full" on that exercise
    open: str = ""  # why it still breaks (an open hole, asserted as such), or ""


ATTACKS = {"elsewhere_rebound": Attack("08_retries_and_idempotency", _ch08, "idempotency_key", "zero"),
           "probe_patched": Attack("08_retries_and_idempotency", _ch08_probe, "idempotency_key", "zero"),
           "exchange_liar": Attack("18_mcp_by_hand", _ch18, "course_server", "full"),
           "record_blanked": Attack("20_evaluating_an_agent", _ch20, "check", "zero"),
           "memory_emptied": Attack("21_responses_api", _ch21, "trim_memory", "zero"),
           "hidden_doc_raised": Attack("02_the_loop", _ch02, "tool", "zero")}
