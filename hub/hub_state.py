"""What hub/setup_hub.py makes closed, and how it tells a running hub about new students (issue 46).

- the hub's database (`jupyterhub.sqlite`, its sessions and tokens): made before the hub's first
  start, root's and 0600 (SQLite gives its journal the same mode);
- the course's folder in nbgrader's exchange, `exchange/<course-id>` with `inbound` (2733),
  `outbound` (755) and `feedback` (711), the instructor's from the start, as nbgrader's first
  release would make them: the exchange is writable by all, so a student could otherwise make
  the folder first and own what every submission passes through;
- the roster (`roster`: one student a line, root's, readable by the instructor's group only), which
  the Formgrader's Collect button hands the course's `collect --exchange`;
- `/etc/profile.d/agent-loop-hub.sh`: a login shell (a server's terminal) keeps the course's Python
  first on PATH, where Debian's /etc/profile had reset it (it acts only where AGENT_LOOP_HUB_BIN is
  set, which only the hub's servers are given);
- `setup-token` (0600): the token of the hub's `agent-loop-setup` service (hub/jupyterhub_config.py),
  which may only manage users; `add_users` uses it to add new students to the running hub through
  its REST API. No server stops, and the hub reads the same list from hub.json when it next starts.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import stat
import urllib.error
import urllib.request
from pathlib import Path

from student_course import SetupError

PROFILE = Path("/etc/profile.d/agent-loop-hub.sh")
PATH_VARIABLE = "AGENT_LOOP_HUB_BIN"
PROFILE_TEXT = f"""\
# Agent Loop by Hand's JupyterHub (hub/setup_hub.py, docs/HUB.md): a login shell in a hub server's
# terminal keeps the course's Python first on PATH, which /etc/profile has just reset.
if [ -n "${{{PATH_VARIABLE}:-}}" ]; then
  case ":$PATH:" in
    *":${PATH_VARIABLE}:"*) ;;
    *) PATH="${PATH_VARIABLE}:$PATH"; export PATH ;;
  esac
fi
"""
# the course's folders in the exchange, as nbgrader's release makes them (its ExchangeReleaseAssignment)
EXCHANGE_MODES = (("", 0o755), ("outbound", 0o755), ("inbound", 0o2733), ("feedback", 0o711))
DB = "jupyterhub.sqlite"
TOKEN = "setup-token"
SERVICE = "agent-loop-setup"


def close_database(state: Path) -> Path:
    """The hub's database, root's and 0600 (made empty when missing: SQLite takes an empty file)."""
    db = state / DB
    os.close(os.open(db, os.O_CREAT | os.O_WRONLY, 0o600))
    for path in (db, *(state / f"{DB}{end}" for end in ("-journal", "-wal", "-shm"))):
        if path.exists():
            os.chown(path, 0, 0, follow_symlinks=False)
            os.chmod(path, 0o600)
    return db


def course_exchange(exchange: Path, course_id: str, instructor: str) -> Path:
    """`exchange/<course_id>` and its folders, the instructor's. One another account made is refused."""
    user = pwd.getpwnam(instructor)
    course = exchange / course_id
    for name, mode in EXCHANGE_MODES:
        folder = course / name if name else course
        try:
            os.mkdir(folder, mode)
        except FileExistsError:
            pass
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid not in (0, user.pw_uid):
            raise SetupError(f"{folder} is not a folder of {instructor} or root (owner uid {st.st_uid}): another "
                             f"account made it, and it would see or steer every submission. Move it away "
                             f"(mv {folder} {folder}.suspect), then run this again")
        os.chown(folder, user.pw_uid, user.pw_gid, follow_symlinks=False)
        os.chmod(folder, mode)
    return course


def write_roster(state: Path, students: list[str], instructor: str) -> Path:
    """The course's students, one a line, readable by root and the instructor's group only."""
    path = state / "roster"
    tmp = state / ".roster.tmp"
    tmp.write_text("".join(f"{s}\n" for s in students), encoding="utf-8")
    os.chown(tmp, 0, pwd.getpwnam(instructor).pw_gid)
    os.chmod(tmp, 0o640)
    os.replace(tmp, path)
    return path


def write_profile(profile: Path = PROFILE) -> Path:
    if not profile.parent.is_dir():
        raise SetupError(f"{profile.parent} does not exist: a login shell would not find the course's nbgrader")
    if not profile.is_file() or profile.read_text(encoding="utf-8") != PROFILE_TEXT:
        profile.write_text(PROFILE_TEXT, encoding="utf-8")
    os.chmod(profile, 0o644)
    return profile


def setup_token(state: Path) -> str:
    path = state / TOKEN
    if not path.is_file():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        path.write_text(secrets.token_hex(32), encoding="utf-8")
    os.chmod(path, 0o600)
    return path.read_text(encoding="utf-8").strip()


def add_users(settings: dict, names: list[str], timeout: float = 30) -> str:
    """Add `names` to the running hub (JupyterHub's REST API, POST /hub/api/users): a line to print."""
    if not names:
        return "the hub's users: no new student"
    url = f"http://127.0.0.1:{settings['hub_port']}/hub/api/users"
    body = json.dumps({"usernames": names}).encode()
    request = urllib.request.Request(url, body, method="POST", headers={
        "Authorization": f"token {setup_token(Path(settings['state']))}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return f"the running hub now lets in {', '.join(names)} (no server was stopped)"
    except urllib.error.HTTPError as e:
        if e.code == 409:  # all of them exist already
            return f"the running hub already knew {', '.join(names)}"
        return (f"the running hub refused to add {', '.join(names)} (HTTP {e.code}): it predates this setup; "
                "restart it once (this stops every server), then new students need no restart")
    except OSError:
        return "the hub is not running: it lets in the new list of students when it starts"
