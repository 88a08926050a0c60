"""The rebinding cases of issue 24, graded with the gates (tests/attacks.py, kind "attack").

Each is a notebook that rebinds a name a test once read from the kernel: a prompt of chapters 12,
13, 15 and 20 (the solution then sends the rebound text, and the test must notice); chapter 21's
`json`, `to_messages` and `chained_agent` (no test may change) and a harness that would save a
wrong `next_request`; chapter 23's `recorder` serving spans written by hand. The judge that grades
them is the grader's (the fast runner's), so they cost a fork each, not a sandboxed grading run
of their own; tests/test_rebind_*.py assert what each must score.
"""

from __future__ import annotations

from autograder.course import Course
from autograder.gates import variants

CH21, CH23 = "21_responses_api", "23_traces"

# chapter: (the rebinding cell, the test cell it is inserted before, the test cells that must fail)
REBINDS = {
    "12_workflow_or_agent": ('ROUTER_PROMPT = ROUTER_PROMPT + "\\nAnswer fast."', "route_tests",
                             ["route_hidden_tests"]),
    "13_react_and_plan_execute": ('PLANNER_PROMPT = PLANNER_PROMPT + " Be brief."', "plan_and_execute_tests",
                                  ["plan_and_execute_hidden_tests"]),
    "15_why_the_bill_grows": ('ROUTER = ROUTER + " Be brief."', "pick_model_tests", ["pick_model_tests"]),
    "20_evaluating_an_agent": ('JUDGE_SYSTEM = JUDGE_SYSTEM + " Be fair."', "judge_pair_tests",
                               ["judge_pair_hidden_tests"]),
}


BREAK_JSON = '''import types
json = types.SimpleNamespace(dumps=lambda *a, **k: "{}", loads=lambda *a, **k: {})'''
RIGHT_JSON = "import json"
BREAK_TO_MESSAGES = "_given_to_messages, to_messages = to_messages, lambda items: []"
RIGHT_TO_MESSAGES = "to_messages = _given_to_messages"
BREAK_CHAINED = '''_given_chained = chained_agent
def chained_agent(*args, **kwargs):
    raise RuntimeError("rebound by the notebook")'''
RIGHT_CHAINED = "chained_agent = _given_chained"
# The harness a cheat would rebind: the given loop, with the right next request whatever `build` is.
CHEAT_CHAINED = '''_given_chained = chained_agent
def _right_request(previous, outputs, model, tools, instructions):
    return {"model": model, "tools": tools, "instructions": instructions,
            "previous_response_id": previous.id, "input": list(outputs)}
def chained_agent(client, model, prompt, tools, impl, instructions, build, max_rounds=4):
    return _given_chained(client, model, prompt, tools, impl, instructions, _right_request, max_rounds)'''


def around(nb, before: str, after: str, broken: str, restored: str):
    """`nb` with `broken` run just before test cell `before` and `restored` just before `after`:
    only the test cells between see the rebound name (the answers themselves never read it)."""
    return variants.insert(variants.insert(nb, broken, before=before), restored, before=after)


def rebinds_everything(course: Course):
    nb = variants.solved(course, CH21)
    nb = around(nb, "trim_memory_tests", "trim_memory_hidden_tests", BREAK_JSON, RIGHT_JSON)
    nb = around(nb, "next_request_tests", "measure", BREAK_CHAINED, RIGHT_CHAINED)
    return around(nb, "to_items_tests", "to_items_hidden_tests", BREAK_TO_MESSAGES, RIGHT_TO_MESSAGES)


def cheats_with_a_harness(course: Course):
    """A next_request that sends the history again (a 400 on a chain), behind a rebound harness."""
    nb = variants.mutant(course, CH21, "next_request-history-resent")
    return variants.insert(nb, CHEAT_CHAINED, before="next_request_tests")


# traced_chat without OpenTelemetry: the call is made, with a traceparent made up for it, and
# what the chat span would hold is written down by hand (the current span read for a parent).
NO_SPAN_TRACED_CHAT = '''
def traced_chat(tracer, client, model, messages, tools, record_content=False):
    """The model call, and a span dict written by hand: no span is made."""
    import secrets
    import time

    from opentelemetry import trace as ot

    current = ot.get_current_span().get_span_context()
    trace_id = f"{current.trace_id:032x}" if current.is_valid else secrets.token_hex(16)
    span_id = secrets.token_hex(8)
    traceparent = f"00-{trace_id}-{span_id}-01"
    attrs = {genai.OPERATION_NAME: genai.CHAT, genai.PROVIDER_NAME: genai.OPENAI, genai.REQUEST_MODEL: model}
    if record_content:
        attrs[genai.INPUT_MESSAGES] = mask(json.dumps(spans.to_parts(messages)))
    start = time.time_ns()
    FORGED.append({"name": f"chat {model}", "trace_id": trace_id, "span_id": span_id,
                   "parent_id": f"{current.span_id:016x}" if current.is_valid else None, "kind": "CLIENT",
                   "start_ns": start, "end_ns": start, "attributes": attrs, "status": "UNSET",
                   "status_description": None, "events": []})
    try:
        response = client.chat.completions.create(model=model, messages=messages, tools=tools,
                                                  extra_headers={"traceparent": traceparent})
    except Exception as e:
        attrs[genai.ERROR_TYPE] = type(e).__name__
        FORGED[-1].update(status="ERROR", status_description=str(e), end_ns=time.time_ns(),
                          events=[{"name": "exception", "time_ns": time.time_ns(), "attributes": {}}])
        raise
    attrs.update({genai.RESPONSE_MODEL: response.model, genai.RESPONSE_ID: response.id,
                  genai.FINISH_REASONS: [c.finish_reason for c in response.choices],
                  genai.INPUT_TOKENS: response.usage.prompt_tokens,
                  genai.OUTPUT_TOKENS: response.usage.completion_tokens})
    details = response.usage.prompt_tokens_details
    if details is not None and details.cached_tokens is not None:
        attrs[genai.CACHE_READ_TOKENS] = details.cached_tokens
    if record_content:
        reply = response.choices[0].message.model_dump(exclude_none=True)
        attrs[genai.OUTPUT_MESSAGES] = mask(json.dumps(spans.to_parts([reply])))
    FORGED[-1]["end_ns"] = time.time_ns()
    return response, traceparent
'''

# `recorder` rebound: everything as the given one does, but its spans are the hand-written ones
# (with the real recorder's own, so the parent the tests open is there too).
REBIND_RECORDER = '''
FORGED = []
_real_recorder = recorder


class _Served:
    def __getattr__(self, name):
        return getattr(_real_recorder, name)

    def spans(self):
        return sorted(FORGED + _real_recorder.spans(), key=lambda s: s["start_ns"])

    def clear(self):
        FORGED.clear()
        _real_recorder.clear()


recorder = _Served()
'''


def recorder_rebound(course: Course):
    nb = variants.with_answer(variants.stub(course, CH23), "traced_chat", NO_SPAN_TRACED_CHAT)
    return variants.insert(nb, REBIND_RECORDER)


def prompt_rebound(chapter: str):
    code, before, _ = REBINDS[chapter]
    return lambda gate: variants.insert(variants.solved(gate, chapter), code, before=before)


# attack name -> (chapter, the notebook it grades)
CASES = {**{f"rebind_{chapter[:2]}": (chapter, prompt_rebound(chapter)) for chapter in REBINDS},
         "rebind_21_everything": (CH21, rebinds_everything), "rebind_21_harness": (CH21, cheats_with_a_harness),
         "rebind_23_recorder": (CH23, recorder_rebound)}
