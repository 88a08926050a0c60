"""A module imported when a test first reads one of its names, not when pytest collects the test.

Each xdist worker collects every test module, so an SDK that only a few tests use (openai-agents
and pydantic-ai: ~2.4 CPU-s together) would be imported by every worker of make quick. Those
tests' modules take it from here and share one xdist group ("frameworks"), so one worker imports
it, when it runs them (importlib.util.LazyLoader, the recipe of importlib's documentation)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

GROUP = "frameworks"  # the xdist group of the tests that read such a module


def lazy(name: str) -> ModuleType:
    """`name`, imported on its first attribute read (at once if something imported it already)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
