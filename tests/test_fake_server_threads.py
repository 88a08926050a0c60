"""`llm.serve()` leaves no thread behind: a client keeps its connection open between requests, and
the connection's thread used to outlive the server until the client was garbage-collected (the
gates' fast runner then cannot fork the notebook that served)."""

import threading

import openai

from workbook import scenarios
from workbook.fake_llm import FakeLLM


def _connection_threads():
    return [t for t in threading.enumerate() if t.name == "fake-llm-connection" and t.is_alive()]


def test_serve_ends_its_connections_threads():
    llm = FakeLLM(scenarios.taxi_spending())
    with llm.serve() as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
        reply = client.chat.completions.create(model="gpt-5-mini", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message is not None
        assert _connection_threads(), "the client's keep-alive connection has a thread while serving"
    assert not _connection_threads(), "a connection's thread outlived serve()"
    client.close()
