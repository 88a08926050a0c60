"""Self-check quizzes: questions as data, pure check functions, an ipywidgets UI over them."""

from __future__ import annotations

import html
import json
import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbook.display import widgets_ok

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


@dataclass(frozen=True)
class Result:
    """The outcome of checking one selection: correct or not, and the lines to show."""

    correct: bool
    lines: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join(self.lines)


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


def check(question: Question, selected: int | Iterable[int] | None) -> Result:
    """Check a selection of option indices (0-based); bad input gives a message, never an error."""
    n = len(question.answers)
    span = f"options a–{LETTERS[n - 1]} (indices 0–{n - 1})"
    if selected is None:
        selected = ()
    elif isinstance(selected, int):
        selected = (selected,)
    try:
        picks = list(selected)
    except TypeError:
        return Result(False, (f"Cannot read the selection {selected!r}: give option indices.",))
    if not picks:
        return Result(False, ("No option selected: pick an answer, then check.",))
    for i in picks:
        # bool is an int subclass; True as "option 1" would be a silent misreading.
        if type(i) is not int or not 0 <= i < n:
            return Result(False, (f"There is no option {i!r}: this question has {span}.",))
    chosen = sorted(set(picks))
    if question.type == "single" and len(chosen) > 1:
        return Result(False, ("Choose exactly one option for this question.",))
    wanted = {i for i, a in enumerate(question.answers) if a.correct}
    correct = set(chosen) == wanted
    lines = ["✓ Correct." if correct else "✗ Not quite."]
    for i in chosen:
        a = question.answers[i]
        lines.append(f"{'✓' if a.correct else '✗'} {LETTERS[i]}) {a.feedback}")
    if not correct:
        missed = len(wanted - set(chosen))
        if question.type == "single":
            lines.append("Hint: the right answer is another option. Try again.")
        elif missed:
            lines.append(f"Hint: {missed} correct option(s) not selected yet.")
        else:
            lines.append("Hint: every correct option is selected; now drop the wrong one(s).")
    return Result(correct, tuple(lines))


def score(results: Sequence[Result | None]) -> str:
    """A score line for one quiz: None stands for a question not checked yet."""
    right = sum(1 for r in results if r is not None and r.correct)
    tried = sum(1 for r in results if r is not None)
    return f"Score: {right} / {len(results)} correct ({tried} checked)"


def answer(chapter_id: str, number: int, choice: str | Iterable[str]) -> None:
    """Plain-text way to answer: answer("01_one_step", 1, "b") prints the feedback."""
    questions = load(chapter_id)
    if type(number) is not int or not 1 <= number <= len(questions):
        print(f"There is no question {number!r}: {chapter_id} has questions 1–{len(questions)}.")
        return
    q = questions[number - 1]
    # "ac", "a,c" and "a c" all mean options a and c.
    if isinstance(choice, str):
        letters = re.findall(r"[^\s,;]", choice)
    else:
        letters = list(choice) if isinstance(choice, Iterable) else [choice]
    options = list(LETTERS[: len(q.answers)])
    # Anything but a known letter stays text, so check() names it in its message.
    picks = [options.index(c.lower()) if c.lower() in options else c for c in map(str, letters)]
    print(check(q, picks))


def plain(chapter_id: str) -> str:
    """The quiz as plain text, with lettered options and how to answer."""
    questions = load(chapter_id)
    out = [
        f"Self-check quiz {chapter_id} ({len(questions)} questions).",
        f'Answer in a code cell: from workbook.quiz import answer; answer("{chapter_id}", 1, "b")',
        'For "choose all that apply", pass every letter you pick, e.g. "ac".',
    ]
    for n, q in enumerate(questions, start=1):
        out += ["", f"{n}. {q.text} ({HOW[q.type]})"]
        out += [f"   {LETTERS[i]}) {a.text}" for i, a in enumerate(q.answers)]
    return "\n".join(out)


def _html(text: str) -> str:
    """Escape text for an HTML widget; `backticks` become <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _feedback_html(result: Result) -> str:
    """Feedback lines as HTML, the verdict coloured."""
    colour = "#1a7f37" if result.correct else "#cf222e"
    head, *rest = result.lines
    rows = [f'<div style="color:{colour};font-weight:bold">{_html(head)}</div>']
    rows += [f"<div>{_html(line)}</div>" for line in rest]
    return "".join(rows)


# Widget labels are single-line and clipped by default; long options must wrap to be readable.
_CSS = """<style>
.wb-quiz .widget-radio-box label, .wb-quiz .widget-checkbox,
.wb-quiz .widget-checkbox label
  {white-space: normal; overflow: visible; height: auto; line-height: 1.4; margin: 2px 0;}
</style>"""


def build(chapter_id: str):
    """Build the quiz widget tree (also what tests drive headless).

    Layout: VBox[HTML title, HTML score, VBox per question], and each question is
    VBox[HTML text, choices, Button "Check", HTML feedback]; choices is RadioButtons for
    "single" and a VBox of Checkboxes for "multiple".
    """
    import ipywidgets as w

    questions = load(chapter_id)
    results: list[Result | None] = [None] * len(questions)
    score_line = w.HTML(score(results))
    score_line.add_class("wb-quiz-score")
    wide = w.Layout(width="100%")
    boxes = []
    for n, q in enumerate(questions, start=1):
        labels = [f"{LETTERS[i]}) {a.text}" for i, a in enumerate(q.answers)]
        if q.type == "single":
            choices = w.RadioButtons(options=labels, value=None, layout=wide)
        else:
            ticks = [w.Checkbox(description=lab, indent=False, layout=wide) for lab in labels]
            choices = w.VBox(ticks)
        button = w.Button(description="Check", button_style="primary")
        feedback = w.HTML("")
        feedback.add_class("wb-quiz-feedback")
        button.on_click(_on_check(q, n - 1, choices, feedback, results, score_line))
        text = w.HTML(f"<b>{n}. {_html(q.text)}</b> <i>({HOW[q.type]})</i>")
        boxes.append(w.VBox([text, choices, button, feedback]))
    hint = "Pick an answer and press Check: every option you pick explains itself."
    title = w.HTML(f"{_CSS}<h3>Self-check quiz</h3><p>{hint}</p>")
    box = w.VBox([title, score_line, *boxes])
    box.add_class("wb-quiz")
    return box


def _on_check(q, index, choices, feedback, results, score_line):
    """The click handler for one question's Check button."""

    def handler(_button) -> None:
        if hasattr(choices, "index"):  # RadioButtons
            picks = [] if choices.index is None else [choices.index]
        else:
            picks = [i for i, c in enumerate(choices.children) if c.value]
        result = check(q, picks)
        feedback.value = _feedback_html(result)
        results[index] = result
        score_line.value = score(results)

    return handler


def show(chapter_id: str, plain_text: bool | None = None) -> None:
    """Show a chapter's quiz: widgets in a notebook, plain text elsewhere (or if plain_text)."""
    if plain_text is None:
        plain_text = not widgets_ok()
    if plain_text:
        print(plain(chapter_id))
        return
    from IPython.display import display

    bundle = build(chapter_id)._repr_mimebundle_()
    # Where widgets do not render (saved notebook, nbgrader feedback) the text version shows.
    bundle["text/plain"] = plain(chapter_id)
    display(bundle, raw=True)
