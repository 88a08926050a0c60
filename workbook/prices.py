"""Model prices in one place: US dollars per million tokens, cached input priced apart.

    from workbook.prices import PRICES
    PRICES["gpt-5-mini"]    # {"input": 0.25, "cached_input": 0.025, "output": 2.0, ...}

Each row has:
- `input`: a prompt token the provider did not serve from its cache (a cache miss);
- `cached_input`: a prompt token read from the cache (OpenAI "cached input", DeepSeek "cache hit",
  Anthropic "cache hits and refreshes");
- `cache_write`: a prompt token written to the cache, where writes are billed apart: Anthropic's
  5-minute cache (1.25 x input), OpenAI's GPT-5.6 family and later (1.25 x input, reported in
  `prompt_tokens_details.cache_write_tokens`); None where a write costs nothing extra (OpenAI's
  models before GPT-5.6, DeepSeek, a local model);
- `cache_write_1h`: Anthropic only, a write to the 1-hour cache (`"ttl": "1h"`, 2 x input,
  reported in `usage.cache_creation.ephemeral_1h_input_tokens`); None elsewhere;
- `output`: a completion token (reasoning tokens included: they are billed as output);
- `source` and `checked`: the page the prices were read from, and the day.

Prices change: re-check the `source` page before trusting a bill (docs/SOURCES.md lists them).
The fake provider's model names are free text, so a notebook can ask the fake for
"gpt-5-mini" and price its usage with this table.
"""

from __future__ import annotations

OPENAI_PRICING = "https://developers.openai.com/api/docs/pricing"
DEEPSEEK_PRICING = "https://api-docs.deepseek.com/quick_start/pricing"
ANTHROPIC_PRICING = "https://platform.claude.com/docs/en/about-claude/pricing"
CHECKED = "2026-12-01"


CHECKED_SONNET = "2026-12-02"
CHECKED_MINI = "2026-12-06"  # gpt-5.4-mini, the live default from that day (workbook/providers.py)


def _row(miss, hit, out, write=None, write_1h=None, *, source, checked=CHECKED):
    return {"input": miss, "cached_input": hit, "cache_write": write, "cache_write_1h": write_1h,
            "output": out, "source": source, "checked": checked}


PRICES = {
    # OpenAI: cached input is a tenth of input on the GPT-5 family.
    "gpt-5-mini": _row(0.25, 0.025, 2.00, source=OPENAI_PRICING),
    "gpt-5.4": _row(2.50, 0.25, 15.00, source=OPENAI_PRICING),
    "gpt-5.4-mini": _row(0.75, 0.075, 4.50, source=OPENAI_PRICING, checked=CHECKED_MINI),
    # DeepSeek, peak hours (01:00-04:00 and 06:00-10:00 UTC on weekdays); off-peak is half.
    "deepseek-flash": _row(0.30, 0.006, 1.20, source=DEEPSEEK_PRICING),
    "deepseek-v4-pro": _row(1.32, 0.044, 3.96, source=DEEPSEEK_PRICING),
    # Anthropic: a 5-minute cache write costs 1.25 x input, a 1-hour write 2 x, a cache read 0.1 x.
    "claude-haiku-4-5": _row(1.00, 0.10, 5.00, 1.25, 2.00, source=ANTHROPIC_PRICING),
    # Deprecated, and retired on 2026-11-30 (its model page): priced for old logs and the fake's demos.
    "claude-sonnet-4-5": _row(3.00, 0.30, 15.00, 3.75, 6.00, source=ANTHROPIC_PRICING, checked=CHECKED_SONNET),
    # A model on your own machine: no bill per token (electricity and time are another matter).
    "qwen3:4b": _row(0.0, 0.0, 0.0, source="local (Ollama)"),
}
