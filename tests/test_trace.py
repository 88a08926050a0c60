"""Tests for workbook.trace: reading JSONL and message lists, the table, the plot, the viewer.

Also records the sample trajectories in workbook/trace/samples/ and checks they are fresh:
    .venv/bin/python -m tests.test_trace      # rewrite the samples
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from tests.reference_loop import run_agent, tools_for
from workbook import scenarios, trace
from workbook.fake_llm import FakeLLM
from workbook.shop import Shop
from workbook.trace import Trajectory, from_messages, read_jsonl, table, token_growth
from workbook.trace.widget import step_fields

# name -> (scenario, dialect, max_steps): one plain run, one with thoughts and parallel calls,
# one stopped by its step limit.
SAMPLE_RUNS = {
    "weather_and_math": ("weather_and_math", "openai", 8),
    "two_orders": ("two_orders", "deepseek", 8),
    "step_limit": ("repeat_forever", "openai", 4),
}


class Recording:
    """Wraps a client and keeps every reply: the reference loop itself records no usage."""

    def __init__(self, client):
        self._client = client
        self.chat = self.completions = self
        self.replies = []

    def create(self, **kwargs):
        reply = self._client.chat.completions.create(**kwargs)
        self.replies.append(reply)
        return reply


def run(scenario: str, dialect: str = "openai", max_steps: int = 8):
    """Run the reference loop on a scenario; return (run, tools, replies)."""
    sc = scenarios.get(scenario)
    client = Recording(FakeLLM(sc, dialect=dialect).client())
    tools = sc.openai_tools()
    result = run_agent(client, sc.question, tools, tools_for(Shop()), max_steps=max_steps)
    return result, tools, client.replies


def record(name: str) -> str:
    """The JSONL text of a sample: step lines from the real replies and usage, then the summary."""
    scenario, dialect, max_steps = SAMPLE_RUNS[name]
    result, _tools, replies = run(scenario, dialect, max_steps)
    results = {m["tool_call_id"]: m["content"] for m in result.messages if m["role"] == "tool"}
    lines, tin, tout = [], 0, 0
    for n, reply in enumerate(replies, start=1):
        msg = reply.choices[0].message
        extra = msg.model_extra or {}
        calls = [{"tool": c.function.name, "input": json.loads(c.function.arguments),
                  "result_preview": trace.model.preview(results.get(c.id))}
                 for c in msg.tool_calls or ()]
        first = calls[0] if calls else {"tool": None, "input": None, "result_preview": None}
        # What the loop sent: every message before this reply's assistant turn.
        sent = result.messages[: _index_of_reply(result.messages, n)]
        line = {"type": "step", "step": n,
                "thought": extra.get("reasoning_content") or (msg.content if calls else None),
                **first, "tokens_in": reply.usage.prompt_tokens,
                "tokens_out": reply.usage.completion_tokens,
                "ms": 180.0 + 25 * n,  # the fake answers in microseconds; a provider-like figure
                "messages": sent}
        if len(calls) > 1:
            line["calls"] = calls
        if "prompt_cache_hit_tokens" in (reply.usage.model_extra or {}):
            line["cache_hit_tokens"] = reply.usage.model_extra["prompt_cache_hit_tokens"]
        lines.append(line)
        tin, tout = tin + reply.usage.prompt_tokens, tout + reply.usage.completion_tokens
    lines.append({"type": "summary", "status": result.status, "steps": len(replies),
                  "tokens_in": tin, "tokens_out": tout, "total_tokens": tin + tout,
                  "answer": result.answer})
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)


def _index_of_reply(messages: list, n: int) -> int:
    """Index of the n-th assistant turn in the message list."""
    seen = 0
    for i, m in enumerate(messages):
        seen += m["role"] == "assistant"
        if seen == n:
            return i
    raise AssertionError(f"no assistant turn number {n}")


def jsonl(*objs, end="\n") -> str:
    return "\n".join(o if isinstance(o, str) else json.dumps(o) for o in objs) + end


def step(n, **changes) -> dict:
    line = {"type": "step", "step": n, "thought": None, "tool": "get_weather",
            "input": {"city": "Almaty"}, "result_preview": '{"temp_c": 21}', "tokens_in": 100 * n,
            "tokens_out": 10, "ms": 5.5}
    return line | changes


def summary(steps=2, **changes) -> dict:
    tin = sum(100 * n for n in range(1, steps + 1))
    line = {"type": "summary", "status": "done", "steps": steps, "tokens_in": tin,
            "tokens_out": 10 * steps, "total_tokens": tin + 10 * steps, "answer": "21 °C"}
    return line | changes


# ---------------------------------------------------------------- the samples


@pytest.mark.parametrize("name", SAMPLE_RUNS)
def test_sample_file_is_what_the_recorder_makes(name):
    path = trace.SAMPLES / f"{name}.jsonl"
    assert path.read_text(encoding="utf-8") == record(name), (
        f"{path} is stale: rewrite it with `.venv/bin/python -m tests.test_trace`")


def test_samples_read_without_problems():
    assert trace.samples() == sorted(SAMPLE_RUNS)
    w = trace.sample()
    assert w.ok, w.problems
    assert [s.tool for s in w.steps] == ["get_weather", "calculate", None]
    assert w.status == "done" and w.answer == scenarios.weather_and_math().answer
    assert w.steps[0].input == {"city": "Almaty"} and "21" in w.steps[0].result_preview
    o = trace.sample("two_orders")
    assert [c.input["order_id"] for c in o.steps[0].calls] == ["A-1001", "A-1002"]
    assert o.steps[0].thought and o.steps[0].extra == {"cache_hit_tokens": 0}
    stopped = trace.sample("step_limit")
    assert stopped.status == "STOPPED: step limit" and stopped.answer is None
    with pytest.raises(ValueError, match="no sample trajectory named '../x'; available: "):
        trace.sample("../x")


# ---------------------------------------------------------------- from_messages


@pytest.mark.parametrize(("scenario", "dialect"), [("weather_and_math", "openai"),
                                                   ("two_orders", "deepseek")])
def test_from_messages_matches_what_the_fake_charged(scenario, dialect):
    result, tools, replies = run(scenario, dialect)
    traj = from_messages(result.messages, tools)
    assert traj.ok, traj.problems
    assert len(traj.steps) == len(replies)
    for s, reply in zip(traj.steps, replies, strict=True):
        assert (s.tokens_in, s.tokens_out) == (reply.usage.prompt_tokens,
                                               reply.usage.completion_tokens)
        assert s.ms is None  # a message list records no time
    assert traj.status == "done" and traj.answer == result.answer
    recorded = trace.sample(scenario if scenario == "weather_and_math" else "two_orders")
    assert [(s.tool, s.input, s.result_preview, s.thought) for s in traj.steps] == [
        (s.tool, s.input, s.result_preview, s.thought) for s in recorded.steps]
    assert traj.steps[1].messages == result.messages[: len(traj.steps[1].messages)]


def test_from_messages_pairs_parallel_results_by_id_and_reads_sdk_objects():
    llm = FakeLLM(scenarios.two_orders())
    question = {"role": "user", "content": "Where are my orders?"}
    reply = llm.client().chat.completions.create(model="m", messages=[question],
                                                 tools=scenarios.two_orders().openai_tools())
    msg = reply.choices[0].message  # an SDK object, as a student may append it
    first, second = msg.tool_calls
    # Results in the opposite order: pairing must go by tool_call_id, not by position.
    messages = [question, msg, {"role": "tool", "tool_call_id": second.id, "content": "B"},
                {"role": "tool", "tool_call_id": first.id, "content": "A"}]
    traj = from_messages(messages)
    assert [(c.tool, c.input, c.result_preview) for c in traj.steps[0].calls] == [
        ("get_order", {"order_id": "A-1001"}, "A"), ("get_order", {"order_id": "A-1002"}, "B")]
    assert traj.status.startswith("STOPPED") and traj.answer is None
    rows = table(traj).rows
    assert [r["tool"] for r in rows] == ["get_order", "get_order"] and rows[0]["status"].startswith("STOPPED")


def test_from_messages_says_what_it_could_not_read():
    traj = from_messages([{"role": "user", "content": "hi"}, "not a message", 42,
                          {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                           "function": {"name": "calculate", "arguments": "{2+2"}}]}])
    assert len(traj.problems) == 2 and "message 2: not a message" in traj.problems[0]
    assert traj.steps[0].input == "{2+2"  # broken arguments are shown as sent
    assert traj.steps[0].result_preview is None and table(traj).rows[0]["status"].startswith("STOPPED")
    assert "needs a list of messages, got str" in from_messages("hello").problems[0]
    assert from_messages([{"role": "user", "content": "hi"}]).problems == [
        "no assistant turn in the messages: nothing to show as steps"]


def test_from_messages_text_reply_is_the_answer_and_previews_are_cut():
    long = "x" * 500
    traj = from_messages([{"role": "user", "content": "q"},
                          {"role": "assistant", "content": "checking", "tool_calls": [
                              {"id": "c", "type": "function",
                               "function": {"name": "fetch_report", "arguments": "{}"}}]},
                          {"role": "tool", "tool_call_id": "c", "content": long},
                          {"role": "assistant", "content": "done: 42"}], status="done")
    s1, s2 = traj.steps
    assert s1.thought == "checking" and len(s1.result_preview) == trace.model.PREVIEW_CHARS
    assert s1.result_preview.endswith("…") and s2.tool is None and s2.thought is None
    assert traj.answer == "done: 42"


# ---------------------------------------------------------------- read_jsonl: sources


def test_read_jsonl_takes_a_path_text_bytes_or_an_open_file(tmp_path):
    text = jsonl(step(1), step(2), summary())
    path = tmp_path / "run.jsonl"
    path.write_text(text, encoding="utf-8")
    for source in (path, str(path), text, text.encode(), io.StringIO(text), path.open("rb")):
        traj = read_jsonl(source)
        assert traj.ok, (source, traj.problems)
        assert [s.step for s in traj.steps] == [1, 2] and traj.summary.answer == "21 °C"
    assert read_jsonl(path).source == "run.jsonl"


def test_read_jsonl_raises_only_for_a_missing_file_or_a_wrong_argument(tmp_path):
    with pytest.raises(FileNotFoundError, match="no trajectory file at .*nope.jsonl"):
        read_jsonl(tmp_path / "nope.jsonl")
    with pytest.raises(TypeError, match="not list \\(for a message list use from_messages\\)"):
        read_jsonl([{"role": "user"}])
    assert from_messages([]).problems  # and a list goes through as_trajectory fine
    assert trace.as_trajectory([{"role": "user", "content": "q"}]).source == "<messages>"


# ---------------------------------------------------------------- read_jsonl: bad content


@pytest.mark.parametrize(("text", "problem", "steps"), [
    ("", r"^the trajectory is empty: no step lines and no summary line$", 0),
    ("\n  \n", r"^the trajectory is empty", 0),
    (jsonl(step(1), step(2), '{"type": "summary", "status": "do', end=""),
     r"^line 3: the last line is cut off \(Unterminated string .*\); the run may have stopped", 2),
    (jsonl(step(1), "{oops", step(2), summary()), r"^line 2: not valid JSON \(Expecting property", 2),
    (jsonl(step(1), {"type": "stpe", "step": 2}, summary(1)),
     r"^line 2: unknown type 'stpe'; expected \"step\" or \"summary\"$", 1),
    (jsonl(step(1), {"step": 2}, summary(1)), r"^line 2: has no 'type'", 1),
    (jsonl(step(1), [1, 2], summary(1)), r"^line 2: must be a JSON object, got an array$", 1),
    (jsonl({"type": "step", "step": 1, "tool": "x"}, summary(1, tokens_in=0, tokens_out=0,
                                                             total_tokens=0)),
     r"^line 1: step is missing 'thought', 'input', 'result_preview', 'tokens_in', 'tokens_out', 'ms'$", 1),
    (jsonl(step(1, tokens_in="100"), summary(1)),
     r"^line 1: 'tokens_in' must be a whole number ≥ 0, got \"100\"$", 1),
    (jsonl(step(1, tokens_out=True), summary(1)), r"^line 1: 'tokens_out' must be a whole number", 1),
    (jsonl(step(1, ms=-1), summary(1)), r"^line 1: 'ms' must be a number ≥ 0, got -1$", 1),
    (jsonl(step(1, input=[1]), summary(1)), r"^line 1: 'input' must be an object, a string or null", 1),
    (jsonl(step(1), step(3), summary()), r"^line 2: step 3 where step 2 was expected", 2),
    (jsonl(step(1), step(2)), r"^no summary line at the end: the run may not have finished$", 2),
    (jsonl(step(1), summary(1), step(2)), r"^line 3: comes after the summary line \(line 2\)", 2),
    (jsonl(step(1), summary(1), summary(1)), r"^line 3: a second summary line", 1),
    (jsonl(step(1), step(2), summary(steps=3)), r"^line 3: the summary says steps = 3, but there are 2", 2),
    (jsonl(step(1), summary(1, tokens_in=7, total_tokens=17)),
     r"^line 2: the summary says tokens_in = 7, but the steps' tokens_in add up to 100$", 1),
    (jsonl(step(1), summary(1, total_tokens=1)), r"^line 2: the summary says total_tokens = 1, but", 1),
    (jsonl(step(1), summary(1, status="finished")),
     r"^line 2: status 'finished' should be \"done\" or \"STOPPED: <reason>\"$", 1),
    (jsonl(step(1), summary(1, answer=5)), r"^line 2: 'answer' must be a string or null, got 5$", 1),
    (jsonl(step(1), {"type": "summary"}), r"^line 2: summary is missing 'status', 'steps',", 1),
])
def test_bad_content_gets_a_clear_problem_and_keeps_what_could_be_read(text, problem, steps):
    traj = read_jsonl(text)
    assert not traj.ok
    assert any(re.search(problem, p) for p in traj.problems), traj.problems
    assert len(traj.steps) == steps
    # Whatever was read still renders everywhere, with the problems listed.
    shown = table(traj).text()
    assert "Problems:" in shown and traj.problems[0] in shown
    assert traj.problems[0].split(":")[0] in trace.to_html(traj)
    trace.viewer(traj)


def test_invalid_utf8_is_a_problem_not_an_error():
    data = jsonl(step(1, thought="cafX"), summary(1)).encode().replace(b"cafX", b"caf\xe9")
    traj = read_jsonl(data)
    at = data.index(b"\xe9")
    assert traj.problems == [f"not valid UTF-8 (byte {at}); unreadable bytes are shown as �"]
    assert traj.steps[0].thought == "caf�"


def test_unknown_fields_are_kept_and_shown():
    traj = read_jsonl(jsonl(step(1, model="qwen3:4b"), summary(1, cost_usd=0.01)))
    assert traj.ok and traj.steps[0].extra == {"model": "qwen3:4b"}
    assert traj.summary.extra == {"cost_usd": 0.01}
    assert "qwen3:4b" in table(traj).text() and "<th>extra</th>" in table(traj).html()
    assert ("model", "qwen3:4b") in step_fields(traj, 0)


# ---------------------------------------------------------------- table, growth, plot


def test_table_rows_statuses_and_renderings():
    t = table(trace.sample())
    assert [r["status"] for r in t.rows] == ["ok", "ok", "done"]
    assert t.rows[1]["input"] == {"expression": "21 * 9 / 5 + 32"}
    text = t.text()
    assert text.splitlines()[0].split() == ["step", "thought", "tool", "input", "result", "preview",
                                            "tokens", "in", "tokens", "out", "ms", "status"]
    assert "3 step(s) · done · tokens:" in text and "answer: In Almaty it is 21 °C" in text
    assert str(t) == text and t._repr_html_() == t.html()
    assert t.html().count("<tr>") == 4 and "Problems" not in t.html()
    stopped = table(trace.sample("step_limit"))
    assert stopped.rows[-1]["status"] == "STOPPED: step limit"
    err = read_jsonl(jsonl(step(1, result_preview="ERROR: unknown tool 'x'"), step(2, tool=None),
                           summary()))
    assert [r["status"] for r in table(err).rows] == ["error", "done"]


def test_html_escapes_what_the_model_wrote():
    traj = read_jsonl(jsonl(step(1, thought="<script>alert(1)</script>"), summary(1)))
    for page in (table(traj).html(), trace.to_html(traj), trace.viewer(traj).detail.value):
        assert "<script>alert" not in page and "&lt;script&gt;" in page


def test_token_growth_shows_the_history_re_sent():
    growth = token_growth(trace.sample("step_limit"))
    assert [g.step for g in growth] == [1, 2, 3, 4]
    assert all(b.tokens_in > a.tokens_in for a, b in zip(growth, growth[1:], strict=False))
    assert growth[0].added == growth[0].tokens_in and growth[2].added == growth[2].tokens_in - growth[1].tokens_in
    s = trace.sample("step_limit").summary
    assert growth[-1].total == s.total_tokens
    assert token_growth(Trajectory()) == []


def test_plot_tokens_returns_a_figure_without_pyplot(capsys):
    from matplotlib.figure import Figure

    fig = trace.plot_tokens(trace.sample("step_limit"))
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert [round(b.get_height()) for b in ax.patches] == [g.tokens_in for g in token_growth(
        trace.sample("step_limit"))]
    assert ax.get_title() == "Prompt tokens per step" and ax.get_xlabel() == "step"
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue()[:4] == b"\x89PNG"
    pyplot = sys.modules.get("matplotlib.pyplot")  # the plot must not open pyplot figures
    assert pyplot is None or not pyplot.get_fignums()
    empty = trace.plot_tokens(Trajectory())
    assert empty.axes[0].texts[0].get_text() == "no steps to plot"
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- the viewer


def test_viewer_steps_with_previous_and_next():
    v = trace.viewer(trace.sample())
    assert "Step 1 of 3" in v.counter.value and v.prev.disabled and not v.next.disabled
    assert "get_weather(" in v.detail.value and "Running total:</b> " in v.detail.value
    assert "What is the weather in Almaty" in v.messages.value
    v.next.click()
    assert "Step 2 of 3" in v.counter.value and "calculate(" in v.detail.value
    assert "69.8" in v.detail.value and not v.prev.disabled
    steps = trace.sample().steps
    total = sum(s.tokens_in + s.tokens_out for s in steps[:2])
    assert f"{total} tokens after step 2" in v.detail.value
    assert v.messages.value.count("<pre>") == len(steps[1].messages)
    v.next.click()
    assert "Step 3 of 3" in v.counter.value and v.next.disabled
    assert "Answer:" in v.detail.value and "Status:</b> done" in v.detail.value
    v.next.click()  # clicking a disabled button's handler changes nothing
    assert "Step 3 of 3" in v.counter.value
    v.prev.click()
    v.prev.click()
    assert "Step 1 of 3" in v.counter.value and v.prev.disabled
    assert "wb-trace" in v.widget._dom_classes


def test_viewer_of_nothing_readable_says_so():
    v = trace.viewer("")
    assert "No steps" in v.counter.value and v.prev.disabled and v.next.disabled
    assert "the trajectory is empty" in v.widget.children[0].value


def test_odd_messages_in_a_file_still_show():
    odd = [{"role": "assistant", "tool_calls": ["x", {"function": "y"}, {"id": "c", "function": {
        "name": "calculate", "arguments": "{}"}}]}, {"role": "tool", "content": [{"text": "4"}]}]
    v = trace.viewer(read_jsonl(jsonl(step(1, messages=odd), summary(1))))
    assert '→ &quot;x&quot;' in v.messages.value and "→ calculate({})  [c]" in v.messages.value
    assert "<pre>4</pre>" in v.messages.value


def test_a_format_without_messages_says_nothing_about_them():
    """Chapter 09's step lines carry no messages: no step may read as if the log lacked them."""
    traj = read_jsonl(jsonl(step(1), step(2), summary(2)))
    assert traj.problems == [] and all(s.messages is None for s in traj.steps)
    v = trace.viewer(traj)
    for _ in traj.steps:
        assert v.messages.value == "", v.messages.value
        v.next.click()
    for page in (trace.to_html(traj), trace.plain(traj)):
        assert "Messages" not in page and "no messages" not in page.lower(), page


def test_a_step_without_messages_in_a_format_with_them_says_so():
    traj = read_jsonl(jsonl(step(1, messages=[{"role": "user", "content": "hi"}]), step(2), summary(2)))
    v = trace.viewer(traj)
    assert "hi" in v.messages.value
    v.next.click()
    assert v.messages.value == "<i>No messages recorded for this step.</i>"
    assert "(no messages recorded for this step)" in trace.plain(traj)


def test_viewer_bundle_has_the_widget_and_fallbacks():
    bundle = trace.viewer(trace.sample())._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "=== Step 3 of 3 ===" in bundle["text/plain"] and "<details>" in bundle["text/html"]


@pytest.mark.parametrize("env", ["1", ""])
def test_view_outside_a_kernel_prints_plain_text(monkeypatch, capsys, env):
    monkeypatch.setenv("WORKBOOK_PLAIN", env)
    trace.view(trace.sample("two_orders"))
    out, err = capsys.readouterr()
    assert err == ""
    assert "=== Step 1 of 2 ===" in out and "Tool call: get_order({\"order_id\": \"A-1002\"})" in out
    assert "[tool call_" in out  # the messages of step 2 include both tool results


def test_view_in_a_kernel_shows_the_widget_or_the_html_fallback(tmp_path):
    """A real kernel: the widget's bundle, the plot as PNG, and HTML with WORKBOOK_PLAIN=1."""
    import nbformat
    from nbclient import NotebookClient

    cells = ["from workbook import trace", "trace.view(trace.sample())",
             "trace.plot_tokens(trace.sample())",
             "import os; os.environ['WORKBOOK_PLAIN'] = '1'; trace.view(trace.sample())"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [c.outputs for c in nb.cells]
    assert not [o for cell in outputs for o in cell if o.output_type == "stream" and o.name == "stderr"]
    assert "application/vnd.jupyter.widget-view+json" in outputs[1][0].data
    assert "image/png" in outputs[2][0].data
    plain_out = outputs[3][0].data
    assert "application/vnd.jupyter.widget-view+json" not in plain_out
    assert '<table class="wb-trace-table">' in plain_out["text/html"]


if __name__ == "__main__":
    for sample_name in SAMPLE_RUNS:
        target = trace.SAMPLES / f"{sample_name}.jsonl"
        target.parent.mkdir(exist_ok=True)
        target.write_text(record(sample_name), encoding="utf-8")
        print(f"wrote {target.relative_to(Path.cwd()) if target.is_relative_to(Path.cwd()) else target}")
