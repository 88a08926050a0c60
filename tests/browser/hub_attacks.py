"""What a hostile class tries on the hub (issue 46), each from the student's own account, as typed
in a terminal of their server (tests/browser/test_hub.py drives them; hub_rig.py is the rig).

- `read_everything`: every file the student can read anywhere on the machine (and every process's
  command line and environment in /proc) searched for this run's canaries: the hidden tests' and
  solutions' lines, the other students' tags, the hub's secrets.
- `forge`: a submission folder made by hand in the exchange's inbound folder, in another student's
  name or their own, with any time (the folder's name is all nbgrader's collect reads).
- `symlink_lines`: the shell lines of a submission whose notebook is a link to the instructor's
  solution, and of one whose folder is a link to another student's work (typed in Chromium).
"""

from __future__ import annotations

import shlex
from datetime import UTC, datetime
from pathlib import Path

from tests.browser.hub_rig import CHAPTER, Hub

# Where a student can write and a copy of the course could land: the whole root file system, and
# the usual separate mounts (a tmpfs /tmp, /dev/shm, /run). /proc and /sys are read apart.
SEARCHED = ("/", "/tmp", "/var/tmp", "/dev/shm", "/run")


def stamp(when: datetime | None = None) -> str:
    """A time as nbgrader writes it in an inbound folder's name and timestamp.txt."""
    return f"{(when or datetime.now(UTC)):%Y-%m-%d %H:%M:%S.%f} UTC"


def read_everything(hub: Hub, user: str, secrets: dict[str, str], since: Path) -> list[str]:
    """Where `user` can read any of `secrets` (name -> text): each hit as `name: path`. Only files
    changed after `since` (made before the canaries existed) can hold them, so only those are read;
    /proc is read whole (command lines, and the environments the account may read)."""
    patterns = hub.base / f"patterns-{user}"
    assert all(secrets.values()), "an empty pattern would match every file"
    patterns.write_text("".join(f"{text}\n" for text in secrets.values()), encoding="utf-8")
    patterns.chmod(0o644)
    roots = " ".join(shlex.quote(r) for r in SEARCHED)
    files = (f"find {roots} -xdev \\( -path /proc -o -path /sys \\) -prune -o -type f -readable "
             f"-cnewer {shlex.quote(str(since))} -size -50M -print0 2>/dev/null | sort -zu "
             f"| xargs -0 -r grep -l -F -f {shlex.quote(str(patterns))} 2>/dev/null")
    procs = ("for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do "
             f"tr '\\0' '\\n' < \"$f\" 2>/dev/null | grep -q -F -f {shlex.quote(str(patterns))} && echo \"$f\"; "
             "done")
    try:
        done = hub.as_user(user, "bash", "-c", f"{files}; {procs}; true")
    finally:
        patterns.unlink()  # a later search would find it
    assert done.returncode == 0, done.stderr
    hits = []
    for path in done.stdout.split("\n"):
        if not path or path == str(patterns):
            continue
        text = _read(Path(path))
        hits += [f"{name}: {path}" for name, secret in secrets.items() if secret in text]
    return hits


def _read(path: Path) -> str:
    try:
        return path.read_bytes().replace(b"\0", b"\n").decode("utf-8", "replace")
    except OSError:
        return ""  # a process that ended since: what it held was read as the student, above


def forge(hub: Hub, attacker: str, victim: str, when: str, notebook: Path) -> str:
    """`attacker` makes `<victim>+<chapter>+<when>+forged` in inbound with `notebook` (theirs) in it,
    as nbgrader's submit would lay it out; returns the folder's name."""
    name = f"{victim}+{CHAPTER}+{when}+forged{len(when)}"
    folder = f'"$HUB_EXCHANGE/$HUB_COURSE_ID/inbound/{name}"'
    line = (f"mkdir {folder} && cp {shlex.quote(str(notebook))} {folder}/{CHAPTER}.ipynb && "
            f"echo {shlex.quote(when)} > {folder}/timestamp.txt && echo forged > {folder}/submission_secret.txt")
    done = hub.as_user(attacker, "bash", "-c", line)
    assert done.returncode == 0, f"{attacker} could not write inbound: {done.stderr}"
    return name


def symlink_lines(user: str, solution: Path, victims_work: Path) -> tuple[list[str], list[str]]:
    """The lines `user` types to submit a link to `solution` as their notebook, and a folder that
    is a link to `victims_work`; and the two folders' names."""
    names = [f"{user}+{CHAPTER}+{stamp()}+linked", f"{user}+{CHAPTER}+{stamp()}+folder"]
    first, second = (f'"$HUB_EXCHANGE/$HUB_COURSE_ID/inbound/{n}"' for n in names)
    return [f"mkdir {first} && ln -s {shlex.quote(str(solution))} {first}/{CHAPTER}.ipynb && "
            f"date -u > {first}/timestamp.txt && echo linked > {first}/submission_secret.txt",
            f"ln -s {shlex.quote(str(victims_work))} {second}"], names
