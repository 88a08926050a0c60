"""What of the judge the kernel may reach, and which of the notebook's names the judge replaces.

The judge hands the kernel handles only to objects of the test's own code, the workbook and the
SDKs (`exportable`): never a module, a builtin bound to a module (`os.system`, `time.sleep`,
`exec`) or a function of the standard library. And when the notebook names a class or function
of a trusted module (`pydantic.BaseModel`, `json.dumps`, a workbook helper), the judge uses its
own (`trusted_object`), picked among modules it already imported: kernel data never imports
anything here.
"""

from __future__ import annotations

import functools
import sys
import types

# Names the notebook may take from elsewhere that the judge replaces with its own: exact paths only.
TRUSTED_NAMES = frozenset({"pydantic:BaseModel", "pydantic.main:BaseModel", "pydantic:ValidationError",
                           "pydantic_core._pydantic_core:ValidationError", "pydantic:Field",
                           "pydantic.fields:Field", "pydantic:ConfigDict", "json:dumps", "json:loads",
                           "dataclasses:dataclass", "dataclasses:field", "dataclasses:asdict"})
# Objects the judge may hand the kernel as handles come from these modules (or the test's code).
SAFE_MODULES = frozenset({"workbook", "openai", "anthropic", "httpx2", "threading", "queue", "types",
                          "__test__", "kernel", "autograder"})


def trusted_object(path):
    """The judge's own object for a notebook name it trusts (TRUSTED_NAMES; or a class defined at
    the top of a workbook module), else None. Nothing is imported and no attribute chain is
    followed: kernel data only picks among objects the judge already has. No function but the five
    standard ones TRUSTED_NAMES lists (`json.dumps` as a signature's default): a notebook's object
    that claims one of those paths gets the real function, which is all it could be. Never a
    workbook function: the kernel says which path an object has, so a notebook's function that
    called itself `workbook.<module>:<name>` would have the judge run its own code in the student's
    place (red team, issue 24); a workbook function the notebook imported stays a KernelRef."""
    if type(path) is not str or path.count(":") != 1:
        return None
    module, _, name = path.partition(":")
    if path in TRUSTED_NAMES and module in sys.modules:
        return getattr(sys.modules[module], name, None)
    if (module == "workbook" or module.startswith("workbook.")) and not machinery(module) and \
            module in sys.modules and name.isidentifier() and not name.startswith("_"):
        obj = vars(sys.modules[module]).get(name)
        if isinstance(obj, type) and obj.__module__ == module:
            return obj
    return None


def machinery(module: str) -> bool:
    """A module of the link itself (both its ends, the loop, `fresh`): a notebook's value is never
    one of its classes, so no name the kernel sends picks one (the judge's `JudgeEnd`, `Namespace`)."""
    return module in ("workbook.link", "workbook.loopback", "workbook.fresh") or module.startswith("workbook.link.")


MAX_SURFACE = 200  # method and data names of one object


def surface(obj) -> tuple[list[str], list[str]]:
    """What the kernel may use of a judge object: the public methods its classes define, and the
    data attributes a class declares in `LINK_DATA` (a fake's `customer_id`, a connection's `sent`).
    Nothing else is ever read for the kernel: an attribute a class does not declare (a fake model's
    scenario, a test's expected values) stays the judge's."""
    methods, data = set(), []
    for cls in type(obj).__mro__[:-1]:
        for name, value in vars(cls).items():
            if not name.startswith("_") and isinstance(value, (types.FunctionType, staticmethod, classmethod)):
                methods.add(name)
        declared = vars(cls).get("LINK_DATA", ())
        data += [n for n in declared if type(n) is str and n.isidentifier() and not n.startswith("_")]
    return sorted(methods - {"LINK_DATA"})[:MAX_SURFACE], sorted(set(data))[:MAX_SURFACE]


def capability(obj):
    """A judge object whose class says it crosses only as something to call (`LINK_CALL_ONLY`, a
    fake model: its scenario, call cap and records stay here) crosses as its `__call__`."""
    return obj.__call__ if getattr(type(obj), "LINK_CALL_ONLY", False) is True else obj


def _module_ok(module) -> bool:
    return module is None or str(module).split(".")[0] in SAFE_MODULES


def exportable(obj) -> bool:
    """May the kernel hold a handle to this judge object (and so call it, and ask its public
    attributes)? Modules never; functions, classes and objects of the test's own code, the
    workbook and the SDKs; methods of those; builtin methods of data the test made. Never a
    builtin bound to a module (os.system, time.sleep, exec) or a function of the standard library."""
    if isinstance(obj, types.ModuleType):
        return False
    if isinstance(obj, type):
        return _module_ok(obj.__module__)
    if isinstance(obj, types.BuiltinFunctionType):  # also builtin methods: __self__ is their object
        owner = getattr(obj, "__self__", None)
        return owner is not None and not isinstance(owner, types.ModuleType) and (
            type(owner).__module__ == "builtins" or _module_ok(type(owner).__module__))
    if isinstance(obj, types.MethodType):
        return exportable(obj.__func__) and _module_ok(type(obj.__self__).__module__)
    if isinstance(obj, types.FunctionType):
        return _module_ok(obj.__module__)
    if isinstance(obj, functools.partial):
        return exportable(obj.func)
    return _module_ok(type(obj).__module__)
