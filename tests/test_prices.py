"""workbook/prices.py: one table, US$ per million tokens, every row with its source and the day it
was read, every price listed in docs/SOURCES.md, and a row for each live provider's default model."""

import re

import pytest

from workbook.paths import ROOT
from workbook.prices import PRICES
from workbook.providers import PROVIDERS

KEYS = {"input", "cached_input", "cache_write", "output", "source", "checked"}


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
