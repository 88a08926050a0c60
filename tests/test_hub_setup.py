"""hub/: the settings an account's server gets, the hub's configuration as JupyterHub loads it, and
setup's refusals (issue 31). The hub itself runs in tests/browser/test_hub.py; the students' copy
of the course their servers run from (issue 46) in tests/test_hub_student_course.py."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from traitlets.config.loader import PyFileConfigLoader

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hub"))
import setup_hub  # noqa: E402

SETTINGS = {"state": "/srv/h", "ip": "127.0.0.1", "port": 8000, "hub_port": 8081, "proxy_api_port": 8001,
            "proxy": "/usr/bin/configurable-http-proxy", "students": ["ada", "ben"], "instructor": "ines",
            "exchange": "/srv/h/exchange", "course_id": "c1", "course_root": "/home/ines/agent-loop-course",
            "student_course": "/srv/h/student-course", "python": "/srv/h/student-course/python/bin/python",
            "repo": str(ROOT),
            "auth": "shared-password", "password": "rehearsal-only",
            "admin_password": "the-instructor-s-own-32-characters"}


def test_students_and_the_instructor_get_their_own_settings():
    ada, ines = setup_hub.account_env(SETTINGS, "ada"), setup_hub.account_env(SETTINGS, "ines")
    env = "/srv/h/student-course/python"
    assert ada["JUPYTER_CONFIG_PATH"] == f"/srv/h/student-course/hub/student:{env}/etc/jupyter"
    assert ines["JUPYTER_CONFIG_PATH"] == f"{ROOT}/hub/instructor:{env}/etc/jupyter"
    assert ada["PATH"].startswith(f"{env}/bin:")  # `nbgrader` is the accounts' Python's
    assert "HUB_REPO" not in ada and ines["HUB_REPO"] == str(ROOT)
    assert {ada[k] for k in ("HUB_EXCHANGE", "HUB_COURSE_ID")} == {"/srv/h/exchange", "c1"}
    pages = json.loads((ROOT / "hub" / "student" / "labconfig" / "page_config.json").read_text())
    assert set(pages["disabledExtensions"]) == {"@jupyter/nbgrader:create-assignment",
                                                "@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list"}
    server = json.loads((ROOT / "hub" / "student" / "jupyter_server_config.d" / "nbgrader-hub-student.json")
                        .read_text())["ServerApp"]["jpserver_extensions"]
    assert not server["nbgrader.server_extensions.formgrader"] and server["nbgrader.server_extensions.assignment_list"]


def test_the_hub_configuration_loads_from_the_settings(tmp_path, monkeypatch):
    settings = tmp_path / "hub.json"
    settings.write_text(json.dumps(SETTINGS))
    monkeypatch.setenv("HUB_SETTINGS", str(settings))
    config = PyFileConfigLoader("jupyterhub_config.py", path=str(ROOT / "hub")).load_config()
    assert config.JupyterHub.bind_url == "http://127.0.0.1:8000"
    assert config.Authenticator.allowed_users == {"ada", "ben", "ines"}
    assert config.Authenticator.admin_users == {"ines"}
    assert config.Spawner.cmd == ["/srv/h/student-course/python/bin/python", "-m", "jupyterhub.singleuser"]
    assert config.SharedPasswordAuthenticator.user_password == "rehearsal-only"
    assert config.SharedPasswordAuthenticator.admin_password == SETTINGS["admin_password"]

    class Spawner:  # what JupyterHub hands the hook
        user = type("User", (), {"name": "ben"})()
        environment: dict = {}

    config.Spawner.pre_spawn_hook(Spawner)
    assert Spawner.environment == setup_hub.account_env(SETTINGS, "ben")


def test_runnable_by_all_sees_a_closed_folder_above(tmp_path):
    closed = tmp_path / "closed"
    (closed / "inside").mkdir(parents=True)
    (closed / "inside" / "python").write_text("")
    (closed / "inside" / "python").chmod(0o755)
    tmp_path.chmod(0o755)
    closed.chmod(0o700)
    assert not setup_hub.runnable_by_all(closed / "inside" / "python")
    closed.chmod(0o755)
    assert setup_hub.runnable_by_all(closed / "inside" / "python") == all(
        p.stat().st_mode & 0o001 for p in (closed / "inside" / "python").parents)


@pytest.mark.parametrize("args, says", [
    (["--students", "ines", "--password", "long-enough"], "not the instructor's"),
    (["--students", "ada", "--password", "short"], "at least 8 characters"),
])
def test_setup_refuses_what_cannot_work(args, says, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(setup_hub.os, "geteuid", lambda: 0)
    monkeypatch.setattr(setup_hub.shutil, "which", lambda name, path=None: "/usr/bin/" + name)
    assert setup_hub.main(["--instructor", "ines", "--state", str(tmp_path / "s"), *args]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "s").exists(), "nothing is made before the arguments are checked"


@pytest.mark.parametrize("lacking, says", [
    ("jupyterhub", "jupyterhub is not installed in "),
    ("configurable-http-proxy", "`npm install -g configurable-http-proxy`"),
    ("bwrap", "`apt-get install bubblewrap`"),
])
def test_setup_says_what_to_install_before_it_makes_anything(lacking, says, tmp_path, capsys, monkeypatch):
    """Setup is the one command: on a machine without a prerequisite it names it and its install command."""
    monkeypatch.setattr(setup_hub.os, "geteuid", lambda: 0)
    monkeypatch.setattr(setup_hub.shutil, "which", lambda name, path=None: None if name == lacking else "/usr/bin/" + name)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == lacking else object())
    code = setup_hub.main(["--instructor", "ines", "--students", "ada", "--state", str(tmp_path / "s"),
                           "--password", "long-enough"])
    assert code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "s").exists(), "nothing is made before the prerequisites are checked"


def test_setup_run_again_keeps_the_instructors_edits(tmp_path, monkeypatch):
    """hub/install.py runs setup again when a student is added: the course copy gains what is new
    and keeps what the instructor changed."""
    home = tmp_path / "ines"
    home.mkdir()
    me = SimpleNamespace(pw_dir=str(home), pw_uid=os.getuid(), pw_gid=os.getgid())
    monkeypatch.setattr(setup_hub.pwd, "getpwnam", lambda name: me)
    source = tmp_path / "course"
    (source / "solutions" / "01_x").mkdir(parents=True)
    (source / "solutions" / "01_x" / "01_x.py").write_text("the repository's\n")
    course = setup_hub.copy_course(source, "ines")
    assert course.stat().st_mode & 0o777 == 0o700, "the instructor's course: hers alone, whatever her home's mode"
    (course / "solutions" / "01_x" / "01_x.py").write_text("ines edited this\n")
    (source / "solutions" / "02_y").mkdir()
    (source / "solutions" / "02_y" / "02_y.py").write_text("a new chapter\n")
    setup_hub.copy_course(source, "ines")
    assert (course / "solutions" / "01_x" / "01_x.py").read_text() == "ines edited this\n"
    assert (course / "solutions" / "02_y" / "02_y.py").read_text() == "a new chapter\n"
