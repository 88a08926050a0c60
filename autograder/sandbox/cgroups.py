"""The CPU share, process cap and memory cap of one sandbox: a cgroup (v2, else v1 pids + cpu, and
memory where the machine has it) where the machine lets the grader make one (autograder/sandbox/sandbox.py
falls back to `nice` where it cannot). The memory cap is for all the sandbox's processes together:
RLIMIT_AS bounds each one, and a notebook that starts a dozen children holding 2 GB each would
otherwise take the host's memory from the other students' kernels (red team, issue 24)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def make(name: str, processes: int, cpus: float, memory_mb: int = 0) -> tuple[str, list[Path]]:
    """A cgroup (v2, else v1 pids + cpu) with pids.max and a CPU quota, and a memory cap of
    `memory_mb` for all its processes where a memory controller is there ("… + memory" in the
    kind); ("", []) if none here."""
    quota, made = int(cpus * 100_000), []
    plans: list[tuple[str, list[tuple[Path, dict[str, object]]]]] = [("cgroup v2", [(CGROUP, {"pids.max": processes, "cpu.max": f"{quota} 100000", "cpu.weight": 100})]),
             ("cgroup v1", [(CGROUP / "pids", {"pids.max": processes}),
                            (CGROUP / "cpu", {"cpu.cfs_period_us": 100_000, "cpu.cfs_quota_us": quota,
                                              "cpu.shares": 1024})])]
    for kind, groups in plans:
        for parent in [p for p, _ in groups] + [CGROUP / "memory"]:  # groups of graders that died
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
            return (kind + " + memory" if memory_mb and _cap_memory(kind, name, memory_mb, made) else kind), made
        except OSError:
            remove(made)
            made = []
    return "", []


def _cap_memory(kind: str, name: str, memory_mb: int, made: list[Path]) -> bool:
    """Add the memory cap to the groups just made (v2: the same group; v1: one more); False if the
    machine has no memory controller the grader may use."""
    cap = str(memory_mb << 20)
    try:
        if kind == "cgroup v2":
            if "memory" not in (CGROUP / "cgroup.subtree_control").read_text().split():
                return False
            (made[0] / "memory.max").write_text(cap)
            (made[0] / "memory.swap.max").write_text("0")
            return True
        group = CGROUP / "memory" / name
        group.mkdir()
        made.append(group)
        (group / "memory.limit_in_bytes").write_text(cap)
        return True
    except OSError:
        return False


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
