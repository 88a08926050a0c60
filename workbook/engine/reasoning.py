"""Reasoning models on Chat Completions (the `openai` dialect): which model names reason, how much,
and which request parameters they refuse.

A reasoning model thinks before it answers. Its thinking is billed as output: the fake counts it in
`completion_tokens` and reports it as `completion_tokens_details.reasoning_tokens`; none of it is
in the reply's text. The count is the fake's own rule (a real model's varies from call to call):

    reasoning tokens = FACTOR[effort] x the reply's visible completion tokens

with the request's `reasoning_effort`, or the model's default effort. `max_completion_tokens`
caps reasoning and visible output together, and reasoning comes first: when the reasoning alone
reaches the cap, the reply has empty text, no tool calls and finish_reason "length", and every
completion token went on reasoning. (The fake does not cut visible text that runs past the cap;
a scenario that wants a cut answer sends finish_reason "length" itself.)

Which names reason (docs/SOURCES.md, "Reasoning models"):

- gpt-5, gpt-5-mini, gpt-5-nano (and dated snapshots such as gpt-5-mini-2025-08-07), o1, o3,
  o3-mini, o4-mini: reason by default ("medium"); refuse `stop`;
- gpt-5.1, gpt-5.2, gpt-5.4 and their variants (gpt-5.4-mini, gpt-5.2-pro, ...): default "none"
  (no reasoning unless asked); refuse `stop`;
- gpt-5.5 and the other gpt-5.x names: default "none"; accept `stop`;
- the tiers of GPT-5.6 and GPT-6: `OPEN_NAMES` (gpt-5.6, gpt-5.6-sol/-terra/-luna, gpt-6-sol,
  gpt-6-luna, gpt-6.1-terra) take none to xhigh; `ALWAYS_NAMES` (gpt-6-astra, gpt-6.1-sol,
  gpt-6.2-sol, gpt-6.2-astra) and any other gpt-6.x tier name take low to xhigh. All default to
  "medium", take "max" only on the Responses API, refuse `stop` (not confirmed either way: the
  strict rule), and on Chat Completions take function tools only with reasoning off: `tools` with
  any other effort, the default included, is a 400 that points at the Responses API;
- gpt-5-chat-latest, gpt-5.x-chat and every other name (gpt-4o, "fake-model", ...): not reasoning
  models; a `reasoning_effort` on Chat Completions is a 400 "Unrecognized request argument
  supplied: reasoning_effort" (a null one is let through, as no reply to it was found), and
  `reasoning.effort` is a 400 on the Responses API (`check_responses`).

`spend` is the one place the counts are made, for every face that reports them (Chat
Completions' `completion_tokens_details.reasoning_tokens`, the Responses API's
`output_tokens_details.reasoning_tokens`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbook.engine.protocol import ProtocolError

FACTOR = {"none": 0, "minimal": 0, "low": 1, "medium": 2, "high": 4, "xhigh": 8, "max": 8}
BEFORE_5_1 = ("minimal", "low", "medium", "high")  # "All models before gpt-5.1 default to medium"
O_SERIES = ("low", "medium", "high")
GPT_5_1 = ("none", "low", "medium", "high")
LATER = ("none", "low", "medium", "high", "xhigh")
ALWAYS = ("low", "medium", "high", "xhigh")  # the GPT-6 tiers that cannot turn reasoning off (Chat Completions)
ALWAYS_NAMES = ("gpt-6-astra", "gpt-6.1-sol", "gpt-6.2-sol", "gpt-6.2-astra")
OPEN_NAMES = ("gpt-5.6", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna", "gpt-6-sol", "gpt-6-luna", "gpt-6.1-terra")

_O = re.compile(r"o[134](-mini|-pro)?(-\d{4}-\d{2}-\d{2})?")
_GPT5 = re.compile(r"gpt-5(-mini|-nano|-pro)?(-\d{4}-\d{2}-\d{2})?")
_GPT5X = re.compile(r"gpt-5\.(\d+)(-[a-z0-9-]+)?")
_GPT6_TIER = re.compile(r"gpt-6(\.\d+)?-(sol|terra|luna|astra)")


@dataclass(frozen=True)
class Model:
    """What the fake knows of one model name."""

    efforts: tuple[str, ...] = ()  # the reasoning_effort values it accepts; () = not a reasoning model
    default: str = "none"
    takes_stop: bool = True
    responses_only: tuple[str, ...] = ()  # more efforts the Responses API takes (Chat Completions refuses them)
    tools_need_none: bool = False  # Chat Completions takes function tools only with reasoning_effort "none"

    @property
    def reasons(self) -> bool:
        return bool(self.efforts)


PLAIN = Model()


def model(name) -> Model:
    """The model a request's `model` names (a name the fake does not know is a plain chat model)."""
    name = str(name).lower().rsplit("/", 1)[-1]
    if "chat" in name:
        return PLAIN
    if _O.fullmatch(name):
        return Model(O_SERIES, "medium", takes_stop=False)
    if _GPT5.fullmatch(name):
        return Model(("high",), "high", takes_stop=False) if "-pro" in name else \
            Model(BEFORE_5_1, "medium", takes_stop=False)
    if name in OPEN_NAMES or name in ALWAYS_NAMES or _GPT6_TIER.fullmatch(name):
        efforts = LATER if name in OPEN_NAMES else ALWAYS  # a tier name not listed: the strict rule
        return Model(efforts, "medium", takes_stop=False, responses_only=("max",), tools_need_none=True)
    found = _GPT5X.fullmatch(name)
    if found:
        minor = int(found.group(1))
        return Model(GPT_5_1 if minor == 1 else LATER, "none", takes_stop=minor >= 5)
    return PLAIN


def _listed(values: tuple[str, ...]) -> str:
    """OpenAI's list of supported values: 'a'; 'a' and 'b'; 'a', 'b', and 'c'."""
    quoted = [f"'{v}'" for v in values]
    if len(quoted) < 3:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def check_request(body: dict) -> None:
    """The 400s of `reasoning_effort` and `stop`: an effort on a model that does not reason; on one
    that does, `stop` where it is refused, an effort it does not take, and function tools with
    reasoning on (the effort sent, or else the model's default) where it takes them only with none."""
    m = model(body["model"])
    if not m.reasons:
        if body.get("reasoning_effort") is not None:
            raise ProtocolError("Unrecognized request argument supplied: reasoning_effort")
        return
    if body.get("stop") is not None and not m.takes_stop:
        raise ProtocolError("Unsupported parameter: 'stop' is not supported with this model.", "stop",
                            "unsupported_parameter")
    if "reasoning_effort" in body and body["reasoning_effort"] not in m.efforts:
        value = body["reasoning_effort"]
        shown = "null" if value is None else f"'{value}'"
        raise ProtocolError(f"Unsupported value: 'reasoning_effort' does not support {shown} with this "
                            f"model. Supported values are: {_listed(m.efforts)}.", "reasoning_effort",
                            "unsupported_value")
    if m.tools_need_none and body.get("tools") and (body.get("reasoning_effort") or m.default) != "none":
        raise ProtocolError(f"Function tools with reasoning_effort are not supported for {body['model']} in "
                            "/v1/chat/completions. To use function tools, use /v1/responses or set "
                            "reasoning_effort to 'none'.", "reasoning_effort")


def check_responses(body: dict) -> None:
    """The Responses API's `reasoning.effort` 400s (the openai dialect): on a model that does not
    reason, the parameter itself; on one that does, a value it does not take (its own wording,
    not Chat Completions'). A null or absent effort is the model's default."""
    effort = (body.get("reasoning") or {}).get("effort")
    if effort is None:
        return
    m = model(body["model"])
    if not m.reasons:
        raise ProtocolError("Unsupported parameter: 'reasoning.effort' is not supported with this model.",
                            "reasoning.effort", "unsupported_parameter")
    if effort not in m.efforts + m.responses_only:
        raise ProtocolError(f"Unsupported value: '{effort}' is not supported with the '{body['model']}' "
                            f"model. Supported values are: {_listed(m.efforts + m.responses_only)}.",
                            "reasoning.effort", "unsupported_value")


@dataclass(frozen=True)
class Spend:
    """The completion tokens of one reply: its reasoning, and whether the cap ended it first."""

    reasoning: int
    visible: int
    cut: bool  # the reasoning reached the cap: no text and no tool calls, finish "length"

    @property
    def completion(self) -> int:
        return self.reasoning + self.visible


def spend(name, effort: str | None, cap: int | None, visible: int) -> Spend:
    """The reasoning a reply of `visible` completion tokens costs on model `name`, at `effort`
    (None: the model's default), under a cap of `cap` completion tokens (None: no cap)."""
    m = model(name)
    thought = FACTOR.get(effort or m.default, 0) * visible if m.reasons else 0
    if cap is not None and thought and thought >= cap:
        return Spend(cap, 0, True)
    return Spend(thought, visible, False)


def chat_spend(body: dict, visible: int) -> Spend:
    """`spend` for a Chat Completions request (its `reasoning_effort` and `max_completion_tokens`)."""
    cap = body.get("max_completion_tokens") or body.get("max_tokens")
    return spend(body["model"], body.get("reasoning_effort"), cap, visible)
