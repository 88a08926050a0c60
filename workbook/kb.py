"""Search the shop's knowledge base (`agent_files/kb`): BM25 over sections, archived pages excluded.

    from workbook import kb
    for hit in kb.search("opened tea return", k=3):
        print(hit.source, "§", hit.section, hit.score)
        print(hit.text)

A page is a Markdown file with a small front matter (`title:`, `status: current | archived`).
It is split into sections at its headings; each section is one searchable fragment. Pages whose
status is `archived` are never returned: old rules must not look like current ones. They can
still be read on purpose with a file tool (e.g. `kb/returns-2025.md`).

The shop's knowledge base in another language is a folder `agent_files/<lang>/kb/` with the same
pages (docs/TRANSLATING.md, "Content in the language"), searched with `lang`:

    kb.search("вскрытый чай", k=3, lang="ru")   # hits from ru/kb/..., e.g. ru/kb/returns.md

English is the default and is never changed by it. Russian words are case-folded (ё read as е)
and cut to a stem by a small fixed set of endings, so "вскрытый" finds "вскрытого" and
"гарантия" finds "гарантии": deterministic, offline, no dictionary.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from workbook import paths

MAX_K = 8  # a model asking for k=50 gets 8: one search must not flood the context
K1, B = 1.5, 0.75  # the usual BM25 constants
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it its my of on or our the this "
    "to was we what when which with you your".split())
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
ENGLISH = "en"  # the default language: agent_files/kb
LANGUAGE = re.compile(r"[a-z]{2,3}")  # another language's folder: agent_files/<lang>/kb
WORDS = re.compile(r"[a-z0-9]+|[а-яё]+")  # English words as before; Russian words apart
RU_STOPWORDS = frozenset(
    "а без бы в во вам вас ваш ваша ваше ваши где да для до его ее же за и из или им их к как ко "
    "когда ли мне мой мы на не но о об от по под при про с со так то у уже что чтобы это я вы".split())
RU_VOWELS = frozenset("аеиоуыэюя")
# The endings a Russian word sheds (adjective, participle, verb and noun endings, after Snowball's
# Russian stemmer, without its conditions): the longest one after the first vowel is cut.
RU_ENDINGS = sorted(set(
    "ее ие ые ое ими ыми ей ий ый ой ем им ым ом его ого ему ому их ых ую юю ая яя ою ею "
    "ивш ывш ующ ла на ете йте ли й л н ло но ет ют ны ть ешь нно ила ыла ена ейте уйте ите или "
    "ыли уй ил ыл ен ило ыло ено ят ует уют ит ыт ены ить ыть ишь ю а ев ов ие ье е иями ями ами "
    "еи ии и ией ой иям ям ием ам о у ах иях ях ы ь ию ью ия ья я".split()), key=len, reverse=True)


@dataclass(frozen=True)
class Hit:
    """One search result: where it comes from, and the section's text."""

    source: str  # path relative to agent_files, e.g. "kb/returns.md" (what read_file takes)
    section: str  # the heading of the section, e.g. "Return period"
    text: str
    score: float


@dataclass(frozen=True)
class Section:
    source: str
    title: str  # the page title
    section: str
    text: str


def _stem(word: str) -> str:
    """A deliberately tiny stemmer: 'returns' and 'return', 'lamps' and 'lamp' match."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _stem_ru(word: str) -> str:
    """A Russian word's stem: a reflexive -ся/-сь, then the longest ending (RU_ENDINGS), then a
    soft sign, each cut only after the word's first vowel: "вскрытого" -> "вскрыт", "чаю" -> "ча",
    "гарантии" -> "гарант"."""
    first = next((i + 1 for i, ch in enumerate(word) if ch in RU_VOWELS), len(word))
    if word.endswith(("ся", "сь")) and len(word) - 2 >= first:
        word = word[:-2]
    for ending in RU_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= first:
            word = word[:-len(ending)]
            break
    return word[:-1] if word.endswith("ь") and len(word) - 1 >= first else word


def tokens(text: str) -> list[str]:
    """Lower-case word stems, stop words removed. English words (a-z, 0-9) as they always were;
    Russian words (Cyrillic, ё read as е) by their own stop words and stems."""
    out = []
    for word in WORDS.findall(text.lower()):
        if word.isascii():
            if word not in STOPWORDS:
                out.append(_stem(word))
        elif (word := word.replace("ё", "е")) not in RU_STOPWORDS:
            out.append(_stem_ru(word))
    return out


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    if not text.startswith("---\n"):
        return {}, text
    head, sep, body = text[4:].partition("\n---\n")
    if not sep:
        return {}, text
    meta = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon:
            meta[key.strip().lower()] = value.strip()
    return meta, body


def is_archived(meta: dict[str, str]) -> bool:
    return meta.get("status", "").lower() == "archived"


def _split(source: str, title: str, body: str) -> list[Section]:
    """One Section per heading (text before the first heading belongs to the page title)."""
    out, heading, lines = [], title, []
    for line in [*body.splitlines(), "# end"]:
        m = HEADING.match(line)
        if not m:
            lines.append(line)
            continue
        text = "\n".join(lines).strip()
        if text:
            out.append(Section(source, title, heading, text))
        heading, lines = m.group(2), []
    return out


def languages() -> list[str]:
    """The languages the knowledge base is written in: "en" and each `agent_files/<lang>/kb`."""
    others = (p.parent.name for p in paths.AGENT_FILES.glob("*/kb") if p.is_dir())
    return [ENGLISH, *sorted(name for name in others if LANGUAGE.fullmatch(name))]


def folder(lang: str = ENGLISH) -> Path:
    """The knowledge base of `lang`: agent_files/kb for English, agent_files/<lang>/kb otherwise."""
    if lang == ENGLISH:
        return paths.KB
    if not isinstance(lang, str) or not LANGUAGE.fullmatch(lang) or lang not in languages():
        raise ValueError(f"no knowledge base in language {lang!r:.20}; there is one in: "
                         f"{', '.join(languages())}")
    return paths.AGENT_FILES / lang / "kb"


def sections(root: Path | None = None, lang: str = ENGLISH) -> list[Section]:
    """Every non-empty section of every current page under `root` (default: the knowledge base
    of `lang`, agent_files/kb for English)."""
    # a page is named as read_file takes it: kb/returns.md, ru/kb/returns.md (a root given: kb/...)
    prefix = "kb" if root is not None or lang == ENGLISH else f"{lang}/kb"
    root = Path(root) if root is not None else folder(lang)
    out = []
    for path in sorted(root.rglob("*.md")):
        meta, body = _front_matter(path.read_text(encoding="utf-8"))
        if not is_archived(meta):
            out += _split(f"{prefix}/{path.relative_to(root).as_posix()}", meta.get("title", path.stem), body)
    return out


def _check(query, k) -> int:
    if not isinstance(query, str) or not query.strip():
        raise ValueError(f"query must be a non-empty string, got {query!r:.60}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a whole number from 1 to {MAX_K}, got {k!r:.20}")
    return min(k, MAX_K)


def bm25(query: str, texts: list[str]) -> list[float]:
    """The BM25 score of each text for `query`, in the order given (0.0: no word in common).

    The scorer `search` ranks sections with; chapter 17 ranks a customer's remembered facts."""
    if not isinstance(query, str):
        raise ValueError(f"query must be a string, got {query!r:.60}")
    bags = [Counter(tokens(t)) for t in texts]
    if not bags:
        return []
    avg = sum(sum(b.values()) for b in bags) / len(bags) or 1.0
    df = Counter(t for b in bags for t in b)
    n = len(bags)
    scores = []
    for bag in bags:
        length = sum(bag.values())
        score = 0.0
        for term in set(tokens(query)):
            tf = bag.get(term, 0)
            if tf:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))
        scores.append(score)
    return scores


def search(query: str, k: int = 4, root: Path | None = None, lang: str = ENGLISH) -> list[Hit]:
    """The k best sections for `query` (k is capped at 8), best first; [] when nothing matches.
    `lang` picks the knowledge base ("ru": agent_files/ru/kb); `root`, when given, wins."""
    k = _check(query, k)
    docs = sections(root, lang)
    # A section is indexed with its page title and heading, so "Svet mini warranty" finds the
    # "Warranty" section of the Svet mini page.
    scores = bm25(query, [f"{d.title} {d.section} {d.text}" for d in docs])
    scored = [(-round(score, 9), i, doc) for i, (doc, score) in enumerate(zip(docs, scores, strict=True))
              if score > 0]  # ties: the order of the files
    scored.sort()
    return [Hit(d.source, d.section, d.text, -s) for s, _, d in scored[:k]]
