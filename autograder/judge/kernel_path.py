"""A path in the kernel's sandbox, as a graded test holds it (files.py makes them).

A `PurePosixPath` with the file methods of `pathlib.Path` that tests use, each one request of the
sandbox's files (`files`, a `SandboxFiles`, set on the subclass each sandbox makes): `resolve()`
follows the folder's own links, read one at a time, never one out of the test's folders; the other
methods act on the resolved path by descriptor. What is not here (`open`, `chmod`...) is not a
test's to use: the gate `tests/test_gates_files.py` keeps test cells to these.
"""

from __future__ import annotations

import fnmatch
import io
import os
import pathlib
import posixpath
import stat
from collections.abc import Iterator
from typing import Any

LINK_CAP = 40  # links one resolve() follows (the kernel's own limit)


class KernelPath(pathlib.PurePosixPath):
    """A path in the sandbox, with the file methods of pathlib.Path a test uses, each one request
    of the sandbox's files (`files`, set on this sandbox's subclass)."""

    files: Any  # files.SandboxFiles

    def _resolved(self, strict: bool = False) -> str:
        """The path with its links followed as the kernel follows them: one name at a time, a `..`
        after a link going up from where the link led (red team 15), each name looked up only
        inside the test's folders (what is outside them is taken as written)."""
        if not str(self).startswith("/"):
            return posixpath.normpath(str(self))  # relative to a folder the judge does not know
        todo, done, links = str(self).split("/")[::-1], "/", 0
        while todo:
            name = todo.pop()
            if name in ("", "."):
                continue
            if name == "..":
                done = posixpath.dirname(done)
                continue
            here = posixpath.join(done, name)
            st = self.files.lstat(here) if self.files.inside(here) else None
            if st is None and self.files.inside(here):
                if strict:
                    raise FileNotFoundError(2, "No such file or directory", here)
                return posixpath.normpath(posixpath.join(here, *reversed(todo)))  # the rest as written
            if st is not None and stat.S_ISLNK(st.st_mode):
                links += 1
                if links > LINK_CAP:
                    raise OSError(f"{self}: too many levels of symbolic links")
                target = self.files.readlink(here)
                todo.extend(reversed(target.split("/")))
                done = "/" if target.startswith("/") else done
                continue
            done = here
        return done

    def resolve(self, strict: bool = False) -> KernelPath:
        return type(self)(self._resolved(strict))

    def _stat(self) -> os.stat_result | None:
        path = self._resolved()
        return self.files.lstat(path) if self.files.inside(path) else None

    def stat(self) -> os.stat_result:
        st = self._stat()
        if st is None:
            raise FileNotFoundError(2, "No such file or directory", str(self))
        return st

    def exists(self) -> bool:
        return self._stat() is not None

    def is_file(self) -> bool:
        st = self._stat()
        return st is not None and stat.S_ISREG(st.st_mode)

    def is_dir(self) -> bool:
        st = self._stat()
        return st is not None and stat.S_ISDIR(st.st_mode)

    def _here(self) -> str:
        """This path with its folder resolved and its own name not followed."""
        return posixpath.join(self.parent._resolved(), self.name)

    def is_symlink(self) -> bool:
        st = self.files.lstat(self._here())
        return st is not None and stat.S_ISLNK(st.st_mode)

    def read_bytes(self) -> bytes:
        return self.files.read(self._resolved())

    def read_text(self, encoding: str | None = None, errors: str | None = None) -> str:
        with io.TextIOWrapper(io.BytesIO(self.read_bytes()), encoding=encoding or "utf-8", errors=errors) as text:
            return text.read()

    def write_bytes(self, data: bytes) -> int:
        data = bytes(memoryview(data))
        self.files.write(self._resolved(), data)
        return len(data)

    def write_text(self, data: str, encoding: str | None = None, errors: str | None = None,
                   newline: str | None = None) -> int:
        if not isinstance(data, str):
            raise TypeError(f"data must be str, not {type(data).__name__}")
        if newline not in (None, "", "\n"):
            data = data.replace("\n", newline)
        self.write_bytes(data.encode(encoding or "utf-8", errors or "strict"))
        return len(data)

    def mkdir(self, mode: int = 0o777, parents: bool = False, exist_ok: bool = False) -> None:
        if parents and not self.parent.exists():
            self.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.files.mkdir(self._here())
        except FileExistsError:
            if not exist_ok or not self.is_dir():
                raise

    def symlink_to(self, target: str | os.PathLike[str], target_is_directory: bool = False) -> None:
        del target_is_directory  # pathlib's signature; it matters on Windows only
        self.files.symlink(self._here(), os.fspath(target))

    def iterdir(self) -> Iterator[KernelPath]:
        for name in self.files.listdir(self._resolved()):
            yield self / name

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.files.unlink(self._here())
        except FileNotFoundError:
            if not missing_ok:
                raise

    def rmdir(self) -> None:
        self.files.unlink(self._resolved(), folder=True)

    def replace(self, target: str | os.PathLike[str]) -> KernelPath:
        target = type(self)(os.fspath(target))
        self.files.rename(self._here(), target._here())
        return target

    def rglob(self, pattern: str) -> Iterator[KernelPath]:
        """Every name below that matches, at any depth, never through a link to a folder."""
        for child in self.iterdir():
            if fnmatch.fnmatchcase(child.name, pattern):
                yield child
            if child.is_dir() and not child.is_symlink():
                yield from child.rglob(pattern)
