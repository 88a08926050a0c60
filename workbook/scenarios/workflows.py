"""Chapter 12's scenarios: models for fixed workflows, where every model call is a fresh request.

A workflow sends many small requests (classify, extract, write, review...), each with its own
system prompt and no history, so `scripted` (which counts assistant turns) cannot tell them
apart. These models read the system prompt instead:

    S.by_prompt({"Classify": "refunds", "Extract": "A-1001"})    # the reply per kind of request
    S.by_prompt({"": ["yes", "no", "yes"]})                        # sampled: the k-th identical request gets the k-th
    S.support_desk()                                               # the chapter's support model

`support_desk(missing=2, picky=False)` answers the chapter's prompts by these words in the system
prompt (first match wins): "Classify" (a class name from the listed ones; a message marked
URGENT gets the invented class "urgent_refunds"), "Extract" (the first order id in the message,
or a chatty sentence when it has none), "Review" (PASS, or "FIX: ..." naming the first thing the
reply lacks; `picky` never passes), "Write" (a reply to the customer: the first draft lacks the
first `missing` of three things the reviewer wants, a later one adds whatever the reviewer's
notes or the earlier draft it is shown mention), "Plan" (one subtask per order id, one a line),
"Combine" (the workers' reports joined) and "Worker" (a one-line report on the FIRST subtask in
its messages: a worker that sees another worker's messages reports the wrong order).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from workbook.engine.replies import Fault, Reply, Timeout, final
from workbook.engine.turns import Conversation
from workbook.scenarios.base import Scenario
from workbook.scenarios.errands import REFUND_CHECK_QUESTION
from workbook.shop import ORDERS

Answer = Reply | Fault | Timeout | str
ORDER_ID = re.compile(r"\b[A-Z]-\d{4}\b")
# What the reviewer wants in a reply: (the word it looks for, its note, the writer's sentence).
WANTS = (
    ("sorry", "Say sorry for the trouble.", "We are sorry for the trouble."),
    ("5 working days", "Say when the money arrives: within 5 working days.",
     "The money reaches your card within 5 working days."),
    ("Northwind support", "Sign the reply as Northwind support.", "Kind regards, Northwind support."),
)
INTENTS = (  # (class, words in the message that point at it), in order of priority
    ("refunds", ("refund", "broken", "money back")),
    ("orders", ("where is", "where are", "status", "arrive")),
    ("faq", ("how long", "how do", "policy", "return")),
)


def _one(answer: Answer, i: int) -> Reply | Fault | Timeout:
    if isinstance(answer, str):
        return final(answer)
    if isinstance(answer, Reply | Fault | Timeout):
        return answer
    raise TypeError(f"reply {i + 1} must be a Reply, a Fault, a Timeout or a string, "
                    f"got {type(answer).__name__}")


def by_prompt(replies: Mapping[str, Answer | Sequence[Answer] | Callable[[Conversation], Answer]],
              name: str = "by_prompt", description: str | None = None,
              question: str = "") -> Scenario:
    """A model whose reply depends on its system prompt: the first key (in order) that the system
    prompt contains, ignoring case, picks the reply ("" matches every prompt). A list is a sampled
    model: the k-th time the same messages are sent it plays item k (past the end, the last). A
    function of the conversation answers for itself."""
    if not replies:
        raise ValueError("by_prompt() needs at least one key")
    table: dict = {}  # key -> a policy, or the replies of a sampled model
    for key, value in replies.items():
        if callable(value):
            table[key] = value
        elif isinstance(value, list | tuple):
            if not value:
                raise ValueError(f"by_prompt(): the list for {key!r} is empty")
            table[key] = tuple(_one(v, i) for i, v in enumerate(value))
        else:
            table[key] = (_one(value, 0),)

    def policy(conv: Conversation):
        system = (conv.system or "").lower()
        for key, value in table.items():
            if key.lower() in system:
                if callable(value):
                    return _one(value(conv), 0)
                return value[min(conv.attempt, len(value) - 1)]
        # Not a crash of the fake: the model says, as text, which prompts it plays.
        return final(f"[{name}] I answer only system prompts that contain one of {list(table)}; "
                     f"this one is {system[:80]!r}.")

    return Scenario(name=name, policy=policy, question=question,
                    description=description or f"Answers by its system prompt ({', '.join(map(repr, table))}).")


def _user_texts(conv: Conversation) -> list[str]:
    return [t.content or "" for t in conv.turns if t.role in ("user", "assistant")]


def _last_user(conv: Conversation) -> str:
    return next((t.content or "" for t in reversed(conv.turns) if t.role == "user"), "")


def _classify(conv: Conversation) -> Reply:
    message = _last_user(conv).lower()
    if "urgent" in message:
        return final("urgent_refunds")  # a class nobody listed: the router must not trust it
    listed = (conv.system or "").lower()
    for intent, words in INTENTS:
        if any(w in message for w in words) and intent in listed:
            return final(intent)
    return final("other")


def _extract(conv: Conversation) -> Reply:
    found = ORDER_ID.findall(_last_user(conv))
    if not found:
        return final("Sorry, I could not find an order number in this message.")
    return final(found[0])


def _write(missing: int) -> Callable[[Conversation], Reply]:
    def write(conv: Conversation) -> Reply:
        seen = " ".join(_user_texts(conv)).lower()
        task = next((t.content or "" for t in conv.turns if t.role == "user"), "")
        facts = re.search(r"Facts:\s*(.+)", task)
        ids = ", ".join(dict.fromkeys(ORDER_ID.findall(task))) or "your order"
        body = facts.group(1).strip() if facts else f"We have received your message about {ids}."
        apology, timing, signature = (sentence if i >= missing or word.lower() in seen else None
                                      for i, (word, _, sentence) in enumerate(WANTS))
        return final(" ".join(p for p in ("Hello!", apology, body, timing, signature) if p))

    return write


def _review(picky: bool) -> Callable[[Conversation], Reply]:
    def review(conv: Conversation) -> Reply:
        draft = _last_user(conv).lower()
        for word, note, _ in WANTS:
            if word.lower() not in draft:
                return final(f"FIX: {note}")
        return final("FIX: Make it sound warmer." if picky else "PASS")

    return review


def _plan(conv: Conversation) -> Reply:
    ids = list(dict.fromkeys(ORDER_ID.findall(_last_user(conv))))
    return final("\n".join(f"Report the status of order {i}" for i in ids) or "Answer the question")


def _work(conv: Conversation) -> Reply:
    first = next((t.content or "" for t in conv.turns if t.role == "user"), "")
    found = ORDER_ID.findall(first)
    order = ORDERS.get(found[0]) if found else None
    if order is None:
        return final("I could not tell which order this is about.")
    return final(f"Order {found[0]} ({order['item']}) is {order['status']}.")


def _combine(conv: Conversation) -> Reply:
    reports = [line.strip() for line in _last_user(conv).splitlines()
               if line.strip().startswith("Order ")]
    return final(" ".join(reports) or "I have nothing to report.")


def support_desk(missing: int = 2, picky: bool = False) -> Scenario:
    if not 0 <= missing <= len(WANTS):
        raise ValueError(f"missing must be between 0 and {len(WANTS)}, got {missing}")
    jobs = {"Classify": _classify, "Extract": _extract, "Review": _review(picky),
            "Write": _write(missing), "Plan": _plan, "Combine": _combine, "Worker": _work}
    scenario = by_prompt(jobs, name="support_desk")
    wants = "never passes" if picky else f"a first draft lacks {missing} of 3 things"
    return Scenario(name="support_desk", policy=scenario.policy, question=REFUND_CHECK_QUESTION,
                    description="Workflow steps by system prompt: classify, extract, write and "
                    f"review a reply ({wants}), plan, work, combine.")
