"""grades.csv's notes keep the reason of an error (issue 46): a message whose first line only
introduces it ("nbgrader ... failed for ...:") is followed by its last line, the reason."""

from autograder.pipeline.export import one_line


def test_a_note_keeps_the_reason_after_an_introducing_line():
    message = "nbgrader autograde failed for ada/01_one_step:\nTraceback (most recent call last):\n  ...\n" \
              "PermissionError: [Errno 13] the sandbox cannot read /opt/venv\n"
    assert one_line(message) == ("nbgrader autograde failed for ada/01_one_step: "
                                 "PermissionError: [Errno 13] the sandbox cannot read /opt/venv")


def test_a_one_line_message_stays_and_a_long_one_is_cut():
    assert one_line("the kernel died") == "the kernel died"
    assert one_line("\n\n") == ""
    long = one_line("x" * 1000)
    assert len(long) == 300 and long.endswith("…")
