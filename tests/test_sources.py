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


# ---------------------------------------------------------------- facts the chapters state
# Beyond the fake's error texts: every model name a chapter names outside its test cells, every
# price of the price table and every limit the fake enforces must be in docs/SOURCES.md, in an
# entry (a bullet) that carries the date it was checked, or under a heading that does.

DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
MODEL = re.compile(r"(?<![\w/.-])(gpt-[0-9][\w.]*(?:-[a-z0-9]+)*|o[134](?:-mini|-pro)?|"
                   r"claude-(?:haiku|sonnet|opus)-\d[\w.-]*|deepseek-[a-z][\w.-]*|"
                   r"(?:qwen|gemma|llama|phi|mistral)[\d.]*:[\w.]+|gpt-oss:[\w.]+)(?![\w-])")
CHAPTERS = ROOT / "solutions"


def entries(text: str) -> list[tuple[str, str]]:
    """(heading, bullet) for every top-level bullet of SOURCES.md, its continuation lines joined."""
    out, heading, bullet = [], "", None
    for line in text.splitlines():
        if line.startswith("#"):
            heading, bullet = line, None
            continue
        if line.startswith("- "):
            bullet = [line]
            out.append((heading, bullet))
        elif bullet is not None and line.startswith(" "):
            bullet.append(line)
        elif not line.strip():
            bullet = None
    return [(h, " ".join(s.strip() for s in b)) for h, b in out]


def dated(text: str, found) -> list[str]:
    """The bullets of `text` for which found(bullet) holds and a date is at hand."""
    return [b for h, b in entries(text) if found(b) and (DATE.search(b) or DATE.search(h))]


def named(name: str):
    word = re.compile(rf"(?<![\w/.-]){re.escape(name)}(?![\w-]|\.\d)")
    return lambda bullet: bool(word.search(bullet))


def taught_cells(path):
    """The chapter's cells that are not test cells (a test may name a model that does not exist)."""
    cells = re.split(r"^# %%", path.read_text(encoding="utf-8"), flags=re.M)
    return [c for c in cells if '"grade": true' not in c.split("\n", 1)[0]]


def stated_models() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted(CHAPTERS.glob("*/*.py")):
        for cell in taught_cells(path):
            for m in MODEL.finditer(cell):
                found.setdefault(m.group(1), set()).add(path.parent.name)
    return found


def test_the_chapters_name_models_to_check():
    models = stated_models()
    assert {"gpt-5-mini", "deepseek-flash", "qwen3:4b", "claude-haiku-4-5"} <= set(models), sorted(models)


def test_every_model_a_chapter_names_has_a_dated_entry():
    text = SOURCES.read_text(encoding="utf-8")
    missing = [f"{name} ({', '.join(sorted(chapters))})" for name, chapters in sorted(stated_models().items())
               if not dated(text, named(name))]
    assert not missing, ("models the chapters name that no dated docs/SOURCES.md entry names (add one, with "
                         "its source and the day checked):\n" + "\n".join(missing))


def test_every_price_has_a_dated_entry():
    from workbook.prices import PRICES

    text = SOURCES.read_text(encoding="utf-8")
    section = text.split("## Prices (chapter 15", 1)[1].split("\n## ", 1)[0]
    for model, row in PRICES.items():
        if not row["source"].startswith("https://"):
            continue
        prices = [row[k] for k in ("input", "cached_input", "output")]
        bullets = [b for h, b in entries("## Prices (chapter 15" + section) if named(model)(b)]
        assert bullets, f"{model}: no bullet of the prices section names it"
        assert any(all(any(f in b for f in (f"{p:.2f}", f"{p:g}", str(p))) for p in prices) for b in bullets), (
            f"{model}: the prices section does not state {prices} (input, cached input, output) for it")
        assert row["checked"] in section, f"{model}: its checked day {row['checked']} is not in the section"


def forms(n: int) -> list[str]:
    return [str(n), f"{n:,}", f"{n:_}"]


def test_every_limit_the_fake_enforces_has_a_dated_entry():
    from workbook.engine import caching, protocol, window

    text = SOURCES.read_text(encoding="utf-8")
    limits = [(f"the {d} window", n, ("context", "window", "maximum")) for d, n in window.WINDOWS.items()]
    limits += [(f"the cache minimum {n} ({name})", n, ("minimum", "cache"))
               for name, n in caching.MESSAGES_MINIMUMS]
    limits += [("the stop strings", protocol.MAX_STOP, ("stop",)),
               ("a tool name's length", 64, ("tool", "name"))]
    missing = []
    for what, n, words in limits:
        pattern = re.compile(r"(?<![\d,._])(?:" + "|".join(re.escape(f) for f in forms(n)) + r")(?![\d,_]|\.\d)")
        if not dated(text, lambda b, p=pattern, ws=words: bool(p.search(b)) and any(w in b.lower() for w in ws)):
            missing.append(f"{what}: {n}")
    assert not missing, "limits the fake enforces that no dated docs/SOURCES.md entry states:\n" + "\n".join(missing)


def test_the_fact_checks_fail_on_an_unlisted_fact():
    text = "## Section, checked 2026-12-02\n\n- `gpt-5-mini` costs 0.25.\n\n## Undated\n\n- `gpt-7` exists.\n"
    assert dated(text, named("gpt-5-mini")) and not dated(text, named("gpt-7"))
    assert not dated(text, named("gpt-5")), "gpt-5 is not gpt-5-mini"
    assert not dated(text, named("gpt-9")), "a name nobody listed"
    cell = '# %% nbgrader={"grade": true}\nmodel = "gpt-9"\n'
    assert MODEL.search(cell) and '"grade": true' in cell.split("\n", 1)[0]


# Every request parameter a chapter's code sends (a keyword of a `.create(` or `.stream(` call in a
# taught cell) and every usage field it reads (a `*_tokens`/`*_tokens_details` name, `cache_creation`)
# is a provider fact too: a dated entry must name it. A usage field may be named with its path
# (`usage.cache_creation`). The course's own names that look like usage fields are listed here.
COURSE_OWN = {"max_reply_tokens": "chapter 11's Limits field", "cache_hit_tokens": "chapter 11's trajectory key",
              "tokens": "the chapters' own totals", "tokens_in": "chapter 11's trajectory key",
              "tokens_out": "chapter 11's trajectory key"}
FIELD = re.compile(r"[a-z0-9_]*tokens(?:_details)?|cache_creation")


def field_named(name: str):
    word = re.compile(rf"(?<![\w/-]){re.escape(name)}(?![\w-]|\.\d)")
    return lambda bullet: bool(word.search(bullet))


def stated_api(cells) -> tuple[dict[str, set[int]], dict[str, set[int]]]:
    """(request parameters, usage fields) -> the indexes of the cells that use them."""
    params: dict[str, set[int]] = {}
    fields: dict[str, set[int]] = {}
    for i, cell in enumerate(cells):
        source = "\n".join(line for line in cell.split("\n")[1:] if not line.startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("create", "stream"):
                for keyword in node.keywords:
                    if keyword.arg:
                        params.setdefault(keyword.arg, set()).add(i)
            name = node.attr if isinstance(node, ast.Attribute) else node.value if (
                isinstance(node, ast.Constant) and isinstance(node.value, str)) else None
            if name and FIELD.fullmatch(name) and name not in COURSE_OWN:
                fields.setdefault(name, set()).add(i)
    return params, fields


def chapters_api() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    params: dict[str, set[str]] = {}
    fields: dict[str, set[str]] = {}
    for path in sorted(CHAPTERS.glob("*/*.py")):
        for found, into in zip(stated_api(taught_cells(path)), (params, fields), strict=True):
            for name in found:
                into.setdefault(name, set()).add(path.parent.name)
    return params, fields


def test_every_request_parameter_and_usage_field_a_chapter_uses_has_a_dated_entry():
    text = SOURCES.read_text(encoding="utf-8")
    params, fields = chapters_api()
    assert {"reasoning_effort", "response_format", "tool_choice", "stop"} <= set(params), sorted(params)
    assert {"reasoning_tokens", "cached_tokens", "cache_creation_input_tokens"} <= set(fields), sorted(fields)
    missing = [f"parameter {n} ({', '.join(sorted(c))})" for n, c in sorted(params.items()) if not dated(text, named(n))]
    missing += [f"usage field {n} ({', '.join(sorted(c))})" for n, c in sorted(fields.items())
                if not dated(text, field_named(n))]
    assert not missing, ("request parameters and usage fields the chapters use that no dated docs/SOURCES.md "
                         "entry names (add one, with its source and the day checked):\n" + "\n".join(missing))


def test_the_api_check_finds_parameters_and_fields_and_skips_the_course_own():
    cell = ('# %%\nr = client.chat.completions.create(model=m, frobnicate=1)\n'
            'print(r.usage.wibble_tokens, u["cache_hit_tokens"])\n')
    params, fields = stated_api([cell])
    assert set(params) == {"model", "frobnicate"} and set(fields) == {"wibble_tokens"}, (params, fields)
    text = "## Usage, checked 2026-12-04\n\n- `usage.cache_creation.ephemeral_1h_input_tokens`.\n"
    assert dated(text, field_named("cache_creation")) and not dated(text, named("cache_creation"))
    assert not dated(text, field_named("wibble_tokens"))
