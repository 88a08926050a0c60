"""The CPU share and process cap of one sandbox: a cgroup (v2, else v1 pids + cpu) where the machine
lets the grader make one (autograder/sandbox.py falls back to `nice` where it cannot)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def make(name: str, processes: int, cpus: float) -> tuple[str, list[Path]]:
    """A cgroup (v2, else v1 pids + cpu) with pids.max and a CPU quota; ("", []) if none here."""
    quota, made = int(cpus * 100_000), []
    plans: list[tuple[str, list[tuple[Path, dict[str, object]]]]] = [("cgroup v2", [(CGROUP, {"pids.max": processes, "cpu.max": f"{quota} 100000", "cpu.weight": 100})]),
             ("cgroup v1", [(CGROUP / "pids", {"pids.max": processes}),
                            (CGROUP / "cpu", {"cpu.cfs_period_us": 100_000, "cpu.cfs_quota_us": quota,
                                              "cpu.shares": 1024})])]
    for kind, groups in plans:
        for parent, _ in groups:  # groups of graders that died without closing their sandbox
            for stale in parent.glob("agentloop-*-*") if parent.is_dir() else []:
                if not Path("/proc", stale.name.split("-")[1]).exists():
                    remove([stale])
        try:
            if kind == "cgroup v2" and not {"cpu", "pids"} <= set((CGROUP / "cgroup.subtree_control").read_text().split()):
                continue
            for parent, settings in groups:
                (parent / name).mkdir()
                made.append(parent / name)
                for key, value in settings.items():
                    (parent / name / key).write_text(str(value))
            return kind, made
        except OSError:
            remove(made)
            made = []
    return "", []


def remove(groups: list[Path]) -> None:
    """Kill what is left inside (nothing, normally), then remove the groups."""
    for group in groups:
        try:
            for pid in (group / "cgroup.procs").read_text().split():
                os.kill(int(pid), signal.SIGKILL)
        except (OSError, ValueError):
            pass
        for _ in range(100):  # the processes are dying; a cgroup goes once they are gone
            try:
                group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.02)
