"""Runs inside the grading kernel before any of the submission's cells: limits that bubblewrap
cannot stand in for when the grader runs with `--sandbox none`, and a second line behind it.

`SafeExecute` sends this file's source to a new kernel in one silent request (the sandboxed kernel
cannot see `autograder/`) and calls `install()`:
- an address-space limit (`RLIMIT_AS`), so a runaway allocation fails in the kernel, not on the
  machine (the sandbox sets the same limit on every process it starts);
- an audit hook that refuses to open, list, copy, rename or remove anything under the private
  folders (solutions, mutants, the gradebook, other submissions), except non-notebook files in
  the submission's own folder; Python cannot remove an audit hook. Behind the sandbox those
  folders are not there at all; with `--sandbox none` this hook is the only thing in the way,
  and it does not see subprocesses or C code (the README says so).

Nothing here decides a grade: test cells run in the judge (autograder/judge/), outside the kernel.
"""

import os
import resource
import sys

_READ_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "glob.glob", "os.chdir",
                          "shutil.copyfile", "shutil.copytree", "os.rename", "os.remove",
                          "os.rmdir", "os.unlink", "os.truncate", "sqlite3.connect"})


def _limit_memory(megabytes):
    """Cap the kernel's address space so a runaway allocation fails here, not on the machine."""
    if not megabytes:
        return
    limit = int(megabytes) * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _private_hook(private, cwd):
    """An audit hook refusing file access under `private`, except non-notebook files in `cwd`."""
    sep = os.sep
    prefixes = tuple(os.path.join(p, "") for p in private)
    here = os.path.join(cwd, "")
    realpath, fspath, fsdecode = os.path.realpath, os.fspath, os.fsdecode
    read_events = _READ_EVENTS

    def hook(event, args):
        if event == "object.__setattr__" and args and args[0] is hook:
            raise PermissionError("the grader's audit hook cannot be changed")
        if event not in read_events:
            return
        for target in args[:2]:  # os.rename and shutil.copy* name a source and a destination
            if target is None or type(target) is int:
                continue
            try:
                path = realpath(fsdecode(fspath(target)))
            except Exception:  # not a path (a mode, a flag): nothing to protect
                continue
            if not (path + sep).startswith(prefixes):
                continue
            if path.startswith(here) and not path.endswith(".ipynb"):
                continue  # the submission's own folder: its files, but not its notebook
            raise PermissionError(f"submissions may not access {target!r} while being graded")

    return hook


def install(private=(), memory_mb=0):
    """Install the limits; call before any student code runs."""
    _limit_memory(memory_mb)
    if private:
        sys.addaudithook(_private_hook([os.path.realpath(p) for p in private], os.getcwd()))
