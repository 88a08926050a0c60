"""Set up the course's JupyterHub on one machine (docs/HUB.md; hub/install.py runs it). As root:

    sudo .venv/bin/python hub/setup_hub.py --instructor ines --students ada,ben [--state DIR]

It writes DIR/hub.json (what hub/jupyterhub_config.py reads), makes nbgrader's exchange
(DIR/exchange, 1777 as nbgrader asks), copies the course (solutions/, chapters/, the mutants) into
the instructor's home, owned by the instructor and closed to everyone else, and builds the students'
copy DIR/student-course (hub/student_course.py: the released chapters, workbook/, a Python every
account can run; never a solution or hidden test), which every account's server runs from. Then:

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
import subprocess
import sys
from pathlib import Path

from hub_state import (
    PATH_VARIABLE,
    add_users,
    close_database,
    course_exchange,
    setup_token,
    write_profile,
    write_roster,
)
from student_course import (  # hub/ is on the path of whatever imports this
    DEFAULT_STATE,
    SetupError,
    accounts_interpreter,
    runnable_by_all,
)
from student_course import build as build_student_course

__all__ = ["DEFAULT_STATE", "SetupError", "account_env", "main", "runnable_by_all", "setup"]
REPO = Path(__file__).resolve().parent.parent
COURSE_PARTS = ("solutions", "chapters", "autograder/mutants")
STUDENT_COURSE = "student-course"  # in the hub's folder: what every account's server runs from


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def account_env(settings: dict, user: str) -> dict[str, str]:
    """What an account's server (and its nbgrader commands) runs with. A student's names only the
    students' copy (hub/student_course.py): its hub/student/ settings, its Python and that Python's
    Jupyter settings and lab extensions; the exchange and the course id. The instructor's adds
    hub/instructor/ and the autograder from the repository, and her course (HUB_COURSE_ROOT)."""
    tree = settings["student_course"]
    env = f"{tree}/python"
    common = {
        "JUPYTER_PATH": f"{env}/share/jupyter",
        "JUPYTERLAB_DIR": f"{env}/share/jupyter/lab",
        "PATH": f"{env}/bin:/usr/local/bin:/usr/bin:/bin",
        PATH_VARIABLE: f"{env}/bin",  # a login shell's PATH gets it back (/etc/profile.d, hub_state.py)
        "HUB_EXCHANGE": settings["exchange"], "HUB_COURSE_ID": settings["course_id"],
        "LLM_PROVIDER": "fake",  # graded cells use the fake anyway; a live cell needs a key set by hand
    }
    if user != settings["instructor"]:
        return {"JUPYTER_CONFIG_PATH": f"{tree}/hub/student:{env}/etc/jupyter", **common,
                **student_language(Path(settings["state"]), user)}
    return {"JUPYTER_CONFIG_PATH": f"{settings['repo']}/hub/instructor:{env}/etc/jupyter", **common,
            "HUB_COURSE_ROOT": settings["course_root"], "HUB_REPO": settings["repo"],
            "HUB_ROSTER": f"{settings['state']}/roster"}  # the Formgrader's Collect (hub_state.py)


def student_language(state: Path, user: str) -> dict[str, str]:
    """A student's language, read when their server starts from DIR/languages (root's; lines
    `NAME LANG`, e.g. `ben ru`; docs/HUB.md, "Students in another language"): AGENT_LOOP_LANG for
    their server, which shows them the translated messages, quiz and Validate (docs/TRANSLATING.md)."""
    try:
        lines = (state / "languages").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    for line in lines:
        name, _, lang = line.split("#")[0].strip().partition(" ")
        if name == user and lang.strip().isalpha():
            return {"AGENT_LOOP_LANG": lang.strip().lower()}
    return {}


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
    """The course (solutions/, chapters/, mutants) in the instructor's home, owned by them and
    closed to everyone else (0700, whatever the home's mode: the workspace and gradebook go in it
    too). A run again (hub/install.py with one more student) adds what is missing and keeps every
    file there: the instructor may have edited them."""
    user = pwd.getpwnam(instructor)
    dest = Path(user.pw_dir) / "agent-loop-course"
    dest.mkdir(mode=0o700, exist_ok=True)
    dest.chmod(0o700)
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


def setup(args) -> tuple[Path, list[str]]:
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
    before = _settings(state / "hub.json")
    close_database(state)
    exchange = state / "exchange"
    exchange.mkdir(exist_ok=True)
    exchange.chmod(0o1777)  # nbgrader: everyone writes; the sticky bit keeps what each made their own
    course_exchange(exchange, args.course_id, args.instructor)  # the instructor's before any student's
    write_roster(state, students, args.instructor)
    write_profile()
    setup_token(state)
    course_root = copy_course(Path(args.course).resolve(), args.instructor)
    tree = state / STUDENT_COURSE  # from the instructor's chapters/; hub/student_course.py again after a release
    build_student_course(tree, course_root, accounts_interpreter())
    same_hub = before.get("state") == str(state)  # a running hub keeps its ports: adding a student is no restart
    settings = {
        "state": str(state), "ip": "127.0.0.1", "port": args.port or before.get("port") or free_port(),
        "hub_port": before.get("hub_port") if same_hub else free_port(),
        "proxy_api_port": before.get("proxy_api_port") if same_hub else free_port(), "proxy": proxy,
        "students": students, "instructor": args.instructor,
        "exchange": str(exchange), "course_id": args.course_id,
        "course_root": str(course_root), "student_course": str(tree),
        "python": str(tree / "python" / "bin" / "python"), "repo": str(REPO),
        "auth": "shared-password" if args.password else "pam", "password": args.password or "",
        "start_timeout": args.start_timeout,
        # JupyterHub's shared password is for students; the instructor (an admin) needs their own
        "admin_password": (before.get("admin_password") or secrets.token_hex(16)) if args.password else "",
        "setup_token": "setup-token",  # the hub's users are managed through its API (hub_state.py)
    }
    settings["hub_port"] = settings["hub_port"] or free_port()
    settings["proxy_api_port"] = settings["proxy_api_port"] or free_port()
    path = state / "hub.json"
    path.write_text(json.dumps(settings, indent=1), encoding="utf-8")
    path.chmod(0o600)  # it may hold the rehearsal's password
    new = [n for n in students if n not in before.get("students", [])]
    if not before or not new:
        return path, []
    if before.get("setup_token"):
        return path, [add_users(settings, new)]
    return path, [f"a hub started before this setup lets {', '.join(new)} in only once it restarts "
                  "(which stops every server; hub/install.py restarts it)"]


def _settings(path: Path) -> dict:
    """The hub.json an earlier run wrote ({} if none or unreadable)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


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
        path, lines = setup(args)
        print("\n".join([*lines, f"hub settings: {path}"]))
    except (SetupError, subprocess.CalledProcessError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
