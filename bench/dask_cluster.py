"""A Dask cluster of real processes on 127.0.0.1, for the grading bench and the cluster tests
(bench/ never imports tests/; tests/test_cluster.py imports this)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from dask.distributed import Client

DASK = Path(sys.executable).parent / "dask"


class Cluster:
    """`dask scheduler` + `dask worker`s, each in its own process group and empty folder."""

    def __init__(self, root: Path, workers: int = 2):
        self.root, self.procs = root, []
        root.mkdir(parents=True, exist_ok=True)
        self.file = root / "scheduler.json"
        try:
            self._up(workers)
        except BaseException:
            self.close()
            raise

    def _up(self, workers: int) -> None:
        self._start("scheduler", [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(self.file)])
        # Waits end on what is observed (the file written, the workers joined, or a process gone),
        # never on a guess of how long a start takes: a busy machine only makes them slower.
        scheduler, self.address = self.procs[0], None
        while self.address is None:
            try:
                self.address = json.loads(self.file.read_text())["address"]
            except (OSError, ValueError, KeyError):  # not written yet, or half written
                if scheduler.poll() is not None:
                    raise RuntimeError(f"dask scheduler exited: see {self.root / 'scheduler'}") from None
                time.sleep(0.2)
        self.workers = [self._start(f"worker{i}", [
            str(DASK), "worker", self.address, "--nthreads", "1", "--nworkers", "1", "--host", "127.0.0.1",
            "--name", f"worker{i}", "--no-dashboard", "--local-directory", "."]) for i in range(workers)]
        with Client(self.address, timeout="600s") as client:
            while True:
                try:
                    client.wait_for_workers(workers, timeout=5)
                    break
                except TimeoutError:
                    gone = [p.args[1] for p in self.procs if p.poll() is not None]
                    if gone:
                        raise RuntimeError(f"dask {gone} exited before the workers joined: see {self.root}") from None

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen:
        folder = self.root / name
        (folder / "tmp").mkdir(parents=True)
        log = open(folder / "log.txt", "wb")
        # TMPDIR in its folder: what a worker killed on purpose cannot remove (its sandboxes'
        # folders) goes with the cluster's folder, not into the machine's /tmp
        proc = subprocess.Popen(argv, cwd=folder, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=os.environ | {"TMPDIR": str(folder / "tmp")})
        self.procs.append(proc)
        return proc

    def holders(self) -> dict[int, int]:
        """Index in `workers` -> how many tasks the scheduler has given it (running or queued),
        for the workers that hold any. The scheduler answers from its own state."""
        with Client(self.address, timeout="600s", set_as_default=False) as client:
            names = {address: w["name"] for address, w in client.scheduler_info()["workers"].items()}
            return {int(names[address].removeprefix("worker")): len(keys)
                    for address, keys in client.processing().items() if keys and address in names}

    def kill(self, proc: subprocess.Popen) -> None:
        """SIGKILL a whole process group: the nanny, its worker, the kernels it started."""
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()  # SIGKILL cannot be ignored

    def close(self) -> None:
        for proc in reversed(self.procs):
            self.kill(proc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
