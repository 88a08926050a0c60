"""An OS sandbox for each submission's kernel: bubblewrap, a private folder, nothing else to reach.

The kernel sees the system, the Python environment and `workbook/` read-only; `solutions/`,
`autograder/` (mutants, the guard's source, the sample cohort), the workspace (other submissions,
gradebooks, results, logs), `.git`, `.env` and the real HOME are not there at all. It may write
only its private run folder (its HOME, IPYTHONDIR, TMPDIR) and a private copy of `agent_files/`,
mounted where the chapters expect it. It has no network (its own namespace; the grader talks to
it over IPC sockets in the run folder), its own pid namespace, no capabilities, and it dies with
the grader. Memory, file size, open files and (for a non-root grader) processes are capped with
rlimits set before bubblewrap starts.

Tested recipe and its gotchas: ../shared/DESIGN.md, "Tooling choices already checked".
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import List, Unicode

from autograder.course import REPO, AutograderError

MODES = ("auto", "bwrap", "none")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install "
                "bubblewrap`) or pass `--sandbox none` to grade without one, on purpose")
# Set in the launcher before bubblewrap starts; inherited by everything inside.
# bubblewrap's own processes would die of the SIGINT that interrupts a cell (it reaches the whole
# process group) and take the kernel with them: they ignore it; the kernel sets its own handler.
_RLIMITS = """import os, resource, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
for name, value in zip(("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC"), sys.argv[1:5]):
    value = int(value)
    if value > 0 and (name != "RLIMIT_NPROC" or os.getuid() != 0):
        hard = resource.getrlimit(getattr(resource, name))[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(getattr(resource, name), (value, value))
os.execvp(sys.argv[5], sys.argv[5:])
"""


@dataclass(frozen=True)
class SandboxLimits:
    memory_mb: int = 4096  # address space of every process inside
    file_mb: int = 256  # largest file a process may write
    open_files: int = 256
    processes: int = 256  # RLIMIT_NPROC counts the user's processes; root is exempt by the kernel


@dataclass
class Sandbox:
    """One submission's private run folder and the bubblewrap command that confines its kernel."""

    hidden: list[Path]  # folders that must not be visible at all
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    run: Path = field(init=False)

    def __post_init__(self):
        self.run = Path(tempfile.mkdtemp(prefix="agentloop-sandbox-")).resolve()
        for sub in ("home", "home/.ipython", "tmp", "agent_files"):
            (self.run / sub).mkdir(parents=True, exist_ok=True)
        shutil.copytree(REPO / "agent_files", self.run / "agent_files", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))

    @property
    def cwd(self) -> Path:
        return self.run / "home"

    def close(self) -> None:
        shutil.rmtree(self.run, ignore_errors=True)

    def command(self, kernel_argv: list[str]) -> list[str]:
        """The kernel's argv wrapped: rlimits, then bubblewrap, then the kernel."""
        lim = self.limits
        launcher = [sys.executable, "-I", "-S", "-c", _RLIMITS, str(lim.memory_mb * 2**20),
                    str(lim.file_mb * 2**20), str(lim.open_files), str(lim.processes)]
        return launcher + bwrap_argv(self.run, self.hidden) + ["--"] + kernel_argv


def _covered(path: Path, by: list[Path]) -> bool:
    return any(path == p or path.is_relative_to(p) for p in by)


def bwrap_argv(run: Path, hidden: list[Path]) -> list[str]:
    """Mounts in order: everything read-only; /tmp, HOME, the repository and `hidden` replaced by
    tiny empty read-only folders; what the kernel needs bound back read-only; the run folder and
    its `agent_files` copy writable."""
    home = Path(os.path.expanduser("~")).resolve()
    blank = {Path("/tmp"), REPO, *([home] if home != Path("/") else []), *(Path(h).resolve() for h in hidden)}
    needed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    needed |= {REPO / "workbook", REPO / "chapters", REPO / "README.md"}
    outer = sorted((p for p in blank if p.is_dir() and not _covered(p, [n for n in needed if n != p])),
                   key=lambda p: len(p.parts))
    inner = sorted((p for p in blank if p.is_dir() and p not in outer), key=lambda p: len(p.parts))
    outer = [p for i, p in enumerate(outer) if not _covered(p, outer[:i])]  # one mount is enough
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for path in outer:
        argv += ["--size", "65536", "--tmpfs", str(path)]
    for path in sorted(needed, key=lambda p: len(p.parts)):
        if path.exists() and _covered(path, outer):
            argv += ["--ro-bind", str(path), str(path)]
    for path in inner:  # hidden folders inside needed ones (a workspace in the venv...)
        argv += ["--size", "65536", "--tmpfs", str(path)]
    env = {"HOME": run / "home", "IPYTHONDIR": run / "home" / ".ipython", "TMPDIR": run / "tmp",
           "JUPYTER_RUNTIME_DIR": run / "tmp", "MPLCONFIGDIR": run / "tmp",
           "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    argv += ["--bind", str(run), str(run),
             "--bind", str(run / "agent_files"), str(REPO / "agent_files")]
    for path in outer + inner:  # after the binds: their mount points exist now
        argv += ["--remount-ro", str(path)]
    argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--die-with-parent", "--cap-drop", "ALL", "--clearenv"]
    for name, value in env.items():
        argv += ["--setenv", name, str(value)]
    return argv + ["--chdir", str(run / "home")]


@functools.cache
def bwrap_problem() -> str | None:
    """None when bubblewrap can run a sandbox here; otherwise what went wrong."""
    if not shutil.which("bwrap"):
        return "bubblewrap (`bwrap`) is not installed"
    try:
        probe = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                "--unshare-net", "--unshare-pid", "--die-with-parent", "--cap-drop",
                                "ALL", "--", "true"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap could not start: {e}"
    if probe.returncode:
        return f"bubblewrap cannot create a sandbox here: {probe.stderr.strip()[:300]}"
    return None


def resolve(mode: str) -> str:
    """`auto` -> `bwrap` when it works here; otherwise a clear error. `none` stays `none`."""
    if mode not in MODES:
        raise AutograderError(f"--sandbox must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "none":
        return "none"
    problem = bwrap_problem()
    if problem:
        raise AutograderError(f"cannot grade in a sandbox: {problem}; {INSTALL_HINT}")
    return "bwrap"


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel starts inside `Sandbox.command` and talks over IPC sockets."""

    sandbox_prefix = List(Unicode())  # everything before the kernel's own argv

    def format_kernel_cmd(self, extra_arguments=None):
        return list(self.sandbox_prefix) + super().format_kernel_cmd(extra_arguments)


def kernel_manager(sandbox: Sandbox, kernel_name: str, config) -> SandboxKernelManager:
    km = SandboxKernelManager(kernel_name=kernel_name, config=config, transport="ipc",
                              ip=str(sandbox.run / "ipc"),
                              connection_file=str(sandbox.run / "kernel.json"))
    km.sandbox_prefix = sandbox.command([])
    return km
