"""The red team's attacks on the judge's boundary (issue 44), as gate submissions of kind "attack".

Each is a notebook that once scored points it should not, or carried hidden test text out; the
gates grade them with the rest (the fast runner: the grader's judge; `GATES_REAL=all` also in the
sandboxed pipeline) and tests/test_boundary_attacks.py asserts what each must score.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.course import Course
from autograder.gates import variants
from tests import rebind_cases, rebound

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
CLOCK_C_KEY = ("def idempotency_key(call_id, order_id, amount):\n"
               "    import hashlib, json, _datetime  # the C module: its now() reads the clock itself\n"
               "    day = _datetime.datetime.now().strftime('%Y-%m-%d')\n"
               "    return 'refund-' + hashlib.sha256(json.dumps([call_id, order_id, amount, day]).encode()).hexdigest()\n")
EXFIL_RETRIES = 'import inspect as _inspect, json as _json\ndef _chunks(s, n=11):\n    return [s[i:i + n] for i in range(0, len(s), n)]\n\ndef create_with_retries(client, *, attempts=4, sleep=None, retryable=None, delay=None, **request):\n    info = []\n    for nm, f in (("retryable", retryable), ("delay", delay), ("sleep", sleep)):\n        try:\n            sig = str(_inspect.signature(f))\n        except Exception as e:\n            sig = "?"\n        info.append(f"{nm}={getattr(f, \'__qualname__\', \'?\')}/{getattr(f, \'__name__\', \'?\')} doc={getattr(f, \'__doc__\', None)!r} sig={sig}")\n    info.append("req=" + _json.dumps({k: v for k, v in request.items() if k != "tools"})[:400])\n    info.append("tools=" + _json.dumps(request.get("tools"))[:300])\n    return _chunks(" ;; ".join(info))\n'
EXFIL_KEY = 'import hashlib as _hashlib, json as _json\n_SEEN = []\ndef _short(v):\n    return v if not isinstance(v, str) or len(v) < 40 else f"{v[:10]}...({len(v)})...{v[-6:]}"\n\ndef idempotency_key(call_id, order_id, amount):\n    _SEEN.append([_short(call_id), _short(order_id), amount])\n    if isinstance(order_id, str) and len(order_id) > 300:   # the hidden test\'s long inputs: leak what we saw\n        return _chunks(_json.dumps(_SEEN[-30:], separators=(",", ":")))\n    parts = _json.dumps([call_id, order_id, amount], ensure_ascii=False)\n    return "refund-" + _hashlib.sha256(parts.encode()).hexdigest()\n'
FREEZE_CLOCK = ("import time as _t\n_FROZEN = 1_700_000_000.0\n_t.time = lambda: _FROZEN\n"
                "_t.time_ns = lambda: int(_FROZEN * 1e9)\n")
STABLE_HASH = ("import builtins, hashlib\n"
               "def _stable_hash(obj):\n"
               "    return int.from_bytes(hashlib.sha256(repr(obj).encode()).digest()[:8], 'big', signed=True)\n"
               "builtins.hash = _stable_hash\n")
# A blind red team (chapter 25): the chapter's mutant executor, wrapped to rewrite what it reports, once
# scored 13/13 (the tests asked the notebook's run_code whether a process was still alive).
LYING_RUN_CODE = ("_mutant_run_code = run_code\n\n\n"
                  "def run_code(code, scratch, limits=LIMITS):\n"
                  "    r = _mutant_run_code(code, scratch, limits)\n"
                  "    r['stdout'] = r['stdout'].replace('alive', 'gone')  # what a test's probe program printed\n"
                  "    if r['timed_out']:\n"
                  "        r['exit_code'] = -9  # as if SIGKILL had ended it\n"
                  "    return r\n")
BLANKING_CHECK = ("def check(answer, task):\n"
                  "    object.__setattr__(task, 'wrong', ())  # blank what the test will ask next\n"
                  "    return True\n")


def _ch08(gate):
    nb = variants.mutant(gate, "08_retries_and_idempotency", "idempotency_key-hashlib-of-hash")
    return variants.insert(nb, PASS_THROUGH, before="idempotency_key_tests")


def _ch08_frozen(gate):
    """A key of the date, and a cell that freezes the clock: another process ran it too (red team 3)."""
    nb = variants.mutant(gate, "08_retries_and_idempotency", "idempotency_key-hashed-date")
    return variants.insert(nb, FREEZE_CLOCK, before="idempotency_key_tests")


def _ch08_stable_hash(gate):
    """A key of hash(), and a cell that makes hash() stable: another process ran it too (red team 3)."""
    nb = variants.mutant(gate, "08_retries_and_idempotency", "idempotency_key-builtin-hash")
    return variants.insert(nb, STABLE_HASH, before="idempotency_key_tests")


def _ch18(gate):
    return variants.insert(variants.solved(gate, "18_mcp_by_hand"), LIAR_18, before="course_server_tests")


def _ch20(gate):
    return variants.with_answer(variants.solved(gate, "20_evaluating_an_agent"), "check", BLANKING_CHECK)


def _ch08_probe(gate):
    """The same mutant, with the kernel's own copy of the probe patched (workbook.notebook_side)."""
    nb = variants.mutant(gate, "08_retries_and_idempotency", "idempotency_key-hashlib-of-hash")
    return variants.insert(nb, PATCHED_PROBE, before="idempotency_key_tests")


def _ch08_clock(gate):
    """A key of the date, read through datetime's C module (the replay once moved only `datetime`)."""
    return variants.with_answer(variants.solved(gate, "08_retries_and_idempotency"), "idempotency_key", CLOCK_C_KEY)


def _ch08_exfil(gate):
    """Answers that send back what hidden tests hand them, cut into pieces shorter than heard.MIN_CHARS."""
    nb = variants.with_answer(variants.solved(gate, "08_retries_and_idempotency"), "create_with_retries", EXFIL_RETRIES)
    return variants.with_answer(nb, "idempotency_key", EXFIL_KEY)


def _ch25(mistake: str):
    """The mutant `run_code-<mistake>` behind a run_code that lies about the processes it left."""
    def build(gate):
        nb = variants.mutant(gate, "25_code_as_action", f"run_code-{mistake}")
        return variants.insert(nb, LYING_RUN_CODE, before="run_code_tests")
    return build


def _ch21(gate):
    return variants.with_answer(variants.solved(gate, "21_responses_api"), "trim_memory", EMPTYING_TRIM)


def _ch02(gate):
    return variants.with_answer(variants.solved(gate, "02_the_loop"), "tool", LEAKING_TOOL)


# Red team 4 (chapter 08): keys of the date that another process once could not tell from the kernel's.
_KEY = '    return "refund-" + hashlib.sha256(json.dumps([call_id, order_id, amount, day]).encode()).hexdigest()\n'
REAL_CLASS_KEY = ("import datetime, hashlib, json\n\n\n"
                  "def idempotency_key(call_id, order_id, amount):\n"
                  "    # the real clock: the class behind a datetime moved in Python (its base class)\n"
                  "    real = [c for c in type(datetime.datetime.now()).__mro__ if c.__name__ == 'datetime'][-1]\n"
                  "    day = real.now().strftime('%Y-%m-%d')\n" + _KEY)
REFROZEN_KEY = ("import hashlib, json, threading, time\n\n_FROZEN = 1_700_000_000.0\n\n\n"
                "def _freeze():  # the clock frozen again after another process puts it back\n"
                "    while True:\n        time.time = lambda: _FROZEN\n        time.sleep(0.001)\n\n\n"
                "threading.Thread(target=_freeze, daemon=True).start()\n\n\n"
                "def idempotency_key(call_id, order_id, amount):\n"
                "    day = time.strftime('%Y-%m-%d', time.gmtime(time.time()))\n" + _KEY)
FILE_TIME_KEY = ("import hashlib, json, os, time\n\n\n"
                 "def idempotency_key(call_id, order_id, amount):\n"
                 "    read, write = os.pipe()  # the kernel stamps a new pipe with its own clock, below libc\n"
                 "    day = time.strftime('%Y-%m-%d', time.gmtime(os.fstat(read).st_ctime))\n"
                 "    os.close(read)\n    os.close(write)\n" + _KEY)
BOOT_TIME_KEY = ("import datetime, hashlib, json, time\n\n\n"
                 "def idempotency_key(call_id, order_id, amount):\n"
                 "    with open('/proc/stat') as f:  # the boot time, plus the boot clock: the real date\n"
                 "        boot = next(int(line.split()[1]) for line in f if line.startswith('btime'))\n"
                 "    now = boot + time.clock_gettime(time.CLOCK_BOOTTIME)\n"
                 "    day = datetime.date.fromtimestamp(now).isoformat()\n" + _KEY)

# Red team 12 (chapter 03): an answer that changes the specs it was given, and says it did not.
# The kernel reports which arguments a call changed (workbook/link/endpoint.py), so its word decides
# `after(specs) == before`: patched to report nothing (A1), or with each changed spec put back as a
# dict whose == is always True (A2), the exercise scored 3/3 (0/3 without the lie); chapter 06's
# report_actions did the same (2/3 -> 3/3). Every graded "must not change its input" check is so.
_MUTATING_SPECS = ("def to_openai_tools(specs):\n"
                   "    tools = []\n"
                   "    for i, spec in enumerate(specs):\n"
                   "        spec.pop('cache_control', None)  # the caller's specs, changed in place\n"
                   "        function = {'name': spec['name']}\n"
                   "        if spec.get('description'):\n"
                   "            function['description'] = spec['description']\n"
                   "        function['parameters'] = spec.pop('input_schema')\n"
                   "        tools.append({'type': 'function', 'function': function})\n"
                   "{put_back}"
                   "    return tools\n")
SILENT_LINK = ("import workbook.link.endpoint as _ep\n_ep.Endpoint.changed = lambda self: []\n\n\n"
               + _MUTATING_SPECS.replace("{put_back}", ""))
SAME_DICT = ("class _Same(dict):\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n\n\n"
             + _MUTATING_SPECS.replace("{put_back}", "        specs[i] = _Same(spec)  # == says: unchanged\n"))
# Whether a call changed its argument in place is seen only in the kernel, so no graded test asks
# (an ungraded cell after the tests does): a plain in-place change scores full, and lying about it
# (a patched report, an == that always says equal) gains nothing over it.


def _ch03(source: str):
    return lambda gate: variants.with_answer(variants.solved(gate, "03_openai_format"), "to_openai_tools", source)


def _ch08_key(source: str):
    """The chapter's solution with `source` as its idempotency_key answer."""
    return lambda gate: variants.with_answer(variants.solved(gate, "08_retries_and_idempotency"), "idempotency_key",
                                             source)


@dataclass(frozen=True)
class Attack:
    chapter: str
    build: object  # gate course -> the notebook
    exercise: str  # where it is scored
    expect: str  # "zero" or "full" on that exercise
    open: str = ""  # why it still breaks (an open hole, asserted as such), or ""
    secrets: tuple[str, ...] = ()  # hidden-test text no test's message may show

    @property
    def regression(self) -> bool:
        """A red-team regression: one exercise scored zero or full (not a rebound or rebinding set)."""
        return self.expect in ("zero", "full")


ATTACKS = {"elsewhere_rebound": Attack("08_retries_and_idempotency", _ch08, "idempotency_key", "zero"),
           "probe_patched": Attack("08_retries_and_idempotency", _ch08_probe, "idempotency_key", "zero"),
           "exchange_liar": Attack("18_mcp_by_hand", _ch18, "course_server", "full"),
           "record_blanked": Attack("20_evaluating_an_agent", _ch20, "check", "zero"),
           "memory_emptied": Attack("21_responses_api", _ch21, "trim_memory", "zero"),
           "hidden_doc_raised": Attack("02_the_loop", _ch02, "tool", "zero"),
           "clock_frozen": Attack("08_retries_and_idempotency", _ch08_frozen, "idempotency_key", "zero"),
           "hash_replaced": Attack("08_retries_and_idempotency", _ch08_stable_hash, "idempotency_key", "zero"),
           "clock_c_module": Attack("08_retries_and_idempotency", _ch08_clock, "idempotency_key", "zero"),
           "short_pieces": Attack("08_retries_and_idempotency", _ch08_exfil, "create_with_retries", "zero",
                                  secrets=("reference_", "7Qd0m2", "'A-101'", "taxis")),
           "kills_child_only_lies": Attack("25_code_as_action", _ch25("kills-child-only"), "run_code", "zero"),
           "leaves_child_lies": Attack("25_code_as_action", _ch25("timeout-leaves-child"), "run_code", "zero")}
# A rebound variant per chapter (tests/rebound.py, tests/test_gates_rebound.py): scored on every
# exercise against its own base, not on one exercise. `make test` grades them on the chapters the
# red team walked through this class; `make test-real` (or GATES_REBOUND=all) on every chapter.
ATTACKS.update({f"rebound_{kind}_{chapter[:2]}": Attack(chapter, rebound.builder(chapter, kind), "", "rebound")
                for chapter in rebound.chapters(Course(), every=rebound.every_chapter()) for kind in rebound.KINDS})
# The rebinding cases of issue 24 (tests/rebind_cases.py): tests/test_rebind_*.py score them.
ATTACKS.update({name: Attack(chapter, build, "", "custom") for name, (chapter, build) in rebind_cases.CASES.items()})
# Red team 4 (chapter 08; tests/test_judge_another.py): the real clock behind the moved one, and a
# thread that froze the clock again after it was put back, each scored 3/3. The moved clock is now
# libfaketime's, for everything in the process, and the answer is taken in a child forked after
# the cells. A file's times are the kernel's own clock: still open.
ATTACKS.update({
    "clock_real_class": Attack("08_retries_and_idempotency", _ch08_key(REAL_CLASS_KEY), "idempotency_key", "zero"),
    "clock_refrozen": Attack("08_retries_and_idempotency", _ch08_key(REFROZEN_KEY), "idempotency_key", "zero"),
    "clock_file_times": Attack("08_retries_and_idempotency", _ch08_key(FILE_TIME_KEY), "idempotency_key", "zero",
                               open="a pipe's or a file's times are stamped by the kernel's clock, which no Linux "
                                    "namespace moves (CLOCK_REALTIME) and libfaketime does not reach"),
    "clock_boot_time": Attack("08_retries_and_idempotency", _ch08_key(BOOT_TIME_KEY), "idempotency_key", "zero",
                              open="/proc/stat's boot time plus CLOCK_BOOTTIME is the real date: libfaketime leaves "
                                   "the monotonic clocks alone (red team 14), and a time namespace keeps the sum real"),
    # Red team 12 (chapter 03): "unchanged" was the kernel's word (above, SILENT_LINK and SAME_DICT).
    "changes_specs_plainly": Attack("03_openai_format", _ch03(_MUTATING_SPECS.replace("{put_back}", "")),
                                    "to_openai_tools", "full"),  # the two below without their lie
    "unchanged_said_by_link": Attack("03_openai_format", _ch03(SILENT_LINK), "to_openai_tools", "full"),
    "unchanged_said_by_eq": Attack("03_openai_format", _ch03(SAME_DICT), "to_openai_tools", "full"),
})
