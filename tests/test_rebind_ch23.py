"""Chapter 23's span asserts read what the judge holds (issue 24's finding on chapter 23).

A notebook can rebind any name of its own, `recorder` included. When the tests read
`recorder.spans()`, a notebook whose traced_chat makes no span at all could write down by hand
what a span would hold and rebind `recorder` to serve it: the asserts then checked the notebook's
story, not its tracer. The tests now read a judge-side `Sink` that the kernel's TracerProvider
exports each finished span to, only during the test's own call of the student's function; so that
notebook scores what the untouched stub scores. Graded by the real pipeline (the judge, the
sandbox when bubblewrap is there), the stub beside it.
"""

from __future__ import annotations

import io

import pytest

from autograder import cohort, sandbox, variants
from autograder.course import REPO, Course
from autograder.settings import Limits

pytestmark = pytest.mark.slow
CHAPTER = "23_traces"
LIMITS = Limits(cell_timeout=30, notebook_timeout=300, sandbox="bwrap" if sandbox.bwrap_problem() is None else "none")

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


def _rebound(course: Course):
    nb = variants.with_answer(variants.stub(course, CHAPTER), "traced_chat", NO_SPAN_TRACED_CHAT)
    return variants.insert(nb, REBIND_RECORDER)


def test_a_notebook_that_rebinds_recorder_scores_no_more_than_the_stub(tmp_path):
    course = Course(root=tmp_path / "course")
    for folder in (course.source, course.release):
        folder.mkdir(parents=True)
    (course.source / CHAPTER).symlink_to(REPO / "solutions" / CHAPTER)
    (course.release / CHAPTER).symlink_to(REPO / "chapters" / CHAPTER)
    for student, nb in {"stub": variants.stub(course, CHAPTER), "rebound": _rebound(course)}.items():
        variants.save(nb, course.submitted / student / CHAPTER / f"{CHAPTER}.ipynb")
    out = io.StringIO()
    records = {r["student"]: r for r in cohort.grade(course, workers=2, limits=LIMITS, out=out)}
    assert {s: r["status"] for s, r in records.items()} == {"stub": "ok", "rebound": "ok"}, out.getvalue()
    tests = {s: {g: t["score"] for g, t in r["tests"].items()} for s, r in records.items()}
    assert records["stub"]["score"] == 0.0, tests["stub"]
    over = {g: score for g, score in tests["rebound"].items() if score > tests["stub"][g]}
    assert not over, f"the notebook with a rebound recorder earned points the stub does not: {over}"
