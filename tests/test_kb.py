"""workbook.kb: BM25 over the knowledge base's sections, archived pages never returned, k capped."""

import pytest

from workbook import kb, paths


def test_every_hit_names_its_source_and_section():
    hits = kb.search("Svet mini warranty", k=3)
    assert 1 <= len(hits) <= 3
    top = hits[0]
    assert (top.source, top.section) == ("kb/products/svet-mini.md", "Warranty")
    assert "6-month warranty" in top.text and top.score > 0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    for h in hits:  # the source is what read_file takes: relative to agent_files
        assert (paths.AGENT_FILES / h.source).is_file()


@pytest.mark.parametrize(("query", "source", "fact"), [
    ("return period lamp days", "kb/returns.md", "within 14 days of delivery"),
    ("Svet desk lamp warranty", "kb/products/svet.md", "12-month warranty"),
    ("opened tea return", "kb/products/green-tea.md", "Opened tea is not"),
    ("payment provider fee", "kb/payment.md", "1% + 150 KZT"),
])
def test_the_tasks_facts_are_found(query, source, fact):
    hits = kb.search(query, k=4)
    assert any(h.source == source and fact in h.text for h in hits), [(h.source, h.section) for h in hits]


def test_archived_pages_are_never_returned():
    for query in ("30 days returns 2025 archived store credit", "tea opened returned 7 days",
                  "returns refunds", "return period"):
        for h in kb.search(query, k=8):
            assert "returns-2025" not in h.source and "30 days" not in h.text
    assert all("2025" not in s.source for s in kb.sections())
    assert (paths.KB / "returns-2025.md").is_file()  # still there, for read_file on purpose


def test_k_is_capped_at_eight_and_validated():
    assert len(kb.search("delivery return tea lamp warranty payment fee", k=50)) == kb.MAX_K == 8
    assert len(kb.search("delivery return tea lamp warranty payment fee", k=1)) == 1
    for bad in (0, -3, 2.5, "4", True, None):
        with pytest.raises(ValueError, match="k must be a whole number from 1 to 8"):
            kb.search("tea", k=bad)
    for bad in ("", "   ", None, 42):
        with pytest.raises(ValueError, match="query must be a non-empty string"):
            kb.search(bad)


def test_nothing_matches_gives_an_empty_list():
    assert kb.search("the of and") == []
    assert kb.search("xylophone quasar") == []


def test_search_is_deterministic_and_reads_any_root(tmp_path):
    assert kb.search("lamp", k=8) == kb.search("lamp", k=8)
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.md").write_text("---\ntitle: A\nstatus: current\n---\n# A\n\n## Kettles\nThe kettle boils.\n")
    (tmp_path / "sub" / "b.md").write_text("# B\n\n## Kettles\nOld kettle rules.\n")
    (tmp_path / "old.md").write_text("---\ntitle: Old\nstatus: archived\n---\n## Kettles\nkettle kettle\n")
    hits = kb.search("kettle", k=8, root=tmp_path)
    assert [(h.source, h.section) for h in hits] == [("kb/a.md", "Kettles"), ("kb/sub/b.md", "Kettles")]


def test_sections_split_at_headings_and_skip_empty_ones(tmp_path):
    (tmp_path / "p.md").write_text("# Page\n\nIntro text.\n\n## One\n\nfirst\n\n## Empty\n\n### Two\nsecond\n")
    got = [(s.section, s.text) for s in kb.sections(tmp_path)]
    assert got == [("Page", "Intro text."), ("One", "first"), ("Two", "second")]


def test_bm25_scores_each_text_in_order():
    scores = kb.bm25("office delivery", ["Prefers delivery to the office", "Likes green tea", ""])
    assert len(scores) == 3 and scores[0] > 0 and scores[1] == scores[2] == 0.0
    assert kb.bm25("tea", []) == []
