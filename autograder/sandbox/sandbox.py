"""An OS sandbox for each submission's kernel: bubblewrap, an allowlist of what it may see.

The kernel's root is empty but for what it needs, read-only: `/usr`, a handful of `/etc` files
(ETC_FILES, plus a passwd and group naming only the sandbox's user), the Python environment,
`workbook/`, `chapters/` and the README. Nothing else of the host is there: no `/opt`, `/srv`,
`/home`, `/root` (but for the Python environment when it lives there), `/run`, `solutions/`,
`autograder/`, the workspace or the grader's sockets. It writes only size-capped in-memory folders:
its HOME, /tmp, /dev/shm, `agent_files/out` of a read-only copy of the agent's files, and SOCKETS,
where the kernel binds its IPC sockets (the grader reaches them through /proc/<pid>/root).

When the grader runs as root, everything inside runs as an unprivileged uid of its own (a high uid
per sandbox, so RLIMIT_NPROC counts only this sandbox's processes): bubblewrap starts as root (it
must read the Python environment wherever it is), keeps only CAP_SETUID/CAP_SETGID for its child,
whose first act is to drop to that uid before it runs the kernel (no_new_privs: nothing can regain
root). No network, its own pid namespace, no instructor environment, dies with the grader.
Rlimits (memory, file size, open files, processes, CPU seconds) are set before bubblewrap; the CPU
share is a cgroup (v2 or v1, pids.max and a CPU quota) where the machine lets us make one, else
`nice`. `Sandbox.describe()` says which.

Gotchas (docs/DESIGN.md has the recipe): unset JPY_PARENT_PID; IPC, not TCP; bubblewrap's
own processes must ignore SIGINT, which reaches the whole process group when a cell is
interrupted (with --die-with-parent they would die of it and take the kernel along).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from traitlets import List, Unicode

from autograder.course import REPO, AutograderError
from autograder.sandbox import cgroups
from autograder.sandbox.caps import CappedKernelManager
from workbook import test_cells

MODES = ("auto", "bwrap", "none")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install "
                "bubblewrap`) or pass `--sandbox none` to grade without one, on purpose")
# Runs before bubblewrap, as the grader: rlimits, the cgroup, nice, the connection file handed to
# the sandbox's uid, bubblewrap's --info-fd (the sandbox's pid, for the sockets' path). bubblewrap's
# own processes ignore the SIGINT that interrupts a cell (it reaches the whole process group).
_LAUNCHER = """import json, os, resource, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
cfg, cmd = json.loads(sys.argv[1]), sys.argv[2:]
for name, value in cfg["rlimits"].items():
    hard = resource.getrlimit(getattr(resource, name))[1]
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(getattr(resource, name), (value, value))
for group in cfg["cgroups"]:
    with open(os.path.join(group, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
if cfg["nice"]:
    os.nice(cfg["nice"])
if cfg["uid"] is not None and os.path.exists(cfg["connection"]):
    os.chown(cfg["connection"], cfg["uid"], cfg["uid"])
info = os.open(cfg["info"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.set_inheritable(info, True)
os.execvpe(cmd[0], cmd[:1] + ["--info-fd", str(info)] + cmd[1:], {"PATH": "/usr/bin:/bin"})
"""
# The sandbox's first process: from root (with only CAP_SETUID/SETGID) to the sandbox's uid.
_DROP = """import os, sys
uid = int(sys.argv[1])
os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)
os.execvp(sys.argv[2], sys.argv[2:])
"""


@dataclass(frozen=True)
class SandboxLimits:
    memory_mb: int = 4096  # address space of every process inside
    file_mb: int = 256  # largest file a process may write
    open_files: int = 256
    processes: int = 256  # RLIMIT_NPROC of the sandbox's own uid, and the cgroup's pids.max
    cpu_seconds: int = 600  # RLIMIT_CPU of every process inside (0: none)
    cpus: float = 1.0  # the cgroup's CPU quota, in cores
    connection_mb: int = 4  # the in-memory folder of the IPC sockets
    nice: int = 10  # when no cgroup can be made


HOME = Path("/home/student")  # inside the sandbox only
SOCKETS = Path("/run/agentloop")  # inside only: the IPC sockets (a small tmpfs; judge/cells.py knows it)
# Of the host's /etc, only what Python, SSL and the kernel read (autograder/README.md says why).
ETC_FILES = ("hosts", "localtime", "fonts")
SYSTEM = ("/usr",)
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
UID_BASE = 2_000_000_000  # + grader pid * 16 + n: a uid nobody else has (bubblewrap wants < 2**31)
MB = 2**20
_serial = itertools.count()


@dataclass
class Sandbox:
    """One submission's connection folder, cgroup and uid, and the command that confines its kernel."""

    hidden: list[Path]  # folders that must not be visible even inside what the kernel needs
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    run: Path = field(init=False)
    uid: int | None = field(init=False)  # the kernel's uid, if the grader (root) picks one
    cpu_share: str = field(init=False)
    cgroups: list[Path] = field(init=False)

    def __post_init__(self):
        self.run = Path(tempfile.mkdtemp(prefix="agentloop-sandbox-")).resolve()
        serial = next(_serial) % 16
        self.uid = UID_BASE + os.getpid() * 16 + serial if os.geteuid() == 0 else None
        self.cpu_share, self.cgroups = cgroups.make(f"agentloop-{os.getpid()}-{serial}", self.limits.processes, self.limits.cpus,
                                                  self.limits.memory_mb)
        uid = self.uid if self.uid is not None else os.getuid()
        (self.run / "passwd").write_text(f"student:x:{uid}:{uid}:student:{HOME}:/usr/sbin/nologin\n")
        (self.run / "group").write_text(f"student:x:{uid}:\n")

    @property
    def cwd(self) -> Path:
        return HOME

    def describe(self) -> str:
        """One line for the grade log: who the kernel runs as, and what bounds it."""
        lim = self.limits
        who = f"uid {self.uid}" if self.uid is not None else f"the grader's uid {os.getuid()}"
        memory = f", {lim.memory_mb} MB in all" if self.cpu_share.endswith("memory") else ""
        share = (f"{self.cpu_share} (pids.max {lim.processes}, {lim.cpus:g} CPU{memory})" if self.cpu_share
                 else f"nice +{lim.nice} (no cgroup here)")
        return (f"bwrap: kernel as {who}; RLIMIT_CPU {lim.cpu_seconds or 'none'} s, RLIMIT_NPROC "
                f"{lim.processes}, {lim.memory_mb} MB address space; sockets on a {lim.connection_mb} MB "
                f"tmpfs; CPU share: {share}")

    def close(self) -> None:
        """Remove the cgroup (killing anything left in it) and the connection folder."""
        cgroups.remove(self.cgroups)
        self.cgroups = []
        remove_tree(self.run)

    def command(self, kernel_argv: list[str]) -> list[str]:
        """The kernel's argv wrapped: rlimits and cgroup, then bubblewrap, then the uid drop."""
        lim = self.limits
        rlimits = {"RLIMIT_AS": lim.memory_mb * MB, "RLIMIT_FSIZE": lim.file_mb * MB,
                   "RLIMIT_NOFILE": lim.open_files, "RLIMIT_CPU": lim.cpu_seconds}
        if self.uid is not None or os.getuid() != 0:  # the kernel ignores RLIMIT_NPROC for root
            rlimits["RLIMIT_NPROC"] = lim.processes
        cfg = {"rlimits": {k: v for k, v in rlimits.items() if v > 0}, "uid": self.uid,
               "cgroups": [str(g) for g in self.cgroups], "nice": 0 if self.cgroups else lim.nice,
               "connection": str(self.run / "kernel.json"), "info": str(self.info)}
        drop = [sys.executable, "-I", "-S", "-c", _DROP, str(self.uid)] if self.uid is not None else []
        return ([sys.executable, "-I", "-S", "-c", _LAUNCHER, json.dumps(cfg)]
                + bwrap_argv(self.run, self.hidden, self.limits, self.uid is not None) + ["--"] + drop + kernel_argv)

    @property
    def info(self) -> Path:
        return self.run / "bwrap-info.json"


def _covered(path: Path, by) -> bool:
    return any(path == p or path.is_relative_to(p) for p in by)


def _parents(paths) -> list[str]:
    """Every missing parent of `paths` made 0755 (bubblewrap makes them 0700, root's, which the
    sandbox's uid could not pass)."""
    parents = {q for p in paths for q in p.parents if q != Path("/")}
    return [arg for q in sorted(parents, key=lambda p: len(p.parts)) for arg in ("--perms", "0755", "--dir", str(q))]


def bwrap_argv(run: Path, hidden: list[Path], limits: SandboxLimits = SandboxLimits(),
               drop: bool = False) -> list[str]:
    """An empty root with, read-only, /usr, a few /etc files, Python, `workbook/` and `chapters/`;
    size-capped writable HOME, /tmp, /dev/shm, agent_files/out and SOCKETS; the connection file."""
    argv = ["bwrap", "--dev", "/dev", "--proc", "/proc"]
    for top in SYSTEM:
        argv += ["--ro-bind", top, top]
    for top in TOP_LINKS:  # merged /usr: /bin -> usr/bin
        if Path(top).is_symlink():
            argv += ["--symlink", os.readlink(top), top]
        elif Path(top).is_dir():
            argv += ["--ro-bind", top, top]
    needed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)} | pth_folders()
    needed |= {REPO / "workbook", REPO / "chapters", REPO / "README.md"}
    targets = needed | {run / "kernel.json", HOME, SOCKETS, REPO / "agent_files", Path("/etc/passwd")}
    argv += _parents(targets)
    argv += ["--ro-bind", str(run / "passwd"), "/etc/passwd", "--ro-bind", str(run / "group"), "/etc/group"]
    for name in ETC_FILES:
        if Path("/etc", name).exists():  # localtime is a link: bind what it points to
            argv += ["--ro-bind", str(Path("/etc", name).resolve()), f"/etc/{name}"]
    # In-memory folders first: a clone or a venv under /tmp is bound on top of them below.
    argv += ["--perms", "1777", "--size", str(64 * MB), "--tmpfs", "/tmp",
             "--perms", "1777", "--size", str(MB), "--tmpfs", "/dev/shm",
             "--perms", "0777", "--size", str(256 * MB), "--tmpfs", str(HOME),
             "--perms", "0777", "--dir", str(HOME / ".ipython"),
             "--perms", "0777", "--size", str(limits.connection_mb * MB), "--tmpfs", str(SOCKETS)]
    argv += _parents(targets)  # again, for what lies under /tmp (a clone, a venv, the run folder)
    for path in sorted(needed, key=lambda p: len(p.parts)):
        if path.exists() and not _covered(path, [Path(t) for t in SYSTEM if t != str(path)]):
            argv += ["--ro-bind", str(path), str(path)]
    for path in sorted({Path(h).resolve() for h in hidden}, key=lambda p: len(p.parts)):
        if path.is_dir() and _covered(path, needed | {Path(t) for t in SYSTEM}):
            argv += ["--size", "65536", "--tmpfs", str(path), "--remount-ro", str(path)]
    files = REPO / "agent_files"
    argv += ["--perms", "0755", "--size", str(64 * MB), "--tmpfs", str(files)]
    for entry in sorted(files.iterdir()) if files.is_dir() else []:
        if entry.name not in ("out", "__pycache__") and not entry.name.startswith("."):
            argv += ["--ro-bind", str(entry), str(files / entry.name)]
    argv += ["--perms", "0777", "--dir", str(files / "out"),
             "--ro-bind-try", str(run / "kernel.json"), str(run / "kernel.json"), "--remount-ro", "/"]
    env = {"HOME": HOME, "IPYTHONDIR": HOME / ".ipython", "TMPDIR": "/tmp", "JUPYTER_RUNTIME_DIR": "/tmp",
           "MPLCONFIGDIR": "/tmp/matplotlib", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "USER": "student",
           "PYDEVD_DISABLE_FILE_VALIDATION": "1",
           test_cells.OFF: "0",  # graded, a test cell never runs in the kernel: no hook for one
           "PYTHONPATH": REPO}  # `import workbook` from any venv (the judge's too): here REPO holds only what is bound
    argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--die-with-parent", "--cap-drop", "ALL", "--clearenv"]
    if drop:  # only for the first process inside, which drops to the sandbox's uid at once
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    for name, value in env.items():
        argv += ["--setenv", name, str(value)]
    return argv + ["--chdir", str(HOME)]


def pth_folders() -> set[Path]:
    """What the .pth files of this Python's site folders add to its path (a venv layered on the
    course's, the hub's students' copy): the kernel's Python reads the same files, so it needs them.
    Never the repository or a folder above it (its solutions)."""
    found = set()
    for site in {Path(p) for p in sys.path if Path(p).name in ("site-packages", "dist-packages")}:
        for pth in sorted(site.glob("*.pth")) if site.is_dir() else ():
            for line in pth.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.strip() and not line.startswith(("#", "import ", "import\t")):
                    path = (site / line.strip()).resolve()
                    if path.is_dir() and not REPO.is_relative_to(path):
                        found.add(path)
    return found


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


def remove_tree(path: str | Path) -> None:
    """Remove a folder a kernel wrote in, whatever it made: shutil.rmtree recurses once per level
    and a tree of ~1,000 levels (red team 14) raises RecursionError, which ignore_errors does not
    catch; then `rm -rf`, which walks without recursion and follows no link."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        pass
    if os.path.lexists(path):
        subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class SandboxKernelManager(CappedKernelManager):
    """A kernel manager whose kernel starts inside `Sandbox.command` and talks over IPC sockets in
    the sandbox's own in-memory SOCKETS folder, which the grader reaches as /proc/<pid>/root/..."""

    sandbox_prefix = List(Unicode())  # everything before the kernel's own argv
    sandbox_info = Unicode()  # the file where bubblewrap writes the sandbox's pid

    def format_kernel_cmd(self, extra_arguments=None):
        return list(self.sandbox_prefix) + super().format_kernel_cmd(extra_arguments)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        self.ip = str(SOCKETS / "ipc")  # the kernel's view, as written in its connection file
        await super()._async_launch_kernel(kernel_cmd, **kw)
        deadline, process = time.monotonic() + 60, self.provisioner.process
        while (pid := _child_pid(Path(self.sandbox_info))) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the sandbox did not start (bubblewrap exit status {process.poll()})")
            await asyncio.sleep(0.005)
        self.ip = f"/proc/{pid}/root{SOCKETS}/ipc"  # the grader's view of the same sockets


def seal_sockets(km) -> None:
    """Once the grader has connected, the kernel may no longer add, rename or remove anything in
    its SOCKETS folder (0755, owned by the grader; the kernel's uid is another). Else a kernel could
    drop a socket, put a symlink in its place and have the grader's reconnect follow it to any host
    socket (red team, issue 24). The kernel still connects to what the grader binds there later
    (the judge's socket, 0777). A kernel manager of no sandbox has nothing to seal."""
    pid = sandbox_pid(km)
    if pid is not None:
        os.chmod(f"/proc/{pid}/root{SOCKETS}", 0o755)  # a mount point in a read-only /run


def sandbox_pid(km) -> int | None:
    """The sandbox's first process, from the grader's view of the kernel's sockets (None: no sandbox)."""
    found = re.match(r"/proc/(\d+)/root/", str(getattr(km, "ip", "")))
    return int(found.group(1)) if found else None


def _child_pid(info: Path) -> int | None:
    try:
        return int(json.loads(info.read_text())["child-pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def kernel_manager(sandbox: Sandbox, kernel_name: str, config) -> SandboxKernelManager:
    km = SandboxKernelManager(kernel_name=kernel_name, config=config, transport="ipc",
                              ip=str(SOCKETS / "ipc"), connection_file=str(sandbox.run / "kernel.json"))
    km.sandbox_prefix = sandbox.command([])
    km.sandbox_info = str(sandbox.info)
    return km
