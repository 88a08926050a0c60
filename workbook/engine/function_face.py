"""Face 1: the fake model as a plain function, `model(messages, tool_specs) -> dict`.

Messages use the simple format of chapters 01–02: the assistant's turn is the JSON of the
model's reply (`{"tool": ..., "args": ...}` or `{"final": ...}`), a tool result is a
`{"role": "tool", "content": ...}` message. OpenAI-format messages are understood too.
`model(messages, tool_specs, stop=["Observation:"])` cuts the reply's text before the first stop
string, as providers do (see Reply.stopped).
"""

from __future__ import annotations

import copy
import json

from workbook.engine.core import to_turn
from workbook.engine.failures import explain
from workbook.engine.protocol import ProtocolError, stop_list
from workbook.engine.replies import Fault, Timeout
from workbook.engine.tokens import compact
from workbook.engine.turns import Conversation, ToolCallSeen, Turn


class ModelError(RuntimeError):
    """The fake provider failed (rate limit, server error, timeout) on the function face."""


class TooManyCalls(BaseException):
    """A test's cap (`max_calls`) was passed: the loop under test does not stop.

    A BaseException, like KeyboardInterrupt: a loop's `except Exception` cannot swallow it and
    carry on, so a loop without a working limit fails at once instead of hanging the test.
    """

    def __init__(self, max_calls: int):
        times = "time" if max_calls == 1 else "times"
        super().__init__(f"the model was called more than {max_calls} {times}: does the loop stop "
                         "at max_steps?")


def _turn(i: int, m) -> Turn:
    if not isinstance(m, dict) or "role" not in m:
        raise TypeError(f"messages[{i}] must be a dict with a 'role', got {m!r:.80}")
    if m.get("tool_calls"):
        return to_turn(m)
    content = m.get("content")
    if not isinstance(content, str | type(None)):
        content = compact(content)
    if m["role"] == "assistant" and content:
        try:
            reply = json.loads(content)
        except ValueError:
            reply = None
        if isinstance(reply, dict) and "tool" in reply:
            args = reply.get("args", {})
            raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            return Turn("assistant", None, (ToolCallSeen(None, str(reply["tool"]), raw),))
    return Turn(m["role"], content)


class FunctionModel:
    """A callable fake model that records what it was sent."""

    LINK_CALL_ONLY = True  # graded, the notebook gets only its __call__ (workbook/link/trust.py)

    def __init__(self, scenario, max_calls: int | None = None):
        self.scenario = scenario
        self.max_calls = max_calls  # None: no cap; else one call more raises TooManyCalls
        self.requests: list[list[dict]] = []  # a deep copy of `messages` at every call
        self.tool_specs: list = []

    @property
    def calls(self) -> int:
        return len(self.requests)

    def __call__(self, messages, tool_specs=None, stop=None) -> dict:
        if not isinstance(messages, list):
            raise TypeError(f"messages must be a list of dicts, got {type(messages).__name__}")
        try:
            stops = stop_list(stop)
        except ProtocolError as e:  # the provider's 400, as the error a function raises
            raise ValueError(e.message) from None
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise TooManyCalls(self.max_calls)
        self.requests.append(copy.deepcopy(messages))
        self.tool_specs = copy.deepcopy(tool_specs)
        turns = [_turn(i, m) for i, m in enumerate(messages)]
        names = tuple(s.get("name", "") for s in tool_specs or () if isinstance(s, dict))
        try:
            reply = self.scenario.policy(Conversation(turns, 0, names))
        except Exception as e:  # the fake's own failure, said in the student's terms
            raise ModelError(explain(self.scenario.name, turns, e)) from None
        if isinstance(reply, Fault | Timeout):
            raise ModelError(f"the model provider failed: {getattr(reply, 'message', 'timeout')}")
        reply, _ = reply.stopped(stops)
        if len(reply.calls) > 1:
            raise ModelError(f"scenario {self.scenario.name!r} asks for several tools at once; "
                             "use the SDK face (FakeLLM(...).client())")
        if reply.calls:
            c = reply.calls[0]
            return {"tool": c.name, "args": copy.deepcopy(c.args)}
        return {"final": reply.text or ""}

    def __repr__(self) -> str:
        return f"<fake model {self.scenario.name!r}: {self.calls} calls>"

