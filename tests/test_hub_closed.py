"""What hub/setup_hub.py makes closed (issue 46 item 7, hub/hub_state.py): the hub's database, the
course's folder in the exchange (made the instructor's before any student can make it), the roster
the Formgrader's Collect reads, and the login shell's PATH in a server's terminal (Debian's
/etc/profile resets it). Needs root (chown, another account's login shell); skipped otherwise.
Adding students to a running hub is played in tests/browser/test_hub.py."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hub"))
import hub_state  # noqa: E402
import setup_hub  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown and another account's shell need root")
INSTRUCTOR = "nobody"  # an account every Debian has; its folders here are throw-away
SQUATTER = 61007  # a uid no account has: a student who made the folder first


def _mode(path: Path) -> tuple[int, int, int]:
    st = os.lstat(path)
    return stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


def test_the_database_is_roots_alone_before_the_hub_makes_it(tmp_path):
    db = hub_state.close_database(tmp_path)
    assert _mode(db) == (0o600, 0, 0) and db.stat().st_size == 0  # SQLite takes an empty file
    db.chmod(0o644)
    (tmp_path / "jupyterhub.sqlite-journal").write_text("")
    hub_state.close_database(tmp_path)
    assert _mode(db)[0] == _mode(tmp_path / "jupyterhub.sqlite-journal")[0] == 0o600


def test_the_course_exchange_is_the_instructors_from_the_start(tmp_path):
    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o1777)
    user = pwd.getpwnam(INSTRUCTOR)
    course = hub_state.course_exchange(exchange, "c1", INSTRUCTOR)
    assert _mode(course) == (0o755, user.pw_uid, user.pw_gid)
    assert _mode(course / "inbound") == (0o2733, user.pw_uid, user.pw_gid)  # students write, only she lists
    assert _mode(course / "outbound")[0] == 0o755 and _mode(course / "feedback")[0] == 0o711
    assert hub_state.course_exchange(exchange, "c1", INSTRUCTOR) == course  # a second run keeps it


@pytest.mark.parametrize("squatted", ["", "inbound"])
def test_a_course_folder_a_student_made_first_is_refused(tmp_path, squatted):
    exchange = tmp_path / "exchange"
    (exchange / "c1" / squatted).mkdir(parents=True)
    os.chown(exchange / "c1" / squatted, SQUATTER, SQUATTER)
    with pytest.raises(hub_state.SetupError, match=r"another account made it.*Move it away"):
        hub_state.course_exchange(exchange, "c1", INSTRUCTOR)
    assert os.lstat(exchange / "c1" / squatted).st_uid == SQUATTER  # nothing taken over silently


def test_the_roster_is_read_by_the_instructors_group_only(tmp_path):
    path = hub_state.write_roster(tmp_path, ["ada", "ben"], INSTRUCTOR)
    assert path.read_text() == "ada\nben\n"
    assert _mode(path) == (0o640, 0, pwd.getpwnam(INSTRUCTOR).pw_gid)
    ines = setup_hub.account_env({"student_course": "/s/c", "exchange": "/s/x", "course_id": "c1", "state": "/s",
                                  "instructor": "ines", "course_root": "/h/c", "repo": "/r"}, "ines")
    assert ines["HUB_ROSTER"] == "/s/roster" and ines[hub_state.PATH_VARIABLE] == "/s/c/python/bin"


@pytest.fixture
def profile():
    """The real /etc/profile.d script (what setup writes; it acts only in a hub server's shell)."""
    existed = hub_state.PROFILE.exists()
    hub_state.write_profile()
    yield hub_state.PROFILE
    if not existed:
        hub_state.PROFILE.unlink()


def _login_shell(env: dict[str, str]) -> subprocess.CompletedProcess:
    """`bash -l` as the account, as a server's terminal starts it (jupyter_server_terminals)."""
    pairs = [f"{k}={v}" for k, v in env.items()]
    return subprocess.run(["runuser", "-u", INSTRUCTOR, "--", "env", "-i", "HOME=/", *pairs, "bash", "-lc",
                           "command -v nbgrader"], capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not Path("/etc/profile").is_file() or shutil.which("runuser") is None,
                    reason="no /etc/profile or runuser here")
def test_a_login_shell_in_a_servers_terminal_finds_the_courses_nbgrader(profile):
    bin_dir = Path(tempfile.mkdtemp(prefix="agentloop-bin-", dir="/tmp"))
    try:
        bin_dir.chmod(0o755)
        (bin_dir / "nbgrader").write_text("#!/bin/sh\n")
        (bin_dir / "nbgrader").chmod(0o755)
        server = {"PATH": f"{bin_dir}:/usr/bin:/bin", hub_state.PATH_VARIABLE: str(bin_dir)}  # account_env's
        found = _login_shell(server)
        assert found.returncode == 0 and found.stdout.strip() == f"{bin_dir}/nbgrader", found
        # the check of the check: without the profile script the login shell loses it (issue 46 item 4)
        lost = _login_shell({"PATH": server["PATH"]})
        assert lost.returncode != 0 and not lost.stdout.strip(), lost
    finally:
        shutil.rmtree(bin_dir)
