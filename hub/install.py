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
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# the plan and what it reads of the machine, in their own modules (stdlib only, like this file)
from install_machine import Machine, proxy_version  # noqa: E402
from install_plan import REPO, Step, Write, plan, problems, start_command  # noqa: E402
from student_course import DEFAULT_STATE  # noqa: E402


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
    port = args.port or json.loads(m.read(Path(args.state, "hub.json")) or "{}").get("port", "(the port setup chose)")
    if (args.no_systemd or not m.systemd()) and not (isinstance(port, int) and m.hub_up(port)):
        sudo = "sudo " if m.which("sudo") else ""  # Debian without sudo: a root shell (su -), docs/HUB.md
        print(f"start the hub as root (it stops with its terminal; docs/HUB.md): {sudo}{start_command(args)}")
    print(f"the hub: http://127.0.0.1:{port} (put HTTPS in front of it for a network; docs/HUB.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
