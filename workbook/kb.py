"""Search the shop's knowledge base (`agent_files/kb`): BM25 over sections, archived pages excluded.

    from workbook import kb
    for hit in kb.search("opened tea return", k=3):
        print(hit.source, "§", hit.section, hit.score)
        print(hit.text)

A page is a Markdown file with a small front matter (`title:`, `status: current | archived`).
It is split into sections at its headings; each section is one searchable fragment. Pages whose
status is `archived` are never returned: old rules must not look like current ones. They can
still be read on purpose with a file tool (e.g. `kb/returns-2025.md`).
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


def tokens(text: str) -> list[str]:
    """Lower-case word stems, stop words removed."""
    return [_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]


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


def sections(root: Path | None = None) -> list[Section]:
    """Every non-empty section of every current page under `root` (default: agent_files/kb)."""
    root = Path(root) if root is not None else paths.KB
    out = []
    for path in sorted(root.rglob("*.md")):
        meta, body = _front_matter(path.read_text(encoding="utf-8"))
        if not is_archived(meta):
            out += _split(f"kb/{path.relative_to(root).as_posix()}", meta.get("title", path.stem), body)
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


def search(query: str, k: int = 4, root: Path | None = None) -> list[Hit]:
    """The k best sections for `query` (k is capped at 8), best first; [] when nothing matches."""
    k = _check(query, k)
    docs = sections(root)
    # A section is indexed with its page title and heading, so "Svet mini warranty" finds the
    # "Warranty" section of the Svet mini page.
    scores = bm25(query, [f"{d.title} {d.section} {d.text}" for d in docs])
    scored = [(-round(score, 9), i, doc) for i, (doc, score) in enumerate(zip(docs, scores, strict=True))
              if score > 0]  # ties: the order of the files
    scored.sort()
    return [Hit(d.source, d.section, d.text, -s) for s, _, d in scored[:k]]
