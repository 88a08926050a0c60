"""workbook.env_check(): chapter 00's environment check, one ✓/✗ line per requirement."""

import sys

import workbook
from workbook import env


def test_env_check_prints_a_tick_per_requirement_here(capsys):
    assert workbook.env_check() is None, "a cell ending with the call must not echo a value"
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"✓ Python {sys.version.split()[0]}"
    for name in ("openai", "httpx2", "ipywidgets", "nbgrader"):
        assert any(line.startswith(f"✓ {name} ") for line in lines), (name, lines)
    assert "✓ workbook package" in lines and any(line.startswith("✓ agent_files at ") for line in lines)
    assert lines[-1] == "All set."


def test_a_missing_or_broken_package_is_a_line_with_what_to_do(monkeypatch, capsys, tmp_path):
    sys.modules.pop("broken_pkg_for_env_check", None)
    (tmp_path / "broken_pkg_for_env_check.py").write_text("raise RuntimeError('half installed')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(env, "PACKAGES", (("no_such_pkg_for_env_check", False), ("broken_pkg_for_env_check", True)))
    monkeypatch.setattr(env, "AGENT_FILES", tmp_path / "nowhere")
    env.env_check()
    out = capsys.readouterr().out
    assert "✗ no_such_pkg_for_env_check  — no_such_pkg_for_env_check is not installed" in out and "✗ broken_pkg_for_env_check  — cannot import it (RuntimeError: half installed)" in out
    assert "✗ agent_files at" in out and "the folder is missing" in out
    assert out.rstrip().splitlines()[-1].startswith("3 problem(s). Run `make lab`")
