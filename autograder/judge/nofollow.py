"""File operations under a folder's descriptor that follow no link (the judge's scratch folder).

The sandbox's copy of the scratch folder is the kernel's, and the judge's copy holds a test's own
links (a link out of the folder, to check that the student's code refuses it). Every name is
opened under its parent's descriptor with O_NOFOLLOW. On the judge's side, a link where the kernel
has a folder or a file is replaced, never followed: a kernel that turned the test's link into a
real folder must not have its files written, or removed, through it as the grader, wherever it
points (red team, issue 24).
"""

from __future__ import annotations

import os

NOFOLLOW = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def open_dir(name: str, dir_fd: int) -> int:
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW, dir_fd=dir_fd)


def remove_entry(fd: int, name: str) -> None:
    """Remove `name` (a file, a link, or a whole folder) under the folder `fd`, following nothing."""
    try:
        os.unlink(name, dir_fd=fd)
        return
    except FileNotFoundError:
        return
    except (IsADirectoryError, PermissionError):
        pass
    except OSError:
        return
    try:
        sub = open_dir(name, fd)
    except OSError:
        return
    try:
        for entry in os.listdir(sub):
            remove_entry(sub, entry)
    finally:
        os.close(sub)
    try:
        os.rmdir(name, dir_fd=fd)
    except OSError:
        pass


# The judge's folder holds the test's own symlinks (a link out of the folder, to check that the
# student's code refuses it). A kernel that turned one into a real folder must not have its
# files written, or removed, through the judge's link, as the grader, wherever it points: every
# name is opened under its parent's descriptor with O_NOFOLLOW, and a link where the kernel has
# a folder or a file is replaced, never followed.

def judge_close(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)

def descend(start: str, parts: list[str], create: bool = False, replace: bool = False) -> int:
    """An open descriptor of the folder start/parts…, each name opened under its parent with
    O_NOFOLLOW. A missing folder is made when `create`; a link or a file in the way is replaced by
    a folder when `replace`. Otherwise the error is raised."""
    fd = os.open(start, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts:
            try:
                new = open_dir(part, fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o755, dir_fd=fd)
                new = open_dir(part, fd)
            except OSError:
                if not replace:
                    raise
                os.unlink(part, dir_fd=fd)
                os.mkdir(part, 0o755, dir_fd=fd)
                new = open_dir(part, fd)
            os.close(fd)
            fd = new
        return fd
    except BaseException:
        os.close(fd)
        raise


def write_new(fd: int, name: str, data: bytes, mode: int) -> None:
    """A new file `name` under the folder `fd` (never through a link: O_EXCL | O_NOFOLLOW) holding `data`."""
    f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, mode, dir_fd=fd)
    try:
        os.fchmod(f, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(f, view):]
    finally:
        os.close(f)


def judge_dir(path: str, parts: list[str]) -> int | None:
    """The judge's folder `parts` (made as needed, links in the way replaced), open; None if not."""
    try:
        return descend(path, parts, create=True, replace=True)
    except OSError:
        return None


def judge_file(path: str, rel: str, data: bytes) -> None:
    *dirs, name = rel.split("/")
    fd = judge_dir(path, dirs)
    if fd is None:
        return
    try:
        remove_entry(fd, name)
        write_new(fd, name, data, 0o644)
    except OSError:
        pass
    finally:
        os.close(fd)

def judge_remove(path: str, rel: str) -> None:
    """Remove what the kernel removed: an empty folder or a file, under real folders only."""
    *dirs, name = rel.split("/")
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in dirs:
            new = open_dir(part, fd)  # a link on the way: nothing of the kernel's is behind it
            os.close(fd)
            fd = new
        try:
            os.unlink(name, dir_fd=fd)
        except IsADirectoryError:
            os.rmdir(name, dir_fd=fd)  # only when empty, as before
    except OSError:
        pass
    finally:
        os.close(fd)
