"""Chapter 13: a model without native tool calling (ReAct as text), and a planner with executors.

One errand, three ways: "Where is my order A-1001, and how much did I spend on taxis in September?"

- `react_*`: a text-only model (`supports_tools=False`: on the "ollama" dialect a request with
  `tools` gets Ollama's 400). It writes Thought / Action / Action Input and then, like a real
  model, goes on writing an Observation and a Final Answer it invented. Only `stop=["Observation:"]`
  cuts that off. On its next turn it reads the first Observation after each of its actions, so a
  loop without the stop sequence feeds it its own invention and gets a wrong answer.
- `native_errand`: the same errand with native tool calls (both look-ups in one reply).
- `plan_errand`: one model in three roles, told apart by the system prompt as a real model reads
  it. The planner (the system prompt names "planner") answers with a JSON plan; the synthesizer
  (it names "step results") combines the "Result:" lines it is given; any other request is an
  executor running one step with native tool calls (only the line "Step: ..." of its question,
  when there is one). A replan (the planner's messages say "failed" or "not valid") plans the
  steps not listed as lines "- <step>" after "Done so far:". A step it cannot do (order Z-9) it
  keeps retrying with the same call, so the chapter-06 loop stops it ("STOPPED: loop"). Its
  `answer` is None: only plan-and-execute reaches `PLAN_ANSWER`, a native loop would not.
"""

from __future__ import annotations

import json
import re

from workbook.engine.replies import Call, Reply, calls, final
from workbook.engine.turns import Conversation, error_of
from workbook.scenarios.answers import ORDER_ANSWER, TAXI_ANSWER, TAXI_QUESTION
from workbook.scenarios.base import Scenario

ERRAND_QUESTION = "Where is my order A-1001, and how much did I spend on taxis in September?"
ERRAND_ANSWER = f"{ORDER_ANSWER} {TAXI_ANSWER}"
SYNTHESIS_OPENING = "Here is what I found:"
PLAN_ANSWER = f"{SYNTHESIS_OPENING} {ERRAND_ANSWER}"
ORDER_STEP, TAXI_STEP, BAD_STEP = ("Look up order A-1001", "Find my taxi spending in September 2026",
                                   "Look up order Z-9")
# What each kind of request needs: a keyword of the task or step -> the tool call that answers it.
NEEDS = (("A-1001", Call("get_order", {"order_id": "A-1001"})),
         ("Z-9", Call("get_order", {"order_id": "Z-9"})),
         ("taxi", Call("txn_sum", {"category": "taxi", "month": "2026-09"})))
# What the react model invents after its action, when nothing stops it.
INVENTED = {"get_order": '{"order_id": "A-1001", "item": "Svet desk lamp", "status": "delivered"}',
            "txn_sum": '{"category": "taxi", "month": "2026-09", "count": 3, "total_kzt": 7400}'}
ACTION = re.compile(r"Action:\s*(\S+)\s*\nAction Input:\s*")
PLANS = {
    "good": json.dumps({"steps": [ORDER_STEP, TAXI_STEP]}),
    "fenced": "```json\n" + json.dumps({"steps": [ORDER_STEP, TAXI_STEP]}, indent=2) + "\n```",
    "too_long": json.dumps({"steps": [ORDER_STEP, TAXI_STEP] + [f"Double-check step {i}" for i in
                                                                range(1, 8)]}),
    "not_json": f"My plan: first {ORDER_STEP.lower()}, then {TAXI_STEP.lower()}.",
    "empty_step": json.dumps({"steps": [ORDER_STEP, "  "]}),
    "bad_step": json.dumps({"steps": [ORDER_STEP, BAD_STEP]}),
    "always_bad": json.dumps({"steps": [BAD_STEP]}),
}


def needed(text: str) -> list[Call]:
    """The tool calls a request needs, in the order the errand names them."""
    return [c for key, c in NEEDS if key in text]


def answer_for(c: Call, result: str) -> str:
    """One sentence from one tool result, as a model reads it."""
    conv = Conversation([])
    if error_of(result) is not None:
        return f"I could not {c.name.replace('_', ' ')} {json.dumps(c.args)}."
    if c.name == "txn_sum":
        r = conv.read(result, total_kzt=int, count=int)
        return f"Taxi in September 2026: {r['count']} rides, {r['total_kzt']} KZT." if r else "?"
    r = conv.read(result, status=str)
    return f"Order {c.args['order_id']} ({r.get('item', '?')}) is {r['status']}." if r else "?"


def transcript(conv: Conversation) -> list[tuple[str, object]]:
    """The text protocol as the model reads it back: ("action", Call) for each action it wrote,
    ("obs", text) for each Observation (the loop's, or one it invented in its own turn)."""
    events: list[tuple[str, object]] = []
    first_user = next((i for i, t in enumerate(conv.turns) if t.role == "user"), len(conv.turns))
    for t in conv.turns[first_user + 1:]:  # after the question
        text = t.content or ""
        if t.role == "user" and text.startswith("Observation:"):
            events.append(("obs", text[len("Observation:"):].strip()))
        elif t.role == "assistant":
            own, *invented = text.split("Observation:")
            m = ACTION.search(own)
            try:
                args = json.JSONDecoder().raw_decode(own[m.end():])[0] if m else None
            except ValueError:
                args = None
            if isinstance(args, dict):
                events.append(("action", Call(m.group(1), args)))
            events += [("obs", part.split("\nThought:")[0].strip()) for part in invented]
    return events


def react_policy(sloppy: bool = False):
    """The text model: one action per turn, each with an invented observation and answer after it."""
    def policy(conv: Conversation) -> Reply:
        events = transcript(conv)
        seen: dict[str, str] = {}  # tool call -> the first observation after it
        for i, (kind, value) in enumerate(events):
            if kind == "action":
                obs = next((v for k, v in events[i + 1:] if k == "obs"), None)
                if obs is not None:
                    seen.setdefault(json.dumps([value.name, value.args]), obs)
        wanted = needed(conv.question)
        todo = [c for c in wanted if json.dumps([c.name, c.args]) not in seen]
        if not todo:
            parts = [answer_for(c, seen[json.dumps([c.name, c.args])]) for c in wanted]
            return final("Thought: I now know the final answer.\nFinal Answer: " + " ".join(parts))
        c = todo[0]
        if sloppy and conv.steps == 0:  # not JSON: the loop must answer with an error observation
            return final(f"Thought: I will look this up.\nAction: {c.name}\nAction Input: "
                         + ", ".join(f"{k}={v}" for k, v in c.args.items()))
        invented = INVENTED.get(c.name, "{}")
        made_up = answer_for(c, invented)
        return final(f"Thought: I need {c.name} for this.\nAction: {c.name}\nAction Input: "
                     f"{json.dumps(c.args)}\nI will wait for the result.\nObservation: {invented}\n"
                     f"Thought: I now know the final answer.\nFinal Answer: {made_up}")

    return policy


def _react(name: str, question: str, answer: str, description: str, sloppy=False) -> Scenario:
    tools = tuple(dict.fromkeys(c.name for c in needed(question)))
    return Scenario(name=name, description=description, policy=react_policy(sloppy), tools=tools,
                    question=question, answer=answer, supports_tools=False)


def react_taxi() -> Scenario:
    return _react("react_taxi", TAXI_QUESTION, TAXI_ANSWER,
                  "A text-only model writes ReAct text, then invents an Observation and a wrong "
                  "Final Answer: stop=['Observation:'] cuts them off.")


def react_order(sloppy: bool = False) -> Scenario:
    first = " The first is not JSON." if sloppy else ""
    return _react("react_order", "Where is my order A-1001?", ORDER_ANSWER,
                  f"A text-only model looks up an order in ReAct text, a sentence after its Action "
                  f"Input.{first}", sloppy)


def react_errand() -> Scenario:
    return _react("react_errand", ERRAND_QUESTION, ERRAND_ANSWER,
                  "A text-only model does the two-part errand in ReAct text, one action per turn.")


def executor(conv: Conversation) -> Reply:
    """Native tool calls: every look-up the request needs at once, then one sentence per result;
    a look-up that failed is asked for again (a stubborn model: only a loop limit stops it)."""
    done = {json.dumps([n, a]): r for n, a, r in conv.outcomes()}
    steps = [line for line in conv.question.splitlines() if line.startswith("Step:")]
    wanted = needed(steps[-1] if steps else conv.question)  # a step, or the whole task
    todo = [c for c in wanted if json.dumps([c.name, c.args]) not in done]
    failed = [c for c in wanted if error_of(done.get(json.dumps([c.name, c.args]))) is not None]
    if todo or failed:
        return calls(*(todo or failed))
    return final(" ".join(answer_for(c, done[json.dumps([c.name, c.args])]) for c in wanted))


def native_errand() -> Scenario:
    return Scenario(name="native_errand", policy=executor, tools=("get_order", "txn_sum"),
                    question=ERRAND_QUESTION, answer=ERRAND_ANSWER,
                    description="The two-part errand with native tool calls: both look-ups in one "
                    "reply, then the answer.")


def plan_policy(first: str, replan: str):
    def policy(conv: Conversation) -> Reply:
        system = (conv.system or "").lower()
        if "planner" in system:
            asked = "\n".join(t.content or "" for t in conv.turns if t.role == "user")
            if "failed" not in asked and "not valid" not in asked:
                return final(PLANS[first])
            if replan == "good":  # what is left: the good steps not listed as done
                listed = asked.split("Done so far:")[-1] if "Done so far:" in asked else ""
                done = {line[2:].strip() for line in listed.splitlines() if line.startswith("- ")}
                return final(json.dumps({"steps": [s for s in (ORDER_STEP, TAXI_STEP)
                                                   if s not in done]}))
            return final(PLANS[replan])
        if "step results" in system:
            results = [line[len("Result:"):].strip() for t in conv.turns if t.role == "user"
                       for line in (t.content or "").splitlines() if line.startswith("Result:")]
            if not results:
                return final("I have no step results to combine.")
            return final(f"{SYNTHESIS_OPENING} {' '.join(results)}")
        return executor(conv)

    return policy


def plan_errand(first: str = "good", replan: str = "good") -> Scenario:
    """first: the first plan ("good", "fenced", "too_long", "not_json", "empty_step", "bad_step",
    "always_bad"); replan: the plan after a failure ("good": the steps not done yet, or any
    name of `PLANS`)."""
    for option, value in (("first", first), ("replan", replan)):
        if value not in PLANS:
            raise ValueError(f"plan_errand({option}={value!r}): use one of {', '.join(PLANS)}")
    return Scenario(name="plan_errand", policy=plan_policy(first, replan),
                    tools=("get_order", "txn_sum"), question=ERRAND_QUESTION,
                    description=f"Planner, executor and synthesizer of the two-part errand; first "
                    f"plan {first!r}, replan {replan!r}.")
