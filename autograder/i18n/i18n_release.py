"""`release` of the translated editions: `chapters/<lang>/NN_name/`, beside the English chapters.

A translated notebook is the English released notebook with each markdown cell replaced by its
translation (found by the hash of the English cell, the reading list's cell too), and `{"workbook": {"language": "<lang>"}}` in its metadata. Every code
cell, its nbgrader metadata, checksum and id, is the English notebook's byte for byte: a
translated notebook is graded as its English twin (the same assignment, the same grade ids, the
same tests), and the quiz cell shows the translated quiz because the kernel reads the notebook's
language (`workbook.i18n`). A chapter with a missing or stale piece is not released in that
language, and the release says which pieces; an edition released earlier is removed, never left
with an old translation.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

from autograder import notebooks
from autograder.course import AutograderError, Course
from autograder.i18n import i18n
from workbook.i18n import CODE, META, digest, languages


def edition(course: Course, chapter: str, lang: str, english) -> object:
    """The `lang` edition of a released English notebook (which stays as it was)."""
    report = i18n.check(course, lang, chapter)
    if not report.complete:
        raise AutograderError(f"{chapter} has no complete {lang} translation: " + "; ".join(report.problems()))
    blocks = {b.en: b.text for b in i18n.read_blocks(report.text)}
    nb = copy.deepcopy(english)
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        said = blocks.get(digest(cell.source))  # the reading cell too: a block like any other
        if said is None:
            raise AutograderError(f"{chapter}: the released markdown cell \"{i18n.first_line(cell.source)}\" "
                                  f"is not a cell of its source; release the English chapter first")
        cell.source = said
    nb.metadata[META] = {**nb.metadata.get(META, {}), "language": lang}  # the English edition's exercises too
    return nb


def build(course: Course, lang: str, chapters: list[str], english: Path, out: Path) -> list[str]:
    """Write the `lang` edition of each complete chapter into `out/<chapter>/` from the English
    release in `english/<chapter>/`; return a line for each chapter left out, and why."""
    lines, untouched = [], []
    for chapter in chapters:
        report = i18n.check(course, lang, chapter)
        if not report.complete:
            if report.started:
                lines.append(f"{lang}: {chapter} is not released in this language: " + "; ".join(report.problems()))
            else:
                untouched.append(chapter)
            continue
        source, target = english / chapter, out / chapter
        shutil.copytree(source, target)
        nb = edition(course, chapter, lang, notebooks.read(source / f"{chapter}.ipynb"))
        (target / f"{chapter}.ipynb").write_text(notebooks.dumps(nb), encoding="utf-8")
    if untouched:
        lines.append(f"{lang}: {len(untouched)} chapter(s) not translated yet: {', '.join(untouched)}")
    return lines


def release_editions(course: Course, chapters: list[str], english: Path, sync, whole: bool) -> list[str]:
    """Build every language's editions of `chapters` from the English release in `english` and
    make `chapters/<lang>/` match (`sync(src, dst)` -> lines); `whole`: the release of every
    chapter, so a chapter or language that is gone is removed too."""
    lines = []
    for lang in languages(course.root / "i18n"):
        out = english.parent / "editions" / lang
        out.mkdir(parents=True)
        lines += build(course, lang, chapters, english, out)
        target = course.release / lang
        for chapter in chapters:
            if (out / chapter).is_dir():
                lines += sync(out / chapter, target / chapter)
            elif (target / chapter).is_dir():
                shutil.rmtree(target / chapter)
                lines.append(f"{'removed':8} {target / chapter} (its translation is missing or stale)")
        if whole and target.is_dir():
            for stale in sorted(p for p in target.iterdir() if p.is_dir() and p.name not in chapters):
                shutil.rmtree(stale)
                lines.append(f"{'removed':8} {stale}")
        if target.is_dir() and not any(target.iterdir()):
            target.rmdir()
    if whole:
        for stale in sorted(p for p in course.release.iterdir() if p.is_dir() and CODE.match(p.name)
                            and p.name not in languages(course.root / "i18n")):
            shutil.rmtree(stale)
            lines.append(f"{'removed':8} {stale}")
    return lines


def released(course: Course) -> dict[str, list[str]]:
    """The editions in chapters/: language -> its chapters."""
    out = {}
    for lang in languages(course.root / "i18n"):
        folder = course.release / lang
        out[lang] = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    return out
