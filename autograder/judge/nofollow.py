"""File operations under a folder's descriptor that follow no link (the sandbox's files, files.py).

The folders a test hands the notebook's code are the kernel's, inside its sandbox: an absolute
link the kernel made there, followed from the grader, would point into the grader's world. So
every name is opened under its parent's descriptor with O_NOFOLLOW, and removing a tree never
follows a link in it (red team, issue 24).
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


def descend(start: str, parts: list[str]) -> int:
    """An open descriptor of the folder start/parts…, each name opened under its parent with
    O_NOFOLLOW: a link on the way is an error, never followed."""
    fd = os.open(start, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts:
            new = open_dir(part, fd)
            os.close(fd)
            fd = new
        return fd
    except BaseException:
        os.close(fd)
        raise
