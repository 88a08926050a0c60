"""workbook/prices.py: one table, US$ per million tokens, every row with its source and the day it
was read, every price listed in docs/SOURCES.md, and a row for each live provider's default model."""

import re

import pytest

import workbook.prices as prices_module
from workbook.paths import ROOT
from workbook.prices import PRICES
from workbook.providers import PROVIDERS

KEYS = {"input", "cached_input", "cache_write", "cache_write_1h", "output", "source", "checked"}


@pytest.mark.parametrize("model", list(PRICES))
def test_a_row_has_prices_per_million_a_source_and_a_date(model):
    row = PRICES[model]
    assert set(row) == KEYS
    for key in ("input", "cached_input", "output"):
        assert isinstance(row[key], float | int) and 0 <= row[key] < 100  # per million, not per token
    assert row["cached_input"] <= row["input"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["checked"])
    assert row["source"].startswith("https://") or row["source"].startswith("local")
    if row["cache_write"] is not None:  # Anthropic: a write costs more than plain input
        assert row["source"].startswith("https://platform.claude.com")
        assert row["cache_write"] > row["input"]


def test_every_live_default_model_is_priced():
    for provider in PROVIDERS.values():
        if provider.name != "fake":
            assert provider.model in PRICES, provider.name


def test_every_price_is_in_the_sources():
    sources = (ROOT / "docs" / "SOURCES.md").read_text(encoding="utf-8")
    for model, row in PRICES.items():
        if row["source"].startswith("https://"):
            assert f"`{model}`" in sources and row["source"] in sources, model


ANTHROPIC = [m for m, row in PRICES.items() if row["source"].startswith("https://platform.claude.com")]


def test_rows_have_the_keys_of_the_docstring():
    """The module's docstring names every key a row has (a new key is explained before it is used)."""
    for key in KEYS:
        assert f"`{key}`" in prices_module.__doc__, key


@pytest.mark.parametrize("model", ANTHROPIC)
def test_anthropic_cache_prices_follow_the_pricing_pages_multipliers(model):
    """5-minute write 1.25x input, 1-hour write 2x, cache hit 0.1x (platform.claude.com pricing)."""
    row = PRICES[model]
    assert row["cache_write"] == pytest.approx(1.25 * row["input"])
    assert row["cache_write_1h"] == pytest.approx(2 * row["input"])
    assert row["cached_input"] == pytest.approx(0.1 * row["input"])


def test_only_anthropic_rows_have_a_one_hour_write():
    for model, row in PRICES.items():
        assert (row["cache_write_1h"] is not None) == (model in ANTHROPIC), model


def test_sonnet_4_5_is_priced_as_its_model_page_says():
    row = PRICES["claude-sonnet-4-5"]
    assert (row["input"], row["cached_input"], row["cache_write"], row["cache_write_1h"], row["output"]) == (
        3.00, 0.30, 3.75, 6.00, 15.00)
    sources = (ROOT / "docs" / "SOURCES.md").read_text(encoding="utf-8")
    assert "retires on November\n  30, 2026" in sources or "retires on November 30, 2026" in sources


def test_each_rows_checked_date_is_in_its_section_of_the_sources():
    """A row's `checked` day is written in docs/SOURCES.md's prices section (its heading or a line)."""
    sources = (ROOT / "docs" / "SOURCES.md").read_text(encoding="utf-8")
    section = sources.split("## Prices (chapter 15", 1)[1].split("\n## ", 1)[0]
    for model, row in PRICES.items():
        if row["source"].startswith("https://"):
            assert row["checked"] in section, model


def ratio(model, a, b):
    return PRICES[model][a] / PRICES[model][b]


def test_chapter_15s_price_ratios_are_the_tables():
    """Chapter 15 states ratios of these prices in words; they must be the table's."""
    text = (ROOT / "solutions" / "15_why_the_bill_grows" / "15_why_the_bill_grows.py").read_text(encoding="utf-8")
    text = re.sub(r"\s*\n#\s*", " ", text)  # the markdown's lines joined
    assert ratio("gpt-5-mini", "cached_input", "input") == pytest.approx(0.1)  # "a tenth"
    assert ratio("deepseek-flash", "cached_input", "input") == pytest.approx(1 / 50)  # "a fiftieth"
    assert "on `gpt-5-mini` a cached token costs a tenth of a fresh one, on `deepseek-flash` a fiftieth" in text
    claims = {"gpt-5-mini": 8, "gpt-5.4": 6, "deepseek-flash": 4}
    for model, times in claims.items():
        assert ratio(model, "output", "input") == pytest.approx(times), model
    for model in ANTHROPIC:
        assert ratio(model, "output", "input") == pytest.approx(5), model  # "5× on the Claude models"
    assert "8× an input one on `gpt-5-mini`, 6× on `gpt-5.4`, 5× on the Claude models and 4× on `deepseek-flash`" in text
    assert "a 1-hour write, `\"ttl\": \"1h\"`, costs twice the input price" in text
