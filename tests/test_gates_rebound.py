"""No exercise scores more when the notebook rebinds every name but its exercises (issue 44).

The class the red team walked through three times (a test that read `elsewhere`, `rag_search`
or `exchange` from the kernel, so the notebook decided what the test expected) is closed by
construction: a test asks the kernel for exercise names only. This is the gate for the class,
not for those cases: per chapter, the first mutant of every exercise together (rebound-base), and
the same with every other name the notebook defines rebound before each test cell to a liar and
to a pass-through (tests/rebound.py). A rebinding may cost the student's own code points; it
never earns any. `make test` grades chapters 08 and 18 (where the red team rebound names);
`make test-real` (GATES_REAL=all, or GATES_REBOUND=all) every chapter.
"""

from __future__ import annotations

import pytest

from autograder.course import Course
from tests import attacks, gates, rebound

CHAPTERS = sorted({s.chapter for _, s in gates.plan() if s.kind == "attack" and s.name.startswith("rebound_")})


def _record(graded, chapter: str, kind: str) -> dict:
    name = next(n for n, a in attacks.ATTACKS.items() if a.chapter == chapter and n.startswith(f"rebound_{kind}_"))
    record = gates.record_of(graded, chapter, "attack", name)
    assert record["status"] == "ok", f"{chapter} rebound-{kind} was not graded: {record['status']} {record['events']}"
    return record


@pytest.mark.parametrize("kind", ["liar", "pass"])
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_rebinding_the_notebooks_names_earns_no_exercise_a_point(graded, chapter, kind):
    alone = _record(graded, chapter, "base")["exercises"]
    got = _record(graded, chapter, kind)["exercises"]
    gained = {e: (v["score"], alone[e]["score"]) for e, v in got.items() if v["score"] > alone[e]["score"]}
    assert not gained, (f"{chapter}: with the notebook's names rebound to a {kind}, these exercises scored more "
                        f"than their mutants alone (rebound, alone): {gained}")


def test_every_chapter_with_mutants_has_its_rebound_variants():
    assert set(rebound.KINDS) == {"base", "liar", "pass"}
    assert set(rebound.ALWAYS) <= set(rebound.chapters(Course())), "make test's rebound chapters exist"
    for chapter in rebound.chapters(Course(), every=rebound.every_chapter()):
        kinds = {n.split("_")[1] for n, a in attacks.ATTACKS.items() if a.chapter == chapter and a.expect == "rebound"}
        assert kinds == set(rebound.KINDS), chapter
