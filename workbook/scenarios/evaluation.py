"""Chapter 20's scenarios: an agent whose runs vary with a seed, and an LLM judge with a position bias.

    from workbook import scenarios
    scenarios.seeded_agent(seed=3)   # same seed, same run; another seed, maybe another answer
    scenarios.biased_judge()         # "Winner: 1" or "Winner: 2"; on a tie it picks Answer 1

The agent plays a whole run in one reply (a final answer), so a thousand runs take a second. It
reads the system prompt: PROMPT_B (quote figures exactly) is a little better than PROMPT_A on
every task, by a margin a handful of runs cannot show. Which answer a run gives is drawn from
random.Random(f"{variant}:{seed}:{task}"): deterministic, and different from seed to seed.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from workbook.engine.replies import Reply, final
from workbook.engine.turns import Conversation
from workbook.scenarios.answers import ORDER_QUESTION, TAXI_QUESTION
from workbook.scenarios.base import Scenario

RETURNS_QUESTION = "How long do I have to return a desk lamp?"
PROMPT_A = "You are the shop's assistant. Answer the customer briefly."
PROMPT_B = ("You are the shop's assistant. Answer the customer briefly. Quote amounts, order "
            "numbers and periods exactly as the tools give them.")


@dataclass(frozen=True)
class EvalTask:
    """One task of the set: the question, what a right answer must say and must not say, and a
    reference answer (one right wording among many)."""

    name: str
    question: str
    required: tuple[str, ...]
    forbidden: tuple[str, ...]
    reference: str
    right: tuple[str, ...]  # answers the agent gives when a run goes well
    wrong: tuple[str, ...]  # answers it gives when a run goes badly


TASKS = (
    EvalTask("taxi", TAXI_QUESTION, ("5000 KZT",), (),
             "You spent 5000 KZT on taxis in September 2026.",
             ("Taxi in September 2026: 2 rides, 5000 KZT.", "You spent 5000 kzt on 2 taxi rides."),
             ("You spent 15000 KZT on taxis in September 2026.", "I could not find any taxi rides.")),
    EvalTask("order", ORDER_QUESTION, ("A-1001", "shipped"), ("not shipped",),
             "Order A-1001 has shipped.",
             ("Order A-1001 (Svet desk lamp) is shipped.", "Your order A-1001 has SHIPPED."),
             ("Order A-1001 has not shipped yet.", "Order A-1002 is shipped.")),
    EvalTask("returns", RETURNS_QUESTION, ("14 days",), ("30 days",),
             "You can return it within 14 days of delivery.",
             ("Within 14 days of delivery.", "You have 14 Days from delivery to return it."),
             ("You can return it within 30 days, or 14 days if it was on sale.",
              "Within 114 days of delivery.")),
)
BY_QUESTION = {t.question: t for t in TASKS}

# The chance that a run goes well, by prompt and task: B is better by 5-10 points everywhere.
SKILL = {"A": {"taxi": 0.8, "order": 0.7, "returns": 0.6},
         "B": {"taxi": 0.85, "order": 0.8, "returns": 0.65}}


def variant(system: str | None) -> str:
    """Which prompt the agent runs with: "B" when told to quote exactly, else "A"."""
    return "B" if system and "exactly" in system else "A"


def run_answer(task: EvalTask, seed: int, system: str | None = None) -> str:
    """The answer of run `seed` of `task` under this system prompt (what seeded_agent replies)."""
    v = variant(system)
    rng = random.Random(f"{v}:{seed}:{task.name}")
    ok = rng.random() < SKILL[v][task.name]
    return rng.choice(task.right if ok else task.wrong)


def seeded_agent(seed: int = 0) -> Scenario:
    """An agent run on a model that varies: the seed picks a right or a wrong answer per task."""
    if type(seed) is not int:
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")

    def policy(conv: Conversation) -> Reply:
        task = BY_QUESTION.get(conv.question.strip())
        if task is None:
            return final("Sorry, I can only answer questions about taxis, orders and returns.")
        return final(run_answer(task, seed, conv.system))

    return Scenario(name="seeded_agent", policy=policy, question=TAXI_QUESTION, system=PROMPT_A,
                    description=f"An agent whose run varies with a seed (this is seed {seed}): right "
                    "or wrong answers, same seed, same run.")


# --- the judge ---------------------------------------------------------------------------------

ANSWER = re.compile(r"^Answer ([12]):[ \t]*\n?(.*?)(?=^Answer [12]:|\Z)", re.M | re.S)
QUESTION = re.compile(r"^Question:[ \t]*(.*?)$", re.M)


def matches(answer: str, fact: str) -> bool:
    """The fact as a whole phrase, any case (how the judge's hidden knowledge reads an answer)."""
    return re.search(rf"(?<!\w){re.escape(fact)}(?!\w)", answer, re.I) is not None


def right(task: EvalTask, answer: str) -> bool:
    return (all(matches(answer, f) for f in task.required)
            and not any(matches(answer, f) for f in task.forbidden))


def overlap(answer: str, reference: str) -> int:
    return len(set(re.findall(r"\w+", answer.lower())) & set(re.findall(r"\w+", reference.lower())))


def verdict(prompt: str) -> int:
    """1 or 2: the judge's pick for a prompt with 'Question:', 'Answer 1:' and 'Answer 2:'."""
    answers = {int(n): text.strip() for n, text in ANSWER.findall(prompt)}
    q = QUESTION.search(prompt)
    task = BY_QUESTION.get(q.group(1).strip()) if q else None
    if set(answers) != {1, 2} or task is None:
        return 1
    if task.reference in prompt:  # it sees the expected answer: it grades by shared words
        a, b = overlap(answers[1], task.reference), overlap(answers[2], task.reference)
        return 1 if a >= b else 2
    a, b = right(task, answers[1]), right(task, answers[2])
    if a != b:
        return 1 if a else 2
    return 1  # a tie: position bias, the first answer shown wins


def biased_judge() -> Scenario:
    """A judge that knows the shop: it picks the right answer, and on a tie the first one shown."""
    def policy(conv: Conversation) -> Reply:
        prompt = "\n".join(t.content or "" for t in conv.turns if t.role in ("system", "user"))
        return final(f"Winner: {verdict(prompt)}")

    return Scenario(name="biased_judge", policy=policy,
                    question=f"Question: {TAXI_QUESTION}\nAnswer 1: 5000 KZT.\nAnswer 2: 15000 KZT.",
                    description="An LLM judge: replies 'Winner: 1' or 'Winner: 2'; on a tie it "
                    "picks Answer 1 (position bias).")
