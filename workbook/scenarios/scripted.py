"""A model that plays a fixed list of replies, for tests that need one exact reply.

    S = wb.scenarios
    asks = S.scripted(S.calls(S.Call("get_order", {"order_id": "A-1001"}),
                              S.Call("get_order", {"order_id": "A-1002"})))
    wb.fake_llm.FakeLLM(asks).client()        # the SDK face: every request gets that reply
    S.scripted(S.call("txn_sum", category="taxi", month="2026-09"), "5000 KZT.").as_function()
"""

from __future__ import annotations

from workbook.engine.replies import Fault, Reply, Timeout, final
from workbook.scenarios.base import Scenario


def scripted(*replies: Reply | Fault | Timeout | str, name: str = "scripted",
             description: str | None = None, tools: tuple[str, ...] = (), question: str = "",
             answer: str | None = None, system: str | None = None) -> Scenario:
    """A scenario whose n-th reply (n = assistant turns already in the conversation) is replies[n].

    A string is a final answer. Past the end of the list the last reply is played again, so a
    loop that asks once more gets the same thing. It reads the conversation, not a counter: it
    is still a pure policy, the same through every face and for every copy of the fake.
    """
    if not replies:
        raise ValueError("scripted() needs at least one reply")
    script = tuple(final(r) if isinstance(r, str) else r for r in replies)
    for i, r in enumerate(script):
        if not isinstance(r, Reply | Fault | Timeout):
            raise TypeError(f"reply {i + 1} must be a Reply, a Fault, a Timeout or a string, "
                            f"got {type(r).__name__}")

    def policy(conv):
        return script[min(conv.steps, len(script) - 1)]

    return Scenario(name=name, description=description or f"Plays {len(script)} scripted repl"
                    f"{'y' if len(script) == 1 else 'ies'}, one per model call.", policy=policy,
                    tools=tuple(tools), answer=answer, question=question, system=system)
