"""What hub/install.py reads from this machine, and nothing else: root, the tools on PATH, the
accounts and their passwords' state, folder modes and groups, Node.js's version, files, systemd,
and whether a hub already answers on its port.
Tests hand the plan a stand-in `Machine` (tests/test_hub_install.py). Only the standard library:
the installer runs before the venv exists.
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from student_course import runnable_by_all  # hub/ is on the path of whatever imports this

UNIT = Path("/etc/systemd/system/agent-loop-hub.service")
# configurable-http-proxy's newest release each Node.js accepts (its package.json "engines":
# 5.2.0 and later need node >= 20, 5.0-5.1 node >= 18; npm view, 2026-12-04). 5.3.0 is tested here.
PROXY_FOR_NODE = ((20, "5.3.0"), (18, "5.1.0"))


class Machine:
    """What the plan reads from this machine (tests hand the plan a fake one)."""

    def euid(self) -> int:
        return os.geteuid()

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def has_ensurepip(self) -> bool:
        return subprocess.run([sys.executable, "-c", "import ensurepip"], capture_output=True).returncode == 0

    def account(self, name: str):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            return None

    def mode(self, path: str) -> int | None:
        try:
            return os.stat(path).st_mode & 0o777
        except OSError:
            return None

    def group(self, path: Path) -> str | None:
        """The name of the group that owns `path` (its gid when the group has no name)."""
        gid = os.stat(path).st_gid
        try:
            return grp.getgrgid(gid).gr_name
        except KeyError:
            return str(gid)

    def group_members(self, name: str) -> set[str] | None:
        """The accounts in group `name` (as their primary group or added to it); None: no such group."""
        try:
            group = grp.getgrnam(name)
        except KeyError:
            return None
        return set(group.gr_mem) | {p.pw_name for p in pwd.getpwall() if p.pw_gid == group.gr_gid}

    def shadow(self) -> dict[str, str] | None:
        """account -> its password field, or None when /etc/shadow cannot be read (not root)."""
        try:
            lines = Path("/etc/shadow").read_text().splitlines()
        except OSError:
            return None
        return {p[0]: p[1] for p in (line.split(":") for line in lines) if len(p) > 1}

    def node_major(self) -> int | None:
        """Node.js's major version: the installed one, else the one apt would install."""
        if self.which("node"):
            out = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout
        elif self.which("apt-cache"):
            out = subprocess.run(["apt-cache", "policy", "nodejs"], capture_output=True, text=True).stdout
            out = re.sub(r"(?s).*?Candidate:\s*", "", out) if "Candidate:" in out else ""
        else:
            return None
        found = re.search(r"(\d+)\.\d+", out)
        return int(found.group(1)) if found else None

    def exists(self, path: Path) -> bool:
        return path.exists()

    def readable_by_all(self, path: Path) -> bool:
        return runnable_by_all(path)

    def read(self, path: Path) -> str | None:
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            return None

    def systemd(self) -> bool:
        return Path("/run/systemd/system").is_dir() and self.which("systemctl") is not None

    def hub_up(self, port: int) -> bool:
        """A hub answers on 127.0.0.1:`port` (a run that only adds students leaves it running)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/hub/health", timeout=5):
                return True
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def unit_on(self) -> bool:
        """The hub's unit is enabled and running."""
        return all(subprocess.run(["systemctl", verb, "--quiet", UNIT.stem]).returncode == 0
                   for verb in ("is-enabled", "is-active"))


def proxy_version(node: int | None) -> str | None:
    """The configurable-http-proxy release to install for Node.js `node` (None: none runs on it)."""
    return next((version for least, version in PROXY_FOR_NODE if node is not None and node >= least), None)


def apt_packages(m: Machine) -> list[tuple[str, bool]]:
    """The system packages the hub needs, each with whether it is installed."""
    return [("bubblewrap", bool(m.which("bwrap"))), ("npm", bool(m.which("npm"))),
            ("python3-venv", m.has_ensurepip())]
