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


# "NN · Title" in a "Builds on" paragraph or in bold names a chapter by its title: the title must
# be the chapter's real one (the first heading of its notebook, or of its translation), in full,
# so a reference cannot drift from a renamed chapter ("06 · Limits" for "Limits and stopping").
TITLED = re.compile(r"(?<![\d.])(\d{2}) · ")
BUILDS_ON = {"en": "**Builds on:**", "ru": "**Опирается на:**"}


def texts(lang: str) -> list:
    """Each chapter's text in the language: the solution notebooks, or their translations."""
    return (sorted((ROOT / "solutions").glob("*/*.py")) if lang == "en"
            else sorted((ROOT / "i18n" / lang).glob("[0-9][0-9]_*.md")))


def titles(lang: str) -> dict[str, str]:
    """Chapter number -> its title, from the first heading of each chapter's text."""
    found = {}
    for path in texts(lang):
        first = next((line for line in path.read_text(encoding="utf-8").splitlines()
                      if re.match(r"(# )?# \d{2} · ", line)), None)
        assert first, f"{path.relative_to(ROOT)}: no '# NN · Title' heading"
        number, title = first.split("# ", 2)[-1].split(" · ", 1)
        found[number] = title.strip()
    return found


def paragraphs(path) -> list[str]:
    """The file's prose paragraphs, each joined into one line (a py:percent file's '# ' undone)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if path.suffix == ".py":
        lines = ["" if line.startswith("# %%") or not line.startswith("# ") else line[2:]
                 for line in lines]
    return [" ".join(block.split()) for block in "\n".join(lines).split("\n\n")]


def titled_references(text: str, builds_on: str) -> list[tuple[str, str]]:
    """(number, what follows "NN · ") for each reference in a Builds-on paragraph or in bold."""
    spans = [text] if text.startswith(builds_on) else re.findall(r"\*\*(\d{2} · [^*]+)\*\*", text)
    return [(m.group(1), span[m.end():]) for span in spans for m in TITLED.finditer(span)]


def wrong_titles(lang: str) -> list[str]:
    real = titles(lang)
    wrong = []
    for path in texts(lang):
        for text in paragraphs(path):
            for number, rest in titled_references(text, BUILDS_ON[lang]):
                title = real.get(number, f"(no chapter {number})")
                if not rest.startswith(title):
                    wrong.append(f"{path.relative_to(ROOT)}: '{number} · {rest[:40]}...' should read "
                                 f"'{number} · {title}'")
    return wrong


def test_references_name_each_chapter_by_its_real_title():
    for lang in BUILDS_ON:
        wrong = wrong_titles(lang)
        assert not wrong, f"chapter titles that are not the chapter's ({lang}):\n" + "\n".join(wrong)


def test_a_short_title_is_caught():
    builds_on = BUILDS_ON["en"]
    refs = titled_references(f"{builds_on} 06 · Limits (the loop), 07 · What only code decides", builds_on)
    assert refs == [("06", "Limits (the loop), 07 · What only code decides"), ("07", "What only code decides")]
    assert not refs[0][1].startswith(titles("en")["06"])
    assert titled_references("see **11 · Capstone** and 1.96 · sqrt(n)", builds_on) == [("11", "Capstone")]
