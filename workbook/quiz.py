"""Self-check quizzes: pure check functions and an ipywidgets UI over the questions' data."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbook import saved_answers
from workbook.display import widgets_ok
from workbook.i18n import ENGLISH, current, tr
from workbook.quiz_format import (  # noqa: F401 - re-exported: the quiz's data is read from here
    HOW,
    LETTERS,
    MAX_ANSWERS,
    MAX_QUESTIONS,
    MIN_ANSWERS,
    MIN_QUESTIONS,
    QUIZ_DIR,
    TYPES,
    Answer,
    Question,
    chapters,
    load,
    load_translated,
    parse,
)


@dataclass(frozen=True)
class Result:
    """The outcome of checking one selection: correct or not, and the lines to show."""

    correct: bool
    lines: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join(self.lines)


def check(question: Question, selected: int | Iterable[int] | None, lang: str = ENGLISH) -> Result:
    """Check a selection of option indices (0-based); bad input gives a message, never an error."""
    n = len(question.answers)
    span = tr(lang, "options a–{last} (indices 0–{top})", last=LETTERS[n - 1], top=n - 1)
    if selected is None:
        selected = ()
    elif isinstance(selected, int):
        selected = (selected,)
    try:
        picks = list(selected)
    except TypeError:
        return Result(False, (tr(lang, "Cannot read the selection {selected}: give option indices.",
                                 selected=repr(selected)),))
    if not picks:
        return Result(False, (tr(lang, "No option selected: pick an answer, then check."),))
    for i in picks:
        # bool is an int subclass; True as "option 1" would be a silent misreading.
        if type(i) is not int or not 0 <= i < n:
            return Result(False, (tr(lang, "There is no option {i}: this question has {span}.", i=repr(i), span=span),))
    chosen = sorted(set(picks))
    if question.type == "single" and len(chosen) > 1:
        return Result(False, (tr(lang, "Choose exactly one option for this question."),))
    wanted = {i for i, a in enumerate(question.answers) if a.correct}
    correct = set(chosen) == wanted
    lines = [tr(lang, "✓ Correct.") if correct else tr(lang, "✗ Not quite.")]
    for i in chosen:
        a = question.answers[i]
        lines.append(f"{'✓' if a.correct else '✗'} {LETTERS[i]}) {a.feedback}")
    if not correct:
        missed = len(wanted - set(chosen))
        if question.type == "single":
            lines.append(tr(lang, "Hint: the right answer is another option. Try again."))
        elif missed:
            lines.append(tr(lang, "Hint: {missed} correct option(s) not selected yet.", missed=missed))
        else:
            lines.append(tr(lang, "Hint: every correct option is selected; now drop the wrong one(s)."))
    return Result(correct, tuple(lines))


def score(results: Sequence[Result | None], lang: str = ENGLISH) -> str:
    """A score line for one quiz: None stands for a question not checked yet."""
    right = sum(1 for r in results if r is not None and r.correct)
    tried = sum(1 for r in results if r is not None)
    return tr(lang, "Score: {right} / {total} correct ({tried} checked)", right=right, total=len(results), tried=tried)


def how(kind: str, lang: str = ENGLISH) -> str:
    """The instruction shown with a question of a type (quiz_format.HOW, in `lang`)."""
    return tr(lang, "choose one") if kind == "single" else tr(lang, "choose all that apply")


def questions_in(chapter_id: str, lang: str) -> list[Question]:
    """The quiz in `lang` when a translation follows today's English one, else in English."""
    return load_translated(chapter_id, lang) or load(chapter_id)


def answer(chapter_id: str, number: int, choice: str | Iterable[str]) -> None:
    """Plain-text way to answer: answer("01_one_step", 1, "b") prints the feedback."""
    lang = current()
    questions = questions_in(chapter_id, lang)
    if type(number) is not int or not 1 <= number <= len(questions):
        print(tr(lang, "There is no question {number}: {chapter} has questions 1–{last}.",
                 number=repr(number), chapter=chapter_id, last=len(questions)))
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
    print(check(q, picks, lang))


def plain(chapter_id: str, lang: str = ENGLISH) -> str:
    """The quiz as plain text, with lettered options and how to answer."""
    questions = questions_in(chapter_id, lang)
    out = [
        tr(lang, "Self-check quiz {chapter} ({count} questions).", chapter=chapter_id, count=len(questions)),
        tr(lang, 'Answer in a code cell: from workbook.quiz import answer; answer("{chapter}", 1, "b")',
           chapter=chapter_id),
        tr(lang, 'For "choose all that apply", pass every letter you pick, e.g. "ac".'),
    ]
    for n, q in enumerate(questions, start=1):
        out += ["", f"{n}. {q.text} ({how(q.type, lang)})"]
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


# Options are checkboxes whose label is HTML (ipywidgets' RadioButtons show only plain text);
# "single" questions keep one ticked and look round. A label wraps beside its box, never under it.
# ipywidgets sets each option's `title` (its hover tooltip) to the raw description, HTML and all
# (`<code>`, `&#x27;`): the box and the text ignore the pointer, so the hover and the click land on
# their <label>, which has no title and still ticks the box.
_CSS = """<style>
.wb-quiz .widget-checkbox label > input, .wb-quiz .widget-checkbox label > span {pointer-events: none;}
.wb-quiz .widget-checkbox {width: 100%; height: auto;}
.wb-quiz .widget-checkbox label {display: flex; align-items: flex-start; gap: 6px;
  white-space: normal; overflow: visible; height: auto; line-height: 1.4; margin: 2px 0;}
.wb-quiz .widget-checkbox input {flex: none; align-self: flex-start; margin: 0.3em 0 0 0;}
.wb-quiz .widget-html-content {line-height: 1.5;}
.wb-quiz .wb-quiz-single input {appearance: none; width: 13px; height: 13px;
  border: 1px solid #767676; border-radius: 50%; background: #fff;}
.wb-quiz .wb-quiz-single input:checked {border-color: #0075ff;
  background: radial-gradient(#0075ff 0 3.5px, #fff 4px);}
.jp-OutputArea-child:has(.wb-quiz-lost):has(~ .jp-OutputArea-child .wb-quiz) {display: none;}
</style>"""
# Shown by a saved notebook whose widget is gone (a server restart): the quiz's live CSS hides
# it, and its own CSS hides JupyterLab's "Error displaying widget: model not found" next to it.
LOST = """<div class="wb-quiz-lost"><style>
.jp-OutputArea-child:has(.wb-quiz-lost) ~ .jp-OutputArea-child:not(:has(.wb-quiz)) {display: none;}
</style>{said}</div>"""


def picks(choices) -> list[int]:
    """The option indices ticked in one question's choices box."""
    return [i for i, tick in enumerate(choices.children) if tick.value]


def _one_at_a_time(ticks) -> None:
    """Ticking one option of a "single" question unticks the others."""

    def untick_others(change) -> None:
        if change["new"]:
            for other in ticks:
                if other is not change["owner"] and other.value:
                    other.value = False

    for tick in ticks:
        tick.observe(untick_others, names="value")


def progress_line(chapter_id: str, results: Sequence[Result | None], lang: str = ENGLISH) -> str:
    """This quiz's score and the quizzes done overall, read from the saved answers."""
    saved = saved_answers.load()
    done = sum(1 for c in chapters() if c != chapter_id and _all_right(c, saved.get(c, {})))
    done += all(r is not None and r.correct for r in results)
    return tr(lang, "{score}. Quizzes with every answer right: {done} of {total} chapters. Your answers are saved on this "
                    "computer; <code>python -m workbook progress</code> shows every chapter.",
              score=score(results, lang), done=done, total=len(chapters()))


def _all_right(chapter_id: str, saved: dict[str, list[str]]) -> bool:
    """Whether the saved answers get every question of a chapter's quiz right."""
    return all(_restore(q, saved) and check(q, _restore(q, saved)).correct
               for q in load(chapter_id))


def _restore(q: Question, saved: dict[str, list[str]]) -> list[int]:
    """The indices of a question's saved option texts (texts no longer offered are dropped)."""
    texts = saved.get(q.text, [])
    return [i for i, a in enumerate(q.answers) if a.text in texts]


def build(chapter_id: str, lang: str = ENGLISH):
    """Build the quiz widget tree (also what tests drive headless), with the saved answers ticked.

    Layout: VBox[HTML title, HTML score, VBox per question], and each question is
    VBox[HTML text, choices, Button "Check", HTML feedback]; choices is a VBox of Checkboxes
    with HTML labels (one at a time for "single", class wb-quiz-single). In another language the
    questions are shown translated and the answers saved under the English texts, so progress
    and a later session in either language read them.
    """
    import ipywidgets as w

    english = load(chapter_id)
    questions = questions_in(chapter_id, lang)
    saved = saved_answers.chapter(chapter_id)
    results: list[Result | None] = [None] * len(questions)
    score_line = w.HTML()
    score_line.add_class("wb-quiz-score")
    boxes = []
    for n, q in enumerate(questions, start=1):
        ticks = [w.Checkbox(description=f"{LETTERS[i]}) {_html(a.text)}", indent=False,
                            description_allow_html=True, layout=w.Layout(width="100%"))
                 for i, a in enumerate(q.answers)]
        choices = w.VBox(ticks)
        if q.type == "single":
            _one_at_a_time(ticks)
            choices.add_class("wb-quiz-single")
        button = w.Button(description=tr(lang, "Check"), button_style="primary")
        feedback = w.HTML("")
        feedback.add_class("wb-quiz-feedback")
        check_it = _on_check(chapter_id, (q, english[n - 1]), n - 1, choices, feedback, results, score_line, lang)
        button.on_click(check_it)
        if before := _restore(english[n - 1], saved):  # answered in an earlier session: show it again
            for i in before:
                ticks[i].value = True
            check_it(None, save=False)
        text = w.HTML(f"<b>{n}. {_html(q.text)}</b> <i>({how(q.type, lang)})</i>")
        boxes.append(w.VBox([text, choices, button, feedback]))
    score_line.value = progress_line(chapter_id, results, lang)
    hint = tr(lang, "Pick an answer and press Check: every option you pick explains itself.")
    title = w.HTML(f"{_CSS}<h3>{tr(lang, 'Self-check quiz')}</h3><p>{hint}</p>")
    box = w.VBox([title, score_line, *boxes])
    box.add_class("wb-quiz")
    return box


def _on_check(chapter_id, shown_and_english, index, choices, feedback, results, score_line, lang=ENGLISH):
    """The click handler for one question's Check button; it saves the answer it checks (under
    the English question's texts)."""
    q, english = shown_and_english

    def handler(_button, save: bool = True) -> None:
        chosen = picks(choices)
        result = check(q, chosen, lang)
        feedback.value = _feedback_html(result)
        results[index] = result
        if save and chosen:
            saved_answers.save(chapter_id, english.text, [english.answers[i].text for i in chosen])
        score_line.value = progress_line(chapter_id, results, lang)

    return handler


def show(chapter_id: str, plain_text: bool | None = None) -> None:
    """Show a chapter's quiz: widgets in a notebook, plain text elsewhere (or if plain_text)."""
    lang = current()
    if plain_text is None:
        plain_text = not widgets_ok()
    if plain_text:
        print(plain(chapter_id, lang))
        return
    from IPython.display import HTML, display

    bundle = build(chapter_id, lang)._repr_mimebundle_()
    # Where widgets do not render (nbgrader feedback, nbconvert) the text version shows.
    bundle["text/plain"] = plain(chapter_id, lang)
    lost = tr(lang, "<b>Self-check quiz:</b> run this cell to show the quiz.")
    display(HTML(LOST.replace("{said}", lost)))
    display(bundle, raw=True)
