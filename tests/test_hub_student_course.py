"""The students' copy of the course (issue 46, item 1): the hub's student servers ran the course
from the instructor's clone, which holds solutions/ (hidden tests), the mutants, the sample cohort
and .git, and named it in every server's environment (HUB_REPO). hub/student_course.py builds the
copy they run from instead; these tests build it from this repository, walk every file in it, and
check that the servers' environment (hub/jupyterhub_config.py) names it and not the clone.

A student account (a throw-away uid, as root) then runs the copy's Python with the clone and /root
hidden (bubblewrap): the course imports from the copy alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from traitlets.config.loader import PyFileConfigLoader

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hub"))
import setup_hub  # noqa: E402
import student_course  # noqa: E402

MARKERS = (b"BEGIN HIDDEN TESTS", b"BEGIN SOLUTION")  # what nbgrader's solution and hidden-test cells hold
NEVER = {".git", "solutions", "mutants", "sample_cohort", "gradebook.db"}  # names of what students never get
STUDENT_UID = 61046  # no account has it: a stranger to every file, as a student is
INSTRUCTORS = "/home/ines/agent-loop-course"


@pytest.fixture(scope="module")
def copy():
    """The copy, built from this repository as hub/setup_hub.py builds it, in a folder every
    account can enter (pytest's own are 0700)."""
    base = Path(tempfile.mkdtemp(prefix="agentloop-students-", dir="/tmp"))
    base.chmod(0o755)
    try:
        dest = base / "student-course"
        student_course.build(dest, ROOT)
        yield dest
    finally:
        shutil.rmtree(base, ignore_errors=True)  # hard links to the venv's files: gone with it


def settings(copy: Path) -> dict:
    return {"state": "/srv/h", "ip": "127.0.0.1", "port": 8000, "hub_port": 8081, "proxy_api_port": 8001,
            "proxy": "/usr/bin/configurable-http-proxy", "students": ["ada", "ben"], "instructor": "ines",
            "exchange": "/srv/h/exchange", "course_id": "c1", "course_root": INSTRUCTORS,
            "student_course": str(copy), "python": str(copy / "python" / "bin" / "python"), "repo": str(ROOT),
            "auth": "pam", "password": "", "admin_password": ""}


def installed_files() -> dict[str, Path]:
    """Each file the venv's third-party distributions installed, by its path inside a venv
    (lib/python3.X/site-packages/..., share/jupyter/...), and where it is in this venv."""
    course = student_course.course_distribution()
    found = {}
    for dist in student_course.distributions(course):
        site = Path(str(dist.locate_file("")))
        for rel in dist.files or ():
            inside = os.path.normpath(Path("lib") / f"python{sys.version_info.major}.{sys.version_info.minor}"
                                      / "site-packages" / rel)
            found.setdefault(inside, Path(os.path.normpath(site / rel)))
    return found


def test_the_copy_holds_only_what_students_need(copy):
    assert sorted(os.listdir(copy)) == ["LICENSE", "README.md", "agent_files", "chapters", "hub", "i18n", "lab",
                                        "python", "workbook"]  # i18n/: the translations (docs/TRANSLATING.md)
    assert os.listdir(copy / "hub") == ["student"] and os.listdir(copy / "lab") == ["student"]
    released = sorted(p.name for p in (ROOT / "chapters").iterdir() if p.is_dir())
    assert sorted(p.name for p in (copy / "chapters").iterdir() if p.is_dir()) == released
    assert (copy / "workbook" / "__init__.py").is_file() and (copy / "agent_files" / "kb").is_dir()
    assert os.listdir(copy / "agent_files" / "out") == [], "what an agent wrote while someone ran it stays out"
    server = PyFileConfigLoader("jupyter_server_config.py", path=str(copy / "hub" / "student")).load_config()
    custom = server.ServerApp.tornado_settings["static_custom_path"]
    assert custom == [f"{copy}/lab/student/custom"] and (copy / "lab/student/custom/custom.css").is_file()


def test_no_file_in_the_copy_is_a_solution_a_hidden_test_or_the_instructors(copy):
    """Every file and folder of the copy. In python/, nbgrader's own tests hold the markers and a
    gradebook.db: there each file must be one a third-party distribution installed (the same file,
    or the same bytes), or one the copy writes (its scripts, pyvenv.cfg, its .pth)."""
    installed = installed_files()
    env = copy / "python"
    own_scripts = 0
    walked = 0
    for folder, dirs, files in os.walk(copy):
        for name in dirs + files:
            path = Path(folder) / name
            rel = path.relative_to(copy)
            walked += 1
            assert ".git" not in rel.parts, rel
            if not path.is_relative_to(env):
                assert not NEVER & set(rel.parts), rel
                assert not path.is_symlink(), rel
                if name in files:
                    data = path.read_bytes()
                    assert not [m for m in MARKERS if m in data], rel
                    assert os.stat(path).st_nlink == 1, f"{rel} is linked to a file of the instructor's"
                continue
            inside = str(path.relative_to(env))
            if name in dirs or path.is_symlink():  # bin/python -> an interpreter outside the clone; lib64
                assert not os.path.realpath(path).startswith(str(ROOT) + "/"), rel
                continue
            if inside.startswith("bin/"):  # written anew: the installed ones name this venv's Python
                text = path.read_text()
                assert text.startswith(f"#!{env}/bin/python\nimport sys\nfrom "), rel
                own_scripts += 1
            elif inside in installed:
                assert os.path.samefile(path, installed[inside]) or \
                    path.read_bytes() == installed[inside].read_bytes(), rel
            elif inside == "pyvenv.cfg":
                assert str(ROOT) not in path.read_text()
            else:
                assert inside.endswith(student_course.PTH), f"{rel}: no distribution installed it"
                assert path.read_text() == f"{copy}\n"
    assert walked > 10_000 and own_scripts > 5  # the walk saw the venv, and the scripts were checked
    assert not (env / "bin" / "activate").exists()
    site = next(env.glob("lib/python*/site-packages"))
    assert not list(site.glob("__editable__*")), "the course's editable install names the clone"
    for pth in site.glob("*.pth"):
        assert str(ROOT) not in pth.read_text(), pth


def test_a_copy_that_would_hold_a_hidden_test_is_refused_and_the_old_one_kept(tmp_path):
    """The check of the check: the build reads every course file, and refuses before it swaps."""
    course = tmp_path / "course"
    (course / "chapters" / "01_x").mkdir(parents=True)
    (course / "chapters" / "01_x" / "01_x.ipynb").write_text('{"source": "### BEGIN HIDDEN TESTS\\n"}')
    (course / "chapters" / "02_y" / ".git").mkdir(parents=True)
    (course / "chapters" / "02_y" / "solutions").mkdir()
    (course / "chapters" / "02_y" / "etc").symlink_to("/etc")  # root builds the copy: it follows no link
    dest = tmp_path / "student-course"
    dest.mkdir()
    (dest / "yesterday").write_text("the copy students run from now")
    with pytest.raises(student_course.SetupError) as e:
        student_course.build(dest, course, python=Path(sys.executable))
    said = str(e.value)
    assert "chapters/01_x/01_x.ipynb: holds 'BEGIN HIDDEN TESTS'" in said
    assert "chapters/02_y/solutions: 'solutions' never goes to students" in said
    assert "chapters/02_y/etc: a link" in said
    assert ".git" not in said, "dot folders are never copied"
    assert sorted(os.listdir(tmp_path)) == ["course", "student-course"] and os.listdir(dest) == ["yesterday"]
    with pytest.raises(student_course.SetupError, match="has no chapters/: release the course first"):
        student_course.build(dest, tmp_path / "nothing", python=Path(sys.executable))


def test_the_student_servers_run_from_the_copy_not_the_clone(copy, tmp_path, monkeypatch):
    """hub/jupyterhub_config.py as JupyterHub loads it: a student's server command and environment
    name the copy (and system folders, and the exchange), never the clone or the instructor's course."""
    path = tmp_path / "hub.json"
    path.write_text(json.dumps(settings(copy)))
    monkeypatch.setenv("HUB_SETTINGS", str(path))
    config = PyFileConfigLoader("jupyterhub_config.py", path=str(ROOT / "hub")).load_config()
    assert config.Spawner.cmd[0] == f"{copy}/python/bin/python"
    assert not {"PYTHONPATH", "VIRTUAL_ENV", "PATH"} & set(config.Spawner.env_keep), "the hub's own reach no server"

    def spawn(user: str) -> dict:
        class Spawner:  # what JupyterHub hands the hook
            environment: dict = {}
        Spawner.user = type("User", (), {"name": user})()
        config.Spawner.pre_spawn_hook(Spawner)
        return Spawner.environment

    ada = spawn("ada")
    assert ada == setup_hub.account_env(settings(copy), "ada")
    assert "HUB_REPO" not in ada and "HUB_COURSE_ROOT" not in ada
    for key, value in ada.items():
        for part in value.split(":"):
            assert str(ROOT) not in part and INSTRUCTORS not in part, (key, value)
            if part.startswith("/"):
                assert part.startswith(f"{copy}/") or part in ("/usr/local/bin", "/usr/bin", "/bin", "/srv/h/exchange"), \
                    (key, part)
    assert ada["JUPYTER_CONFIG_PATH"] == f"{copy}/hub/student:{copy}/python/etc/jupyter"
    ines = spawn("ines")  # the check of the check: the instructor's does name the clone and her course
    assert ines["HUB_REPO"] == str(ROOT) and ines["HUB_COURSE_ROOT"] == INSTRUCTORS
    assert ines["JUPYTER_CONFIG_PATH"].startswith(f"{ROOT}/hub/instructor:")


def _sandbox_missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root: a throw-away uid runs the copy"
    for tool in ("bwrap", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} is missing"
    return None


@pytest.mark.skipif(_sandbox_missing() is not None, reason=f"{_sandbox_missing()}")
def test_a_student_runs_the_course_from_the_copy_with_the_clone_out_of_sight(copy):
    """As a uid no file belongs to, with the student's server environment, and the clone and /root
    (where this venv's Python may live) replaced by empty folders: the course and the tools its
    server runs import from the copy."""
    env = {"HOME": "/tmp", **setup_hub.account_env(settings(copy), "ada")}
    code = ("import json, sys, workbook, nbgrader, jupyter_server, jupyterlab, ipykernel, notebook, openai\n"
            "from workbook import progress\n"
            "print(json.dumps({'workbook': workbook.__file__, 'chapters': str(progress.CHAPTERS),\n"
            "                  'listed': progress.CHAPTERS.is_dir(), 'path': sys.path}))")
    def hide(*more: str) -> list[str]:
        return ["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(ROOT), "--tmpfs", "/root", *more, "--",
                "setpriv", f"--reuid={STUDENT_UID}", f"--regid={STUDENT_UID}", "--clear-groups"]

    done = subprocess.run([*hide(), f"{copy}/python/bin/python", "-c", code], env=env, capture_output=True,
                          text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert seen["workbook"] == f"{copy}/workbook/__init__.py"
    assert seen["chapters"] == f"{copy}/chapters" and seen["listed"]
    assert not [p for p in seen["path"] if p.startswith(str(ROOT))], seen["path"]
    done = subprocess.run([*hide(), "nbgrader", "--version"], env=env, capture_output=True, text=True, timeout=300,
                          cwd="/")
    assert done.returncode == 0 and "nbgrader version 0.9" in done.stdout, done.stdout + done.stderr
    # the check of the check: with the copy hidden too, the same student has no course at all
    done = subprocess.run([*hide("--tmpfs", str(copy)), "/usr/bin/env", "python3", "-c", "import workbook"], env=env, capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode != 0 and "No module named 'workbook'" in done.stderr, done.stderr


def test_the_rebuild_after_a_release_reads_the_hubs_settings(tmp_path, capsys, monkeypatch):
    """`hub/student_course.py` (after each release) needs the hub's settings and root; it says so."""
    monkeypatch.setattr(student_course.os, "geteuid", lambda: 0)
    assert student_course.main(["--state", str(tmp_path)]) == 2
    assert "run hub/setup_hub.py first" in capsys.readouterr().err
    (tmp_path / "hub.json").write_text(json.dumps({"course_root": INSTRUCTORS}))
    assert student_course.main(["--state", str(tmp_path)]) == 2
    assert "predates the students' copy: run hub/setup_hub.py again" in capsys.readouterr().err
    monkeypatch.setattr(student_course.os, "geteuid", lambda: 1000)
    assert student_course.main(["--state", str(tmp_path)]) == 2
    assert "run as root" in capsys.readouterr().err
