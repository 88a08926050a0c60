"""The steps hub/install.py runs, in order, each with what it would run on this machine now
(nothing when it is already done), and what the machine lacks that no step installs. It reads
the machine only through `install_machine.Machine`, so a test can hand it a stand-in. Only the
standard library: the installer runs before the venv exists.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from install_machine import UNIT, Machine, apt_packages, proxy_version  # hub/ is on the path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


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
    boot.actions, boot.done = _boot(args, m, current, bool(setup.actions))
    return steps


def _boot(args, m: Machine, current: dict, setup_runs: bool) -> tuple[list, str]:
    """The last step: the systemd unit written, enabled and (re)started when it must be."""
    if args.no_systemd or not m.systemd():
        why = "--no-systemd" if args.no_systemd else "no systemd here"
        return [], f"{why}: the hub runs in a root terminal (below: how to start it, unless it is running)"
    changed = m.read(UNIT) != unit_text(args)
    actions: list = [Write(UNIT, unit_text(args)), Run(["systemctl", "daemon-reload"])] if changed else []
    if changed or (setup_runs and not only_new_students(args, current)):
        return actions + [Run(["systemctl", "enable", UNIT.stem]), Run(["systemctl", "restart", UNIT.stem])], ""
    if setup_runs and m.unit_on():
        return [], f"{UNIT} is running; setup adds the new students to it (no server stops)"
    if not m.unit_on():
        return [Run(["systemctl", "enable", "--now", UNIT.stem])], ""
    return [], f"{UNIT} is enabled and running"


def only_new_students(args, current: dict) -> bool:
    """The settings differ from the running hub's only by new students, which setup_hub.py adds to
    it through its API (hub/hub_state.py): no restart, which would stop every student's server."""
    same = {"instructor": args.instructor, "course_id": args.course_id, **({"port": args.port} if args.port else {})}
    return (bool(current.get("setup_token")) and "student_course" in current
            and all(current.get(k) == v for k, v in same.items())
            and set(current.get("students", [])) <= set(args.students))
