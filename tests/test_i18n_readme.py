"""A translated README follows its English (issue 50): README.<lang>.md marks each section it
translates with `<!-- i18n section src=FILE heading="..." en=HASH -->`, the hash of that English
section as it is today; a changed English section fails here, named, until its translation and
hash are updated. README.md links every translated README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbook.i18n import digest

ROOT = Path(__file__).resolve().parent.parent
MARK = re.compile(r'<!-- i18n section src=(?P<src>\S+) heading="(?P<heading>[^"]+)" en=(?P<en>[0-9a-f]+) -->')
TRANSLATED = sorted(ROOT.glob("README.*.md"))


def sections(text: str) -> dict[str, str]:
    """Heading line -> its section: the heading and every line up to the next heading (a `#` line
    inside a fenced block is code, not a heading)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            current = found.setdefault(line.rstrip("\n"), [])
        if current is not None:
            current.append(line)
    return {heading: "".join(lines) for heading, lines in found.items()}


def test_sections_end_at_the_next_heading_not_at_a_comment_in_code():
    text = "# A\nintro\n## B\n```bash\n# not a heading\n```\nmore\n## C\nc\n"
    assert sections(text) == {"# A": "# A\nintro\n", "## B": "## B\n```bash\n# not a heading\n```\nmore\n",
                              "## C": "## C\nc\n"}


@pytest.mark.parametrize("path", TRANSLATED, ids=lambda p: p.name)
def test_a_translated_readme_marks_todays_english_sections(path):
    marks = list(MARK.finditer(path.read_text(encoding="utf-8")))
    assert marks, f"{path.name} marks no English section it translates"
    stale = []
    for mark in marks:
        english = sections((ROOT / mark["src"]).read_text(encoding="utf-8"))
        if mark["heading"] not in english:
            stale.append(f"{mark['src']} has no section {mark['heading']!r} any more")
        elif digest(english[mark["heading"]]) != mark["en"]:
            stale.append(f"{mark['src']} {mark['heading']!r} changed (en={digest(english[mark['heading']])}, "
                         f"the translation has en={mark['en']}): update its Russian, then the hash")
    assert not stale, f"{path.name}:\n" + "\n".join(stale)


@pytest.mark.parametrize("path", TRANSLATED, ids=lambda p: p.name)
def test_the_readme_links_each_translation(path):
    assert f"]({path.name})" in (ROOT / "README.md").read_text(encoding="utf-8"), f"README.md does not link {path.name}"
