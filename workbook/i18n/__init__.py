"""The course's other languages: which one a learner chose, and the catalogs that translate what
they read outside the chapter text (docs/TRANSLATING.md).

A language is data: a folder `i18n/<lang>/` at the repository root holds its chapter texts and
quizzes (read by `autograder/i18n/*.py` when the course is released), `messages.json` (the messages
of the chapters' visible test cells and the test helpers), `hidden.json` (what only hidden tests
say: the feedback page's, never in a hub student's copy) and `ui.json` (the words of Validate, `make check`, `env_check`,
`workbook progress`, the quiz and the feedback page). Both catalogs map an English template to its
translation; `{...}` is a placeholder, `{{` and `}}` are braces (docs/TRANSLATING.md, "Messages").

Which language, in this order (`language()`):
1. the notebook's own metadata, `{"workbook": {"language": "ru"}}` (the Russian edition has it; an
   English notebook has none);
2. `AGENT_LOOP_LANG` (`make lab LANG=ru` sets it for the lab, the hub sets it per student);
3. for the command line only, the locale: `LC_ALL`, then `LC_MESSAGES`, then `LANG`
   (`ru_RU.UTF-8` is Russian, `en_US.UTF-8` and `C.UTF-8` are English).
A language without a folder here is English. Only the standard library is imported: env_check
must run where the workbook's packages are missing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from workbook.i18n.templates import Catalog
from workbook.paths import ROOT

I18N = ROOT / "i18n"
ENGLISH = "en"
ENV = "AGENT_LOOP_LANG"
META = "workbook"  # notebook metadata: {"workbook": {"language": "ru"}}
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # POSIX order: the first one set wins
CODE = re.compile(r"^[a-z]{2,3}$")
HASH_LENGTH = 12
MAX_NOTEBOOK = 20 * 2**20  # a kernel reads its own notebook's metadata; never a huge file


def digest(text: str) -> str:
    """The hash that names an English piece: 12 hex digits of its UTF-8 sha256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_LENGTH]


def question_digest(question: Mapping) -> str:
    """The hash of an English quiz question (its own `en` key, if any, left out)."""
    plain = {k: v for k, v in question.items() if k != "en"}
    return digest(json.dumps(plain, ensure_ascii=False, sort_keys=True))


def languages(folder: Path | None = None) -> list[str]:
    """The languages the course has besides English: the folders `i18n/<lang>/`."""
    folder = I18N if folder is None else folder
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and CODE.match(p.name))


def known(value: object) -> str | None:
    """`value` as a language the course has ("ru", "en"), or None: "ru", "RU", "ru_RU.UTF-8",
    "ru-RU" are Russian; "en_US.UTF-8", "C", "C.UTF-8", "POSIX" English; "de_DE" None."""
    text = str(value or "").strip()
    if not text:
        return None
    code = re.split(r"[_.@-]", text, maxsplit=1)[0].lower()
    if code in ("c", "posix", ENGLISH):
        return ENGLISH
    return code if code in languages() else None


def notebook_language(nb: Mapping | None) -> str | None:
    """The language a notebook (as JSON data) says it is written in, or None (English editions
    say nothing)."""
    meta = nb.get("metadata") if isinstance(nb, Mapping) else None
    mine = meta.get(META) if isinstance(meta, Mapping) else None
    return known(mine.get("language")) if isinstance(mine, Mapping) else None


def locale_language(env: Mapping[str, str] | None = None) -> str | None:
    """The language of the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`, the first one set), or None."""
    env = os.environ if env is None else env
    for name in LOCALE_VARIABLES:
        if env.get(name, "").strip():
            return known(env[name]) or ENGLISH
    return None


def language(nb: Mapping | None = None, env: Mapping[str, str] | None = None,
             use_locale: bool = True) -> str:
    """The language to speak: the notebook's, else AGENT_LOOP_LANG, else (`use_locale`) the
    locale's, else English."""
    env = os.environ if env is None else env
    chosen = notebook_language(nb) or known(env.get(ENV))
    if chosen is None and use_locale:
        chosen = locale_language(env)
    return chosen or ENGLISH


def session_notebook(env: Mapping[str, str] | None = None) -> dict | None:
    """In a kernel Jupyter started for a notebook: that notebook as last saved (JPY_SESSION_NAME,
    which the server sets, names it; the kernel starts in its folder), or None."""
    name = (os.environ if env is None else env).get("JPY_SESSION_NAME", "")
    if not name.endswith(".ipynb"):
        return None
    path = Path(name) if Path(name).is_absolute() else Path.cwd() / Path(name).name
    try:
        if path.stat().st_size > MAX_NOTEBOOK:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def current(env: Mapping[str, str] | None = None) -> str:
    """The language here and now: in a kernel, its notebook's or AGENT_LOOP_LANG (never the
    locale: a kernel speaks as its notebook does); elsewhere `language()` with the locale."""
    env = os.environ if env is None else env
    if "JPY_SESSION_NAME" in env or "ipykernel" in sys.modules:
        return language(session_notebook(env), env, use_locale=False)
    return language(None, env)


def _read(path: Path) -> dict[str, str]:
    """A catalog file: a JSON object of English template -> translation ({} when absent). A broken
    file is said in one line, never a traceback deep in a learner's cell."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not a readable catalog ({type(e).__name__}: {e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a catalog is a JSON object of English template -> translation")
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str) and v.strip()}


@functools.cache
def catalog(lang: str, folder: Path | None = None) -> Catalog:
    """The messages and words of `lang` (an empty catalog for English or an unknown language)."""
    if lang == ENGLISH or lang not in languages(folder):
        return Catalog({})
    base = (I18N if folder is None else folder) / lang  # hidden.json: the instructor's only (feedback)
    return Catalog({**_read(base / "messages.json"), **_read(base / "hidden.json"), **_read(base / "ui.json")})


def tr(lang: str, english: str, **values: object) -> str:
    """One of the tools' own sentences in `lang`: the catalog's translation of the template
    `english`, or the English, with `values` put in (str.format)."""
    said = catalog(lang).words.get(english, english)
    try:
        return said.format(**values)
    except (KeyError, IndexError, ValueError):  # a translation that lost a value: the English
        return english.format(**values)


def translate(lang: str, text: str) -> str:
    """A message as the learner reads it (an assert's, a hint, a stub's), in `lang` when the
    catalog has its template; else unchanged."""
    return catalog(lang).translate(text) if lang != ENGLISH else text


def translate_error(lang: str, line: str) -> str:
    """`Name: message` (an error's own line) with the message translated."""
    name, sep, message = line.partition(": ")
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
        return translate(lang, line)
    return f"{name}: {translate(lang, message)}"
