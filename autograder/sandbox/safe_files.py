"""Reading what students hand in without trusting it: only regular files with one name, opened
without following any link and checked again once open, a size cap per notebook, and zips unpacked
with their links, absolute paths and `..` refused (issue 25, item 3; `collect` and `collect
--exchange` read every notebook through here)."""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from autograder.course import AutograderError

SKIP = ("__MACOSX", ".ipynb_checkpoints")
MAX_ZIP_BYTES = 500 * 1024 * 1024  # uncompressed; a zip bomb stops here
MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024  # one submitted notebook; a larger file is refused


def _skipped(name: str) -> bool:
    return name in SKIP or name.startswith(".")


def walk(root: Path) -> tuple[list[PurePosixPath], list[str]]:
    """The notebooks under `root` that are regular files with one name, and every entry refused
    (a symlink, hard link, device, fifo or socket), without following any link."""
    found, refused, folders = [], [], [PurePosixPath()]
    while folders:
        folder = folders.pop()
        try:
            fd = _open_folder(root, folder)
        except OSError as e:
            refused.append(f"{folder}/: cannot be read safely ({e.strerror})")
            continue
        try:
            names = sorted(os.listdir(fd))
            for name in names:
                if _skipped(name):
                    continue
                rel, st = folder / name, os.stat(name, dir_fd=fd, follow_symlinks=False)
                why = _why_not(st)
                if stat.S_ISDIR(st.st_mode):
                    folders.append(rel)
                elif why and (name.endswith(".ipynb") or not stat.S_ISREG(st.st_mode)):
                    refused.append(f"{rel}: refused, {why}")  # a hard-linked stray file is just ignored
                elif not why and name.endswith(".ipynb"):
                    found.append(rel)
        finally:
            os.close(fd)
    return sorted(found), sorted(refused)


def _why_not(st: os.stat_result) -> str:
    """Why an entry is not collected ('' for a regular file with one name or a folder)."""
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link (links are never followed)"
    if stat.S_ISDIR(st.st_mode):
        return ""
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (a device, fifo or socket)"
    if st.st_nlink > 1:
        return f"a hard link ({st.st_nlink} names for one file)"
    return ""


def _open_folder(root: Path, rel: PurePosixPath) -> int:
    """A descriptor for root/rel, opening each folder on the way without following a link."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for part in rel.parts:
        try:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        finally:
            os.close(fd)
        fd = inner
    return fd


def read_regular(root: Path, rel: PurePosixPath, owner: int | None = None) -> bytes:
    """The bytes of root/rel, opened without following links and checked once open: a regular
    file with one name, at most MAX_NOTEBOOK_BYTES, and owned by the uid `owner` when one is given
    (nbgrader's exchange: the submitting account's). Raises ValueError saying why not."""
    try:
        folder = _open_folder(root, rel.parent)
    except OSError as e:
        raise ValueError(f"a folder on its path cannot be opened without following a link ({e.strerror})") from None
    try:
        fd = os.open(rel.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError as e:
        raise ValueError(f"cannot be opened without following a link ({e.strerror})") from None
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        why = _why_not(st)
        if why:
            raise ValueError(why)
        if owner is not None and st.st_uid != owner:
            raise ValueError(f"owned by uid {st.st_uid}, not by the submitting account (uid {owner})")
        data = f.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"larger than {MAX_NOTEBOOK_BYTES >> 20} MB")
    return data


def extract(zip_path: Path, into: Path) -> list[str]:
    """Unpack the zip's notebooks as plain files; return the entries refused, with why."""
    refused = []
    try:
        with zipfile.ZipFile(zip_path) as zf:
            infos = zf.infolist()
            if sum(i.file_size for i in infos) > MAX_ZIP_BYTES:
                raise AutograderError(f"{zip_path} unpacks to more than {MAX_ZIP_BYTES >> 20} MB")
            for info in infos:
                name, mode = PurePosixPath(info.filename), info.external_attr >> 16
                if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
                    refused.append(f"{info.filename}: refused, an unsafe path in the zip (absolute or ..)")
                elif stat.S_ISLNK(mode):
                    refused.append(f"{info.filename}: refused, a symbolic link in the zip")
                elif mode and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    refused.append(f"{info.filename}: refused, not a regular file in the zip")
                elif not info.is_dir() and name.suffix == ".ipynb" and not any(map(_skipped, name.parts)):
                    target = into.joinpath(*name.parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, open(target, "xb") as dst:
                        shutil.copyfileobj(src, dst)
    except zipfile.BadZipFile as e:
        raise AutograderError(f"{zip_path} is not a zip file ({e})") from None
    except FileExistsError as e:
        raise AutograderError(f"{zip_path}: two entries unpack to one name ({e.filename})") from None
    return refused
