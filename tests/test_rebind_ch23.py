"""Chapter 23's span asserts read what the judge holds (issue 24's finding on chapter 23).

A notebook can rebind any name of its own, `recorder` included. When the tests read
`recorder.spans()`, a notebook whose traced_chat makes no span at all could write down by hand
what a span would hold and rebind `recorder` to serve it: the asserts then checked the notebook's
story, not its tracer. The tests now read a judge-side `Sink` that the kernel's TracerProvider
exports each finished span to, only during the test's own call of the student's function; so that
notebook scores what the untouched stub scores. Graded with the gates, by the grader's judge (the
notebook: tests/rebind_cases.py), the stub beside it.
"""

from __future__ import annotations

from tests import gates

CHAPTER = "23_traces"


def test_a_notebook_that_rebinds_recorder_scores_no_more_than_the_stub(graded):
    records = {"stub": gates.record_of(graded, CHAPTER, "stub"),
               "rebound": gates.record_of(graded, CHAPTER, "attack", "rebind_23_recorder")}
    assert {s: r["status"] for s, r in records.items()} == {"stub": "ok", "rebound": "ok"}, records
    tests = {s: {g: t["score"] for g, t in r["tests"].items()} for s, r in records.items()}
    assert records["stub"]["score"] == 0.0, tests["stub"]
    over = {g: score for g, score in tests["rebound"].items() if score > tests["stub"][g]}
    assert not over, f"the notebook with a rebound recorder earned points the stub does not: {over}"
