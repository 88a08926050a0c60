"""Message templates: an English template with `{...}` placeholders, the text it made, and its
translation.

A template is what a test cell wrote: `f"call the model exactly once; it was called {model.calls}
times"` is the template `call the model exactly once; it was called {model.calls} times`, its
placeholder named by the expression's own text (`autograder/i18n/i18n_messages.py` extracts them);
literal braces are doubled (`{{'role': 'user'}}`). A message the learner sees is matched against
the English templates (the literal parts exactly, each placeholder any text, the same placeholder
the same text) and written again with the translation's literal parts: the values stay as they
were, and a value that is itself a message (a hint, the `what` of a helper) is translated too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MIN_LETTERS = 3  # a template needs a word of its own: "{a}: {b}" would match any text
DEPTH = 3  # a value inside a value inside a message, and no deeper
TYPE_NAME = r"[A-Za-z_]\w*"  # what a `{type(x).__name__}` placeholder holds: a name, never a repr
HINT = " — "  # a helper's message and its hint (`checks.equal`, `no_raise`): "... got 3 — <hint>"


def parse(template: str) -> list[tuple[str, str]]:
    """("text", literal) and ("field", placeholder) parts; `{{` and `}}` are literal braces. A
    placeholder may hold braces of its own (`{ {'a': 1}[k] }`). ValueError for an unclosed one."""
    parts: list[tuple[str, str]] = []
    literal, at = [], 0
    while at < len(template):
        char = template[at]
        if template.startswith("{{", at) or template.startswith("}}", at):
            literal.append(char)
            at += 2
        elif char == "{":
            depth, end = 1, at + 1
            while end < len(template) and depth:
                depth += {"{": 1, "}": -1}.get(template[end], 0)
                end += 1
            if depth:
                raise ValueError(f"unclosed placeholder in {template!r}")
            if literal:
                parts.append(("text", "".join(literal)))
                literal = []
            parts.append(("field", template[at + 1:end - 1]))
            at = end
        else:
            literal.append(char)
            at += 1
    if literal:
        parts.append(("text", "".join(literal)))
    return parts


def fields(template: str) -> list[str]:
    """The placeholders of a template, in order, each once."""
    return list(dict.fromkeys(name for kind, name in parse(template) if kind == "field"))


def literal(template: str) -> str:
    """The template's own text, placeholders left out."""
    return "".join(text for kind, text in parse(template) if kind == "text")


def usable(template: str) -> bool:
    """Can the template be matched without matching everything: a word of its own?"""
    try:
        return re.search(rf"[^\W\d_]{{{MIN_LETTERS}}}", literal(template)) is not None
    except ValueError:
        return False


@dataclass(frozen=True)
class Template:
    """An English template compiled for matching, with its translation."""

    english: str
    translation: str
    pattern: re.Pattern
    groups: dict[str, str]  # placeholder -> its regex group
    prefix: str  # the literal text before the first placeholder

    @classmethod
    def compile(cls, english: str, translation: str) -> Template:
        regex: list[str] = []
        groups: dict[str, str] = {}
        for kind, text in parse(english):
            if kind == "text":
                regex.append(re.escape(text))
            elif text in groups:
                regex.append(f"(?P={groups[text]})")
            else:
                groups[text] = f"g{len(groups)}"  # a type's name is a name: "got str 'x'" is a type,
                shape = TYPE_NAME if text.endswith(".__name__") else ".*?"  # "got (3, [1])" a value
                regex.append(f"(?P<{groups[text]}>{shape})")
        first = parse(english)[0]
        prefix = first[1] if first[0] == "text" else ""
        return cls(english, translation, re.compile("".join(regex), re.S), groups, prefix)

    def render(self, values: dict[str, str], again: Callable[[str], str]) -> str:
        """The translation with each placeholder's value (translated by `again`) put in."""
        out = []
        for kind, text in parse(self.translation):
            out.append(again(values[text]) if kind == "field" else text)
        return "".join(out)


class Catalog:
    """English template -> translation, for exact words (`words`) and for messages (`translate`)."""

    def __init__(self, entries: dict[str, str]):
        self.words = dict(entries)
        self._exact: dict[str, str] = {}
        self._by_prefix: dict[str, list[Template]] = {}
        for english, translation in entries.items():
            try:
                if not fields(english):
                    self._exact[literal(english)] = literal(translation)
                    continue
                if not usable(english) or set(fields(translation)) != set(fields(english)):
                    continue  # unmatchable, or a translation that lost a value: said by the gate
                template = Template.compile(english, translation)
            except ValueError:
                continue
            self._by_prefix.setdefault(template.prefix[:1], []).append(template)
        for group in self._by_prefix.values():  # the longest literal first: the most specific
            group.sort(key=lambda t: -len(literal(t.english)))

    def __bool__(self) -> bool:
        return bool(self.words)

    def translate(self, text: str, depth: int = 0) -> str:
        """`text` in the catalog's language, when a template made it; else unchanged."""
        if not self.words or depth > DEPTH or not isinstance(text, str):
            return text
        if text in self._exact:
            return self._exact[text]
        message, sep, hint = text.rpartition(HINT)
        if sep and message and (said := self.translate(hint, depth + 1)) != hint:  # a hint is a message
            return f"{self.translate(message, depth)}{HINT}{said}"
        for template in self._by_prefix.get(text[:1], []) + self._by_prefix.get("", []):
            if not text.startswith(template.prefix):
                continue
            found = template.pattern.fullmatch(text)
            if found:
                values = {name: found.group(group) for name, group in template.groups.items()}
                return template.render(values, lambda value: self.translate(value, depth + 1))
        return text
