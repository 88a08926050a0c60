"""What a scenario is: a policy (conversation in, reply out) and what a reader needs to know of it."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from workbook import schemas
from workbook.engine.function_face import FunctionModel
from workbook.engine.replies import Fault, Reply, Timeout
from workbook.engine.turns import Conversation

Policy = Callable[[Conversation], "Reply | Fault | Timeout"]


@dataclass(frozen=True)
class Scenario:
    """A named, scripted model: a policy plus what a reader (or a test) needs to know about it.

    Build one with keywords: `Scenario(name=..., description=..., policy=..., tools=(...), ...)`.
    """

    name: str
    description: str
    policy: Policy
    tools: tuple[str, ...] = ()
    answer: str | None = None  # the final answer a correct loop ends with
    question: str = ""  # the user question the scenario is written for
    system: str | None = None
    # False: a model without tool support. On the "ollama" dialect a request that sends `tools`
    # gets Ollama's 400 "registry.ollama.ai/library/<model> does not support tools".
    supports_tools: bool = True
    # The OpenAI definitions of `tools`; None: taken from the registry (workbook.schemas) by name.
    tool_schemas: tuple[dict, ...] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.tool_schemas is None:
            object.__setattr__(self, "tool_schemas", tuple(schemas.openai_tools(self.tools)))

    def as_function(self, max_calls: int | None = None) -> FunctionModel:
        """Face 1: `model(messages, tool_specs) -> {"tool", "args"} | {"final"}`.

        With `max_calls=N` the (N+1)-th call raises TooManyCalls (a test's safety cap)."""
        return FunctionModel(self, max_calls)

    def openai_tools(self) -> list[dict]:
        """The tool definitions (OpenAI format) for the tools this scenario expects."""
        return copy.deepcopy(list(self.tool_schemas or ()))  # set by __post_init__
