"""Shared fixtures: the library tests' path, and the gates' one graded batch (session-wide)."""

import io
import multiprocessing.util
import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

# jsonschema (under nbformat) imports rfc3987_syntax, if installed, for the "iri" formats only, and
# that module compiles a grammar at import: seconds in every test process. No notebook schema uses
# those formats, so the tests' processes go without it (kernels and CLI processes keep it).
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # so `tests.reference_loop` imports without installing tests/
    sys.path.insert(0, str(ROOT))


LONG_FIRST = ("tests/test_types.py",)  # mypy: a long test outside the gates and the browser
FAST_GATES = ("test_solution_gets_full_marks_without_stderr", "test_untouched_release_gets_zero_on_every_test",
              "test_mutant_loses_points_on_its_exercise_only", "test_mutant_fails_a_visible_test_of_its_exercise")


def _graded_scope(item) -> str | None:
    """The scope of the `graded` a test uses: "session" for the gates' batch (below), "module" for
    a module's own fixture of that name (test_rebind_*, test_formgrader grade notebooks of their own)."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.get("graded") if info is not None else None
    return defs[-1].scope if defs else None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    """Every test that reads the graded batch runs in one xdist worker (the batch is made once per
    process); the gates the fast runner alone can answer are marked `fastgate` (make quick)."""
    process = _process_tests()
    gates = []
    for item in items:
        if item.nodeid.split("[")[0] in process or item.nodeid.split("::")[0] in process:
            item.add_marker(pytest.mark.process)
        scope = _graded_scope(item)
        if scope == "session":
            item.add_marker(pytest.mark.xdist_group("gates"))
            gates.append(item)
            if item.originalname in FAST_GATES:
                item.add_marker(pytest.mark.fastgate)
        elif scope == "module":  # its module's tests on one worker, beside the gates: it grades once
            item.add_marker(pytest.mark.xdist_group(item.module.__name__.rpartition(".")[2]))
            item.add_marker(pytest.mark.process)  # it grades notebooks of its own: kernels, judges
    # The gates first: they are the longest unit, so one worker starts on them while the others
    # take the library tests (xdist hands out work in collection order); then the longest single
    # tests (LONG_FIRST), so none is left alone at the end while the other worker idles (mypy came
    # last and ran alone for the last 35 s of a make test when it took 40 s cold; 9 s since 18de98f).
    chosen = set(gates)
    rest = [item for item in items if item not in chosen]
    long_first = [item for item in rest if item.nodeid.split("::")[0] in LONG_FIRST]
    items[:] = gates + long_first + [item for item in rest if item.nodeid.split("::")[0] not in LONG_FIRST]
    if getattr(config.option, "loadgroup", False):  # xdist sets it in its workers; 3.8 suffixes `_nodeid`, which pytest 9 no longer reads
        from _pytest.nodeid import coerce_node_id

        for item in items:  # the gates, a module's own `graded`, a module's pytestmark (tests/lazy.py)
            group = item.get_closest_marker("xdist_group")
            if group is None and os.environ.get("QUICK_TIER"):  # make quick: a module's tests on one worker
                group = pytest.mark.xdist_group(item.module.__name__.rpartition(".")[2]).mark  # its fixtures made once
            if group is not None and "@" not in item.nodeid:
                item._id = coerce_node_id(f"{item.nodeid}@{group.args[0]}")


# make quick's promise (issue 47): its tests start no process. A test that starts one (a kernel, a
# server, a CLI, a fork) belongs to make test: tests/process_tests.txt lists it, and it is marked
# `process`. With QUICK_TIER=1 (make quick) a test that starts one and is not listed fails and
# says so; with QUICK_TIER=map:FILE each such test's id is written to FILE instead (to list them).
PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn",
                            "os.system", "os.exec", "pty.spawn",
                            # a judge or a zygote the worker's zygote forks for the test (process.py)
                            "agentloop.judge.fork", "agentloop.judge.branch",
                            "multiprocessing.spawn"})  # raised below: a pool's forkserver
_started: list[str] = []


def _audit(event, args, started=_started):
    """`started`: where a start is noted (a test of the guard passes a list of its own, so that the
    guard around it, in make quick, sees nothing)."""
    if event in PROCESS_EVENTS and len(started) < 8:
        what = " ".join(str(a) for a in (args[1] if event == "subprocess.Popen" and args[1] else args))
        started.append(f"{event}: {what}"[:160])


def _spawned(path, args, passfds, _spawn=multiprocessing.util.spawnv_passfds, _started=_started):
    """multiprocessing's forkserver and resource tracker start through _posixsubprocess directly,
    which raises no audit event: a process pool in a test went unseen."""
    _audit("multiprocessing.spawn", (path, *args), _started)
    return _spawn(path, args, passfds)


if os.environ.get("QUICK_TIER"):
    sys.addaudithook(_audit)  # only then: an audit hook stays for the process's life
    multiprocessing.util.spawnv_passfds = _spawned


# make quick collects no module of which it runs no test: importing them cost each of its workers
# ~1.2 CPU-s (the browser suite's clients, Dask). tests/test_quick_guard.py checks that make quick's
# marker expression selects no test in any of them; a module listed whole in process_tests.txt is one.
QUICK_UNCOLLECTED = ("tests/browser", "tests/test_cluster.py")


def quick_uncollected() -> tuple[str, ...]:
    return QUICK_UNCOLLECTED + tuple(sorted(entry for entry in _process_tests() if "::" not in entry))


def pytest_ignore_collect(collection_path, config):
    if os.environ.get("QUICK_TIER") and collection_path.is_relative_to(ROOT):
        return str(collection_path.relative_to(ROOT)) in quick_uncollected() or None
    return None


def pytest_sessionstart(session):
    """make quick: the processes a worker starts once, for whichever test comes first (`uname -p`,
    which the SDKs' platform headers read; `pandoc --version`, which jupytext runs when its formats
    are first imported), start here, not in a test. (The judges' zygote started here too, ~3.5 CPU-s
    a worker, for the tests of modules that grade notebooks of their own: those are `process` now.)"""
    worker = os.environ.get("PYTEST_XDIST_WORKER") or not getattr(session.config.option, "numprocesses", None)
    if os.environ.get("QUICK_TIER") and worker:  # not xdist's controller: it runs no test
        import platform

        import jupytext.formats  # noqa: F401  (asks pandoc its version on import)

        platform.processor()


def _process_tests() -> frozenset[str]:
    lines = (ROOT / "tests" / "process_tests.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _checked(item) -> str:
    tier = os.environ.get("QUICK_TIER", "")
    if not tier or item.get_closest_marker("process") or _graded_scope(item) is not None:
        return ""  # not checked: make test's run, a marked test, or a gate (gates grade)
    return tier


def pytest_runtest_setup(item):
    _started.clear()  # its fixtures' processes count too (a module's server starts in the first test's setup)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    tier = _checked(item)
    if tier and _started:
        if tier.startswith("map:"):
            with open(tier[4:], "a", encoding="utf-8") as out:
                out.write(f"{item.nodeid}\t{_started[0]}\n")
        else:
            pytest.fail(f"{item.nodeid} started a process ({_started[0]}) in make quick, whose tests start "
                        "none: add its id to tests/process_tests.txt (make test runs it)")
    return result


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """student -> result record, for every gate submission; also the gate course and timing.

    Solutions, stubs and mutants (our own code) are run by the fast trusted runner
    (tests/fast_runner.py: records in "fast"), and so is cheats_everywhere outside the pilot
    (gates.fast_hostile); the sandboxed pipeline grades every other hostile case, and a chapter's
    noisy solution stands for its solution there (gates.STAND_INS): that proves the fast runner
    equal to the pipeline on every chapter's solution (make test-real: on every variant).
    "records" holds the pipeline's record where it graded a submission, else the fast runner's.
    Results are cached across runs (gates.CACHE, GATES_CACHE=0 to ignore it), keyed by the
    submission, its chapter, the code the grading imports and the installed versions.
    Submissions whose notebooks or side effects a test reads afterwards are graded on every run.
    """
    from autograder.pipeline import cohort
    from tests import cell_deps, gates

    pairs = gates.plan()
    plan = [s for _, s in pairs]
    # Notebooks the pipeline grades at once, and chapters the fast runner runs at once (the two run
    # side by side). Under xdist another worker shares the cores, so one each: a fresh clone's make
    # test on 2 cores took 568 s and 1,011 CPU-s with one, against 665 s with two (2026-12-07; 621
    # and 680 s in two more runs with two); three had been slower still (686 s, 2026-12-06). Alone
    # (make test-mutants) the batch has the cores to itself: two.
    workers = int(os.environ.get("GATES_WORKERS") or (1 if os.environ.get("PYTEST_XDIST_WORKER") else 2))
    always = {s.student for s in plan if s.kind == "stub" or s.name in gates.ALWAYS_GRADED}
    # what may be cached as a timeout: hostile cases meant to time out, mutants that loop
    timeouts = frozenset(s.student for s in plan if s.kind == "mutant" or (s.expect and s.expect.status == "timeout"))
    gate = gates.gate_course(tmp_path_factory.mktemp("gates") / "course")
    limits_for = gates.build(gate, pairs)
    env = gates.environment_key()
    use_cache = os.environ.get("GATES_CACHE") != "0"

    fast = [s for s in plan if s.kind in gates.FAST_KINDS or gates.fast_hostile(s)]
    kind = "fast" if cell_deps.enabled() else "fast-every-cell"  # GATES_DEPS=0 never reads a skip's result
    fast_keys = {s.student: gates.cache_key(env, gate, s, limits_for[s.student], kind) for s in fast}
    fast_reuse = gates.cached(fast_keys) if use_cache else {}
    real = [s for s in plan if gates.in_pipeline(s)] if os.environ.get("GATES_PIPELINE") != "0" else []
    keys = {s.student: gates.cache_key(env, gate, s, limits_for[s.student]) for s in real}
    reuse = gates.cached(keys) if use_cache else {}
    todo = sorted(s for s in keys if s not in reuse or s in always)

    # Both mostly wait on their own processes (kernels starting, sockets): run them side by side.
    started, fast_records, fast_seconds, failed = time.monotonic(), [], [0.0], []

    def run_fast():
        try:
            fast_records.extend(gates.fast_grade(gate, [s for s in fast if s.student not in fast_reuse],
                                                 limits_for, workers))
        except BaseException as e:  # raised again in the test process below
            failed.append(e)
        fast_seconds[0] = time.monotonic() - started

    runner = threading.Thread(target=run_fast, name="fast-runner")
    runner.start()
    log, records = io.StringIO(), []
    try:
        if todo:
            records = cohort.grade(gate, workers=workers, limits=gates.GATE_LIMITS, limits_for=limits_for,
                                   students=todo, out=log)
            gates.remember(keys, records, timeouts)
        seconds = time.monotonic() - started
    finally:
        runner.join()
    if failed:
        raise failed[0]
    gates.remember(fast_keys, fast_records, timeouts)
    fast_seconds = fast_seconds[0]
    print(f"\ngates: fast runner ran {len(fast_records)} notebooks in {fast_seconds:.0f} s "
          f"({len(fast_reuse)} from the cache); the pipeline graded {len(records)} in {seconds:.0f} s "
          f"with {workers} workers (sandbox: {gates.SANDBOX}), {len(keys) - len(records)} from the cache")
    by_fast = fast_reuse | {r["student"]: r for r in fast_records}
    by_real = reuse | {r["student"]: r for r in records}
    return {"course": gate, "records": by_fast | by_real, "fast": by_fast, "real": by_real,
            "seconds": seconds, "fast_seconds": fast_seconds, "log": log, "graded": len(records),
            "fast_graded": len(fast_records)}


@pytest.fixture
def ends():
    """The two ends of a judge's link over a socketpair, in this process (tests of the link)."""
    from workbook.link.channel import Channel
    from workbook.link.judge_end import JudgeEnd
    from workbook.link.kernel_side import KernelEnd

    judge_sock, kernel_sock = socket.socketpair()
    judge, kernel = JudgeEnd(), KernelEnd()
    judge.channel = Channel(judge_sock, judge.serve, orphans="thread")
    kernel.channel = Channel(kernel_sock, kernel.serve, orphans="thread")
    judge.token = "this-test"
    kernel.channel.request({"op": "hello", "token": judge.token})  # as kernel_side.serve starts
    yield judge, kernel
    judge.channel.close()
    kernel.channel.close()
