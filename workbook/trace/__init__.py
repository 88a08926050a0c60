"""Trajectories: read one (JSONL or a message list), show it as a table, a plot, a step-through viewer.

    from workbook import trace
    traj = trace.read_jsonl("agent_files/out/run.jsonl")  # or trace.from_messages(messages)
    traj.problems              # what could not be read, in words; reading never raises on content
    trace.table(traj)          # step, thought, tool, input, result preview, tokens, ms, status
    trace.token_growth(traj)   # prompt tokens per step, growth, running total
    trace.plot_tokens(traj)    # the same as a small matplotlib Figure
    trace.view(traj)           # previous/next through the steps (plain text with WORKBOOK_PLAIN=1)
    trace.sample()             # a recorded run of the weather_and_math scenario
    trace.spans.tree(traj)     # the same run as OpenTelemetry GenAI spans (spans, genai)
    trace.sink.Sink()          # where a test collects the spans a notebook's tracer exports
    from workbook.trace import otel  # OpenTelemetry's SDK: a Recorder of real spans (imports openai)

The file format is described in docs/TRAJECTORY.md.
"""

from __future__ import annotations

from pathlib import Path

from workbook.trace import genai, render, sink, spans
from workbook.trace.messages import from_messages
from workbook.trace.model import Call, Step, Summary, Trajectory
from workbook.trace.reader import as_trajectory, read_jsonl
from workbook.trace.render import Growth, Table
from workbook.trace.widget import Viewer, plain, to_html, view, viewer

SAMPLES = Path(__file__).with_name("samples")

# Each public function takes a Trajectory, a message list, or a JSONL path / text, and makes it
# a Trajectory once (as_trajectory); everything below it takes only a Trajectory.


def table(traj) -> Table:
    """The trajectory's rows: step, thought, tool, input, result preview, tokens, ms, status."""
    return render.table(as_trajectory(traj))


def token_growth(traj) -> list[Growth]:
    """Per step: prompt tokens, growth over the previous prompt, running total."""
    return render.token_growth(as_trajectory(traj))


def plot_tokens(traj, title: str = "Prompt tokens per step"):
    """A small bar chart of prompt tokens per step, with the running total; returns the Figure."""
    return render.plot_tokens(as_trajectory(traj), title)


def samples() -> list[str]:
    """Names of the recorded sample trajectories."""
    return sorted(p.stem for p in SAMPLES.glob("*.jsonl"))


def sample(name: str = "weather_and_math") -> Trajectory:
    """A recorded sample trajectory, by name (see samples())."""
    # Look the name up rather than joining it into a path: no "../" surprises.
    if name not in (known := samples()):
        raise ValueError(f"no sample trajectory named {name!r}; available: {', '.join(known)}")
    return read_jsonl(SAMPLES / f"{name}.jsonl")


__all__ = ["SAMPLES", "Call", "Growth", "Step", "Summary", "Table", "Trajectory", "Viewer",
           "as_trajectory", "from_messages", "genai", "plain", "plot_tokens", "read_jsonl", "sample",
           "samples", "sink", "spans", "table", "to_html", "token_growth", "view", "viewer"]
