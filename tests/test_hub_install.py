"""hub/install.py, the instructor's one command (issue 31 item 1), with its plan (install_plan.py)
and what it reads of the machine (install_machine.py): its steps in order on a fresh machine,
nothing to do on a machine it already set up, and a missing prerequisite named before any step.
The machine is a stand-in (the plan reads it through `Machine`): no root, no network,
no account is made. The real run was tried by hand as root (docs/HUB.md, "Tested")."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hub"))
import install  # noqa: E402
import install_machine  # noqa: E402
import install_plan  # noqa: E402

PASSWORD_HASH = "$y$j9T$salt$hash"


class Fresh(install_machine.Machine):
    """A Debian machine on which nothing is installed yet, seen without root."""

    def __init__(self, **changes):
        self.tools, self.users, self.shadow_ = {"apt-get", "apt-cache", "systemctl"}, {}, None
        self.files, self.uid, self.node, self.ensurepip, self.readable = {}, 1000, 18, False, True
        self.systemd_, self.on, self.up = True, False, False
        self.repo_group, self.repo_mode, self.groups = "root", 0o755, {}  # a fresh clone: open to all
        self.__dict__.update(changes)

    def euid(self):
        return self.uid

    def which(self, name):
        return f"/usr/bin/{name}" if name in self.tools else None

    def has_ensurepip(self):
        return self.ensurepip

    def account(self, name):
        return SimpleNamespace(pw_dir=f"/home/{name}") if name in self.users else None

    def mode(self, path):
        if path == str(install_plan.REPO):
            return self.repo_mode
        return next((mode for name, mode in self.users.items() if path == f"/home/{name}"), None)

    def group(self, path):
        assert path == install_plan.REPO, path
        return self.repo_group

    def group_members(self, name):
        return self.groups.get(name)

    def shadow(self):
        return self.shadow_

    def node_major(self):
        return self.node

    def exists(self, path):
        return str(path) in self.files

    def readable_by_all(self, path):
        return self.readable

    def read(self, path):
        return self.files.get(str(path))

    def systemd(self):
        return self.systemd_

    def unit_on(self):
        return self.on

    def hub_up(self, port):
        return self.up


ARGS = ["--instructor", "ines", "--students", "ada,ben", "--state", "/srv/h", "--venv", "/opt/c/.venv"]


def set_up(**changes) -> Fresh:
    """The machine as install.py leaves it: every step done."""
    names = ["ines", "ada", "ben"]
    settings = {"instructor": "ines", "students": ["ada", "ben"], "course_id": "agent-loop-by-hand",
                "port": 8000, "exchange": "/srv/h/exchange", "student_course": "/srv/h/student-course",
                "setup_token": "setup-token"}
    unit = install_plan.unit_text(SimpleNamespace(venv="/opt/c/.venv", state="/srv/h"))
    machine = Fresh(tools={"apt-get", "apt-cache", "systemctl", "bwrap", "npm", "node", "configurable-http-proxy"},
                    ensurepip=True, users={n: 0o700 for n in names}, shadow_={n: PASSWORD_HASH for n in names},
                    files={"/opt/c/.venv/bin/python": "", "/opt/c/.venv/.hub-installed-stamp": install_plan.stamp_text(),
                           "/srv/h/hub.json": json.dumps(settings), str(install_machine.UNIT): unit}, on=True,
                    repo_group="ines", repo_mode=0o750, groups={"ines": {"ines"}})
    machine.__dict__.update(changes)
    return machine


def actions(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.startswith("      ")]


def test_dry_run_on_a_fresh_machine_prints_every_step_in_order(capsys):
    assert install.main([*ARGS, "--dry-run"], Fresh()) == 0
    out = capsys.readouterr().out
    titles = [line.split(":")[0] for line in out.splitlines() if line.startswith("[")]
    assert titles == [f"[{i}/10] {t}" for i, t in enumerate([
        "system packages (apt)", "configurable-http-proxy (npm)", "the course's venv",
        "the course and JupyterHub in the venv (pip, requirements.lock)", "the accounts (useradd)",
        "their passwords", "homes only their owner opens (chmod 700)",
        "the hub's settings, exchange and course copies (hub/setup_hub.py)",
        "the clone only root and the instructor read (chgrp, chmod 750)", "the hub starts at boot"], 1)]
    setup = f"/opt/c/.venv/bin/python {ROOT}/hub/setup_hub.py --instructor ines --students ada,ben --state /srv/h " \
            "--course-id agent-loop-by-hand --port 8000 --start-timeout 180"
    assert actions(out) == [
        "apt-get update -qq", "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap npm python3-venv",
        "npm install -g configurable-http-proxy@5.1.0",  # apt's Node.js 18: the newest release it runs
        f"{sys.executable} -m venv /opt/c/.venv",
        "/opt/c/.venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock -e '.[hub]'",
        "write /opt/c/.venv/.hub-installed-stamp (1 lines)",
        "useradd -m -s /bin/bash ines", "useradd -m -s /bin/bash ada", "useradd -m -s /bin/bash ben",
        "passwd ines  (asks for ines's password here)", "passwd ada  (asks for ada's password here)",
        "passwd ben  (asks for ben's password here)",
        "chmod 700 /home/ines", "chmod 700 /home/ada", "chmod 700 /home/ben",
        setup,
        f"chgrp ines {ROOT}", f"chmod 750 {ROOT}",
        f"write {install_machine.UNIT} (12 lines)", "systemctl daemon-reload", "systemctl enable agent-loop-hub",
        "systemctl restart agent-loop-hub"]
    assert "dry run, not as root" in out and "10 step(s) would change this machine; nothing was changed" in out


def test_a_second_run_changes_nothing_and_says_so(capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"a run on a set-up machine ran {args}")

    monkeypatch.setattr(install.subprocess, "run", refuse)
    assert install.main(ARGS, set_up(uid=0)) == 0
    out = capsys.readouterr().out
    assert not actions(out) and out.count("nothing to do") == 10
    assert "nothing changed: every step was already done" in out


@pytest.mark.parametrize("change, step", [
    ({"files": {}}, "[3/10] the course's venv: would run"),  # no venv, no stamp, no hub.json, no unit
    ({"users": {"ines": 0o700, "ada": 0o755, "ben": 0o700}}, "chmod 700 /home/ada"),
    ({"shadow_": {"ines": PASSWORD_HASH, "ada": "!", "ben": PASSWORD_HASH}}, "passwd ada"),
    ({"on": False}, "systemctl enable --now agent-loop-hub"),
    ({"repo_mode": 0o755}, f"chmod 750 {ROOT}"),  # a clone opened again (a git checkout as another umask)
    ({"repo_group": "users"}, f"chgrp ines {ROOT}"),
])
def test_what_is_not_done_yet_is_done_again(change, step, capsys):
    """The check of the check above: each step's own test of 'done' sees the machine."""
    assert install.main([*ARGS, "--dry-run"], set_up(**change)) == 0
    assert step in capsys.readouterr().out


def test_a_hub_set_up_before_the_students_copy_is_set_up_again(capsys):
    """Issue 46: its hub.json has no student_course, so its servers would run from the clone."""
    before = json.dumps({"instructor": "ines", "students": ["ada", "ben"], "course_id": "agent-loop-by-hand",
                         "port": 8000, "exchange": "/srv/h/exchange"})
    machine = set_up()
    machine.files = {**machine.files, "/srv/h/hub.json": before}
    assert install.main([*ARGS, "--dry-run"], machine) == 0
    out = capsys.readouterr().out
    assert "[8/10] the hub's settings, exchange and course copies (hub/setup_hub.py): would run" in out
    assert "[9/10] the clone only root and the instructor read (chgrp, chmod 750): nothing to do" in out


def test_a_new_student_is_added_without_a_restart(capsys):
    """Issue 46: setup_hub.py adds them to the running hub through its API; a restart would stop
    every student's server."""
    assert install.main(["--instructor", "ines", "--students", "ada,ben,cy", "--state", "/srv/h",
                         "--venv", "/opt/c/.venv", "--dry-run"], set_up()) == 0
    out = capsys.readouterr().out
    done = actions(out)
    assert done[:2] == ["useradd -m -s /bin/bash cy", "passwd cy  (asks for cy's password here)"]
    assert "--students ada,ben,cy" in done[3] and not any("systemctl" in a for a in done), done
    assert "setup adds the new students to it (no server stops)" in out


def test_a_hub_set_up_before_its_setup_token_is_set_up_again_and_restarted_once(capsys):
    """The check of the check: a hub started before the token cannot be told of new students."""
    machine = set_up()
    settings = json.loads(machine.files["/srv/h/hub.json"])
    del settings["setup_token"]
    machine.files = {**machine.files, "/srv/h/hub.json": json.dumps(settings)}
    assert install.main([*ARGS, "--dry-run"], machine) == 0
    done = actions(capsys.readouterr().out)
    assert any("setup_hub.py" in a for a in done) and done[-1] == "systemctl restart agent-loop-hub", done


def test_passwords_from_a_file_are_never_printed(tmp_path, capsys):
    given = tmp_path / "passwords"
    given.write_text("ada:s3cret-ada\nines:s3cret-ines\n")
    steps = install_plan.plan(SimpleNamespace(venv="/v", state="/s", instructor="ines", students=["ada", "ben"],
                                         passwords=str(given), course_id="c", port=8000, start_timeout=180,
                                         no_systemd=True), Fresh())
    passwords = steps[5].actions
    assert [a.argv for a in passwords] == [["chpasswd"], ["passwd", "ben"]]  # ben is not in the file
    assert passwords[0].stdin == "ines:s3cret-ines\nada:s3cret-ada\n"
    assert "s3cret" not in str(passwords[0]) and str(given) in str(passwords[0])


@pytest.mark.parametrize("machine, extra, says", [
    (Fresh(tools=set()), [], "bubblewrap, npm, python3-venv missing and no apt-get here"),
    (Fresh(node=12), [], "configurable-http-proxy needs Node.js 18 or newer (found 12)"),
    (Fresh(node=None, tools={"apt-get"}), [], "Node.js 18 or newer (found none)"),
    (Fresh(readable=False), [], "cannot be entered by other accounts, and the instructor's server reads"),
    (Fresh(groups={"ines": {"ines", "ada"}}), [], "ada in the group ines, which may read the clone"),
    (Fresh(), ["--passwords", "/nonexistent/p"], "--passwords /nonexistent/p: no such file"),
    (Fresh(uid=1000), None, "run as root (sudo)"),  # a real run; a dry run needs no root
])
def test_a_missing_prerequisite_is_named_before_any_step(machine, extra, says, capsys):
    argv = ARGS + (extra if extra is not None else []) + ([] if extra is None else ["--dry-run"])
    assert install.main(argv, machine) == 2
    out, err = capsys.readouterr()
    assert says in err and "[1/10]" not in out


def test_node_20_gets_the_tested_proxy_release():
    assert [install_machine.proxy_version(n) for n in (22, 20, 19, 18, 16, None)] == \
        ["5.3.0", "5.3.0", "5.1.0", "5.1.0", None, None]


def test_a_real_run_makes_files_other_accounts_can_read(monkeypatch, capsys):
    """Under a root umask of 077 pip wrote the venv's files 0600 and the students' servers could not
    import the course (seen here: PermissionError on agent_loop_by_hand's dist-info)."""
    monkeypatch.setattr(install.subprocess, "run", lambda *a, **k: None)
    before = os.umask(0o077)
    try:
        assert install.main(ARGS, set_up(uid=0)) == 0
    finally:
        during = os.umask(before)
    assert during == 0o022


@pytest.mark.parametrize("node, out, code", [(20, "5.3.0\n", 0), (18, "5.1.0\n", 0), (16, "", 2)])
def test_ci_asks_it_which_proxy_release_to_install(node, out, code, capsys):
    """.ci/run installs the release this prints, so the version rule has one source."""
    assert install.main(["--proxy-version"], Fresh(node=node)) == code
    assert capsys.readouterr().out == out
    assert "hub/install.py --proxy-version" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize("tools, up, says", [
    ({"sudo"}, False, "start the hub as root (it stops with its terminal; docs/HUB.md): sudo HUB_SETTINGS="),
    (set(), False, "start the hub as root (it stops with its terminal; docs/HUB.md): HUB_SETTINGS="),
    ({"sudo"}, True, None),  # a run that added a student to the running hub: nothing to start
])
def test_without_systemd_the_last_lines_say_how_to_start_the_hub_only_when_it_is_not_running(tools, up, says, capsys):
    """The walk of docs/HUB.md on Debian without sudo (2026-12-06) was told `sudo ...`, and told to
    start a hub that was running."""
    machine = set_up(uid=0, systemd_=False, up=up)
    machine.tools = machine.tools | tools
    assert install.main([*ARGS, "--dry-run"], machine) == 0
    out = capsys.readouterr().out
    started = [line for line in out.splitlines() if line.startswith("start the hub")]
    assert (started[0].startswith(says) if says else not started), out
    assert "the hub: http://127.0.0.1:8000" in out
