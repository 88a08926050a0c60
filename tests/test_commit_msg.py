"""The commit-msg hook (.ci/commit_msg.py): a subject over 72 characters is refused, the body is
free, git's comment lines and `commit -v`'s diff are not the subject; and pre-commit runs it."""

from __future__ import annotations

import importlib.util

import pytest
import yaml

from workbook.paths import ROOT

_spec = importlib.util.spec_from_file_location("commit_msg", ROOT / ".ci" / "commit_msg.py")
commit_msg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(commit_msg)


def run(tmp_path, message: str, capsys) -> tuple[int, str]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    code = commit_msg.main([str(path)])
    return code, capsys.readouterr().err


def test_a_subject_of_72_characters_passes_with_any_body(tmp_path, capsys):
    message = "x" * 72 + "\n\n" + "a long body line " * 40 + "\n"
    assert run(tmp_path, message, capsys) == (0, "")


def test_a_subject_of_73_characters_is_refused_saying_why(tmp_path, capsys):
    code, err = run(tmp_path, "y" * 73 + "\n\nThe body.\n", capsys)
    assert code == 1
    assert "the subject is 73 characters; at most 72" in err and "y" * 73 in err


@pytest.mark.parametrize("message,expected", [
    ("# Please enter the commit message\n\nShort subject\n\nbody\n", "Short subject"),
    ("\n\n  Indented subject  \n", "  Indented subject"),
    ("Subject\n# ------------------------ >8 ------------------------\n" + "z" * 200 + "\n", "Subject"),
    ("# only comments\n", ""),
])
def test_the_subject_is_the_line_git_records(message, expected):
    assert commit_msg.subject(message) == expected


def test_a_message_without_a_subject_is_refused(tmp_path, capsys):
    code, err = run(tmp_path, "# comments only\n\n", capsys)
    assert code == 1 and "no subject" in err


def test_the_comment_lines_of_a_long_template_do_not_count(tmp_path, capsys):
    message = "Fix the thing\n\n# " + "c" * 120 + "\n"
    assert run(tmp_path, message, capsys) == (0, "")


def test_pre_commit_runs_the_hook_on_commit_messages():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert "commit-msg" in config.get("default_install_hook_types", []), (
        "`pre-commit install` must install the commit-msg hook too")
    hooks = {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}
    hook = hooks.get("commit-subject")
    assert hook and hook["stages"] == ["commit-msg"] and ".ci/commit_msg.py" in hook["entry"], hook
