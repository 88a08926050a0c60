"""Which class an exception named by the other side becomes here: an allow-list, else a stand-in.

An exception crosses as data that names its class ("module:Name"). The name is the other side's
word, and the kernel's is a student's: so it becomes a real class of this side only when it is on
the allow-list below, looked up among modules this side already imported (nothing is imported,
no attribute chain is followed):

- the built-in exceptions (`ValueError`, `KeyError`, `TimeoutError`...), but for the ones that
  stop a process or a generator (`SystemExit`, `KeyboardInterrupt`, `GeneratorExit`) and groups;
- a short list of the standard library's (`json.JSONDecodeError`, `sqlite3.OperationalError`,
  `subprocess.CalledProcessError`, `queue.Empty`...: `STDLIB`);
- the public exceptions the SDKs export at their top (`openai.RateLimitError`,
  `anthropic.APIStatusError`, `httpx2.ReadTimeout`);
- a public exception class defined at the top of a workbook module (`TooManyCalls`, `Crash`,
  `PaymentTimeout`), taken from the modules `modules(name)` gives: the judge passes the test's
  own `fresh()` copies first, so `checks.raises(wb.scenarios.Crash)` catches what the notebook
  let through.

Everything else (a notebook's own `class MyError(ValueError)`, a name that only looks like one of
ours) becomes, in the kernel, one class of that name under its nearest built-in base
(`foreign_exception`: the judge's classes are the course's). In the judge it becomes the stand-in
for that base (`stand_in`: one class per built-in, named after it), carrying the notebook's name
as data (`notebook_class`): the judge makes no class from a name the kernel sends.
"""

from __future__ import annotations

import builtins
import os
import sys
import threading

from workbook.link import codec

MAX_FOREIGN = 1_000  # foreign exception classes kept (a kernel that invents more only evicts its own)
NEVER = (SystemExit, KeyboardInterrupt, GeneratorExit, BaseExceptionGroup)
SDKS = ("openai", "anthropic", "httpx2", "httpx")
# (module, name) of the standard library's exceptions that cross as themselves.
STDLIB = (("json", "JSONDecodeError"), ("sqlite3", "Error"), ("sqlite3", "Warning"),
          ("sqlite3", "DatabaseError"), ("sqlite3", "OperationalError"), ("sqlite3", "IntegrityError"),
          ("sqlite3", "ProgrammingError"), ("sqlite3", "InterfaceError"), ("sqlite3", "DataError"),
          ("sqlite3", "NotSupportedError"), ("sqlite3", "InternalError"),
          ("subprocess", "SubprocessError"), ("subprocess", "CalledProcessError"),
          ("subprocess", "TimeoutExpired"), ("queue", "Empty"), ("queue", "Full"),
          ("asyncio", "CancelledError"), ("asyncio", "InvalidStateError"),
          ("concurrent.futures", "CancelledError"), ("concurrent.futures", "InvalidStateError"),
          ("concurrent.futures", "BrokenExecutor"), ("socket", "gaierror"), ("socket", "herror"),
          ("http.client", "HTTPException"), ("http.client", "RemoteDisconnected"),
          ("urllib.error", "URLError"), ("re", "error"), ("csv", "Error"), ("shutil", "Error"),
          ("zipfile", "BadZipFile"), ("tomllib", "TOMLDecodeError"), ("binascii", "Error"),
          ("struct", "error"), ("statistics", "StatisticsError"), ("decimal", "InvalidOperation"),
          ("decimal", "DivisionByZero"), ("pickle", "UnpicklingError"), ("pickle", "PicklingError"),
          ("xml.etree.ElementTree", "ParseError"), ("ssl", "SSLError"), ("configparser", "Error"),
          ("zlib", "error"))
_foreign: dict[tuple[str, str], type] = {}
_lock = threading.Lock()


def _exception_class(obj) -> bool:
    return isinstance(obj, type) and issubclass(obj, BaseException) and not issubclass(obj, NEVER)


def _builtin(qualname: str):
    obj = vars(builtins).get(qualname)
    return obj if _exception_class(obj) and obj.__module__ == "builtins" else None


def _listed(path: str):
    """A standard-library or SDK class whose own path is `path`, among loaded modules."""
    for module, name in STDLIB:
        obj = vars(sys.modules[module]).get(name) if module in sys.modules else None
        if _exception_class(obj) and codec.class_path(obj) == path:
            return obj
    top, qualname = path.partition(":")[0].split(".")[0], path.partition(":")[2]
    if top in SDKS and top in sys.modules and not qualname.startswith("_"):
        obj = vars(sys.modules[top]).get(qualname)  # exported at the package's top, by its own path
        if _exception_class(obj) and codec.class_path(obj) == path:
            return obj
    return None


def _workbook(module: str, qualname: str, modules):
    if not (module == "workbook" or module.startswith("workbook.")) or "." in qualname or \
            qualname.startswith("_") or any(p.startswith("_") for p in module.split(".")):
        return None
    for found in modules(module):
        obj = vars(found).get(qualname)
        if _exception_class(obj) and obj.__module__ == module and obj.__qualname__ == qualname and \
                not getattr(obj, "judge_only", False):  # the judge's words for what went wrong with the kernel
            return obj
    return None


def loaded(name: str) -> list:
    """The modules to look in for a workbook class: this side's own, if it imported it."""
    return [sys.modules[name]] if name in sys.modules else []


def find_exception(path, mro, modules=loaded, foreign=None) -> type:
    """The class an exception's data names: one on the allow-list (above), else `foreign(path, mro)`
    (`foreign_exception` unless told). `modules(name)` lists where a workbook module's classes may
    come from, first wins."""
    module, qualname = codec.split_path(path)
    if module == "__main__":  # the notebook's own class: the test's class of that name, if it defines one
        own = next((obj for found in modules(module) if isinstance(found, dict)
                    for obj in [found.get(qualname)] if _exception_class(obj) and obj.__module__ == "__test__"), None)
        if own is not None:
            return own
    own = _builtin(qualname) if module == "builtins" else _workbook(module, qualname, modules) or _listed(path)
    return own if own is not None else (foreign or foreign_exception)(path, mro)


QUIET = "WORKBOOK_QUIET"  # the judge sets it to "1" for a hidden test and every test after one


def said(typ, e, form: str = "{name}: {message}") -> str:
    """A caught exception in a message; in a quiet test only its nearest built-in class (the notebook
    names its classes and writes their messages: short ones carried hidden inputs, red team 4)."""
    if os.environ.get(QUIET) == "1":
        return next((c.__name__ for c in typ.__mro__ if c.__module__ == "builtins"), "Exception")
    return form.format(name=shown_name(e, typ), message=e, repr=repr(str(e)))


def shown_name(e: BaseException, typ: type | None = None) -> str:
    """The name a visible test's message gives an error: the notebook's own for a stand-in's (kept
    on it as data, `notebook_class`), else its class's."""
    name = getattr(e, "notebook_class", None)
    return name if isinstance(name, str) and name.isidentifier() else (typ or type(e)).__name__


def known_name(cls: type) -> str:
    """The name of `cls`, or of its nearest base that is not one of the notebook's own (a class
    made from a name the notebook sent): what a quiet test's feedback shows. The notebook chooses
    its classes' names, so a name can carry what it saw (red team 3: an AssertionError subclass
    named after a hidden test's inputs)."""
    with _lock:
        made = {id(c) for c in _foreign.values()}
    return next((c.__name__ for c in cls.__mro__ if id(c) not in made), "Exception")


_stand_ins: dict[type, type] = {}


def _base(mro) -> type:
    names = [str(n) for n in mro] if type(mro) is list else []
    return next((_builtin(n) for n in names[1:] if _builtin(n) is not None), None) or Exception


def stand_in(path: str, mro) -> type:
    """The judge's class for an exception class of the notebook's own code: the stand-in for its
    nearest built-in base, a subclass named after that base (at most one per built-in, made on first
    use), so `checks.raises(ValueError)` catches a notebook's `MyError(ValueError)`. Nothing of the
    notebook's name goes into a class; `make_exception` puts it on the error as data."""
    base = _base(mro)
    with _lock:
        cls = _stand_ins.get(base)
        if cls is None:
            cls = _stand_ins[base] = type(base.__name__, (base,), {"__module__": "notebook", "stand_in": True})
    return cls


def foreign_exception(path: str, mro) -> type:
    """This side's class for an exception class of the other side's own code (a notebook's
    `class MCPError(Exception)`): its name, under its nearest built-in base, one class per path
    and base, so the class a test names and the errors the notebook raises are the same class
    here (`checks.raises(MCPError)` works in the judge). Data only: nothing of the other side runs."""
    module, qualname = codec.split_path(path)
    base = _base(mro)
    key = (path, base.__name__)
    with _lock:
        cls = _foreign.get(key)
        if cls is None:
            if len(_foreign) >= MAX_FOREIGN:
                _foreign.pop(next(iter(_foreign)))
            cls = _foreign[key] = type(qualname.split(".")[-1], (base,), {"__module__": module,
                                                                           "__qualname__": qualname})
    return cls
