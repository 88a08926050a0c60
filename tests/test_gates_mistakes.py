"""Every "common mistake" a chapter names is a mutant (issue 45, item 1).

A chapter's "Common mistakes" section says "Each of these is a wrong answer the tests catch". The
mutant gates prove each mutant loses points on its exercise and fails a visible test
(tests/test_gates_grading.py, tests/test_gates_visible.py); this gate proves each bullet has such
a mutant: tests/mistakes.py maps every bullet's bold title to the mutants that make the mistake,
or marks it NOT_CODE with a reason (and then, where the chapter claims its tests catch every
bullet, the bullet itself must say "not graded"). It fails, naming chapter and bullet, when a
bullet has no entry, an entry names a bullet that is gone, a mapped mutant does not exist, or a
chapter has no entries at all. Static and fast: nothing is graded here.
"""

from __future__ import annotations

import re

import pytest

from autograder.gates import variants
from tests import gates
from tests.mistakes import MISTAKES, NOT_CODE

SECTION = "# ## Common mistakes"
CLAIM = re.compile(r"Each of these is a wrong answer the (?:hidden )?tests catch")
NOT_GRADED = re.compile(r"not graded", re.IGNORECASE)
BEING_WRITTEN = {"24": "chapter being written (issue 48/49)", "25": "chapter being written (issue 48/49)"}
CHAPTERS = [(course, chapter) for course, chapter in gates.chapters() if course != gates.PILOT]


def bold_title(text: str) -> str | None:
    """The bold run that opens `text` (`**...**`), a `**` inside backticks kept: None if none."""
    if not text.startswith("**"):
        return None
    quoted = False
    for i in range(2, len(text) - 1):
        if text[i] == "`":
            quoted = not quoted
        elif not quoted and text.startswith("**", i):
            return text[2:i] if i > 2 else None
    return None


def section(source: str) -> tuple[str, list[tuple[str | None, str]]] | None:
    """The Common mistakes section of a py:percent chapter: (its prose before the first bullet,
    [(bold title or None, the bullet's whole text)]), each bullet's lines joined by one space.
    None when the chapter has no such section."""
    lines = source.splitlines()
    try:
        start = lines.index(SECTION)
    except ValueError:
        return None
    intro: list[str] = []
    bullets: list[list[str]] = []
    current: list[str] | None = None
    for line in lines[start + 1:]:
        if line.startswith("# %%") or not line.startswith("#"):
            break
        text = line[2:] if line.startswith("# ") else line[1:]
        if text.startswith("- "):
            current = [text[2:].strip()]
            bullets.append(current)
        elif text.startswith("  ") and current is not None:
            current.append(text.strip())
        else:
            current = None
            if not bullets:
                intro.append(text.strip())
    joined = [" ".join(parts) for parts in bullets]
    return " ".join(intro).strip(), [(bold_title(text), text) for text in joined]


def problems(chapter: str, found: tuple[str, list[tuple[str | None, str]]],
             entries: dict[str, tuple[str, ...]] | None, mutants: set[str]) -> list[str]:
    """What is wrong between a chapter's bullets (`found`, from `section`) and its entries."""
    intro, bullets = found
    if entries is None:
        titles = ", ".join(repr(title) for title, _ in bullets)
        return [f"{chapter}: no entries in tests/mistakes.py for its Common mistakes ({titles}): "
                f"map each bullet to its mutants, or NOT_CODE with a reason"]
    found_problems = []
    titles = {}
    for title, text in bullets:
        if title is None:
            found_problems.append(f"{chapter}: a Common mistakes bullet has no bold title: {text[:80]!r}")
        else:
            titles[title] = text
    for title, text in titles.items():
        if title not in entries:
            found_problems.append(f"{chapter}: bullet {title!r} has no entry in tests/mistakes.py: name "
                                  f"the mutants that make it (add one if none does), or NOT_CODE with a reason")
            continue
        entry = entries[title]
        if entry and entry[0] == NOT_CODE:
            reason = entry[1] if len(entry) == 2 and isinstance(entry[1], str) else ""
            if not reason.strip() or "\n" in reason or reason.strip() == "TODO":
                found_problems.append(f"{chapter}: bullet {title!r} is NOT_CODE without a one-line reason: "
                                      f"(NOT_CODE, '<why no exercise can make this mistake>')")
            elif CLAIM.search(intro) and not NOT_GRADED.search(text):
                found_problems.append(f"{chapter}: bullet {title!r} is NOT_CODE, but the section says the "
                                      f"tests catch each of its bullets: say in the bullet that it is not "
                                      f"graded, or add its mutant")
            continue
        if not entry:
            found_problems.append(f"{chapter}: bullet {title!r} maps to no mutant")
        for name in entry:
            if name not in mutants:
                found_problems.append(f"{chapter}: bullet {title!r} names mutant {name!r}, which does not "
                                      f"exist in autograder/mutants/{chapter}/")
    for title in entries:
        if title not in titles:
            found_problems.append(f"{chapter}: tests/mistakes.py has an entry for {title!r}, which is no "
                                  f"longer a bullet of its Common mistakes")
    return found_problems


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=[chapter for _, chapter in CHAPTERS])
def test_every_common_mistake_is_a_mutant(course, chapter):
    found = section(course.solution_py(chapter).read_text(encoding="utf-8"))
    if found is None and chapter[:2] in BEING_WRITTEN and chapter not in MISTAKES:
        pytest.skip(BEING_WRITTEN[chapter[:2]])
    assert found is not None, f"{chapter}: {course.solution_py(chapter).name} has no '## Common mistakes' section"
    assert found[1], f"{chapter}: its Common mistakes section has no bullets"
    found_problems = problems(chapter, found, MISTAKES.get(chapter), set(variants.mutants(course, chapter)))
    assert not found_problems, "\n".join(found_problems)


def test_every_entry_is_a_chapter():
    chapters = {chapter for course in gates.courses() if course != gates.PILOT for chapter in course.chapters()}
    assert not set(MISTAKES) - chapters, f"tests/mistakes.py has entries for chapters that do not exist: " \
                                         f"{sorted(set(MISTAKES) - chapters)}"


# The checks of the check.

SAMPLE = '''# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **Keying fragments by `id`.** Only the first has an `id`.
# - **`(c/n) ** k` for pass^k.** It treats the runs
#   as the rate.
# - **A title over
#   two lines.** And more.
# - **Advice.** Restart the kernel (not graded: no cell holds it).

# %%
x = 1
'''


def test_section_reads_titles_across_lines_and_past_backticks():
    intro, bullets = section(SAMPLE)
    assert CLAIM.search(intro)
    assert [title for title, _ in bullets] == ["Keying fragments by `id`.", "`(c/n) ** k` for pass^k.",
                                               "A title over two lines.", "Advice."]
    assert bullets[1][1].endswith("It treats the runs as the rate.")
    assert section("# ## Something else\n# - **A.** b\n") is None
    assert bold_title("no bold") is None and bold_title("**unclosed") is None


def test_problems_name_the_chapter_and_the_bullet():
    found = section(SAMPLE)
    good = {"Keying fragments by `id`.": ("a-keyed",), "`(c/n) ** k` for pass^k.": ("b-power",),
            "A title over two lines.": ("a-keyed", "b-power"), "Advice.": (NOT_CODE, "how a notebook is run")}
    assert problems("22_x", found, good, {"a-keyed", "b-power"}) == []
    missing = {k: v for k, v in good.items() if k != "Advice."} | {"Gone.": ("a-keyed",)}
    found_problems = problems("22_x", found, missing, {"a-keyed"})
    assert any("bullet 'Advice.' has no entry" in p for p in found_problems)
    assert any("entry for 'Gone.', which is no longer a bullet" in p for p in found_problems)
    assert any("names mutant 'b-power', which does not exist in autograder/mutants/22_x/" in p
               for p in found_problems)
    assert all(p.startswith("22_x: ") for p in found_problems)
    assert "22_x: no entries in tests/mistakes.py" in problems("22_x", found, None, set())[0]


def test_not_code_needs_a_reason_and_an_honest_bullet():
    found = section(SAMPLE)
    entries = {"Keying fragments by `id`.": (NOT_CODE, "TODO"), "`(c/n) ** k` for pass^k.": (NOT_CODE, "why"),
               "A title over two lines.": (), "Advice.": (NOT_CODE, "how a notebook is run")}
    found_problems = problems("22_x", found, entries, set())
    assert any("'Keying fragments by `id`.' is NOT_CODE without a one-line reason" in p for p in found_problems)
    assert any("'`(c/n) ** k` for pass^k.' is NOT_CODE, but the section says the tests catch" in p
               for p in found_problems)
    assert any("'A title over two lines.' maps to no mutant" in p for p in found_problems)
    assert not any("'Advice.'" in p for p in found_problems)  # it says it is not graded
