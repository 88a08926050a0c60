"""The sandbox's world (issue 25, item 1): an unprivileged uid, a minimal /etc, no host folders,
a size-capped in-memory connection folder, RLIMIT_CPU, a process cap that binds, a CPU share."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from traitlets.config import Config

from autograder.sandbox import cgroups, sandbox
from workbook.mcp_servers import run_async

pytestmark = pytest.mark.skipif(sandbox.bwrap_problem() is not None, reason=str(sandbox.bwrap_problem()))
PY = sys.executable


def _run(argv, limits=None, timeout=60) -> tuple[subprocess.CompletedProcess, float]:
    box = sandbox.Sandbox(hidden=[], limits=limits or sandbox.SandboxLimits())
    started = time.monotonic()
    try:
        done = subprocess.run(box.command(argv), capture_output=True, text=True, timeout=timeout)
        return done, time.monotonic() - started
    finally:
        box.close()


def _sh(script: str, **kw) -> subprocess.CompletedProcess:
    return _run(["/bin/sh", "-c", script], **kw)[0]


@pytest.fixture
def root_only_files():
    """0600 root-owned files under /etc and /opt (only a root grader can make them)."""
    if os.geteuid() != 0:
        pytest.skip("making root-only host files needs root")
    made = []
    for folder in (Path("/etc"), Path("/opt")):
        folder.mkdir(exist_ok=True)
        path = folder / f"agentloop-secret-{os.getpid()}"
        path.write_text("root-only secret\n")
        path.chmod(0o600)
        made.append(path)
    yield made
    for path in made:
        path.unlink(missing_ok=True)


def test_the_kernel_runs_as_an_unprivileged_uid_that_cannot_regain_root():
    out = _sh(f"id -u; id -un; grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status; "
              f"{PY} -c 'import os; os.setuid(0)' 2>/dev/null || echo no-setuid").stdout.split()
    assert out[0] != "0" and out[1] == "student", f"not root, and named in the sandbox's passwd: {out}"
    assert out[2:] == ["CapPrm:", "0000000000000000", "CapEff:", "0000000000000000", "NoNewPrivs:", "1",
                       "no-setuid"], f"no capabilities, no new privileges, no way back to root: {out}"
    if os.geteuid() == 0:
        assert int(out[0]) >= sandbox.UID_BASE, "a root grader gives each sandbox a uid of its own"


def test_root_only_host_files_cannot_be_read(root_only_files):
    secrets = " ".join(str(p) for p in root_only_files)
    out = _sh(f"cat {secrets} /etc/shadow /root/.bash_history 2>/dev/null; echo end").stdout
    assert out.split() == ["end"], f"nothing root-only from the host is readable: {out!r}"


def test_etc_holds_only_the_listed_files_and_no_host_folder_is_there():
    out = _sh("ls -A /etc; echo --; ls -A /; echo --; ls -A /home; echo --; ls -A /run").stdout.split("--")
    etc = sorted(out[0].split())
    assert etc == sorted({"passwd", "group"} | {n.split("/")[0] for n in sandbox.ETC_FILES
                                                 if Path("/etc", n).exists()}), etc
    top = set(out[1].split())
    assert not top & {"opt", "srv", "mnt", "media", "var", "boot"}, f"no host folders: {top}"
    assert out[2].split() == ["student"], "/home holds only the sandbox's HOME"
    assert out[3].split() == [sandbox.SOCKETS.name], "/run holds only the sandbox's sockets"


def test_a_fork_bomb_is_stopped_by_the_process_cap():
    bomb = ("import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n"
            "            time.sleep(60); os._exit(0)\n        n += 1\n"
            "except OSError as e:\n    print('stopped', n, e.errno)\n")
    done, seconds = _run([PY, "-c", bomb], limits=sandbox.SandboxLimits(processes=32))
    words = done.stdout.split()
    assert words[:1] == ["stopped"] and int(words[1]) < 32, done
    assert seconds < 30, f"stopped by count, not by a clock: {seconds:.1f} s"


def test_the_memory_cap_is_for_the_whole_sandbox():
    """RLIMIT_AS bounds one process: three children holding 600 MB each under a 1024 MB cap are
    more than the sandbox may hold together, and the cgroup stops them (red team, issue 24)."""
    box = sandbox.Sandbox(hidden=[], limits=sandbox.SandboxLimits(memory_mb=1024))
    box.close()
    if not box.cpu_share.endswith("memory"):
        pytest.skip(f"no memory controller the grader may use here ({box.cpu_share or 'no cgroup'})")
    hog = ("import os, time\nkids = []\nfor _ in range(3):\n    pid = os.fork()\n    if pid == 0:\n"
           "        block = bytearray(600 << 20)\n        for i in range(0, len(block), 4096):\n            block[i] = 1\n"
           "        time.sleep(2); os._exit(0)\n    kids.append(pid)\n"
           "codes = [os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids]\nprint(sorted(codes))\n")
    done, seconds = _run([PY, "-c", hog], limits=sandbox.SandboxLimits(memory_mb=1024), timeout=120)
    codes = done.stdout.strip()
    assert codes and "-9" in codes, f"a child past the sandbox's memory is killed: {done}"
    assert seconds < 60, f"{seconds:.1f} s"


def test_a_cpu_loop_is_stopped_by_rlimit_cpu():
    done, seconds = _run([PY, "-c", "while True: pass"], limits=sandbox.SandboxLimits(cpu_seconds=1))
    assert done.returncode in (137, -9), f"killed (SIGKILL at the hard limit): {done}"
    assert seconds < 30, f"after about 1 s of CPU: {seconds:.1f} s"


def test_400_mb_into_the_connection_folder_fails_fast():
    done, seconds = _run(["/bin/sh", "-c", f"head -c 400000000 /dev/zero > {sandbox.SOCKETS}/x; "
                                           f"echo rc=$?; du -sk {sandbox.SOCKETS}"])
    words = done.stdout.split()
    assert words[0] == "rc=1" and "No space left" in done.stderr, done
    assert int(words[1]) <= sandbox.SandboxLimits().connection_mb * 1024, "capped at its size"
    assert seconds < 20, f"{seconds:.1f} s"


def test_the_cpu_share_is_a_cgroup_where_one_can_be_made_and_nice_otherwise(tmp_path, monkeypatch):
    box = sandbox.Sandbox(hidden=[], limits=sandbox.SandboxLimits(processes=40))
    groups = list(box.cgroups)
    try:
        if box.cpu_share:
            pids = next(g for g in box.cgroups if (g / "pids.max").exists())
            assert (pids / "pids.max").read_text().strip() == "40"
            proc = subprocess.Popen(box.command(["/bin/sleep", "30"]))
            try:
                deadline = time.monotonic() + 30
                while not (pids / "cgroup.procs").read_text().split():
                    assert proc.poll() is None and time.monotonic() < deadline, "the sandbox joins its cgroup"
                    time.sleep(0.02)
            finally:
                proc.kill()
                proc.wait()
            assert box.describe().count("cgroup v") == 1, box.describe()
    finally:
        box.close()
    assert not any(g.exists() for g in groups), "close() removes the cgroup"
    monkeypatch.setattr(cgroups, "CGROUP", tmp_path)  # no controllers here: nice instead
    nice = _sh("cut -d' ' -f19 /proc/self/stat").stdout.split()
    assert nice == [str(min(os.nice(0) + sandbox.SandboxLimits().nice, 19))], nice
    box = sandbox.Sandbox(hidden=[])
    assert "nice +10" in box.describe() and not box.cgroups, box.describe()
    box.close()


async def _kernel_cell(code: str, seal: bool = False) -> str:
    box = sandbox.Sandbox(hidden=[])
    km = sandbox.kernel_manager(box, "python3", Config())
    try:
        await km.start_kernel(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=120)
        if seal:
            sandbox.seal_sockets(km)
        msg_id, out = kc.execute(code), []
        while True:
            msg = await kc.get_iopub_msg(timeout=120)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                out.append(f"{msg['content']['ename']}: {msg['content']['evalue']}")
            elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        kc.stop_channels()
        assert km.ip.startswith("/proc/"), "the grader reaches the sockets through the sandbox's root"
        return "".join(out)
    finally:
        await km.shutdown_kernel(now=True)
        box.close()
        assert not box.run.exists()


def test_a_kernel_starts_imports_the_course_and_cannot_fill_its_connection_folder():
    code = ("import os, openai, anthropic, httpx2, ipykernel, matplotlib\n"
            "print(os.getuid() != 0, sorted(n.split('-')[0] for n in os.listdir('/run/agentloop')))\n"
            "try:\n    with open('/run/agentloop/fill', 'wb') as f:\n"
            "        for _ in range(400):\n            f.write(b'0' * 2**20)\nexcept OSError as e:\n"
            "    print('full', e.errno)\n")
    out = run_async(lambda: _kernel_cell(code), timeout=600)  # a backstop, not a limit
    assert out.split("\n")[:2] == ["True ['ipc', 'ipc', 'ipc', 'ipc', 'ipc']", "full 28"], out


def test_once_sealed_the_kernel_cannot_swap_its_sockets_for_symlinks():
    """A kernel that drops a socket and puts a symlink to a host socket in its place had the root
    grader's reconnect follow it (red team, issue 24). Sealed, the folder takes no new name."""
    code = ("import os\nfor what, act in [('symlink', lambda: os.symlink('/tmp/host.sock', '/run/agentloop/ipc-9')),\n"
            "                  ('rename', lambda: os.rename('/run/agentloop/ipc-3', '/run/agentloop/moved')),\n"
            "                  ('unlink', lambda: os.unlink('/run/agentloop/ipc-3'))]:\n"
            "    try:\n        act()\n        print(what, 'done')\n"
            "    except PermissionError:\n        print(what, 'refused')\n")
    out = run_async(lambda: _kernel_cell(code, seal=True), timeout=600)
    assert out.split() == ["symlink", "refused", "rename", "refused", "unlink", "refused"], out
