"""Set up the course's JupyterHub on one machine (docs/HUB.md; hub/install.py runs it). As root:

    sudo .venv/bin/python hub/setup_hub.py --instructor ines --students ada,ben [--state DIR]

It writes DIR/hub.json (what hub/jupyterhub_config.py reads), makes nbgrader's exchange
(DIR/exchange, 1777 as nbgrader asks), copies the course (solutions/ and chapters/) into the
instructor's home, owned by the instructor, and finds a Python every account can run. Then:

    sudo HUB_SETTINGS=DIR/hub.json .venv/bin/jupyterhub -f hub/jupyterhub_config.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COURSE_PARTS = ("solutions", "chapters", "autograder/mutants")
DEFAULT_STATE = Path("/srv/agent-loop-hub")
TOOLS = ("nbgrader", "alembic", "jupyter")  # commands the accounts' servers run, by module


class SetupError(Exception):
    """Why the hub cannot be set up, in one line."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def runnable_by_all(path: Path) -> bool:
    """True when any account can reach `path` (every folder above it has o+x) and read or run it."""
    path = Path(os.path.realpath(path))
    folders_ok = all(os.stat(p).st_mode & stat.S_IXOTH for p in path.parents)
    return folders_ok and bool(os.stat(path).st_mode & stat.S_IROTH)


def accounts_python(state: Path) -> Path:
    """A Python the accounts can run that imports the course's packages: the course's own when its
    interpreter is readable by all; else (a pyenv under a 0700 /root) a venv of the system's Python
    of the same version whose site-packages reach the course's (they are readable by all)."""
    venv_python = Path(sys.prefix) / "bin" / "python"
    if runnable_by_all(Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}") \
            and runnable_by_all(venv_python):
        return venv_python
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    system = shutil.which(f"python{version}", path="/usr/local/bin:/usr/bin:/bin")
    site = Path(sysconfig.get_paths()["purelib"])
    if system is None or not runnable_by_all(Path(system)):
        raise SetupError(f"the course's Python ({sys.base_prefix}) cannot be run by other accounts and there is "
                         f"no system python{version}: make the course's venv from a Python every account can run")
    if not runnable_by_all(site):
        raise SetupError(f"{site} is not readable by other accounts: the students' servers need it")
    target = state / "python"
    if not (target / "bin" / "python").exists():
        subprocess.run([system, "-m", "venv", "--without-pip", str(target)], check=True)
    own_site = next((target / "lib").glob("python*/site-packages"))
    (own_site / "agent_loop_course.pth").write_text(f"import site; site.addsitedir({str(site)!r})\n")
    for tool in TOOLS:  # scripts whose #! names the course's Python would not run for the accounts
        script = target / "bin" / tool
        script.write_text(f'#!/bin/sh\nexec "{target}/bin/python" -m {tool} "$@"\n')
        script.chmod(0o755)
    return target / "bin" / "python"


def account_env(settings: dict, user: str) -> dict[str, str]:
    """What an account's server (and its nbgrader commands) runs with: hub/student/ or
    hub/instructor/ ahead of the course's own Jupyter settings, the course's lab extensions, the
    accounts' Python first on PATH, and the exchange and course the nbgrader settings read."""
    role = "instructor" if user == settings["instructor"] else "student"
    env = settings["course_env"]
    return {
        "JUPYTER_CONFIG_PATH": f"{REPO / 'hub' / role}:{env}/etc/jupyter",
        "JUPYTER_PATH": f"{env}/share/jupyter",
        "JUPYTERLAB_DIR": f"{env}/share/jupyter/lab",
        "PATH": f"{Path(settings['python']).parent}:/usr/local/bin:/usr/bin:/bin",
        "HUB_EXCHANGE": settings["exchange"], "HUB_COURSE_ID": settings["course_id"],
        "HUB_COURSE_ROOT": settings["course_root"], "HUB_REPO": settings["repo"],
        "LLM_PROVIDER": "fake",  # graded cells use the fake anyway; a live cell needs a key set by hand
    }


def make_user(name: str, homes: Path | None) -> None:
    """A throw-away account for a rehearsal (--create-users); an existing one is left as it is."""
    try:
        pwd.getpwnam(name)
        return
    except KeyError:
        pass
    home = ["-d", str(homes / name)] if homes else []
    subprocess.run(["useradd", "-m", "-s", "/bin/bash", *home, name], check=True)
    os.chmod(pwd.getpwnam(name).pw_dir, 0o700)  # no student reads another's work


def copy_course(source: Path, instructor: str) -> Path:
    """The course (solutions/, chapters/, mutants) in the instructor's home, owned by them. A run
    again (hub/install.py with one more student) adds what is missing and keeps every file there:
    the instructor may have edited them."""
    user = pwd.getpwnam(instructor)
    dest = Path(user.pw_dir) / "agent-loop-course"
    for part in COURSE_PARTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, dest / part, dirs_exist_ok=True, copy_function=_copy_if_missing)
    if not any((dest / "solutions").iterdir()):
        raise SetupError(f"{source} has no solutions/: pass --course a course laid out as this repository")
    for path in [dest, *dest.rglob("*")]:
        os.chown(path, user.pw_uid, user.pw_gid, follow_symlinks=False)
    return dest


def _copy_if_missing(src: str, dst: str) -> str:
    return dst if os.path.lexists(dst) else shutil.copy2(src, dst)


def missing_prerequisite() -> str | None:
    """The first thing the hub needs that this machine lacks, with the command that installs it."""
    if importlib.util.find_spec("jupyterhub") is None:
        return f"jupyterhub is not installed in {sys.prefix}: `{sys.prefix}/bin/pip install -e '.[hub]'`"
    if shutil.which("configurable-http-proxy") is None:
        return "configurable-http-proxy is not installed: `npm install -g configurable-http-proxy`"
    if shutil.which("bwrap") is None:
        return "bubblewrap (the grading sandbox) is not installed: `apt-get install bubblewrap`"
    return None


def setup(args) -> Path:
    if os.geteuid() != 0:
        raise SetupError("run as root: each account's server is started as that account")
    if args.password is not None and len(args.password) < 8:
        raise SetupError("--password must have at least 8 characters (JupyterHub's rule)")
    students = [s for s in args.students.split(",") if s]
    if not students or args.instructor in students:
        raise SetupError("--students needs at least one account, and not the instructor's")
    if problem := missing_prerequisite():
        raise SetupError(problem)
    proxy = shutil.which("configurable-http-proxy")
    state = Path(args.state).resolve()
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o755)
    if args.create_users:
        for name in [args.instructor, *students]:
            make_user(name, Path(args.homes) if args.homes else None)
    missing = [n for n in [args.instructor, *students] if not _exists(n)]
    if missing:
        raise SetupError(f"no such account(s): {', '.join(missing)} (make them, or --create-users for a rehearsal)")
    exchange = state / "exchange"
    exchange.mkdir(exist_ok=True)
    exchange.chmod(0o1777)  # nbgrader: everyone writes; the sticky bit keeps what each made their own
    settings = {
        "state": str(state), "ip": "127.0.0.1", "port": args.port or free_port(),
        "hub_port": free_port(), "proxy_api_port": free_port(), "proxy": proxy,
        "students": students, "instructor": args.instructor,
        "exchange": str(exchange), "course_id": args.course_id,
        "course_root": str(copy_course(Path(args.course).resolve(), args.instructor)),
        "python": str(accounts_python(state)), "course_env": sys.prefix, "repo": str(REPO),
        "auth": "shared-password" if args.password else "pam", "password": args.password or "",
        "start_timeout": args.start_timeout,
        # JupyterHub's shared password is for students; the instructor (an admin) needs their own
        "admin_password": secrets.token_hex(16) if args.password else "",
    }
    path = state / "hub.json"
    path.write_text(json.dumps(settings, indent=1), encoding="utf-8")
    path.chmod(0o600)  # it may hold the rehearsal's password
    return path


def _exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--instructor", required=True, help="the instructor's account")
    p.add_argument("--students", required=True, help="the students' accounts, comma-separated")
    p.add_argument("--state", default=str(DEFAULT_STATE), help=f"the hub's folder (default {DEFAULT_STATE})")
    p.add_argument("--course", default=str(REPO), help="a course laid out as this repository (default: it)")
    p.add_argument("--course-id", default="agent-loop-by-hand", help="nbgrader's course id")
    p.add_argument("--port", type=int, default=8000, help="the hub's port on 127.0.0.1 (0: a free one)")
    p.add_argument("--start-timeout", type=int, default=180,
                   help="seconds a server may take to start (default 180; more on a busy machine)")
    p.add_argument("--password", help="a rehearsal: every account logs in with this password (else PAM)")
    p.add_argument("--create-users", action="store_true", help="a rehearsal: make missing accounts")
    p.add_argument("--homes", help="with --create-users: the folder their homes go in (default /home)")
    args = p.parse_args(argv)
    try:
        print(f"hub settings: {setup(args)}")
    except (SetupError, subprocess.CalledProcessError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
