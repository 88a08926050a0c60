"""Pick the model provider from the environment: the same loop code runs on the fake or a live one.

    LLM_PROVIDER = fake (default) | ollama | deepseek | openai | anthropic
    LLM_MODEL, LLM_BASE_URL      override the defaults below
    OPENAI_API_KEY, DEEPSEEK_API_KEY, ANTHROPIC_API_KEY   from the environment or a .env file

`make_client()` gives an `openai.OpenAI` (Chat Completions); `make_client(api="messages")` gives an
`anthropic.Anthropic` (Anthropic's Messages API), on the fake or on LLM_PROVIDER=anthropic.

Model names and base URLs live here and nowhere else.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from workbook import i18n
from workbook.fake_llm import FakeLLM
from workbook.paths import ROOT


@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str | None  # None: the SDK's own default
    model: str
    key_var: str | None  # environment variable holding the key; None: no key needed


PROVIDERS = {
    "fake": Provider("fake", None, "fake-model", None),
    "ollama": Provider("ollama", "http://localhost:11434/v1", "qwen3:4b", None),
    "deepseek": Provider("deepseek", "https://api.deepseek.com", "deepseek-flash", "DEEPSEEK_API_KEY"),
    # gpt-5-mini shuts down 2026-12-11; gpt-5.4-mini takes tools on Chat Completions at its
    # default effort, which OpenAI's named replacement gpt-6.1-terra does not
    # (docs/SOURCES.md, "The default OpenAI model")
    "openai": Provider("openai", None, "gpt-5.4-mini", "OPENAI_API_KEY"),
    # base_url None: the anthropic SDK's own (https://api.anthropic.com); see ANTHROPIC_CHAT_URL
    "anthropic": Provider("anthropic", None, "claude-haiku-4-5", "ANTHROPIC_API_KEY"),
}
# Anthropic's OpenAI-compatible endpoint, for make_client(api="chat") (docs/SOURCES.md)
ANTHROPIC_CHAT_URL = "https://api.anthropic.com/v1/"
APIS = ("chat", "messages")


class ProviderError(RuntimeError):
    """A provider set-up problem with a one-line explanation (never contains a key)."""


def read_dotenv(path: Path | None = None) -> dict[str, str]:
    """KEY=value lines of a .env file (comments and blank lines skipped); {} when absent."""
    path = path or ROOT / ".env"
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        out[key.strip()] = value.strip().strip("'\"")
    return out


def setting(name: str, default: str | None = None, env=None, dotenv=None) -> str | None:
    """The environment wins over .env, which wins over the default."""
    env = os.environ if env is None else env
    dotenv = read_dotenv() if dotenv is None else dotenv
    return env.get(name) or dotenv.get(name) or default


def current(env=None, dotenv=None) -> Provider:
    """The configured provider, with LLM_MODEL / LLM_BASE_URL applied."""
    name = (setting("LLM_PROVIDER", "fake", env, dotenv) or "fake").strip().lower()
    if name not in PROVIDERS:
        raise ProviderError(f"LLM_PROVIDER={name!r} is not known; use one of: {', '.join(PROVIDERS)}")
    p = PROVIDERS[name]
    return Provider(p.name, setting("LLM_BASE_URL", p.base_url, env, dotenv),
                    setting("LLM_MODEL", p.model, env, dotenv) or p.model, p.key_var)


def live_enabled(env=None, dotenv=None) -> bool:
    """True when a live provider (not the fake) is configured: live cells run only then."""
    try:
        return current(env, dotenv).name != "fake"
    except ProviderError:
        return False


# Printed as it is by every live cell (`print(SKIP_HINT)`): in a translated notebook the kernel's
# stdout hook shows the line in its language (workbook/i18n/kernel.py; ui.json has it).
SKIP_HINT = ("Live cell skipped: set LLM_PROVIDER=ollama, deepseek, openai or anthropic (in the "
             "environment or .env) to run it against a real model. See README, 'Live providers'.")


def _key(p: Provider, env, dotenv) -> str:
    if not p.key_var:
        return "ollama"  # Ollama ignores the key; the openai SDK refuses an empty one (docs/SOURCES.md)
    key = setting(p.key_var, None, env, dotenv)
    if not key:
        raise ProviderError(f"LLM_PROVIDER={p.name} needs {p.key_var}: put "
                            f"'{p.key_var}=...' in .env (git-ignored) or the environment.")
    return key


def make_client(scenario="taxi_spending", env=None, dotenv=None, api: str = "chat", **client_kwargs):
    """Return `(client, model)` for the configured provider; the fake plays `scenario`.

    api="chat": an `openai.OpenAI` (Chat Completions). api="messages": an `anthropic.Anthropic`
    (Messages API), which only the fake and LLM_PROVIDER=anthropic speak."""
    import openai

    if api not in APIS:
        raise ProviderError(f"api={api!r} is not known; use 'chat' or 'messages'")
    p = current(env, dotenv)
    if p.name == "fake":
        llm = FakeLLM(scenario)
        return (llm.anthropic_client(**client_kwargs) if api == "messages"
                else llm.client(**client_kwargs)), p.model
    if api == "messages" and p.name != "anthropic":
        raise ProviderError(f"LLM_PROVIDER={p.name} does not speak Anthropic's Messages API here: "
                            "use LLM_PROVIDER=anthropic (or the fake) for it.")
    kwargs = {"api_key": _key(p, env, dotenv), **client_kwargs}
    if api == "messages":
        import anthropic  # loaded only when used: it takes about a second to import

        if p.base_url:
            kwargs["base_url"] = p.base_url
        return anthropic.Anthropic(**kwargs), p.model
    base_url = p.base_url or (ANTHROPIC_CHAT_URL if p.name == "anthropic" else None)
    if base_url:
        kwargs["base_url"] = base_url
    return openai.OpenAI(**kwargs), p.model


# What a provider raises: the SDKs and the HTTP layer under them (no import: anthropic takes a second).
PROVIDER_PACKAGES = ("openai", "anthropic", "httpx", "httpcore")


def _raised_by_provider(error: BaseException | None) -> BaseException | None:
    """The provider SDK's error behind `error`: itself, or one it was raised from (`raise ... from
    e`, as pydantic-ai wraps the SDK's error in its ModelHTTPError); None when neither is one."""
    for _ in range(8):  # a bounded walk: a cause chain is short, and may be made to loop
        if error is None or any(cls.__module__.split(".")[0] in PROVIDER_PACKAGES for cls in type(error).__mro__):
            return error
        error = error.__cause__
    return None


def live_failure(error: BaseException, what: str | None = None, env=None, dotenv=None,
                 lang: str | None = None) -> str:
    """The one line a live cell prints when its run raised: the error's own text, every configured
    key masked, and whose failure it is. The provider's (its SDK raised, or a framework raised from
    what it raised: refused, unreachable, a 400 about the request) is told to check the settings;
    anything else is the notebook's own (`what`: this notebook's code unless named), and a NameError
    says to run the cells above (a live cell after a restart). In the learner's language (`lang`,
    else the kernel's or the environment's: workbook.i18n.current); the error's text as it is."""
    lang = i18n.current(env) if lang is None else lang
    what = i18n.tr(lang, "this notebook's code") if what is None else what
    text = f"{type(error).__name__}: {error}"
    for p in PROVIDERS.values():
        key = setting(p.key_var, None, env, dotenv) if p.key_var else None
        if key and len(key) > 8:
            text = text.replace(key, "[key]")
    sdk = _raised_by_provider(error)
    if sdk is not None:
        if getattr(sdk, "status_code", None) == 400:
            return i18n.tr(lang, "The provider refused the request ({text}): its words say what it "
                                 "could not take.", text=text)
        return i18n.tr(lang, "The provider failed ({text}): check LLM_PROVIDER, the model, the key and "
                             "the network.", text=text)
    if isinstance(error, NameError):
        return i18n.tr(lang, "Not the provider: {what} failed ({text}). Run the chapter's cells above "
                             "this one first.", what=what, text=text)
    return i18n.tr(lang, "Not the provider: {what} failed ({text}).", what=what, text=text)


def describe(env=None, dotenv=None) -> str:
    """One line saying which provider and model are in use (safe to print: no key)."""
    p = current(env, dotenv)
    where = p.base_url or "the SDK's default URL"
    return f"provider={p.name} model={p.model} base_url={where}"
