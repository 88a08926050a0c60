"""Runs inside the grading kernel: resource limits, read protection, and a guard for test cells.

`SafeExecute` loads this file into the kernel before the submission's first cell and calls
`install()`; before every graded cell it calls `Guard.run()`, which puts back what a student's
cell may have changed to fool the tests, and returns what it had to restore (tamper notes).

Defended (restored before each test cell, and reported):
- rebinding builtins (`builtins.isinstance = ...`, `builtins.print = ...`);
- replacing any module that was loaded before the submission ran (`sys.modules['json'] = ...`),
  the `workbook` package's `checks` attribute, and anything inside `workbook.checks`
  (`workbook.checks.fresh = ...`, or swapping a function's `__code__`);
- IPython hooks that hide errors or rewrite cells: `set_custom_exc`, patched `showtraceback` or
  `run_cell`, AST transformers, input transformers, event callbacks, `sys.settrace`.
Also: reading or writing solutions, mutants, the gradebook or other submissions (an audit hook,
which Python cannot remove), and memory use (RLIMIT_AS).

Not defended: changes to the *contents* of other modules (`json.loads = ...`), the import
machinery's internals, a student's function that inspects its caller's frame, code aimed at
this guard itself, subprocesses (an audit hook sees only this process), and C extensions.
"""

import base64
import builtins
import linecache
import os
import sys
import types
import zlib

_MISSING = object()
_HOOK_NAMES = ("run_cell", "run_cell_async", "_run_cell", "run_ast_nodes", "run_code",
               "showtraceback", "_showtraceback", "showsyntaxerror", "transform_cell",
               "transform_ast", "should_run_async", "set_custom_exc")
_LIST_ATTRS = ("ast_transformers", "input_transformers_cleanup", "input_transformers_post")
_TRUSTED_CALLBACKS = ("matplotlib", "matplotlib_inline", "ipykernel", "IPython", "ipywidgets")
_READ_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "glob.glob", "os.chdir",
                          "shutil.copyfile", "shutil.copytree", "os.rename", "os.remove",
                          "os.rmdir", "os.unlink", "os.truncate", "sqlite3.connect"})


def _limit_memory(megabytes):
    """Cap the kernel's address space so a runaway allocation fails here, not on the machine."""
    if not megabytes:
        return
    import resource

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


def _shell():
    try:
        from IPython import get_ipython

        return get_ipython()
    except Exception:
        return None


def _load_checks(package_dir, notes):
    """workbook.checks as the kernel imports it, unless a folder next to the notebook shadows it."""
    import importlib
    import importlib.util

    checks = importlib.import_module("workbook.checks")
    if not os.path.realpath(checks.__file__).startswith(os.path.join(os.path.realpath(os.getcwd()), "")):
        return checks
    notes.append(f"ignored {checks.__file__} in the submission's folder")
    for name in [n for n in sys.modules if n == "workbook" or n.startswith("workbook.")]:
        del sys.modules[name]
    for name, path, search in (("workbook", os.path.join(package_dir, "__init__.py"), [package_dir]),
                               ("workbook.checks", os.path.join(package_dir, "checks.py"), None)):
        spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=search)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    sys.modules["workbook"].checks = sys.modules["workbook.checks"]
    return sys.modules["workbook.checks"]


def install(token, package_dir, private=(), memory_mb=0):
    """Snapshot what test cells rely on and install the limits; call before any student code."""
    _limit_memory(memory_mb)
    notes = []
    checks = _load_checks(package_dir, notes)
    package = sys.modules["workbook"]
    shell = _shell()
    snap = {
        "builtins": list(vars(builtins).items()),
        "modules": list(sys.modules.items()),
        "checks": (package, checks, dict(vars(checks))),
        "code": [(f, f.__code__, f.__defaults__, f.__kwdefaults__)
                 for f in vars(checks).values() if type(f) is type(install)],
        "trace": sys.gettrace(),
        "hooks": (sys.displayhook, sys.excepthook),
    }
    if shell is not None:
        classes = type(shell).__mro__
        snap["shell"] = shell
        snap["class_attrs"] = [(cls, name, vars(cls).get(name, _MISSING))
                               for cls in classes for name in _HOOK_NAMES]
        snap["instance_attrs"] = {n: shell.__dict__.get(n, _MISSING) for n in _HOOK_NAMES}
        snap["lists"] = {n: list(getattr(shell, n, [])) for n in _LIST_ATTRS}
        snap["custom"] = (shell.custom_exceptions, shell.CustomTB)
        snap["events"] = {k: list(v) for k, v in shell.events.callbacks.items()}
    if private:
        sys.addaudithook(_private_hook([os.path.realpath(p) for p in private], os.getcwd()))
    runner = _runner(token, shell.user_ns if shell is not None else sys.modules["__main__"].__dict__)
    snap["runner"] = (runner, dict(vars(runner)))
    guard = type(f"_AutograderGuard_{token}", (), {"run": staticmethod(lambda: _run(snap)),
                                                    "notes": notes})
    globals()["GUARD"] = (guard, runner)  # keeps the classes alive: found via object.__subclasses__
    return guard


def _runner(token, namespace):
    """Runs test cells (proof.py): with the builtins of before any student code, the source only in
    its own locals, and a record that the cell's code returned, written after it did."""
    compile_, exec_, decompress, b64decode = builtins.compile, builtins.exec, zlib.decompress, base64.b64decode
    cache, ended = linecache.cache, {}

    def run(blob, filename, name, show):
        source = decompress(b64decode(blob)).decode("utf-8")
        if show:  # visible tests: their lines appear in tracebacks
            cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec_(compile_(source, filename, "exec"), namespace)
        ended[name] = True

    def read(name):
        return ended.pop(name, False)

    return type(f"_AutograderRunner_{token}", (), {"run": staticmethod(run), "read": staticmethod(read)})


def _same(a, b, _type=type, _method=types.MethodType):
    """Identity, except that ipykernel re-binds some methods per cell (`input`, `excepthook`).

    No `==`: a replacement could define `__eq__` to look equal. Bound methods cannot be faked:
    their type cannot be subclassed. Defaults are bound at import, before any student code.
    """
    if a is b:
        return True
    return _type(a) is _method and _type(b) is _method and a.__func__ is b.__func__ and a.__self__ is b.__self__


def _run(snap, _same=_same):
    """Restore the snapshot; return the names of what had to be restored."""
    notes = []
    # Builtins first, without calling any builtin: they may be the very thing that was patched.
    table = builtins.__dict__
    for name, value in snap["builtins"]:
        if not _same(table.get(name, _MISSING), value) and name not in ("_", "__", "___"):
            table[name] = value
            notes.append("builtins." + name)
    for name, module in snap["modules"]:
        if sys.modules.get(name) is not module:
            sys.modules[name] = module
            notes.append(f"sys.modules[{name!r}]")
    package, checks, contents = snap["checks"]
    if getattr(package, "checks", None) is not checks:
        package.checks = checks
        notes.append(f"{package.__name__}.checks")
    for name, value in contents.items():
        if not _same(checks.__dict__.get(name, _MISSING), value):
            checks.__dict__[name] = value
            notes.append(f"{checks.__name__}.{name}")
    for func, code, defaults, kwdefaults in snap["code"]:
        if func.__code__ is not code or func.__defaults__ is not defaults or func.__kwdefaults__ is not kwdefaults:
            func.__code__, func.__defaults__, func.__kwdefaults__ = code, defaults, kwdefaults
            notes.append(f"{checks.__name__}.{func.__name__}.__code__")
    if sys.gettrace() is not snap["trace"]:
        sys.settrace(snap["trace"])
        notes.append("sys.settrace")
    if not (_same(sys.displayhook, snap["hooks"][0]) and _same(sys.excepthook, snap["hooks"][1])):
        sys.displayhook, sys.excepthook = snap["hooks"]
        notes.append("sys.displayhook/excepthook")
    runner, methods = snap["runner"]
    for name, value in methods.items():
        if vars(runner).get(name, _MISSING) is not value:
            setattr(runner, name, value)
            notes.append(f"the grader's test runner ({name})")
    if "shell" in snap:
        notes += _restore_shell(snap)
    return notes


def _restore_shell(snap):
    """Put IPython's error display and cell pipeline back as they were."""
    shell, notes = snap["shell"], []
    for cls, name, value in snap["class_attrs"]:
        if not _same(vars(cls).get(name, _MISSING), value):
            if value is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, value)
            notes.append(f"{cls.__name__}.{name}")
    for name, value in snap["instance_attrs"].items():
        if not _same(shell.__dict__.get(name, _MISSING), value):
            if value is _MISSING:
                del shell.__dict__[name]
            else:
                shell.__dict__[name] = value
            notes.append(f"shell.{name}")
    for name, items in snap["lists"].items():
        current = getattr(shell, name, None)
        if current is None or list(current) != items:
            setattr(shell, name, list(items))
            notes.append(f"shell.{name}")
    if shell.custom_exceptions != snap["custom"][0] or not _same(shell.CustomTB, snap["custom"][1]):
        shell.custom_exceptions, shell.CustomTB = snap["custom"]
        notes.append("shell.set_custom_exc")
    for event, funcs in shell.events.callbacks.items():
        known = snap["events"].get(event, [])
        for func in list(funcs):
            if func not in known and not _trusted(func):
                funcs.remove(func)
                notes.append(f"shell.events[{event!r}]")
    return notes


def _trusted(func):
    """Callbacks that libraries register on import (matplotlib's inline backend, widgets)."""
    module = getattr(func, "__module__", None) or getattr(getattr(func, "__func__", None), "__module__", "")
    return str(module).startswith(_TRUSTED_CALLBACKS)
