"""What the fake LLM costs: one chat.completions call through each face, and a 10-step run."""

from __future__ import annotations

import json
import statistics
import time

import openai

from bench import print_table
from workbook import scenarios
from workbook.fake_llm import FakeLLM

MESSAGES = [{"role": "user", "content": "How much did I spend on taxis in September?"}]


def _median_ms(fn, n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def ten_step_run(client, tools) -> int:
    """A 10-step loop on never_finishes through the SDK face (tool results are tiny)."""
    messages = list(MESSAGES)
    for _ in range(10):
        msg = client.chat.completions.create(model="m", messages=messages, tools=tools).choices[0].message
        messages.append(msg)
        messages += [{"role": "tool", "tool_call_id": c.id, "content": json.dumps({"hits": []})}
                     for c in msg.tool_calls]
    return len(messages)


def main(n: int = 200) -> None:
    sc = scenarios.taxi_spending()
    tools = sc.openai_tools()
    model = sc.as_function()
    sdk = FakeLLM(sc).client()
    rows = [("function face: model(messages, specs)", _median_ms(lambda: model(MESSAGES, tools), n))]
    rows.append(("SDK face: client.chat.completions.create",
                 _median_ms(lambda: sdk.chat.completions.create(model="m", messages=MESSAGES,
                                                                 tools=tools), n)))
    llm = FakeLLM(sc)
    with llm.serve() as base_url:
        http = openai.OpenAI(api_key="k", base_url=base_url)
        rows.append(("HTTP face (127.0.0.1, keep-alive)",
                     _median_ms(lambda: http.chat.completions.create(model="m", messages=MESSAGES,
                                                                      tools=tools), n)))
    ns = scenarios.never_finishes()
    rows.append(("10-step agent run, SDK face",
                 _median_ms(lambda: ten_step_run(FakeLLM(ns).client(), ns.openai_tools()), 20)))
    print_table(["what", "median ms"], [[what, f"{ms:.3f}"] for what, ms in rows])


if __name__ == "__main__":
    main()
