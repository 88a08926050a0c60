"""Tests for workbook.quiz: validation, the pure check functions, the widget UI headless."""

import copy
import json

import pytest

from workbook import quiz, saved_answers
from workbook.quiz import LETTERS, Answer, Question, check, load, parse, score

CHAPTERS = ["00_start_here", "01_one_step", "02_the_loop", "03_openai_format"]


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    """Every test saves its quiz answers in its own file, never in the repository's."""
    where = tmp_path / "progress.json"
    monkeypatch.setenv("WORKBOOK_PROGRESS", str(where))
    return where


def good_question(kind="single"):
    """A valid raw question: option a is right; for "multiple", a and c are."""
    return {
        "question": "Who runs the tool?",
        "type": kind,
        "answers": [
            {"answer": "Your code", "correct": True, "feedback": "Yes, the code runs it."},
            {"answer": "The model", "correct": False, "feedback": "No, the model only asks."},
            {"answer": "The SDK", "correct": kind == "multiple", "feedback": "Depends."},
        ],
    }


def good_quiz():
    return [good_question("single"), good_question("multiple"), good_question(), good_question()]


def first(questions, kind):
    """The index and Question of the first question of a type."""
    return next((n, q) for n, q in enumerate(questions) if q.type == kind)


# ---------------------------------------------------------------- the quiz files


def test_catalogue_lists_every_chapter_file():
    assert set(CHAPTERS) <= set(quiz.chapters())
    assert quiz.chapters() == sorted(p.stem for p in quiz.QUIZ_DIR.glob("*.json"))


@pytest.mark.parametrize("chapter_id", quiz.chapters())
def test_every_quiz_file_loads_and_validates(chapter_id):
    questions = load(chapter_id)
    assert 4 <= len(questions) <= 8
    for q in questions:
        assert type(q) is Question and q.type in ("single", "multiple")
        assert all(type(a) is Answer and a.feedback for a in q.answers)
    # The first option must not always be the right one, or the quiz teaches nothing.
    assert {next(i for i, a in enumerate(q.answers) if a.correct) for q in questions} != {0}


@pytest.mark.parametrize("chapter_id", quiz.chapters())
def test_every_correct_selection_scores_and_every_wrong_option_explains(chapter_id):
    for q in load(chapter_id):
        right = [i for i, a in enumerate(q.answers) if a.correct]
        assert check(q, right).correct
        for i, a in enumerate(q.answers):
            if not a.correct:
                result = check(q, [i])
                assert not result.correct and a.feedback in str(result)


def test_questions_are_frozen():
    q = load("01_one_step")[0]
    with pytest.raises(AttributeError):
        q.text = "changed"


# ---------------------------------------------------------------- validation errors


def test_parse_accepts_a_good_quiz():
    questions = parse(good_quiz(), "demo.json")
    assert [q.type for q in questions] == ["single", "multiple", "single", "single"]
    assert questions[0].answers[0] == Answer("Your code", True, "Yes, the code runs it.")


def broken(n, change):
    """A good quiz with question n (1-based) changed in place by change(question)."""
    data = good_quiz()
    change(data[n - 1])
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"question": "x"}, r"demo\.json: a quiz must be a JSON list"),
        (good_quiz()[:3], r"demo\.json: has 3 questions, expected 4 to 8"),
        (good_quiz() * 3, r"demo\.json: has 12 questions"),
        (
            broken(2, lambda q: q.update(type="essay")),
            r"demo\.json: question 2: unknown type 'essay'",
        ),
        (
            broken(3, lambda q: q.update(answers=q["answers"][:1])),
            r"question 3: needs a list of 2 to 8 answers",
        ),
        (
            broken(1, lambda q: q["answers"][1].update(feedback="  ")),
            r"question 1, answer b: 'feedback' must be a non-empty",
        ),
        (
            broken(4, lambda q: q["answers"][0].pop("feedback")),
            r"question 4, answer a: missing key\(s\) feedback",
        ),
        (
            broken(1, lambda q: q["answers"][1].update(correct=True)),
            r"question 1: type 'single' needs exactly one correct answer, found 2",
        ),
        (
            broken(3, lambda q: q["answers"][0].update(correct=False)),
            r"question 3: type 'single' needs exactly one correct answer, found 0",
        ),
        (
            broken(2, lambda q: [a.update(correct=False) for a in q["answers"]]),
            r"question 2: type 'multiple' needs at least one correct",
        ),
        (
            broken(1, lambda q: q["answers"][0].update(correct=1)),
            r"question 1, answer a: 'correct' must be true or false",
        ),
        (broken(2, lambda q: q.update(feeback="typo")), r"question 2: unknown key\(s\) feeback"),
        (
            broken(1, lambda q: q.update(question="")),
            r"question 1: 'question' must be a non-empty string",
        ),
        (
            broken(4, lambda q: q["answers"][1].update(answer="Your code")),
            r"question 4: two answers have the same text",
        ),
        (good_quiz()[:3] + ["not a dict"], r"question 4: must be an object"),
    ],
)
def test_parse_rejects_bad_data_naming_file_and_question(data, message):
    with pytest.raises(ValueError, match=message):
        parse(data, "demo.json")


def test_load_names_the_file_on_bad_json(tmp_path):
    (tmp_path / "99_broken.json").write_text('[{"question": ', encoding="utf-8")
    with pytest.raises(ValueError, match=r"99_broken\.json: not valid JSON"):
        load("99_broken", tmp_path)
    (tmp_path / "98_short.json").write_text(json.dumps(good_quiz()[:2]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"98_short\.json: has 2 questions"):
        load("98_short", tmp_path)
    (tmp_path / "97_good.json").write_text(json.dumps(good_quiz()), encoding="utf-8")
    assert len(load("97_good", tmp_path)) == 4


def test_load_unknown_chapter_lists_the_available_ones():
    with pytest.raises(ValueError, match=r"no quiz named '1_one_step'; available: 00_start_here"):
        load("1_one_step")
    with pytest.raises(ValueError, match="no quiz named"):
        load("../quizzes/01_one_step")


# ---------------------------------------------------------------- check, score, answer


@pytest.fixture
def single():
    return parse(good_quiz(), "demo.json")[0]


@pytest.fixture
def multiple():
    return parse(good_quiz(), "demo.json")[1]


def test_check_single_right_and_wrong(single):
    right = check(single, [0])
    assert right.correct and right.lines == ("✓ Correct.", "✓ a) Yes, the code runs it.")
    assert check(single, 0).correct  # one index is accepted as well as a list
    wrong = check(single, [1])
    assert not wrong.correct
    assert wrong.lines[:2] == ("✗ Not quite.", "✗ b) No, the model only asks.")
    assert "another option" in wrong.lines[-1]


def test_check_multiple_gives_feedback_for_each_pick_and_hints_what_is_missing(multiple):
    assert check(multiple, [2, 0]).correct
    partial = check(multiple, [0])
    assert not partial.correct and "1 correct option(s) not selected" in str(partial)
    extra = check(multiple, [0, 1, 2])
    assert not extra.correct
    assert "✗ b) No, the model only asks." in extra.lines and "drop the wrong" in extra.lines[-1]


@pytest.mark.parametrize(
    ("selected", "message"),
    [
        ([], "No option selected"),
        (None, "No option selected"),
        ([7], "There is no option 7: this question has options a–c (indices 0–2)"),
        ([-1], "There is no option -1"),
        (["b"], "There is no option 'b'"),
        ([True], "There is no option True"),
        (3.5, "Cannot read the selection 3.5"),
    ],
)
def test_check_never_crashes_on_bad_selections(single, selected, message):
    result = check(single, selected)
    assert not result.correct and message in str(result)


def test_check_single_rejects_two_picks(single):
    assert "exactly one" in str(check(single, [0, 1]))


def test_score_counts_checked_and_correct(single):
    assert score([None, None]) == "Score: 0 / 2 correct (0 checked)"
    assert (
        score([check(single, [0]), check(single, [1]), None]) == "Score: 1 / 3 correct (2 checked)"
    )


def test_answer_prints_feedback_for_letters(capsys):
    questions = load("01_one_step")
    n, q = first(questions, "multiple")
    letters = "".join(LETTERS[i] for i, a in enumerate(q.answers) if a.correct)
    quiz.answer("01_one_step", n + 1, ",".join(letters).upper())
    out = capsys.readouterr().out
    assert out.startswith("✓ Correct.") and q.answers[LETTERS.index(letters[0])].feedback in out
    quiz.answer("01_one_step", n + 1, "z")
    assert "There is no option 'z'" in capsys.readouterr().out
    quiz.answer("01_one_step", 99, "a")
    assert "There is no question 99" in capsys.readouterr().out


# ---------------------------------------------------------------- plain text and show()


def test_plain_text_letters_options_and_explains_how_to_answer():
    text = quiz.plain("02_the_loop")
    assert 'answer("02_the_loop", 1, "b")' in text
    q = load("02_the_loop")[0]
    assert f"1. {q.text} (" in text and f"   b) {q.answers[1].text}" in text


def test_show_plain_when_forced_by_env_and_silent_on_stderr(capfd, monkeypatch):
    monkeypatch.setenv("WORKBOOK_PLAIN", "1")
    quiz.show("00_start_here")
    out, err = capfd.readouterr()
    assert err == "" and out.startswith("Self-check quiz 00_start_here")


def test_show_plain_outside_a_kernel(capfd, monkeypatch):
    monkeypatch.delenv("WORKBOOK_PLAIN", raising=False)
    quiz.show("03_openai_format")  # pytest has no IPython kernel: widgets cannot render
    out, err = capfd.readouterr()
    assert err == "" and "from workbook.quiz import answer" in out


def test_show_widgets_forced_is_silent_on_stderr(capfd):
    quiz.show("01_one_step", plain_text=False)
    assert capfd.readouterr().err == ""


# ---------------------------------------------------------------- the widget UI, headless


def parts(box, n):
    """The (text, choices, button, feedback) widgets of question n (0-based)."""
    return box.children[2 + n].children


def test_build_has_one_block_per_question():
    import ipywidgets as w

    box = quiz.build("03_openai_format")
    questions = load("03_openai_format")
    assert len(box.children) == 2 + len(questions)
    for n, q in enumerate(questions):
        text, choices, button, feedback = parts(box, n)
        assert quiz._html(q.text) in text.value
        assert isinstance(button, w.Button) and button.description == "Check"
        assert isinstance(choices, w.VBox) and feedback.value == ""
        assert all(isinstance(c, w.Checkbox) and c.description_allow_html for c in choices.children)
        assert ("wb-quiz-single" in choices._dom_classes) == (q.type == "single")


def test_clicking_check_shows_right_and_wrong_feedback_and_updates_score():
    box = quiz.build("02_the_loop")
    questions = load("02_the_loop")
    n, q = first(questions, "single")
    _, radio, button, feedback = parts(box, n)
    score_line = box.children[1]
    assert score_line.value.startswith(f"Score: 0 / {len(questions)}")

    button.click()  # nothing selected yet
    assert "No option selected" in feedback.value

    wrong = next(i for i, a in enumerate(q.answers) if not a.correct)
    radio.children[wrong].value = True
    button.click()
    assert "✗ Not quite." in feedback.value and "another option" in feedback.value
    assert quiz._html(q.answers[wrong].feedback) in feedback.value
    assert f"0 / {len(questions)} correct (1 checked)" in score_line.value

    right = next(i for i, a in enumerate(q.answers) if a.correct)
    radio.children[right].value = True
    assert quiz.picks(radio) == [right], "a single-choice question keeps one option ticked"
    button.click()
    assert (
        "✓ Correct." in feedback.value and quiz._html(q.answers[right].feedback) in feedback.value
    )
    assert f"1 / {len(questions)} correct (1 checked)" in score_line.value


def test_checkboxes_for_multiple_choice():
    box = quiz.build("01_one_step")
    n, q = first(load("01_one_step"), "multiple")
    _, group, button, feedback = parts(box, n)
    boxes = group.children
    assert [c.description[:2] for c in boxes] == [f"{LETTERS[i]})" for i in range(len(q.answers))]

    right = [i for i, a in enumerate(q.answers) if a.correct]
    boxes[right[0]].value = True
    button.click()
    assert "✗ Not quite." in feedback.value and "not selected yet" in feedback.value

    for i in right:
        boxes[i].value = True
    button.click()
    assert "✓ Correct." in feedback.value
    assert all(quiz._html(q.answers[i].feedback) in feedback.value for i in right)


def test_feedback_is_html_escaped():
    q = parse(good_quiz(), "demo.json")[0]
    evil = Question(
        q.text, q.type, (Answer("<b>x</b>", True, "<script>no</script> `code`"), q.answers[1])
    )
    html = quiz._feedback_html(check(evil, [0]))
    assert "<script>" not in html and "&lt;script&gt;" in html and "<code>code</code>" in html


def test_raw_data_is_not_mutated_by_parse():
    data = good_quiz()
    before = copy.deepcopy(data)
    parse(data, "demo.json")
    assert data == before


@pytest.mark.slow
def test_show_in_a_real_kernel_displays_a_widget_and_writes_no_stderr():
    nbclient = pytest.importorskip("nbclient")
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('from workbook.quiz import show; show("01_one_step")')]
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    lost, output = nb.cells[0].outputs
    # Shown only where the widget is gone (the widget's CSS hides it): how to bring it back.
    assert "run this cell to show the quiz" in lost.data["text/html"]
    assert output.output_type == "display_data"
    assert "application/vnd.jupyter.widget-view+json" in output.data
    # The text fallback is what a saved notebook or nbgrader's feedback page shows.
    assert output.data["text/plain"].startswith("Self-check quiz 01_one_step")


# ---------------------------------------------------------------- options, saved answers


def test_option_labels_render_code_like_the_questions():
    questions = load("03_openai_format")
    n, q, i = next((n, q, i) for n, q in enumerate(questions)
                   for i, a in enumerate(q.answers) if "`" in a.text)
    label = parts(quiz.build("03_openai_format"), n)[1].children[i].description
    assert "`" not in label and "<code>" in label
    assert label == f"{LETTERS[i]}) {quiz._html(q.answers[i].text)}"


def test_evil_option_text_is_escaped():
    assert quiz._html("<img src=x onerror=alert(1)> `a<b`") == (
        "&lt;img src=x onerror=alert(1)&gt; <code>a&lt;b</code>")


def test_checked_answers_are_saved_and_a_rebuilt_quiz_shows_them(progress_file):
    questions = load("01_one_step")
    n, q = first(questions, "single")
    right = next(i for i, a in enumerate(q.answers) if a.correct)
    m, mq = first(questions, "multiple")
    wrong = next(i for i, a in enumerate(mq.answers) if not a.correct)
    box = quiz.build("01_one_step")
    _, choices, button, _ = parts(box, n)
    choices.children[right].value = True
    button.click()
    _, choices, button, _ = parts(box, m)
    choices.children[wrong].value = True
    button.click()
    saved = json.loads(progress_file.read_text(encoding="utf-8"))
    assert saved["quizzes"]["01_one_step"][q.text] == [q.answers[right].text]

    again = quiz.build("01_one_step")  # the cell run again, or the page reloaded
    _, choices, _, feedback = parts(again, n)
    assert quiz.picks(choices) == [right] and "✓ Correct." in feedback.value
    _, choices, _, feedback = parts(again, m)
    assert quiz.picks(choices) == [wrong] and "✗ Not quite." in feedback.value
    assert f"Score: 1 / {len(questions)} correct (2 checked)" in again.children[1].value
    assert "python -m workbook progress" in again.children[1].value


def test_a_quiz_all_right_counts_as_done(progress_file):
    for q in load("00_start_here"):
        saved_answers.save("00_start_here", q.text, [a.text for a in q.answers if a.correct])
    line = quiz.progress_line("01_one_step", [None])
    assert f"Quizzes with every answer right: 1 of {len(quiz.chapters())} chapters" in line


def test_saved_answers_survive_bad_files_and_read_only_places(tmp_path, monkeypatch):
    bad = tmp_path / "bad.json"
    for text in ("{not json", "[1, 2]", '{"quizzes": []}', '{"quizzes": {"01": {"q": "a"}}}'):
        bad.write_text(text, encoding="utf-8")
        assert saved_answers.chapter("01", bad) == {}
    assert saved_answers.load(tmp_path / "missing.json") == {}
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    assert saved_answers.save("01", "q", ["a"], blocked / "progress.json") is False
    monkeypatch.setenv("WORKBOOK_PROGRESS", str(blocked / "progress.json"))
    box = quiz.build("01_one_step")  # a quiz that cannot save still checks
    _, choices, button, feedback = parts(box, 0)
    choices.children[0].value = True
    button.click()
    assert feedback.value


def test_saved_answers_whose_text_changed_are_dropped(progress_file):
    q = load("02_the_loop")[0]
    saved_answers.save("02_the_loop", q.text, ["an option that no longer exists"])
    assert quiz.picks(parts(quiz.build("02_the_loop"), 0)[1]) == []
