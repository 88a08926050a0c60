"""A private copy of the workbook package for a test: `fresh()`, loaded from the package's files.

A test's fakes and scenarios come from such a copy, never from `sys.modules`, so a student's cell
that replaces `workbook.scenarios.get` or patches a fake's class changes nothing the test uses
(`workbook.checks` re-exports `fresh`; tests/test_fresh_is_private.py plays the student).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import sys
import threading
import types
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PACKAGE = "workbook"

# Bound at import time, so a later `importlib.import_module = ...` in a student's cell is not used.
_import_module, _filter, _list = importlib.import_module, filter, list
_spec_from_file = importlib.util.spec_from_file_location
_FileFinder = importlib.machinery.PathFinder
_lock = threading.Lock()  # fresh() swaps sys.modules entries; two threads must not interleave
_ours = re.compile(re.escape(PACKAGE) + r"(?:\.|\Z)").match  # `workbook` and its submodules, in C


class _Finder:
    """Finds `workbook` and its submodules in PACKAGE_DIR only, ahead of any other finder."""

    def __init__(self, package_dir: Path):
        self.package_dir = package_dir

    def find_spec(self, name, path=None, target=None):
        if not _ours(name):
            return None
        if name == PACKAGE:
            return _spec_from_file(PACKAGE, self.package_dir / "__init__.py",
                                   submodule_search_locations=[str(self.package_dir)])
        parent, _, _ = name.rpartition(".")
        folder = self.package_dir.joinpath(*parent.split(".")[1:])
        return _FileFinder.find_spec(name, [str(folder)])


class Fresh:
    """A private copy of the workbook package: `wb.fake_llm`, `wb.scenarios`, `wb.checks`, ..."""

    def __init__(self, package_dir: Path = PACKAGE_DIR):
        self._dir = Path(package_dir)
        self._modules: dict[str, types.ModuleType] = {}
        self._load(PACKAGE)

    def _load(self, name: str) -> types.ModuleType:
        """Import `name` with our private modules in sys.modules, then put the real ones back."""
        with _lock:
            saved = {k: sys.modules[k] for k in _list(_filter(_ours, sys.modules))}
            for k in saved:
                del sys.modules[k]
            sys.modules.update(self._modules)
            finder = _Finder(self._dir)
            sys.meta_path.insert(0, finder)
            try:
                return _import_module(name)
            finally:
                sys.meta_path.remove(finder)
                mine = _list(_filter(_ours, sys.modules))
                self._modules.update({k: sys.modules[k] for k in mine})
                for k in mine:
                    del sys.modules[k]
                sys.modules.update(saved)

    def __getattr__(self, attr: str):
        if attr.startswith("_"):
            raise AttributeError(attr)
        name = f"{PACKAGE}.{attr}"
        if name not in self._modules:
            if not (self._dir / f"{attr}.py").is_file() and not (self._dir / attr / "__init__.py").is_file():
                raise AttributeError(f"the workbook has no module {attr!r} (have: {', '.join(dir(self))})")
            self._load(name)
        return self._modules[name]

    def __dir__(self):
        names = {p.stem for p in self._dir.glob("*.py")} | {
            p.parent.name for p in self._dir.glob("*/__init__.py")}
        return sorted(n for n in names if not n.startswith("_"))

    def __repr__(self):
        return f"<fresh copy of the workbook from {self._dir}>"


_ready: list[Fresh] = []  # copies made ahead (the judge's zygote: judge/zygote.py), each handed out once


def fresh(package_dir: Path | str = PACKAGE_DIR) -> Fresh:
    """Return a private, freshly loaded copy of the workbook package (modules load on first use)."""
    if _ready and Path(package_dir) == PACKAGE_DIR:
        return _ready.pop()  # never used before in this process: as private as a new one
    return Fresh(Path(package_dir))
