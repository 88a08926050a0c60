"""A fake model's SDK client handed to the kernel: the kernel's copy sends each HTTP request here.

The kernel gets a real `openai.OpenAI` / `anthropic.Anthropic` built with the judge's client's
options (`sdk_options`); its transport sends every request over the link to `SdkBridge`, which
hands it to the judge's client's own transport (the fake's engine) and sends the response back:
whole, or piece by piece for a stream (`streaming.Pieces`), so the fake's clock moves as the
notebook reads.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

import httpx2

from workbook.engine.streaming import Pieces
from workbook.link import codec


def sdk_kind(obj) -> str:
    module = type(obj).__module__ or ""
    name = type(obj).__name__
    if module.startswith("openai") and name == "OpenAI":
        return "openai"
    if module.startswith("anthropic") and name == "Anthropic":
        return "anthropic"
    return ""


def sdk_options(client) -> dict:
    """What the kernel's copy of a client must share with the judge's: where it points, retries."""
    timeout = client.timeout
    return {"api_key": "fake-key", "base_url": str(client.base_url), "max_retries": int(client.max_retries),
            "timeout": timeout if isinstance(timeout, (int, float)) else None}


class SdkBridge:
    """A judge-side SDK client as the kernel reaches it: one HTTP request at a time."""

    def __init__(self, client, hear: Callable[[bytes], None] = lambda body: None):
        self.client, self.hear = client, hear  # hear: the judge keeps what the kernel posts (heard.py)

    def __call__(self, op, method, url, headers, body):
        if op != "http" or type(method) is not str or type(url) is not str or type(headers) is not list:
            raise codec.LinkError("a malformed HTTP request")
        content = base64.b64decode(str(body))
        self.hear(content)
        request = httpx2.Request(method, url, headers=[(str(k), str(v)) for k, v in headers], content=content)
        try:
            response = self.client._client._transport.handle_request(request)
        except httpx2.TimeoutException as e:
            raise type(e)(str(e)) from None
        head = {"status": response.status_code, "headers": [[k, v] for k, v in response.headers.items()]}
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return {**head, "pieces": Pieces(response)}  # read as the notebook reads it (streaming.Pieces)
        return {**head, "content": base64.b64encode(response.read()).decode()}
