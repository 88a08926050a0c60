"""The grader's own files (results, logs, grades.csv, LMS imports), written whole or not at all and
whatever a submission left in their way inside the workspace (a symlink, a file where a folder goes)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def clear(path: Path, within: Path | None = None) -> Path:
    """Remove `path` and anything in the way of its folders inside `within` (a symlink or a file
    where a folder goes), never following a link out of `within`. Returns the absolute path."""
    path, root = Path(path).absolute(), Path(within).absolute() if within else None
    for parent in reversed([path.parent, *path.parent.parents]):
        if root is not None and parent.is_relative_to(root) and parent != root and (
                parent.is_symlink() or (parent.exists() and not parent.is_dir())):
            parent.unlink()
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    return path


def write_text(path: Path, text: str, within: Path | None = None) -> None:
    """Write `path` whatever was put in its way inside `within` (a folder, a symlink, a file where
    a folder goes): the grader's own files are never blocked by what a submission left there."""
    path = clear(path, within)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    if tmp.is_dir() and not tmp.is_symlink():
        shutil.rmtree(tmp)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
