"""The judge's scratch folder and the kernel's view of it, kept in step around every call.

A test makes temporary folders (`tempfile.mkdtemp()` lands in the judge's scratch folder) and
hands their paths to the student's functions; the kernel, in its sandbox, must find the same
files at the same path, and the judge must see what the student's code wrote there. The folder
exists twice: the judge's own, and one inside the sandbox's /tmp at the same path. Before each
call into the kernel, what the judge changed is copied in; after it, what the kernel changed is
copied out.

Copying out never follows anything the kernel made: the sandbox's folder is reached through
/proc/<pid>/root one name at a time with O_NOFOLLOW (an absolute symlink seen from there would
point into the grader's world), and only regular files and folders come out, each at most
FILE_CAP bytes, at most ENTRY_CAP of them. Copying in may carry the judge's own symlinks (tests
make them to check that a student's code refuses them); copying out is never written or removed
through them (nofollow.py).

One copy runs at a time (a lock): two at once (a test's call and the kernel's call on another
thread) could copy a half-written file either way, or remove what the other just made.

Copying out is bounded for the notebook as a whole, never per copy (red team, issue 44): the
judge's folder holds at most TOTAL_CAP bytes (the sandbox's /tmp size) and copying out writes at
most TOTAL_CAP bytes on the grader's disk over the notebook's life (a file made again is counted
again), each file at its st_size (a sparse file comes out as real bytes). Past it copying out stops
for good and raises ScratchFull: the test fails, and so does every later one that calls the
notebook (the judge's copy of its files is stale): never a pass from a flood.

The folder has the same path in the sandbox, whose only writable /tmp is its own tmpfs: so the
grader makes it under the host's /tmp whatever TMPDIR says (/var/tmp/..., an HPC job's folder), and
never as a link from /tmp (a test's `Path(tmp).resolve()` would hand the kernel the link's target).
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable

from autograder.judge.nofollow import (
    NOFOLLOW,
    descend,
    judge_close,
    judge_dir,
    judge_file,
    judge_remove,
    open_dir,
    remove_entry,
    write_new,
)

FILE_CAP = 16 << 20  # bytes of one file copied out (a bigger one is left in the sandbox)
TOTAL_CAP = 64 << 20  # bytes in the judge's folder, and bytes copied out over a notebook's life
ENTRY_CAP = 2_000  # names walked in one copy
DEPTH_CAP = 32  # levels of folders copied out (red team 14: 975 levels broke the grader's clean-up)
SANDBOX_TMP = "/tmp"  # the sandbox's writable /tmp (sandbox.py: a 64 MB tmpfs)


class ScratchFull(BaseException):
    """Copying out is over the judge's limit: the test fails (no `except Exception` in a test or in
    the notebook's code catches it; `link_stop`: the link re-raises it, never answers with it)."""

    link_stop = True


def sandbox_visible(scratch: str) -> bool:
    """Is `scratch` a real folder under /tmp (no link on the way), a path the sandbox has too?"""
    real = os.path.realpath(scratch)
    return real == os.path.abspath(scratch) and real.startswith(SANDBOX_TMP + "/")


def quietly(step: Callable[[], None]) -> None:
    """A copy that fails (the kernel removed its folder, a file vanished) leaves the test to fail
    on what it finds; it never stops the judge."""
    try:
        step()
    except OSError:
        pass


class Mirror:
    """`path` on the judge's side and, inside the sandbox whose root is `root`, at the same path."""

    def __init__(self, path: str, root: str):
        if not sandbox_visible(path):  # the grader makes it under /tmp (judge/cells.py), whatever TMPDIR is
            raise ValueError(f"the judge's scratch folder {path} is not a real folder under {SANDBOX_TMP}, "
                             "the only one a sandboxed kernel can write")
        self.path, self.root = os.path.abspath(path), root
        self.judge_state: dict[str, tuple] = {}
        self.kernel_state: dict[str, tuple] = {}
        self.copied = 0  # bytes written onto the judge's side by copying out, over the notebook
        self.held = 0  # bytes the judge's folder holds (its files' st_size), as of the last copy out
        self.full = False  # past TOTAL_CAP: copying out has stopped for good
        self.lock = threading.Lock()
        fd = self._kernel_dir(create=True)
        os.fchmod(fd, 0o777)
        os.close(fd)

    # -- the sandbox's side, safely ---------------------------------------------------------------

    def _kernel_dir(self, create: bool = False) -> int:
        return descend(self.root, self.path.strip("/").split("/"), create=create)

    def _walk_kernel(self, fd: int, prefix: str, out: dict, budget: list, depth: int = 0) -> None:
        """The kernel's folder as {relative path: ("d",) or ("f", size, mtime)}: regular files (a
        hard link too: it can only be to another file of the sandbox's own /tmp) and folders, at most
        ENTRY_CAP entries and DEPTH_CAP levels; nothing else, and no link, is followed."""
        with os.scandir(fd) as entries:
            for entry in entries:
                if budget[0] <= 0:
                    return
                budget[0] -= 1
                rel = prefix + entry.name
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode) and depth < DEPTH_CAP:
                    out[rel] = ("d",)
                    try:
                        sub = open_dir(entry.name, fd)
                    except OSError:
                        continue
                    try:
                        self._walk_kernel(sub, rel + "/", out, budget, depth + 1)
                    finally:
                        os.close(sub)
                elif stat.S_ISREG(st.st_mode):
                    out[rel] = ("f", st.st_size, st.st_mtime_ns)

    def _read_kernel(self, fd: int, rel: str) -> bytes | None:
        *dirs, name = rel.split("/")
        opened: list[int] = []
        try:
            for d in dirs:
                fd = open_dir(d, fd)
                opened.append(fd)
            f = os.open(name, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW, dir_fd=fd)
            try:
                st = os.fstat(f)
                if not stat.S_ISREG(st.st_mode) or st.st_size > FILE_CAP:
                    return None
                return os.read(f, FILE_CAP + 1)[:FILE_CAP]
            finally:
                os.close(f)
        except OSError:
            return None
        finally:
            for opened_fd in opened:
                os.close(opened_fd)

    # -- in step --------------------------------------------------------------------------------

    def _judge_walk(self) -> dict:
        out = {}
        for folder, dirs, files in os.walk(self.path):
            rel_dir = os.path.relpath(folder, self.path)
            for name in dirs + files:
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                st = os.lstat(os.path.join(folder, name))
                kind = "l" if stat.S_ISLNK(st.st_mode) else "d" if stat.S_ISDIR(st.st_mode) else "f"
                out[rel] = (kind, st.st_size, st.st_mtime_ns) if kind != "d" else ("d",)
            if len(out) > ENTRY_CAP:
                break
        return out

    def to_kernel(self) -> None:
        """Copy into the sandbox what the judge's side changed since the last time."""
        with self.lock:
            self._to_kernel()

    def from_kernel(self) -> None:
        """Copy out of the sandbox what the kernel changed since the last time."""
        with self.lock:
            self._from_kernel()

    def _to_kernel(self) -> None:
        now = self._judge_walk()
        if now == self.judge_state:
            return
        root = self._kernel_dir()
        try:
            for rel in sorted(set(self.judge_state) - set(now), reverse=True):
                self._remove(root, rel)
            for rel in sorted(now):
                if self.judge_state.get(rel) != now[rel]:
                    self._write(root, rel, now[rel][0])
            after: dict = {}
            self._walk_kernel(root, "", after, [ENTRY_CAP])
            self.kernel_state = after
        finally:
            os.close(root)
        self.judge_state = now

    def _from_kernel(self) -> None:
        if self.full:
            raise ScratchFull(self._over())
        root = self._kernel_dir()
        try:
            now: dict = {}
            self._walk_kernel(root, "", now, [ENTRY_CAP])
            if now == self.kernel_state:
                return
            held = {rel: v[1] for rel, v in self._judge_walk().items() if v[0] == "f"}  # st_size
            for rel in sorted(set(self.kernel_state) - set(now), reverse=True):
                judge_remove(self.path, rel)
                held.pop(rel, None)
            self.held = sum(held.values())
            for rel in sorted(now):
                if self.kernel_state.get(rel) == now[rel]:
                    continue
                if now[rel][0] == "d":
                    judge_close(judge_dir(self.path, rel.split("/")))
                    continue
                if now[rel][1] > FILE_CAP:
                    continue  # never copied out (FILE_CAP), so never counted
                if not self._fits(now[rel][1], held, rel):  # before reading it: nothing more is read
                    break
                data = self._read_kernel(root, rel)
                if data is None:
                    continue
                if not self._fits(len(data), held, rel):  # it grew since the walk
                    break
                self.copied += len(data)
                self.held += len(data) - held.get(rel, 0)
                held[rel] = len(data)
                judge_file(self.path, rel, data)
            else:
                self.kernel_state = now
        finally:
            os.close(root)
        self.judge_state = self._judge_walk()
        if self.full:
            raise ScratchFull(self._over())

    def _fits(self, size: int, held: dict[str, int], rel: str) -> bool:
        """`size` bytes at `rel` keep the folder, and all copied out so far, within TOTAL_CAP; if
        not, copying out stops for good."""
        if self.copied + size > TOTAL_CAP or self.held - held.get(rel, 0) + size > TOTAL_CAP:
            self.full = True
        return not self.full

    def _over(self) -> str:
        cap = TOTAL_CAP >> 20
        return (f"the notebook's files passed the judge's limit of {cap} MB: what the notebook's code "
                f"writes in a test's folders is copied out to the grader, at most {cap} MB in all over "
                f"the notebook's tests ({self.copied / 2**20:.1f} MB copied; a sparse file counts at its "
                "full size), and no more is copied for this notebook")

    def _parent(self, root: int, rel: str) -> tuple[int, str, list[int]]:
        *dirs, name = rel.split("/")
        fd, opened = root, []
        for d in dirs:
            fd = open_dir(d, fd)
            opened.append(fd)
        return fd, name, opened

    def _write(self, root: int, rel: str, kind: str) -> None:
        fd, name, opened = self._parent(root, rel)
        local = os.path.join(self.path, rel)
        try:
            if kind == "d":
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                sub = open_dir(name, fd)
                os.fchmod(sub, 0o777)
                os.close(sub)
                return
            remove_entry(fd, name)
            if kind == "l":
                os.symlink(os.readlink(local), name, dir_fd=fd)
                return
            with open(local, "rb") as src:
                data = src.read(FILE_CAP)
            write_new(fd, name, data, 0o666)
        except OSError:
            pass
        finally:
            for d in opened:
                os.close(d)

    def _remove(self, root: int, rel: str) -> None:
        try:
            fd, name, opened = self._parent(root, rel)
        except OSError:
            return
        try:
            remove_entry(fd, name)
        finally:
            for d in opened:
                os.close(d)
