"""Every "chapter NN" a solution notebook or a quiz mentions is a chapter that exists.

A chapter that points at one that has not been written ("chapter 19", "a later chapter") sends the
student looking for nothing. Ranges ("chapters 02–03") and lists ("chapters 03 and 08") count too.
"""

import re

from workbook.paths import ROOT

CHAPTER = re.compile(r"\bchapters? (\d{1,2})((?:\s*(?:[–-]|,|and|or)\s*\d{1,2})*)", re.IGNORECASE)
VAGUE = re.compile(r"\b(a later chapter|the next parts of the course)\b", re.IGNORECASE)


def sources():
    yield from sorted((ROOT / "solutions").glob("*/*.py"))
    yield from sorted((ROOT / "workbook" / "quizzes").glob("*.json"))


def numbers(match: re.Match) -> list[int]:
    found = [int(match.group(1)), *map(int, re.findall(r"\d{1,2}", match.group(2)))]
    if re.search(r"[–-]", match.group(2)) and len(found) == 2:  # a range: every chapter in it
        found = list(range(found[0], found[1] + 1))
    return found


def test_chapter_references_point_at_existing_chapters():
    existing = {int(p.name[:2]) for p in (ROOT / "solutions").iterdir()
                if p.is_dir() and p.name[:2].isdigit()}
    assert existing, "no chapters found under solutions/"
    missing = []
    for path in sources():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{n}"
            missing += [f"{where}: chapter {c:02d} ({m.group(0)!r})"
                        for m in CHAPTER.finditer(line) for c in numbers(m) if c not in existing]
            missing += [f"{where}: {m.group(0)!r} names no chapter" for m in VAGUE.finditer(line)]
    assert not missing, "references to chapters that do not exist:\n" + "\n".join(missing)


def test_the_pattern_reads_ranges_and_lists():
    got = [numbers(m) for m in CHAPTER.finditer("chapters 02–03, chapter 19 and chapters 03 and 08")]
    assert got == [[2, 3], [19], [3, 8]]
