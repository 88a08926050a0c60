"""Scenarios that stream (chapter 22): any scenario with a stream plan, and the faults mid-stream.

    S.streamed(S.taxi_spending(), fragment=1)                 # one character a chunk
    S.streamed(sc, StreamPlan(cut_after=5))                   # the 1st streamed request is cut
    S.stream_cut(), S.stream_overloaded(), S.stream_stall(), S.stream_incomplete()  # 16 characters a piece

A plan belongs to the n-th *streamed* request the fake serves (`stream_plans[n]`); requests past
the list get the default (`fragment` characters a piece, no fault). See workbook.engine.streaming.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from workbook.engine.replies import Call, Reply
from workbook.engine.streaming import StreamPlan
from workbook.scenarios.answers import TAXI_ANSWER, TAXI_QUESTION
from workbook.scenarios.base import Scenario
from workbook.scenarios.errands import taxi_spending


@dataclass(frozen=True)
class StreamedScenario(Scenario):
    """A scenario with its stream plans (the engine reads `stream_plans` and `stream_fragment`)."""

    stream_plans: tuple[StreamPlan, ...] = ()
    stream_fragment: int | None = 4


def streamed(scenario: Scenario, *plans: StreamPlan, fragment: int | None = 4,
             name: str | None = None) -> StreamedScenario:
    """`scenario` with stream plans: plans[n] for the n-th streamed request, then `fragment`."""
    for i, p in enumerate(plans):
        if not isinstance(p, StreamPlan):
            raise TypeError(f"plan {i + 1} must be a StreamPlan, got {type(p).__name__}")
    StreamPlan(fragment=fragment)  # the same check of the fragment size
    fields = {f.name: getattr(scenario, f.name) for f in dataclasses.fields(Scenario)}
    if name is not None:
        fields["name"] = name
    return StreamedScenario(**fields, stream_plans=tuple(plans), stream_fragment=fragment)


def stream_cut(after: int = 5, fragment: int | None = 16) -> StreamedScenario:
    return dataclasses.replace(streamed(taxi_spending(), StreamPlan(fragment, cut_after=after),
                                        fragment=fragment, name="stream_cut"),
                               description=f"taxi_spending, streamed; the first stream is cut after "
                               f"{after} events (a connection error mid-stream); the retry streams whole.")


def stream_overloaded(after: int = 5, fragment: int | None = 16) -> StreamedScenario:
    return dataclasses.replace(streamed(taxi_spending(), StreamPlan(fragment, error_after=after),
                                        fragment=fragment, name="stream_overloaded"),
                               description=f"taxi_spending, streamed; the first stream sends {after} events "
                               "and then an error event after its 200 (Anthropic overloaded_error).")


def stream_stall(after: int = 3, fragment: int | None = 16) -> StreamedScenario:
    return dataclasses.replace(streamed(taxi_spending(), StreamPlan(fragment, stall_after=after),
                                        fragment=fragment, name="stream_stall"),
                               description=f"taxi_spending, streamed; the first stream stops after {after} "
                               "events and never sends more: the client's read timeout fires.")


def stream_incomplete(after: int = 2, fragment: int | None = 16) -> StreamedScenario:
    return dataclasses.replace(streamed(taxi_spending(), StreamPlan(fragment, incomplete_after=after),
                                        fragment=fragment, name="stream_incomplete"),
                               description=f"taxi_spending, streamed; the first reply stops after {after} "
                               "pieces at its token limit (finish 'length', a half-written tool call).")


def two_calls_streamed(fragment: int | None = 3) -> StreamedScenario:
    """Two tool calls in one reply, then the answer: what an accumulator keyed by index gets right."""
    def policy(conv):
        if not conv.results:
            return Reply(calls=(Call("txn_sum", {"category": "taxi", "month": "2026-09"}),
                                Call("txn_sum", {"category": "food", "month": "2026-09"})))
        return Reply(text=TAXI_ANSWER)

    base = Scenario(name="two_calls_streamed", policy=policy, tools=("txn_sum",), answer=TAXI_ANSWER,
                    question=TAXI_QUESTION, description="Two txn_sum calls in one streamed reply, then "
                    "the taxi answer.")
    return streamed(base, fragment=fragment)
