"""`python -m autograder i18n ...`: what a language lacks, and skeletons to translate from
(docs/TRANSLATING.md).

    i18n status [--lang ru] [NN_name ...]     per chapter: text, quiz, messages; then what is missing
    i18n skeleton ru NN_name [--quiz]         the blocks (or the quiz) to translate, today's hashes
    i18n messages ru [NN_name | library | ui] [--hidden]  the message templates without a translation, as JSON
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

from autograder.course import AutograderError, Course, json_object
from autograder.i18n import i18n, i18n_messages
from workbook.i18n import I18N, languages, question_digest

LIBRARY, UI = "library", "ui"


def catalog(course: Course, lang: str, name: str) -> dict[str, str]:
    """`messages.json`, `hidden.json` or `ui.json` of a language, translated entries only."""
    data = json_object(i18n.folder(course, lang) / name, i18n.FIX)
    return {k: v for k, v in data.items() if isinstance(v, str) and v.strip()}


@functools.cache
def templates(course: Course, part: str, hidden: bool | None = None) -> list[str]:
    """The English templates of a chapter (`hidden`: see i18n_messages.chapter_templates), of the
    test helpers (`library`) or of the tools (`ui`)."""
    if part == LIBRARY:
        return i18n_messages.library_templates(course.root)
    if part == UI:
        return sorted(i18n_messages.ui_templates(course.root))
    return i18n_messages.chapter_templates(course, course.check_chapter(part), hidden)


@functools.cache
def said_visibly(course: Course) -> frozenset[str]:
    """Every template a visible test of any chapter or a test helper says: a student reads it
    anyway, so it goes in messages.json even where another chapter's hidden test says it too."""
    return frozenset(templates(course, LIBRARY)).union(*(templates(course, c, False) for c in course.chapters()))


def hidden_only(course: Course, chapter: str) -> list[str]:
    """What a chapter's hidden tests say and no visible test of the course says (hidden.json)."""
    return [t for t in templates(course, chapter, True) if t not in said_visibly(course)]


def untranslated(course: Course, lang: str, part: str, hidden: bool | None = None) -> list[str]:
    """The templates of `part` the language's catalog does not translate: the tools' words in
    ui.json; visible tests' and the helpers' messages in messages.json; what only hidden tests say
    in hidden.json (kept out of the students' copy on a hub). `hidden=None`: both of a chapter."""
    if part == UI:
        return [t for t in templates(course, part) if t not in catalog(course, lang, "ui.json")]
    out = []
    if not hidden:
        have = catalog(course, lang, "messages.json")
        out += [t for t in templates(course, part, False if part != LIBRARY else None) if t not in have]
    if hidden is not False and part != LIBRARY:
        have = catalog(course, lang, "hidden.json")
        out += [t for t in hidden_only(course, part) if t not in have]
    return out


@dataclass
class Coverage:
    """One language's state: per chapter its report and untranslated messages; the helpers' and
    the tools' untranslated words; the chapters required to be complete."""

    lang: str
    reports: dict[str, i18n.Report]
    messages: dict[str, list[str]]  # chapter, LIBRARY or UI -> untranslated templates
    required: list[str]

    def failures(self) -> list[str]:
        """What a required chapter lacks (the coverage gate fails on these), one line each."""
        out = []
        for chapter in [c for c in self.required if c in self.reports]:  # `status NN` reports NN only
            out += [f"{self.lang}: {chapter}: {p}" for p in self.reports[chapter].problems()]
            out += [f"{self.lang}: {chapter}: message {t!r} is not translated" for t in self.messages[chapter]]
        if self.required:
            out += [f"{self.lang}: {part}: {t!r} is not translated" for part in (LIBRARY, UI) for t in self.messages[part]]
        return out


def coverage(course: Course, lang: str, chapters: list[str] | None = None) -> Coverage:
    chapters = course.chapters() if chapters is None else chapters
    reports = {c: i18n.check(course, lang, c) for c in chapters}
    messages = {part: untranslated(course, lang, part) for part in [*chapters, LIBRARY, UI]}
    return Coverage(lang, reports, messages, i18n.required(course, lang))


def status(course: Course, langs: list[str] | None = None, chapters: list[str] | None = None) -> list[str]:
    """The table and the list of what is missing, per language."""
    lines = []
    for lang in langs or languages(course.root / "i18n"):
        cov = coverage(course, lang, chapters)
        lines.append(f"{lang}: chapter, text, quiz, messages (untranslated / all); "
                     f"required complete: {', '.join(cov.required) or 'none yet'}")
        for chapter, r in cov.reports.items():
            text = ("ok" if r.has_text and not (r.missing or r.stale) else
                    f"{len(r.missing)} missing, {len(r.stale)} stale" if r.has_text else "-")
            quiz = "ok" if not r.quiz_problems and r.quiz.is_file() else "stale" if r.quiz.is_file() else "-"
            said = len(cov.messages[chapter])
            mark = "complete" if r.complete else ""
            lines.append(f"  {chapter:36} text {text:22} quiz {quiz:6} messages {said:>3} / "
                         f"{len(templates(course, chapter, False)) + len(templates(course, chapter, True)):<4} {mark}")
        for part in (LIBRARY, UI):
            lines.append(f"  {part:36} {len(cov.messages[part]):>3} untranslated of {len(templates(course, part))}")
        for chapter, r in cov.reports.items():
            if r.started and not r.complete:
                lines += [f"  {chapter}: {p}" for p in r.problems()]
            if r.as_english:
                lines.append(f"  {chapter}: {len(r.as_english)} block(s) are the English text unchanged "
                             f"(first: \"{i18n.first_line(r.as_english[0].source)}\")")
        failures = cov.failures()
        lines.append(f"{lang}: {len(failures)} piece(s) missing in required chapters" if failures
                     else f"{lang}: every required chapter is complete")
    return lines


def skeleton(course: Course, lang: str, chapter: str, quiz: bool = False) -> str:
    """What to translate: every English cell's block (today's hash; the translation kept where it
    is current, else the English text), or the quiz with `en` hashes (translated questions kept)."""
    course.check_chapter(chapter)
    if quiz:
        english = i18n.english_quiz(chapter)
        if english is None:
            raise AutograderError(f"{chapter} has no quiz")
        path = i18n.quiz_path(course, lang, chapter)
        have = {}
        if path.is_file():
            have = {q.get("en"): q for q in json.loads(path.read_text(encoding="utf-8")) if isinstance(q, dict)}
        out = [have.get(question_digest(q)) or {**q, "en": question_digest(q)} for q in english]
        return json.dumps(out, ensure_ascii=False, indent=1) + "\n"
    path = i18n.text_path(course, lang, chapter)
    blocks = {b.en: b for b in i18n.read_blocks(path)} if path.is_file() else {}
    lines: list[str] = []
    for cell in i18n.english_cells(course, chapter, from_py=True):
        lines += [f"<!-- i18n cell en={cell.en} -->", blocks[cell.en].text if cell.en in blocks else cell.source, ""]
    return "\n".join(lines)


def messages_skeleton(course: Course, lang: str, part: str, hidden: bool = False) -> str:
    """The untranslated templates of `part` as JSON (English -> ""), to fill in and merge into
    `i18n/<lang>/messages.json` (`hidden`: hidden.json; `ui`: ui.json)."""
    if lang not in languages(I18N):
        raise AutograderError(f"no language {lang!r}: make the folder i18n/{lang}/ first")
    return json.dumps({t: "" for t in untranslated(course, lang, part, hidden)}, ensure_ascii=False, indent=1) + "\n"
