"""An OS sandbox for each submission's kernel: bubblewrap, an allowlist of what it may see.

The kernel's root is empty but for what it needs, read-only: the system's programs and libraries
(`/usr`, `/etc` with its secrets masked), the Python environment, `workbook/`, `chapters/` and
the README. `solutions/`, `autograder/`, the workspace, `.git`, `.env`, HOME, `/tmp`, `/run`,
`/home`, every other run folder and the grader's own sockets are simply not there. It writes only
size-capped in-memory folders (its HOME, /tmp, /dev/shm, and `agent_files/out` of a read-only
copy of the agent's files) and the small folder holding its connection file and IPC sockets. It
has no network (its own namespace), its own pid namespace, no capabilities, an environment with
no instructor variables (also in /proc/1/environ), and dies with the grader. Memory, file size,
open files and (for a non-root grader) processes are capped with rlimits set before bubblewrap.

Gotchas (../shared/DESIGN.md has the recipe): unset JPY_PARENT_PID; IPC, not TCP; bubblewrap's
own processes must ignore SIGINT, which reaches the whole process group when a cell is
interrupted (with --die-with-parent they would die of it and take the kernel along).
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
os.execvpe(sys.argv[5], sys.argv[5:], {"PATH": "/usr/bin:/bin"})  # nothing of the grader's
"""


@dataclass(frozen=True)
class SandboxLimits:
    memory_mb: int = 4096  # address space of every process inside
    file_mb: int = 256  # largest file a process may write
    open_files: int = 256
    processes: int = 256  # RLIMIT_NPROC counts the user's processes; root is exempt by the kernel


HOME = Path("/home/student")  # inside the sandbox only
SECRETS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers")
SYSTEM = ("/usr", "/etc", "/opt")
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
MB = 2**20


@dataclass
class Sandbox:
    """One submission's connection folder and the bubblewrap command that confines its kernel."""

    hidden: list[Path]  # folders that must not be visible even inside what the kernel needs
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    run: Path = field(init=False)

    def __post_init__(self):
        self.run = Path(tempfile.mkdtemp(prefix="agentloop-sandbox-")).resolve()

    @property
    def cwd(self) -> Path:
        return HOME

    def close(self) -> None:
        """Remove the connection folder whatever the kernel left in it (deep trees included)."""
        try:
            subprocess.run(["rm", "-rf", "--one-file-system", "--", str(self.run)], timeout=120,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            pass
        shutil.rmtree(self.run, ignore_errors=True)

    def command(self, kernel_argv: list[str]) -> list[str]:
        """The kernel's argv wrapped: rlimits, then bubblewrap, then the kernel."""
        lim = self.limits
        launcher = [sys.executable, "-I", "-S", "-c", _RLIMITS, str(lim.memory_mb * MB),
                    str(lim.file_mb * MB), str(lim.open_files), str(lim.processes)]
        return launcher + bwrap_argv(self.run, self.hidden) + ["--"] + kernel_argv


def _covered(path: Path, by) -> bool:
    return any(path == p or path.is_relative_to(p) for p in by)


def bwrap_argv(run: Path, hidden: list[Path]) -> list[str]:
    """An empty root with, read-only, the system, Python, `workbook/` and `chapters/`; masked
    secrets; size-capped writable HOME, /tmp, /dev/shm and agent_files/out; the connection folder."""
    argv = ["bwrap", "--dev", "/dev", "--proc", "/proc"]
    for top in SYSTEM:
        if Path(top).is_dir():
            argv += ["--ro-bind", top, top]
    for top in TOP_LINKS:  # merged /usr: /bin -> usr/bin
        if Path(top).is_symlink():
            argv += ["--symlink", os.readlink(top), top]
        elif Path(top).is_dir():
            argv += ["--ro-bind", top, top]
    # In-memory folders first: a clone or a venv under /tmp is bound on top of them below.
    argv += ["--size", str(64 * MB), "--tmpfs", "/tmp", "--size", str(MB), "--tmpfs", "/dev/shm",
             "--size", str(256 * MB), "--tmpfs", str(HOME), "--dir", str(HOME / ".ipython")]
    needed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    needed |= {REPO / "workbook", REPO / "chapters", REPO / "README.md"}
    for path in sorted(needed, key=lambda p: len(p.parts)):
        if path.exists() and not _covered(path, [Path(t) for t in SYSTEM if t != str(path)]):
            argv += ["--ro-bind", str(path), str(path)]
    for secret in SECRETS:
        if Path(secret).exists():
            argv += ["--ro-bind", "/dev/null", secret]
    for path in sorted({Path(h).resolve() for h in hidden}, key=lambda p: len(p.parts)):
        if path.is_dir() and _covered(path, needed | {Path(t) for t in SYSTEM}):
            argv += ["--size", "65536", "--tmpfs", str(path), "--remount-ro", str(path)]
    files = REPO / "agent_files"
    argv += ["--size", str(64 * MB), "--tmpfs", str(files)]
    for entry in sorted(files.iterdir()) if files.is_dir() else []:
        if entry.name not in ("out", "__pycache__") and not entry.name.startswith("."):
            argv += ["--ro-bind", str(entry), str(files / entry.name)]
    argv += ["--dir", str(files / "out"), "--bind", str(run), str(run), "--remount-ro", "/"]
    env = {"HOME": HOME, "IPYTHONDIR": HOME / ".ipython", "TMPDIR": "/tmp", "JUPYTER_RUNTIME_DIR": "/tmp",
           "MPLCONFIGDIR": "/tmp/matplotlib", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
           "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--die-with-parent", "--cap-drop", "ALL", "--clearenv"]
    for name, value in env.items():
        argv += ["--setenv", name, str(value)]
    return argv + ["--chdir", str(HOME)]


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
