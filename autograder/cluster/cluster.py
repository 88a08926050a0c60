"""`grade --cluster ADDRESS`: one Dask task per (student, chapter), on any number of machines.

The client (this process) alone writes the course: it packs each submission into a task
(`cluster_task.pack`), and as results arrive it writes the autograded folder, the log, the result
record and the submission's rows of the master gradebook. Dask runs a task again elsewhere when
its worker dies; a task whose workers keep dying (`distributed.scheduler.allowed-failures`) or that
fails becomes a row with status "error". A re-run skips every submission whose key (submission,
chapter source and limits) matches its saved result, so an interrupted run picks up where it
stopped; `--force` grades everything again.
"""

from __future__ import annotations

import hashlib
import socket
import sys
import time

from autograder.cluster import cluster_task
from autograder.course import AutograderError, Course
from autograder.pipeline import files, gradebook, results
from autograder.pipeline.progress_line import describe, line
from autograder.settings import WALL_FACTOR, Limits

LOCAL = "local"  # --cluster local: a LocalCluster of `workers` processes on this machine
# A task running longer than its notebook limit plus this (nbgrader's conversions, the sandbox's
# start) is given up: its row says so, and the run goes on instead of waiting forever.
MARGIN = 300.0
POLL = 2.0  # seconds between looks at what the workers are running


def _dask():
    """dask.distributed, which only a cluster run needs (the `cluster` extra)."""
    try:
        import dask.distributed
    except ImportError:
        raise AutograderError("grade --cluster needs Dask: pip install 'dask[distributed]' (or the "
                              "project's `cluster` extra, pip install -e '.[cluster]')") from None
    return dask.distributed


def _connect(address: str, workers: int):
    Client, LocalCluster = _dask().Client, _dask().LocalCluster

    if address == LOCAL:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        return Client(cluster), cluster
    hint = (f"start one with `dask scheduler` and workers with `dask worker {address} --nthreads 1` "
            f"(autograder/README.md, \"Grading a large cohort\")")
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not address.startswith("tcp://") or not host or not port.isdigit():
        raise AutograderError(f"--cluster wants tcp://HOST:PORT or {LOCAL!r}, not {address!r}")
    try:  # a refused port is said at once, not after the client's retries
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
        return Client(address, timeout="30s"), None
    except (OSError, TimeoutError) as e:
        raise AutograderError(f"cannot reach the Dask scheduler at {address} ({e}); {hint}") from None


def _up_to_date(course: Course, student: str, chapter: str, key: str) -> dict | None:
    """The saved result if it was graded from exactly this submission, source and limits."""
    record = results.load(course, student, chapter)
    if not record or record.get("key") != key or record.get("status") == "error":
        return None
    if not (course.autograded / student / chapter / f"{chapter}.ipynb").is_file():
        return None
    return record if gradebook.scores(course.gradebook, student, chapter) else None


def _record(course: Course, got: dict) -> dict:
    """Write what a task returned into the client's course; return its result record."""
    record = got["record"]
    student, chapter = record["student"], record["chapter"]
    folder = course.autograded / student / chapter
    files.clear(folder, within=course.workspace)
    cluster_task.write_files(folder, got["autograded"])
    files.write_text(course.work / "logs" / student / f"{chapter}.log", got["log"], within=course.workspace)
    if got["rows"]:
        gradebook.put_submission(course.gradebook, got["rows"], student, chapter)
    record["worker"] = got.get("worker", "")
    results.save(course, record)
    return record


def grade(course: Course, address: str, todo: dict[str, list[str]], limits: Limits,
          limits_for: dict[str, Limits], workers: int = 2, force: bool = False,
          out=sys.stdout) -> list[dict]:
    """Grade `todo` (student -> chapters) on the cluster at `address`; return every record."""
    tasks, kept, refused = [], [], []
    for student in sorted(todo):
        for chapter in todo[student]:
            try:
                task = cluster_task.pack(course, student, chapter, limits_for.get(student, limits))
            except (OSError, ValueError) as e:  # e.g. a folder too big to send: a row, not a stop
                record = _failed(course, student, chapter, limits.sandbox, f"not sent to the cluster: {e}")
                refused.append(record)
                print(f"{student}: {chapter} ERROR {record['message']}", file=out)
                continue
            saved = None if force else _up_to_date(course, student, chapter, task.key)
            (kept.append(saved) if saved else tasks.append(task))
    if kept:
        print(f"{len(kept)} submission(s) already graded from the same notebook, chapter and limits: "
              f"kept (--force grades them again)", file=out)
    if not tasks:
        return kept + refused
    client, cluster = _connect(address, workers)
    try:
        try:
            link = client.dashboard_link if client.scheduler_info().get("services", {}).get("dashboard") else ""
        except Exception:  # no dashboard (bokeh not installed): nothing to show
            link = ""
        print(f"grading {len(tasks)} submission(s) on the Dask cluster at {client.scheduler.address} "
              f"({len(client.scheduler_info()['workers'])} worker(s))"
              f"{', dashboard ' + link if link else ''}", file=out, flush=True)
        # A task, not scattered data: if the worker holding it dies, Dask makes it again elsewhere.
        blob = gradebook.template(course)
        template = client.submit(cluster_task.hold, blob, pure=False,
                                 key=f"gradebook-template-{hashlib.sha256(blob).hexdigest()[:16]}")
        futures = {client.submit(cluster_task.run, task, template, pure=False,
                                 key=f"grade-{task.student}-{task.chapter}-{task.key[:16]}"): task
                   for task in tasks}
        started, records = time.monotonic(), []
        for _, record in _results(course, client, futures):
            records.append(record)
            print(line(len(records), len(tasks), started, describe([record])), file=out, flush=True)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return kept + refused + records


def deadline(limits: Limits) -> float:
    """Seconds a task may run on a worker: its notebook limit's clock backstop (the limit counts
    CPU seconds, the clock WALL_FACTOR times longer), plus MARGIN for the rest."""
    return limits.notebook_timeout * WALL_FACTOR + MARGIN


def _outcome(course: Course, future, task: cluster_task.Task) -> dict:
    """The record of a finished task, written by the client, or an error row."""
    try:
        got = future.result()
        if (got["record"].get("student"), got["record"].get("chapter")) != (task.student, task.chapter):
            raise ValueError("the result is for another submission")  # never written elsewhere
        return _record(course, got)
    except Exception as e:  # a task that failed, or whose workers kept dying
        return _task_failed(course, task, f"grading on the cluster failed: {type(e).__name__}: {e}")


def _failed(course: Course, student: str, chapter: str, sandbox: str, message: str) -> dict:
    """An error row for a submission the cluster did not grade, saved like any result."""
    record = results.failed(course, student, chapter, message, sandbox)
    results.save(course, record)
    return record


def _task_failed(course: Course, task: cluster_task.Task, message: str) -> dict:
    return _failed(course, task.student, task.chapter, task.limits["sandbox"], message)


def _held(client, pending) -> dict[str, list]:
    """worker -> the pending futures the scheduler has given it (running, or next in its queue).
    The scheduler answers from its own state, so a worker too busy to talk cannot block this."""
    by_key = {f.key: f for f in pending}
    try:
        processing = client.processing()
    except Exception:  # the scheduler is going away: the wait above will say so
        return {}
    return {w: [by_key[k] for k in keys if k in by_key] for w, keys in processing.items()}


def _restart(client, worker: str) -> None:
    """Restart a stuck worker through its nanny, so it can take tasks again; a worker started
    without a nanny cannot be restarted (the run goes on without it)."""
    try:
        client.restart_workers([worker], raise_for_error=False)
    except Exception:
        pass


def _results(course: Course, client, futures: dict):
    """(future, record) as each task ends. A worker that makes no progress (no result) for the
    longest deadline of the tasks it holds has its tasks cancelled, each an error row, and is
    restarted; if no worker makes progress for that long, the tasks left become error rows too,
    so the run always ends."""
    wait = _dask().wait
    pending, where = set(futures), {}
    progress, last_any = {}, time.monotonic()  # worker -> when it last started or finished work
    while pending:
        try:
            done = wait(list(pending), timeout=POLL, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            done = set()
        now = time.monotonic()
        for future in done:
            pending.discard(future)
            progress[where.get(future.key)] = last_any = now
            yield future, _outcome(course, future, futures[future])
        for worker, held in _held(client, pending).items():
            if not held:
                progress.pop(worker, None)
                continue
            for future in held:
                if where.get(future.key) != worker:  # newly given to this worker (or a retry)
                    where[future.key] = worker
                    progress.setdefault(worker, now)
            limit = max(deadline(Limits(**futures[f].limits)) for f in held)
            if now - progress[worker] > limit:
                progress.pop(worker)
                for future in held:
                    future.cancel()
                    pending.discard(future)
                    yield future, _task_failed(course, futures[future], (
                        f"worker {worker} made no progress for {limit:.0f} s (the notebook limit "
                        f"plus {MARGIN:.0f} s) while it held this submission: cancelled, and the "
                        f"worker restarted; run the same command again to grade it"))
                _restart(client, worker)
                last_any = now
        if pending and now - last_any > max(deadline(Limits(**futures[f].limits)) for f in pending):
            for future in list(pending):
                future.cancel()
                pending.discard(future)
                yield future, _task_failed(course, futures[future], (
                    "no worker graded anything for longer than the deadline: not graded; check "
                    "the workers (`dask worker` logs) and run the same command again"))
