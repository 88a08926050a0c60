"""The notebook's files, as a graded test reads and writes them: on request, by descriptor, capped.

A test that hands the student's code a folder makes it with `notebook_folder()`
(workbook/notebook_side.py). Graded, with the kernel in a sandbox, that folder exists only inside
the sandbox's /tmp, and the test holds a `KernelPath` to it: a PurePosixPath whose file methods
(`read_text`, `write_text`, `mkdir`, `symlink_to`, `iterdir`, `exists`, `resolve`, `replace`, ...)
each make one request of the sandbox's files through /proc/<pid>/root. Nothing is copied around
calls and nothing lands on the grader's disk: a file comes into the judge's memory when the test
reads it, once.

- **By descriptor, following no link**: every name is opened under its parent's descriptor with
  O_NOFOLLOW (an absolute link the kernel made, seen from the grader, would point into the
  grader's world). `resolve()` follows the folder's links itself, reading them one at a time, and
  only inside the folders the test made.
- **Only the test's folders**: a path outside every folder the test made (one the notebook's code
  returned, say) is a PermissionError; the notebook's paths that the judge decodes are
  `KernelPath`s, so a test reads what the notebook returned the same way.
- **Capped**: one file read is at most FILE_CAP bytes, a folder lists at most ENTRY_CAP names, and
  the notebook's tests together read at most TOTAL_CAP bytes, each file counted at its st_size (a
  sparse file at its full size). Past a cap the test fails (FilesFull, which no `except Exception`
  catches), and so does every later read.

Without a sandbox (the judge's own tests, a run with no bubblewrap) the kernel shares the judge's
file system and `notebook_folder()` is a plain temporary folder.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import posixpath
import secrets
import stat
import threading
from collections.abc import Iterator

from autograder.judge.kernel_path import KernelPath
from autograder.judge.nofollow import NOFOLLOW, descend, open_dir, remove_entry

SANDBOX_TMP = "/tmp"  # the sandbox's writable /tmp (sandbox.py: a 64 MB tmpfs)
FILE_CAP = 16 << 20  # bytes of one file a test reads
TOTAL_CAP = 64 << 20  # bytes the notebook's tests read in all (a file at its st_size)
ENTRY_CAP = 2_000  # names one folder lists


class FilesFull(BaseException):
    """The notebook's files passed a cap: the test fails (no `except Exception` in a test or in the
    notebook's code catches it; `link_stop`: the link re-raises it, never answers with it)."""

    link_stop = True


class SandboxFiles:
    """The files under one sandbox's root (`/proc/<pid>/root`), reached by descriptor."""

    def __init__(self, root: str):
        self.root = root
        self.folders: set[str] = set()  # the folders the tests made, as the kernel names them
        self.read_total = 0  # bytes read so far (each file at its st_size)
        self.full = False  # past TOTAL_CAP: no more is read for this notebook
        self.lock = threading.Lock()
        self.Path = type("KernelPath", (KernelPath,), {"files": self})  # this sandbox's paths

    @contextlib.contextmanager
    def folder(self) -> Iterator[KernelPath]:
        """A new, empty folder in the sandbox's /tmp, the kernel's to write; removed afterwards."""
        path = f"{SANDBOX_TMP}/agentloop-files-{secrets.token_hex(8)}"
        self.folders.add(path)
        try:
            self.mkdir(path)
            yield self.Path(path)
        finally:
            with contextlib.suppress(OSError, RecursionError), self._parent(path) as (fd, name):
                remove_entry(fd, name)  # the sandbox's /tmp goes with it anyway
            self.folders.discard(path)

    def inside(self, path: str) -> bool:
        return any(path == f or path.startswith(f + "/") for f in self.folders)

    @contextlib.contextmanager
    def _parent(self, path: str) -> Iterator[tuple[int, str]]:
        """The open folder that holds `path`, and its last name."""
        norm = posixpath.normpath(path)
        if not norm.startswith("/") or not self.inside(norm):
            raise PermissionError(f"{norm}: a graded test reads and writes only the folders it made "
                                  "with notebook_folder()")
        *dirs, name = norm.strip("/").split("/")
        fd = descend(self.root, dirs)
        try:
            yield fd, name
        finally:
            os.close(fd)

    def lstat(self, path: str) -> os.stat_result | None:
        with self._parent(path) as (fd, name):
            try:
                return os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                return None

    def readlink(self, path: str) -> str:
        with self._parent(path) as (fd, name):
            return os.readlink(name, dir_fd=fd)

    def read(self, path: str) -> bytes:
        with self._parent(path) as (fd, name):
            f = os.open(name, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW, dir_fd=fd)
            try:
                st = os.fstat(f)
                if stat.S_ISDIR(st.st_mode):
                    raise IsADirectoryError(21, "Is a directory", path)
                if not stat.S_ISREG(st.st_mode):
                    raise OSError(f"{path}: not a regular file")
                self._charge(st.st_size, path)
                data = os.read(f, FILE_CAP)
                if len(data) > st.st_size:  # it grew since it was counted (red team 15): count the rest
                    self._charge(len(data) - st.st_size, path)
                return data
            finally:
                os.close(f)

    def _charge(self, size: int, path: str) -> None:
        """Count a read at the file's st_size (a sparse file at its full size); a file over FILE_CAP
        fails its own read, and past TOTAL_CAP in all every read fails."""
        with self.lock:
            fits = not self.full and size <= FILE_CAP and self.read_total + size <= TOTAL_CAP
            if fits:
                self.read_total += size
            elif size <= FILE_CAP:
                self.full = True
        if not fits:
            raise FilesFull(f"{path} holds {size / 2**20:.1f} MB: a graded test reads at most "
                            f"{FILE_CAP >> 20} MB of one file and {TOTAL_CAP >> 20} MB of the notebook's files "
                            f"in all ({self.read_total / 2**20:.1f} MB so far), a sparse file at its full size")

    def write(self, path: str, data: bytes) -> None:
        with self._parent(path) as (fd, name):
            f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | NOFOLLOW, 0o666, dir_fd=fd)  # a FIFO: no wait
            try:
                if not stat.S_ISREG(os.fstat(f).st_mode):
                    raise OSError(f"{path}: not a regular file")
                os.ftruncate(f, 0)
                os.fchmod(f, 0o666)
                view = memoryview(data)
                while view:
                    view = view[os.write(f, view):]
            finally:
                os.close(f)

    def mkdir(self, path: str) -> None:
        with self._parent(path) as (fd, name):
            os.mkdir(name, 0o700, dir_fd=fd)
            sub = open_dir(name, fd)
            os.fchmod(sub, 0o777)
            os.close(sub)

    def symlink(self, path: str, target: str) -> None:
        with self._parent(path) as (fd, name):
            os.symlink(target, name, dir_fd=fd)

    def listdir(self, path: str) -> list[str]:
        with self._parent(path) as (fd, name):
            sub = open_dir(name, fd)
            try:
                with os.scandir(sub) as entries:  # stops at the cap: a million names are never all read
                    names = [entry.name for entry in itertools.islice(entries, ENTRY_CAP + 1)]
            finally:
                os.close(sub)
        if len(names) > ENTRY_CAP:
            raise FilesFull(f"{path}: over {ENTRY_CAP} names in one folder")
        return names

    def unlink(self, path: str, folder: bool = False) -> None:
        with self._parent(path) as (fd, name):
            if folder:
                os.rmdir(name, dir_fd=fd)
            else:
                os.unlink(name, dir_fd=fd)

    def rename(self, src: str, dst: str) -> None:
        with self._parent(src) as (sfd, sname), self._parent(dst) as (dfd, dname):
            os.rename(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd)
