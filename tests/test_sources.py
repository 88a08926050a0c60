"""Every error text the fake provider can send is listed, with its source, in docs/SOURCES.md.

The fake turns provider facts into graded behaviour, so a text nobody checked must not slip in.
The texts are read from the code (the first argument of ProtocolError, the message of a Fault,
any {"message": ...} in an error body, following a name to the string it was assigned); a part
filled in at run time (an f-string field, a joined list of ids) matches anything in SOURCES.md,
where it is written as `…` or `<what>`.
"""

import ast
import re

from workbook.paths import ROOT

SOURCES = ROOT / "docs" / "SOURCES.md"
# The fake's code: the faces and engine (workbook/fake_llm, or workbook/engine once moved) and the
# scenarios, whose faults (429, 500, 503) are provider texts too.
FOLDERS = ("workbook/fake_llm", "workbook/engine", "workbook/scenarios")
WILD = None  # a part of a text filled in at run time


def templates(node, names):
    """The texts an expression can evaluate to, as lists of literal parts and WILD."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [[node.value]]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            parts.append(v.value if isinstance(v, ast.Constant) else WILD)
        return [parts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = templates(node.left, names), templates(node.right, names)
        return [a + b for a in left or [[WILD]] for b in right or [[WILD]]]
    if isinstance(node, ast.IfExp):
        return templates(node.body, names) + templates(node.orelse, names)
    if isinstance(node, ast.Name) and node.id in names:
        return [t for value in names[node.id] for t in templates(value, {})]
    return []


def error_texts(tree):
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.setdefault(target.id, []).append(node.value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            position = {"ProtocolError": 0, "Fault": 1}.get(fn)
            if position is not None and len(node.args) > position:
                yield from templates(node.args[position], names)
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "message":
                    yield from templates(value, names)


def pattern(parts) -> re.Pattern:
    """A text with its run-time parts as wildcards; whitespace as in a wrapped markdown line."""
    literal = [re.escape(p) if p is not WILD else ".{0,120}?" for p in parts if p != ""]
    return re.compile(re.sub(r"(\\ )+", r"\\s+", "".join(literal)), re.DOTALL)


def fake_error_texts():
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).glob("*.py")):
            for parts in error_texts(ast.parse(path.read_text(encoding="utf-8"))):
                if "".join(p for p in parts if p is not WILD).strip():
                    found.setdefault(tuple(parts), path.relative_to(ROOT))
    return found


def test_the_fake_has_error_texts_to_check():
    texts = ["".join(p or "…" for p in parts) for parts in fake_error_texts()]
    assert len(texts) >= 15, f"the extractor found too few error texts: {texts}"
    assert any("reasoning_content" in t for t in texts) and any("does not support tools" in t for t in texts)


def test_every_error_text_of_the_fake_is_listed_in_sources():
    listed = SOURCES.read_text(encoding="utf-8")
    missing = [f"{where}: {''.join(p or '…' for p in parts)!r}"
               for parts, where in fake_error_texts().items() if not pattern(parts).search(listed)]
    assert not missing, ("error texts the fake sends that docs/SOURCES.md does not list (add each, with "
                         "its source and the date checked):\n" + "\n".join(missing))


def test_the_check_fails_on_an_unlisted_text():
    tree = ast.parse('raise ProtocolError(f"Totally new wording for {x}.")')
    (parts,) = list(error_texts(tree))
    assert parts == ["Totally new wording for ", WILD, "."]
    assert not pattern(parts).search(SOURCES.read_text(encoding="utf-8"))
    assert pattern(parts).search("Totally new wording for `<x>`.")
