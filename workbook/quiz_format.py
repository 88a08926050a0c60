"""The quiz format: questions as data (workbook/quizzes/NN_name.json), loaded and validated."""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
from pathlib import Path

from workbook.i18n import ENGLISH, I18N, question_digest

QUIZ_DIR = Path(__file__).with_name("quizzes")
# The instruction shown with each question, by type; its keys are the known types.
HOW = {"single": "choose one", "multiple": "choose all that apply"}
TYPES = tuple(HOW)
MIN_QUESTIONS, MAX_QUESTIONS = 4, 8
MIN_ANSWERS, MAX_ANSWERS = 2, 8  # more options than a–h stops being a self-check and becomes a hunt
LETTERS = string.ascii_lowercase


@dataclass(frozen=True)
class Answer:
    """One option of a question, with the feedback shown when it is selected."""

    text: str
    correct: bool
    feedback: str


@dataclass(frozen=True)
class Question:
    """One quiz question: its text, "single" or "multiple", and its options."""

    text: str
    type: str
    answers: tuple[Answer, ...]


def chapters(folder: Path = QUIZ_DIR) -> list[str]:
    """The catalogue: ids of every chapter that has a quiz file."""
    return sorted(p.stem for p in Path(folder).glob("*.json"))


def load(chapter_id: str, folder: Path = QUIZ_DIR) -> list[Question]:
    """Read and validate workbook/quizzes/<chapter_id>.json (folder: for drafts elsewhere)."""
    # Look the id up in the catalogue rather than joining it into a path: no "../" surprises.
    if chapter_id not in (known := chapters(folder)):
        raise ValueError(f"no quiz named {chapter_id!r}; available: {', '.join(known)}")
    path = Path(folder) / f"{chapter_id}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path.name}: not valid JSON: {e}") from None
    return parse(data, source=path.name)


def load_translated(chapter_id: str, lang: str, folder: Path = QUIZ_DIR,
                    translations: Path = I18N) -> list[Question] | None:
    """The chapter's quiz in `lang` (`i18n/<lang>/quizzes/<chapter_id>.json`), or None when there is
    none that follows today's English quiz: every question's `en` the hash of its English question,
    the same types and right answers. A stale translation is never shown (docs/TRANSLATING.md)."""
    if lang == ENGLISH:
        return None
    load(chapter_id, folder)  # the English quiz exists and is valid, or a ValueError says why
    english = json.loads((Path(folder) / f"{chapter_id}.json").read_text(encoding="utf-8"))
    try:
        data = json.loads((Path(translations) / lang / "quizzes" / f"{chapter_id}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, list) or len(data) != len(english):
        return None
    for en, tr in zip(english, data, strict=True):
        if not isinstance(tr, dict) or tr.get("en") != question_digest(en) or tr.get("type") != en["type"] \
                or [a.get("correct") for a in tr.get("answers", []) if isinstance(a, dict)] \
                != [a["correct"] for a in en["answers"]]:
            return None
    try:
        return parse([{k: v for k, v in q.items() if k != "en"} for q in data], source=f"{lang}/{chapter_id}.json")
    except ValueError:
        return None


def parse(data: object, source: str = "<quiz>") -> list[Question]:
    """Validate a quiz's raw JSON data and turn it into Questions; errors name source and question."""
    if not isinstance(data, list):
        raise ValueError(f"{source}: a quiz must be a JSON list of questions")
    if not MIN_QUESTIONS <= len(data) <= MAX_QUESTIONS:
        raise ValueError(
            f"{source}: has {len(data)} questions, expected {MIN_QUESTIONS} to {MAX_QUESTIONS}"
        )
    return [_question(q, f"{source}: question {n}") for n, q in enumerate(data, start=1)]


def _question(q: object, where: str) -> Question:
    """Validate one question dict (where = "file: question N" for the error messages)."""
    if not isinstance(q, dict):
        raise ValueError(f"{where}: must be an object with question, type and answers")
    # Unknown keys are rejected so that a typo such as "feeback" is caught, not ignored.
    _keys(q, {"question", "type", "answers"}, where)
    text, kind, answers = q["question"], q["type"], q["answers"]
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where}: 'question' must be a non-empty string")
    if kind not in TYPES:
        raise ValueError(f"{where}: unknown type {kind!r}, expected one of {', '.join(TYPES)}")
    if not isinstance(answers, list) or not MIN_ANSWERS <= len(answers) <= MAX_ANSWERS:
        raise ValueError(f"{where}: needs a list of {MIN_ANSWERS} to {MAX_ANSWERS} answers")
    parsed = tuple(_answer(a, f"{where}, answer {LETTERS[i]}") for i, a in enumerate(answers))
    if len({a.text for a in parsed}) < len(parsed):
        raise ValueError(f"{where}: two answers have the same text")
    right = sum(a.correct for a in parsed)
    if kind == "single" and right != 1:
        raise ValueError(f"{where}: type 'single' needs exactly one correct answer, found {right}")
    if kind == "multiple" and right < 1:
        raise ValueError(f"{where}: type 'multiple' needs at least one correct answer")
    return Question(text.strip(), kind, parsed)


def _answer(a: object, where: str) -> Answer:
    """Validate one answer dict."""
    if not isinstance(a, dict):
        raise ValueError(f"{where}: must be an object with answer, correct and feedback")
    _keys(a, {"answer", "correct", "feedback"}, where)
    for key in ("answer", "feedback"):
        if not isinstance(a[key], str) or not a[key].strip():
            raise ValueError(f"{where}: '{key}' must be a non-empty string")
    # bool only: 1/0 or "true" in the JSON is almost always a slip.
    if not isinstance(a["correct"], bool):
        raise ValueError(f"{where}: 'correct' must be true or false")
    return Answer(a["answer"].strip(), a["correct"], a["feedback"].strip())


def _keys(d: dict, expected: set[str], where: str) -> None:
    """Raise unless d has exactly the expected keys."""
    if missing := expected - d.keys():
        raise ValueError(f"{where}: missing key(s) {', '.join(sorted(missing))}")
    if extra := d.keys() - expected:
        raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
