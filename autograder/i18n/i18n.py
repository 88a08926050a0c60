"""Translated chapters (docs/TRANSLATING.md): the files, what each piece translates, and what is
missing or stale.

`i18n/<lang>/NN_name.md` holds one block per English markdown cell of the chapter's source (and
one for the reading cell the release appends, docs/READING.md's row), each headed
`<!-- i18n cell en=<hash> -->`; `i18n/<lang>/quizzes/NN_name.json` is the chapter's quiz, each
question with `"en": "<hash>"`. A hash is the first 12 hex digits of the sha256 of the English
piece (a cell's markdown as jupytext reads it from `solutions/NN_name/NN_name.py`; a question as
`json.dumps(question, ensure_ascii=False, sort_keys=True)`), so a changed English piece is a new
hash, and the translation that follows the old one is stale. `check` says, per chapter, which
pieces are missing or stale; `autograder/i18n/i18n_release.py` releases only a chapter with none.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder import notebooks
from autograder.course import AutograderError, Course, json_object
from autograder.release import reading
from workbook import quiz_format
from workbook.i18n import digest, question_digest

HEADER = re.compile(r"^<!-- i18n cell en=(?P<hash>[0-9a-f]{12}) -->[ \t]*$")
NOTE = re.compile(r"^<!-- i18n note:.*-->[ \t]*$")
COMMENT = re.compile(r"^<!--.*-->[ \t]*$")
SETTINGS = "language.json"  # {"name": "Русский", "required": ["00_start_here"] or "all"}
FIX = "fix the file (docs/TRANSLATING.md)"  # what a broken language file's error says to do


def first_line(text: str) -> str:
    """The first line with words in it, for a report."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "(empty)")[:100]


@dataclass(frozen=True)
class Block:
    """One translated cell: the hash of the English cell it translates, its text, where it is."""

    en: str
    text: str
    line: int  # of its header, 1-based

    def where(self, path: Path) -> str:
        return f"{path.name}:{self.line} (en={self.en}, \"{first_line(self.text)}\")"


@dataclass(frozen=True)
class Cell:
    """One English markdown cell of a chapter's source."""

    en: str
    source: str


def folder(course: Course, lang: str) -> Path:
    return course.root / "i18n" / lang


def text_path(course: Course, lang: str, chapter: str) -> Path:
    return folder(course, lang) / f"{chapter}.md"


def quiz_path(course: Course, lang: str, chapter: str) -> Path:
    return folder(course, lang) / "quizzes" / f"{chapter}.json"


def settings(course: Course, lang: str) -> dict:
    """The language's own settings (`i18n/<lang>/language.json`), {} when it has none."""
    return json_object(folder(course, lang) / SETTINGS, FIX)


def required(course: Course, lang: str) -> list[str]:
    """The chapters whose translation must be complete (the coverage gate fails on them):
    `"required"` in language.json, a list of chapters or "all"."""
    wanted = settings(course, lang).get("required", [])
    if wanted == "all":
        return course.chapters()
    if not isinstance(wanted, list) or not all(isinstance(c, str) for c in wanted):
        raise AutograderError(f"{folder(course, lang) / SETTINGS}: 'required' is a list of chapters or \"all\"")
    unknown = sorted(set(wanted) - set(course.chapters()))
    if unknown:
        raise AutograderError(f"{folder(course, lang) / SETTINGS}: no chapter {', '.join(unknown)}")
    return wanted


def read_blocks(path: Path) -> list[Block]:
    """The blocks of a chapter's text file; AutograderError naming the line of what is not one."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise AutograderError(f"{path}: cannot read it ({type(e).__name__})") from None
    blocks: list[Block] = []
    body: list[str] = []
    start = 0
    en = None
    for number, line in enumerate(lines, start=1):
        header = HEADER.match(line)
        if header:
            if en is not None:
                blocks.append(_block(en, body, start))
            en, body, start = header["hash"], [], number
        elif line.startswith("<!-- i18n cell"):
            raise AutograderError(f"{path}:{number}: a header is `<!-- i18n cell en=<12 hex digits> -->`, "
                                  f"got {line.strip()[:80]!r}")
        elif en is None and line.strip() and not COMMENT.match(line):
            raise AutograderError(f"{path}:{number}: text before the first `<!-- i18n cell en=... -->` header")
        elif en is not None and not (not body and NOTE.match(line)):
            body.append(line)
    if en is not None:
        blocks.append(_block(en, body, start))
    return blocks


def _block(en: str, body: list[str], line: int) -> Block:
    while body and not body[0].strip():
        body = body[1:]
    while body and not body[-1].strip():
        body = body[:-1]
    return Block(en, "\n".join(body), line)


def english_cells(course: Course, chapter: str, from_py: bool = False) -> list[Cell]:
    """The chapter's English markdown cells, in order: from its solution notebook, which `make
    release` builds from the .py and a gate keeps equal to it (fast: JSON); `from_py`, as jupytext
    reads the .py itself (what an author just edited; the skeleton's). Then the reading cell the
    release appends (docs/READING.md's row), when the course has a reading list."""
    if from_py and course.solution_py(chapter).is_file():
        import jupytext  # slow to import; only the skeleton reads a source this way

        try:
            cells = jupytext.read(course.solution_py(chapter)).cells
        except Exception as e:  # noqa: BLE001 - jupytext raises many kinds; the release says it better
            raise AutograderError(f"cannot read {course.solution_py(chapter)}: {e}") from None
    else:
        cells = notebooks.read(course.solution_ipynb(chapter)).cells
    found = [Cell(digest(c.source), c.source) for c in cells if c.cell_type == "markdown"]
    last = reading.cell_for(course, chapter)  # the release ends the chapter with its reading row
    return found + ([Cell(digest(last.source), last.source)] if last is not None else [])


def english_quiz(chapter: str) -> list[dict] | None:
    """The chapter's English quiz as JSON data, or None when it has none."""
    path = quiz_format.QUIZ_DIR / f"{chapter}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


@dataclass
class Report:
    """What one language lacks for one chapter."""

    chapter: str
    lang: str
    text: Path
    quiz: Path
    has_text: bool = False
    missing: list[Cell] = field(default_factory=list)  # English cells with no block
    stale: list[Block] = field(default_factory=list)  # blocks that translate no current cell
    as_english: list[Cell] = field(default_factory=list)  # blocks still in English (said, allowed)
    quiz_problems: list[str] = field(default_factory=list)
    broken: str = ""  # a file that cannot be read
    cells: list[Cell] = field(default_factory=list)  # the English cells it was compared with

    @property
    def started(self) -> bool:
        return self.has_text or self.quiz.is_file()

    @property
    def complete(self) -> bool:
        return self.has_text and not (self.missing or self.stale or self.quiz_problems or self.broken)

    def drift(self) -> list[str]:
        """Where the translation no longer follows its English (the drift gate fails on these):
        each English cell without a block, named with the stale block at its place if there is
        one; each other stale block; each quiz question whose `en` is not today's. A piece never
        started is not drift (the coverage report counts it)."""
        if self.broken:
            return [self.broken]
        out, stale = [], list(self.stale)
        if self.has_text:
            blocks = read_blocks(self.text)
            cells = [c.en for c in self.cells]
            for cell in self.missing:
                at = cells.index(cell.en)
                old = blocks[at] if at < len(blocks) and blocks[at] in stale else None
                said = f"{self.chapter}: English cell \"{first_line(cell.source)}\" (en={cell.en}) has no block"
                if old is not None:
                    stale.remove(old)
                    said += f"; the block at its place, {old.where(self.text)}, translates an older text"
                out.append(said)
            out += [f"{self.chapter}: stale block {b.where(self.text)}: no English cell has this hash now"
                    for b in stale]
        if self.quiz.is_file():
            out += [f"{self.chapter}: {p}" for p in self.quiz_problems]
        return out

    def problems(self) -> list[str]:
        """One line per missing or stale piece, naming it."""
        if self.broken:
            return [self.broken]
        out = [] if self.has_text else [f"no {self.text.name}: the chapter's text is not translated"]
        out += [f"English cell \"{first_line(c.source)}\" (en={c.en}) has no block in {self.text.name}"
                for c in self.missing]
        out += [f"stale block {b.where(self.text)}: no English cell has this hash now" for b in self.stale]
        return out + self.quiz_problems


def check(course: Course, lang: str, chapter: str) -> Report:
    """Compare a chapter's translation in `lang` with its English today."""
    report = Report(chapter, lang, text_path(course, lang, chapter), quiz_path(course, lang, chapter))
    try:
        if report.text.is_file():
            report.has_text = True
            cells, blocks = english_cells(course, chapter), read_blocks(report.text)
            report.cells = cells
            current = {c.en for c in cells}
            have = {b.en: b for b in blocks}
            report.missing = [c for c in cells if c.en not in have]
            report.stale = [b for b in blocks if b.en not in current]
            report.as_english = [c for c in cells if c.en in have and have[c.en].text == c.source.strip()]
        report.quiz_problems = quiz_problems(chapter, report.quiz)
    except AutograderError as e:
        report.broken = str(e)
    return report


def quiz_problems(chapter: str, path: Path) -> list[str]:
    """What keeps a translated quiz from following the English one today (one line each)."""
    english = english_quiz(chapter)
    if english is None:
        return [f"{path.name}: the chapter has no English quiz"] if path.is_file() else []
    if not path.is_file():
        return [f"no quizzes/{path.name}: the quiz is not translated"]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        return [f"quizzes/{path.name}: not valid JSON: {e}"]
    if not isinstance(data, list) or len(data) != len(english):
        return [f"quizzes/{path.name}: {len(english)} questions in English, "
                f"{len(data) if isinstance(data, list) else 'no list of'} questions here"]
    out = []
    for number, (en, tr) in enumerate(zip(english, data, strict=True), start=1):
        said = f"quizzes/{path.name}: question {number} (\"{first_line(en['question'])}\")"
        if not isinstance(tr, dict) or tr.get("en") != question_digest(en):
            out.append(f"{said}: stale, its \"en\" is {tr.get('en') if isinstance(tr, dict) else None!r}, "
                       f"the English question's hash is now {question_digest(en)!r}")
            continue
        if tr.get("type") != en["type"] or [a.get("correct") for a in tr.get("answers", [])
                                            if isinstance(a, dict)] != [a["correct"] for a in en["answers"]]:
            out.append(f"{said}: its type and the order of right answers must be the English ones")
    if not out:
        try:
            quiz_format.parse(translated_quiz(path), source=f"quizzes/{path.name}")
        except ValueError as e:
            out.append(str(e))
    return out


def translated_quiz(path: Path) -> list[dict]:
    """A translated quiz's questions without their `en` keys (the English quiz's format)."""
    return [{k: v for k, v in q.items() if k != "en"} for q in json.loads(path.read_text(encoding="utf-8"))]
