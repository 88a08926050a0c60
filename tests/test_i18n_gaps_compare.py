"""A nested mismatch reads Russian end to end (workbook/compare.py, i18n/ru/messages.json).

`checks.equal` names the first part of two values that differs ("item [1]['content'] should be
..."). Those details were once glued from pieces ("item {path}{space}{detail}"), which the catalog
matcher, reading a message as one template, could not take apart: a Russian learner read
"…; item [1]['a'] should be 3, got 2" half in English. Each message is now one f-string, whole.
"""

from __future__ import annotations

import re

import pytest

from workbook import checks
from workbook.compare import WHOLE, mismatch
from workbook.i18n import kernel as hooks
from workbook.i18n import translate

ENGLISH_WORDS = re.compile(r"\b(should|item|items|got|have|missing|unexpected|keys?|character|be)\b")
FILLER = "f" * WHOLE  # an item long enough that only the part that differs is quoted


def _said(actual, expected, what="the result") -> str:
    with pytest.raises(AssertionError) as error:
        checks.equal(actual, expected, what)
    return str(error.value)


def test_a_nested_mismatch_in_a_russian_kernel_reads_russian():
    """What the kernel's hook shows (workbook/i18n/kernel.py), for a list of chat messages."""
    sent = [{"role": "user", "content": "Где заказ?"}, {"role": "assistant", "content": "Едет."}]
    wanted = [sent[0], {"role": "assistant", "content": "Доставлен."}]
    with pytest.raises(AssertionError) as error:
        checks.equal(sent[1:], wanted[1:], "the result")  # short: both wholes, then the part
    hooks.retell(error.value, "ru")
    assert str(error.value) == (
        "результат: ожидалось [{'role': 'assistant', 'content': 'Доставлен.'}], получено [{'role': 'assistant', "
        "'content': 'Едет.'}]; элемент [0]['content']: ожидалось 'Доставлен.', получено 'Едет.'")
    with pytest.raises(AssertionError) as error:
        checks.equal(sent, wanted, "the result")  # long: the part alone
    hooks.retell(error.value, "ru")
    assert str(error.value) == "результат: элемент [1]['content']: ожидалось 'Доставлен.', получено 'Едет.'"
    with pytest.raises(AssertionError) as error:  # long wholes: only the part, and a hint after it
        checks.equal([FILLER, [{"a": 1}]], [FILLER, [{"a": 1, "b": 2}]], "the result", hint="return it, do not print it")
    hooks.retell(error.value, "ru")
    assert str(error.value).startswith("результат: элемент [1][0]: нет ключей 'b' — "), str(error.value)


# (actual, expected) for every shape of message, said of the whole value; `where` puts the same
# pair inside a list (both wholes quoted) or beside a long item (only the part quoted)
SHAPES = {
    "none": (1, None), "a, got None": (None, "s"), "an, got None": (None, 5),
    "a": ([1], {"a": 1}), "an": ("1", 1), "length": ([1], [1, 2]), "missing": ({}, {"a": 1}),
    "extra": ({"a": 1, "b": 2}, {"a": 1}), "keys": ({"b": 1}, {"a": 1}), "value": (4, 5),
    "text": ("ab", "a" + "x" * 80),
}
IS_TYPES = ("a", "an")  # said of the whole value, these are is_type's very words, and its translation


@pytest.mark.parametrize("where", ["top", "whole", "item"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_shape_of_mismatch_is_one_template_the_catalog_translates(shape, where):
    actual, expected = SHAPES[shape]
    if where == "whole":
        actual, expected = [0, actual], [0, expected]
    elif where == "item":
        actual, expected = [FILLER, actual], [FILLER, expected]
    said = _said(actual, expected)
    assert said == mismatch(actual, expected, "the result")
    assert ("item [1]" in said) == (where != "top") and (" should be [" in said) == (where == "whole"), said
    russian = translate("ru", said)
    assert russian.startswith("результат"), russian
    if where == "top" and shape in IS_TYPES:
        assert "ожидался тип" in russian, russian
        return
    assert not ENGLISH_WORDS.search(russian), f"English left in {russian!r} (from {said!r})"
    assert ("элемент [1]" in russian) == (where != "top"), russian
