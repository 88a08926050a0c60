"""The Russian knowledge base (agent_files/ru/kb) and its search: the Russian course's own queries
find the right pages, Russian word forms and case meet, and the English search is what it was."""

import re

import pytest

from workbook import kb, paths

ENGLISH_QUERIES = ("Svet mini warranty", "return period lamp days", "opened tea return",
                   "payment provider fee", "delivery zones regions villages courier post", "lamp")


def old_tokens(text):
    """workbook.kb.tokens as it was before Russian: the reference the English search must keep."""
    return [kb._stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in kb.STOPWORDS]


@pytest.mark.parametrize(("query", "source", "section", "fact"), [
    # the source course's own queries (seed 001: the practice's rag_search and its JSONL log)
    ("вскрытый чай", "ru/kb/returns.md", "Что нельзя вернуть", "Вскрытый чай вернуть нельзя"),
    ("вскрытый чай", "ru/kb/products/green-tea.md", "Возврат", "Вскрытый чай не возвращается"),
    ("гарантия Свет мини", "ru/kb/products/svet-mini.md", "Гарантия", "гарантия 6 месяцев"),
    # the practice's other facts: the return period, the Svet lamp, the payment fees
    ("срок возврата лампы", "ru/kb/returns.md", "Срок возврата", "в течение 14 дней после доставки"),
    ("гарантия на настольную лампу Свет", "ru/kb/products/svet.md", "Гарантия", "гарантия 12 месяцев"),
    ("комиссия провайдера за оплату при получении", "ru/kb/payment.md", "Способы оплаты и комиссии",
     "1% + 150 ₸"),
])
def test_the_russian_courses_queries_find_their_pages(query, source, section, fact):
    hits = kb.search(query, k=3, lang="ru")
    assert any((h.source, h.section) == (source, section) and fact in " ".join(h.text.split())
               for h in hits), [(h.source, h.section) for h in hits]


def test_the_seed_queries_rank_the_answer_first():
    top = kb.search("гарантия Свет мини", k=3, lang="ru")[0]
    assert (top.source, top.section) == ("ru/kb/products/svet-mini.md", "Гарантия")
    assert {(h.source, h.section) for h in kb.search("вскрытый чай", k=2, lang="ru")} == {
        ("ru/kb/products/green-tea.md", "Возврат"), ("ru/kb/returns.md", "Что нельзя вернуть")}
    for h in kb.search("вскрытый чай", k=8, lang="ru"):  # the source is what read_file takes
        assert (paths.AGENT_FILES / h.source).is_file()


@pytest.mark.parametrize("forms", [
    ("вскрытый", "вскрытого", "вскрытая", "вскрытую", "вскрытой", "вскрытые", "ВСКРЫТЫЙ"),
    ("чай", "чая", "чаю", "чаем"),
    ("гарантия", "гарантии", "гарантию", "Гарантией"),
    ("лампа", "лампы", "лампу", "ламп", "лампой"),
    ("возврат", "возврата", "возвраты", "возвратом"),
    ("доставка", "доставки", "доставку", "доставкой"),
    ("зелёный", "зеленый", "ЗЕЛЁНЫЙ", "зелёного"),
    ("свет", "света", "Свет"),
])
def test_russian_word_forms_and_cases_share_a_stem(forms):
    stems = {tuple(kb.tokens(f)) for f in forms}
    assert len(stems) == 1 and len(next(iter(stems))) == 1, dict(zip(forms, map(kb.tokens, forms), strict=True))


def test_different_words_keep_different_stems_and_stop_words_go():
    assert kb.tokens("свет") != kb.tokens("светодиодный")
    assert kb.tokens("мини") != kb.tokens("минута")
    assert kb.tokens("Можно ли вернуть чай и лампу?") == kb.tokens("можно вернуть чай лампу")
    assert kb.tokens("и в на не что") == []


def test_word_forms_find_the_same_section():
    for query in ("вскрытого чая", "ВСКРЫТЫЙ ЧАЙ", "вскрытую пачку чая"):
        assert ("ru/kb/returns.md", "Что нельзя вернуть") in [
            (h.source, h.section) for h in kb.search(query, k=3, lang="ru")], query
    assert kb.search("зеленый чай", k=1, lang="ru")[0].source == "ru/kb/products/green-tea.md"


def test_archived_russian_pages_are_never_returned():
    for query in ("30 дней возврат 2025 архив бонус", "вскрытый чай 7 дней", "правила возврата"):
        assert all("returns-2025" not in h.source for h in kb.search(query, k=8, lang="ru"))
    assert (kb.folder("ru") / "returns-2025.md").is_file()  # still there, for read_file on purpose


def test_every_english_page_has_a_russian_twin_with_the_same_numbers():
    """The facts carry over: a page changed in English (a new fee, a new period) and not in
    Russian fails here, naming the page."""
    english, russian = kb.folder(), kb.folder("ru")
    for page in sorted(english.rglob("*.md")):
        twin = russian / page.relative_to(english)
        assert twin.is_file(), f"{twin} is missing: every English knowledge-base page has a Russian one"

        def numbers(path):
            return sorted(set(re.findall(r"\d+(?:\.\d+)?", path.read_text(encoding="utf-8"))))
        assert numbers(page) == numbers(twin), f"{page.name}: the Russian page's numbers differ from the English"
        assert kb._front_matter(page.read_text())[0].get("status") == \
            kb._front_matter(twin.read_text())[0].get("status"), page.name
    assert len(list(russian.rglob("*.md"))) == len(list(english.rglob("*.md")))


def test_the_language_is_chosen_by_an_argument_and_checked():
    assert kb.languages() == ["en", "ru"]
    assert kb.folder() == kb.folder("en") == paths.KB and kb.folder("ru") == paths.AGENT_FILES / "ru" / "kb"
    assert all(s.source.startswith("ru/kb/") for s in kb.sections(lang="ru"))
    for bad in ("de", "RU", "ru/kb", "../ru", None, 7):
        with pytest.raises(ValueError, match=r"no knowledge base in language .*there is one in: en, ru"):
            kb.search("чай", lang=bad)


def test_the_english_search_is_unchanged():
    # the default is English, and Russian pages never reach it
    for query in ENGLISH_QUERIES:
        hits = kb.search(query, k=8)
        assert hits == kb.search(query, k=8, lang="en") and all(h.source.startswith("kb/") for h in hits)
    assert kb.search("вскрытый чай") == []  # Russian words are not in the English pages
    # English words are tokenized exactly as before (every section of every English page)
    for s in kb.sections():
        text = f"{s.title} {s.section} {s.text}"
        assert kb.tokens(text) == old_tokens(text), s.source
    assert kb.tokens("Svet-мини lamps, 12 MONTHS") == ["svet", "мин", "lamp", "12", "month"]


def test_a_root_given_wins_over_the_language(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n## Чай\nВскрытый чай не возвращается.\n", encoding="utf-8")
    hits = kb.search("вскрытого чая", k=8, root=tmp_path, lang="ru")
    assert [(h.source, h.section) for h in hits] == [("kb/a.md", "Чай")]


def test_bm25_ranks_russian_facts_too():
    scores = kb.bm25("доставка в офис", ["Доставку в офис, пожалуйста", "Любит зелёный чай", ""])
    assert scores[0] > 0 and scores[1] == scores[2] == 0.0
