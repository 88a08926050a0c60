"""A part of a call's arguments is encoded again only when it differs from its copy (shadow.py)."""

from __future__ import annotations

import dataclasses

from workbook.link.shadow import shadow


@dataclasses.dataclass
class Task:
    wrong: list


def test_a_copy_is_equal_until_the_part_changes_in_place_anywhere_below():
    messages = [{"role": "user", "content": "hi", "meta": {"ids": [1, 2], "pair": (1, "a")}}, {"k": {1, 2}}]
    copy = shadow(messages)
    assert messages == copy
    messages[0]["meta"]["ids"].append(3)
    assert messages != copy, "a change two levels down shows"
    copy = shadow(messages)
    messages[1]["k"].add(4)
    assert messages != copy, "a set changed in place shows"


def test_a_part_that_holds_anything_but_plain_data_is_never_equal_to_its_copy():
    for part in ([Task(["x"])], {"tool": len}, [object()]):
        assert part != shadow(part), part
    deep = []
    for _ in range(60):
        deep = [deep]
    assert deep != shadow(deep), "past MAX_DEPTH a part is always encoded"
