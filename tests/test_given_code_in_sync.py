"""Chapters are self-contained, so later ones re-provide earlier reference code as given cells.
These copies must not drift from the chapter that teaches them: compared as code (AST), so
comments, docstrings, type hints and solution markers do not matter."""

import ast

import pytest

from workbook.paths import ROOT

# name -> (the chapter that teaches it, chapters that re-provide it verbatim)
COPIES = {
    "AgentResult": ("02_the_loop", ["03_openai_format", "04_parallel_calls",
                                    "05_errors_are_observations", "06_limits",
                                    "07_what_code_decides", "08_retries_and_idempotency",
                                    "09_trajectories_and_checkpoints", "10_real_providers",
                                    "14_one_agent_or_a_team",
                                    "11_capstone", "12_workflow_or_agent",
                                    "13_react_and_plan_execute", "17_agent_memory",
                                    "18_mcp_by_hand", "19_attack_your_own_agent",
                                    "16_context_engineering", "21_responses_api", "23_traces"]),
    "call_tool": ("06_limits", ["13_react_and_plan_execute", "17_agent_memory", "18_mcp_by_hand",
                                "19_attack_your_own_agent", "15_why_the_bill_grows",
                                "16_context_engineering", "21_responses_api"]),
    "tool_message": ("06_limits", ["13_react_and_plan_execute", "17_agent_memory", "18_mcp_by_hand",
                                   "15_why_the_bill_grows", "16_context_engineering"]),
    "run_agent": ("06_limits", ["13_react_and_plan_execute", "18_mcp_by_hand"]),
    "error_observation": ("05_errors_are_observations", ["07_what_code_decides", "11_capstone",
                                                         "14_one_agent_or_a_team"]),
    "execute": ("05_errors_are_observations", ["14_one_agent_or_a_team"]),
    "args_model": ("05_errors_are_observations", ["14_one_agent_or_a_team"]),
    "read_file": ("07_what_code_decides", ["11_capstone", "18_mcp_by_hand"]),
    "write_note": ("07_what_code_decides", ["11_capstone"]),
    "calculate": ("07_what_code_decides", ["11_capstone", "18_mcp_by_hand"]),
    "rag_search": ("11_capstone", ["18_mcp_by_hand"]),
    "make_file_tools": ("07_what_code_decides", ["11_capstone"]),
    "step_line": ("09_trajectories_and_checkpoints", ["11_capstone"]),
    "mask": ("17_agent_memory", ["23_traces"]),
}


def definition(chapter: str, name: str) -> str:
    source = (ROOT / "solutions" / chapter / f"{chapter}.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            if ast.get_docstring(node) is not None:  # a copy may word its docstring for its chapter
                node.body = node.body[1:]
            if isinstance(node, ast.FunctionDef):  # ... and add type hints (tool schemas need them)
                node.returns = None
                for arg in node.args.args + node.args.kwonlyargs:
                    arg.annotation = None
            return ast.dump(node)
    raise AssertionError(f"{chapter} does not define {name}")


@pytest.mark.parametrize("name,teacher,copy", [(n, t, c) for n, (t, cs) in COPIES.items() for c in cs])
def test_given_copy_matches_the_teaching_chapter(name, teacher, copy):
    assert definition(copy, name) == definition(teacher, name), (
        f"{copy} re-provides {name} but it differs from {teacher}'s: copy the current version")
