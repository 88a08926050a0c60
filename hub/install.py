#!/usr/bin/env python3
"""The course's JupyterHub on one Debian or Ubuntu machine, in one command (docs/HUB.md). As root,
from the repository (a clone in a folder every account can enter, e.g. /opt/agent-loop):

    sudo hub/install.py --instructor ines --students ada,ben [--dry-run]

It runs these steps in order, each only when it is not done yet, so a second run changes nothing
and says so: system packages (apt: bubblewrap, npm, python3-venv), configurable-http-proxy (npm),
the course's venv, the course and JupyterHub in it (pip, pinned by requirements.lock), the
accounts (useradd), their passwords (passwd, or chpasswd from --passwords), homes only their owner
can open (chmod 700), the hub's settings, exchange and course copies (hub/setup_hub.py: the
instructor's, and the students' copy their servers run from), the clone closed to all but root and
the instructor (chgrp, chmod 750: it holds the solutions and hidden tests), and a systemd unit that
starts the hub at boot (or, without systemd, the command that starts it). A run that only adds
students restarts nothing: setup_hub.py adds them to the running hub through its API.
--dry-run prints every step and what it would run, and changes nothing (root not needed).
Only the standard library: it runs before the venv exists.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from setup_hub import DEFAULT_STATE, runnable_by_all  # noqa: E402  (stdlib only, like this file)

REPO = HERE.parent
UNIT = Path("/etc/systemd/system/agent-loop-hub.service")
# configurable-http-proxy's newest release each Node.js accepts (its package.json "engines":
# 5.2.0 and later need node >= 20, 5.0-5.1 node >= 18; npm view, 2026-12-04). 5.3.0 is tested here.
PROXY_FOR_NODE = ((20, "5.3.0"), (18, "5.1.0"))


@dataclass
class Write:
    """A file the step writes (shown, never run)."""
    path: Path
    text: str

    def __str__(self) -> str:
        return f"write {self.path} ({len(self.text.splitlines())} lines)"


@dataclass
class Run:
    """A command the step runs; `stdin` is fed to it and never printed (passwords)."""
    argv: list[str]
    stdin: str | None = None
    shown: str = ""

    def __str__(self) -> str:
        return self.shown or shlex.join(self.argv)


@dataclass
class Step:
    title: str
    actions: list = field(default_factory=list)  # Run and Write, in order; empty when done
    done: str = ""  # why nothing needs doing


class Machine:
    """What the plan reads from this machine (tests hand the plan a fake one)."""

    def euid(self) -> int:
        return os.geteuid()

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def has_ensurepip(self) -> bool:
        return subprocess.run([sys.executable, "-c", "import ensurepip"], capture_output=True).returncode == 0

    def account(self, name: str):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            return None

    def mode(self, path: str) -> int | None:
        try:
            return os.stat(path).st_mode & 0o777
        except OSError:
            return None

    def group(self, path: Path) -> str | None:
        """The name of the group that owns `path` (its gid when the group has no name)."""
        import grp

        gid = os.stat(path).st_gid
        try:
            return grp.getgrgid(gid).gr_name
        except KeyError:
            return str(gid)

    def group_members(self, name: str) -> set[str] | None:
        """The accounts in group `name` (as their primary group or added to it); None: no such group."""
        import grp

        try:
            group = grp.getgrnam(name)
        except KeyError:
            return None
        return set(group.gr_mem) | {p.pw_name for p in pwd.getpwall() if p.pw_gid == group.gr_gid}

    def shadow(self) -> dict[str, str] | None:
        """account -> its password field, or None when /etc/shadow cannot be read (not root)."""
        try:
            lines = Path("/etc/shadow").read_text().splitlines()
        except OSError:
            return None
        return {p[0]: p[1] for p in (line.split(":") for line in lines) if len(p) > 1}

    def node_major(self) -> int | None:
        """Node.js's major version: the installed one, else the one apt would install."""
        if self.which("node"):
            out = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout
        elif self.which("apt-cache"):
            out = subprocess.run(["apt-cache", "policy", "nodejs"], capture_output=True, text=True).stdout
            out = re.sub(r"(?s).*?Candidate:\s*", "", out) if "Candidate:" in out else ""
        else:
            return None
        found = re.search(r"(\d+)\.\d+", out)
        return int(found.group(1)) if found else None

    def exists(self, path: Path) -> bool:
        return path.exists()

    def readable_by_all(self, path: Path) -> bool:
        return runnable_by_all(path)

    def read(self, path: Path) -> str | None:
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            return None

    def systemd(self) -> bool:
        return Path("/run/systemd/system").is_dir() and self.which("systemctl") is not None

    def unit_on(self) -> bool:
        """The hub's unit is enabled and running."""
        return all(subprocess.run(["systemctl", verb, "--quiet", UNIT.stem]).returncode == 0
                   for verb in ("is-enabled", "is-active"))


def proxy_version(node: int | None) -> str | None:
    return next((version for least, version in PROXY_FOR_NODE if node is not None and node >= least), None)


def stamp_text() -> str:
    """What the pip step installed from: pyproject.toml and the lock (as the Makefile's stamp)."""
    digest = hashlib.sha256()
    for name in ("pyproject.toml", "requirements.lock"):
        digest.update((REPO / name).read_bytes())
    return f"pip install -c requirements.lock -e '.[hub]' of {digest.hexdigest()}\n"


def settings_args(args) -> list[str]:
    return ["--instructor", args.instructor, "--students", ",".join(args.students), "--state", str(args.state),
            "--course-id", args.course_id, "--port", str(args.port), "--start-timeout", str(args.start_timeout)]


def unit_text(args) -> str:
    venv = Path(args.venv)
    return (f"[Unit]\nDescription=Agent Loop by Hand: the course's JupyterHub ({REPO}/docs/HUB.md)\n"
            "After=network.target\n\n[Service]\n"
            f"Environment=HUB_SETTINGS={args.state}/hub.json\nWorkingDirectory={args.state}\n"
            f"ExecStart={venv}/bin/jupyterhub -f {REPO}/hub/jupyterhub_config.py\nRestart=on-failure\n\n"
            "[Install]\nWantedBy=multi-user.target\n")


def start_command(args) -> str:
    return (f"HUB_SETTINGS={args.state}/hub.json {Path(args.venv)}/bin/jupyterhub "
            f"-f {REPO}/hub/jupyterhub_config.py")


def problems(args, m: Machine) -> list[str]:
    """What this machine lacks that no step installs, each with what to do."""
    found = []
    if sys.version_info < (3, 11):  # noqa: UP036 - this runs on the system's Python, not the venv's
        found.append(f"Python 3.11 or newer makes the course's venv (this is {sys.version.split()[0]}): "
                     "run the installer with it, e.g. `sudo python3.11 hub/install.py ...`")
    if not args.dry_run and m.euid() != 0:
        found.append("run as root (sudo): it installs packages, makes accounts and starts the hub")
    needs_apt = [p for p, have in apt_packages(m) if not have]
    if needs_apt and not m.which("apt-get"):
        found.append(f"{', '.join(needs_apt)} missing and no apt-get here (the installer is for Debian/Ubuntu): "
                     "install them with this system's package manager, then run it again")
    if not m.which("configurable-http-proxy") and proxy_version(m.node_major()) is None:
        found.append(f"configurable-http-proxy needs Node.js 18 or newer (found {m.node_major() or 'none'}): "
                     "install a newer Node.js (e.g. NodeSource's packages), then run it again")
    if not m.readable_by_all(REPO.parent):
        found.append(f"{REPO.parent} cannot be entered by other accounts, and the instructor's server reads "
                     f"{REPO} (hub/instructor/, autograder/): clone the course elsewhere (e.g. /opt/agent-loop)")
    members = m.group_members(args.instructor)
    if members and (shared := sorted(set(args.students) & members)):
        found.append(f"{', '.join(shared)} in the group {args.instructor}, which may read the clone (its solutions "
                     f"and hidden tests): take them out of it (gpasswd -d NAME {args.instructor})")
    if args.passwords and not Path(args.passwords).is_file():
        found.append(f"--passwords {args.passwords}: no such file")
    return found


def apt_packages(m: Machine) -> list[tuple[str, bool]]:
    return [("bubblewrap", bool(m.which("bwrap"))), ("npm", bool(m.which("npm"))),
            ("python3-venv", m.has_ensurepip())]


def plan(args, m: Machine) -> list[Step]:
    """Every step in order, each with what it would run now (nothing when it is done)."""
    venv, state, names = Path(args.venv), Path(args.state), [args.instructor, *args.students]
    steps = [Step("system packages (apt)"), Step("configurable-http-proxy (npm)"), Step("the course's venv"),
             Step("the course and JupyterHub in the venv (pip, requirements.lock)"), Step("the accounts (useradd)"),
             Step("their passwords"), Step("homes only their owner opens (chmod 700)"),
             Step("the hub's settings, exchange and course copies (hub/setup_hub.py)"),
             Step("the clone only root and the instructor read (chgrp, chmod 750)"), Step("the hub starts at boot")]
    apt, proxy, made, pip, users, passwords, homes, setup, closed, boot = steps

    needed = [p for p, have in apt_packages(m) if not have]
    apt.actions = [Run(["apt-get", "update", "-qq"]), Run(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get",
                                                           "install", "-y", "-qq", *needed])] if needed else []
    apt.done = "bubblewrap, npm and python3-venv are installed"
    if not m.which("configurable-http-proxy"):
        proxy.actions = [Run(["npm", "install", "-g", f"configurable-http-proxy@{proxy_version(m.node_major())}"])]
    proxy.done = f"{m.which('configurable-http-proxy')}"
    if not m.exists(venv / "bin" / "python"):
        made.actions = [Run([sys.executable, "-m", "venv", str(venv)])]
    made.done = f"{venv} exists"
    if m.read(venv / ".hub-installed-stamp") != stamp_text():
        pip.actions = [Run([f"{venv}/bin/python", "-m", "pip", "install", "-q", "--disable-pip-version-check",
                            "-c", "requirements.lock", "-e", ".[hub]"]), Write(venv / ".hub-installed-stamp", stamp_text())]
    pip.done = "installed from today's pyproject.toml and requirements.lock"

    new = [n for n in names if m.account(n) is None]
    users.actions = [Run(["useradd", "-m", "-s", "/bin/bash", n]) for n in new]
    users.done = f"{', '.join(names)} exist"
    shadow = m.shadow()  # a locked (!, *) or empty field cannot log in to the hub (PAM)
    lacking = [n for n in names if n in new or (shadow is not None and shadow.get(n, "!")[:1] in ("", "!", "*"))]
    given = {ln.split(":")[0]: ln for ln in Path(args.passwords).read_text().splitlines()} if args.passwords else {}
    if from_file := [n for n in lacking if n in given]:
        passwords.actions = [Run(["chpasswd"], "".join(given[n] + "\n" for n in from_file),
                                 f"chpasswd < {args.passwords}  ({', '.join(from_file)})")]
    passwords.actions += [Run(["passwd", n], shown=f"passwd {n}  (asks for {n}'s password here)")
                          for n in lacking if n not in given]
    passwords.done = "every account has one" if shadow is not None else \
        "not checked: only root reads /etc/shadow"
    homes_of = {n: (m.account(n).pw_dir if m.account(n) else f"/home/{n}") for n in names}
    homes.actions = [Run(["chmod", "700", h]) for n, h in homes_of.items() if n in new or m.mode(h) != 0o700]
    homes.done = "each home is 700"

    settings = m.read(state / "hub.json")
    asked = {"instructor": args.instructor, "students": args.students, "course_id": args.course_id,
             "exchange": str(state / "exchange"), **({"port": args.port} if args.port else {})}  # 0: any port
    try:
        current = json.loads(settings) if settings else {}
    except ValueError:
        current = {}
    # a hub.json without the students' copy predates it: its servers would run from the clone;
    # one without the setup token predates the closed database and exchange (issue 46)
    if new or not {"student_course", "setup_token"} <= set(current) or any(current.get(k) != v for k, v in asked.items()):
        setup.actions = [Run([f"{venv}/bin/python", str(HERE / "setup_hub.py"), *settings_args(args)])]
    setup.done = f"{state}/hub.json already has this instructor, these students, course id and port"
    if m.group(REPO) != args.instructor or m.mode(str(REPO)) != 0o750:
        closed.actions = [Run(["chgrp", args.instructor, str(REPO)]), Run(["chmod", "750", str(REPO)])]
    closed.done = f"{REPO} is 750, group {args.instructor}"

    if args.no_systemd or not m.systemd():
        boot.done = f"{'--no-systemd' if args.no_systemd else 'no systemd here'}: the last line says how to start it"
    else:
        changed = m.read(UNIT) != unit_text(args)
        boot.done = f"{UNIT} is enabled and running"
        if changed:
            boot.actions = [Write(UNIT, unit_text(args)), Run(["systemctl", "daemon-reload"])]
        if changed or (setup.actions and not only_new_students(args, current)):
            boot.actions += [Run(["systemctl", "enable", UNIT.stem]), Run(["systemctl", "restart", UNIT.stem])]
        elif setup.actions and m.unit_on():
            boot.done = f"{UNIT} is running; setup adds the new students to it (no server stops)"
        elif not m.unit_on():
            boot.actions = [Run(["systemctl", "enable", "--now", UNIT.stem])]
    return steps


def only_new_students(args, current: dict) -> bool:
    """The settings differ from the running hub's only by new students, which setup_hub.py adds to
    it through its API (hub/hub_state.py): no restart, which would stop every student's server."""
    same = {"instructor": args.instructor, "course_id": args.course_id, **({"port": args.port} if args.port else {})}
    return (bool(current.get("setup_token")) and "student_course" in current
            and all(current.get(k) == v for k, v in same.items())
            and set(current.get("students", [])) <= set(args.students))


def run(steps: list[Step], dry_run: bool) -> int:
    """Print each step; unless dry_run, do what it lists. Returns how many steps changed something."""
    changed = 0
    for i, step in enumerate(steps, 1):
        if not step.actions:
            print(f"[{i}/{len(steps)}] {step.title}: nothing to do ({step.done})")
            continue
        changed += 1
        print(f"[{i}/{len(steps)}] {step.title}:{' would run' if dry_run else ''}")
        for action in step.actions:
            print(f"      {action}", flush=True)
            if dry_run:
                continue
            if isinstance(action, Write):
                action.path.write_text(action.text, encoding="utf-8")
            else:
                subprocess.run(action.argv, input=action.stdin, text=True, check=True, cwd=REPO)
    return changed


def main(argv: list[str] | None = None, machine: Machine | None = None) -> int:
    m = machine or Machine()
    if (sys.argv[1:] if argv is None else argv) == ["--proxy-version"]:  # .ci/run: the release to install
        if version := proxy_version(m.node_major()):
            print(version)
            return 0
        print(f"error: configurable-http-proxy needs Node.js 18 or newer (found {m.node_major()})", file=sys.stderr)
        return 2
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--instructor", required=True, help="the instructor's account (made when missing)")
    p.add_argument("--students", required=True, help="the students' accounts, comma-separated (made when missing)")
    p.add_argument("--passwords", help="a file of account:password lines (chpasswd's format) for accounts "
                   "without one; else passwd asks for each here")
    p.add_argument("--state", default=str(DEFAULT_STATE), help=f"the hub's folder (default {DEFAULT_STATE})")
    p.add_argument("--venv", default=str(REPO / ".venv"), help="the course's venv (default: .venv of the repository)")
    p.add_argument("--course-id", default="agent-loop-by-hand", help="nbgrader's course id")
    p.add_argument("--port", type=int, default=8000, help="the hub's port on 127.0.0.1 (default 8000)")
    p.add_argument("--start-timeout", type=int, default=180, help="seconds a server may take to start (180)")
    p.add_argument("--no-systemd", action="store_true", help="write no unit; print the command that starts the hub")
    p.add_argument("--dry-run", action="store_true", help="print every step and what it would run; change nothing")
    args = p.parse_args(argv)
    args.students = [s for s in args.students.split(",") if s]
    if not args.students or args.instructor in args.students:
        p.error("--students needs at least one account, and not the instructor's")
    if found := problems(args, m):
        print("error: this machine lacks what the hub needs:\n" + "\n".join(f"  - {f}" for f in found),
              file=sys.stderr)
        return 2
    if args.dry_run and m.euid() != 0:
        print("dry run, not as root: a real run needs sudo")
    if not args.dry_run:
        os.umask(0o022)  # what pip and useradd make must be readable by the accounts (a root umask of 077 is not)
    try:
        changed = run(plan(args, m), args.dry_run)
    except subprocess.CalledProcessError as e:
        print(f"error: `{shlex.join(e.cmd)}` failed ({e.returncode}); fix it and run the same command again "
              "(the steps already done are skipped)", file=sys.stderr)
        return 1
    if not changed:
        print("nothing changed: every step was already done")
    elif args.dry_run:
        print(f"dry run: {changed} step(s) would change this machine; nothing was changed")
    if args.no_systemd or not m.systemd():
        print(f"start the hub (it stops with its terminal; docs/HUB.md): sudo {start_command(args)}")
    port = args.port or json.loads(m.read(Path(args.state, "hub.json")) or "{}").get("port", "(the port setup chose)")
    print(f"the hub: http://127.0.0.1:{port} (put HTTPS in front of it for a network; docs/HUB.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
