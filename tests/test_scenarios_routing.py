"""Chapter 12's schema-bound router: offered the forced `route` tool, routing_desk names a listed
class or "other" (never the class support_desk's free-text router invents); otherwise it is
support_desk."""

import json

from workbook import scenarios
from workbook.fake_llm import FakeLLM

PROMPT = "Classify the customer's message.\n- refunds: a refund\n- orders: an order's status"
TOOL = {"type": "function", "function": {
    "name": "route", "strict": True,
    "parameters": {"type": "object", "properties": {"class": {"type": "string", "enum": ["refunds", "orders", "other"]}},
                   "required": ["class"], "additionalProperties": False}}}
FORCE = {"type": "function", "function": {"name": "route"}}


def routed(message, tools=(TOOL,)):
    llm = FakeLLM(scenarios.routing_desk())
    kwargs = {"tools": list(tools), "tool_choice": FORCE} if tools else {}
    response = llm.client().chat.completions.create(model="fake-model", messages=[
        {"role": "system", "content": PROMPT}, {"role": "user", "content": message}], **kwargs)
    return response.choices[0].message


def test_it_is_in_the_catalogue():
    sc = scenarios.get("routing_desk")
    assert sc.name == "routing_desk" and sc.question and sc.description
    assert ("routing_desk", sc.description) in scenarios.catalogue()


def test_the_forced_call_names_a_listed_class_or_other():
    for message, expected in [("My lamp arrived broken, refund it.", "refunds"),
                              ("Where is my order A-1002?", "orders"),
                              ("URGENT!!! Refund order A-1001 right now.", "refunds"),
                              ("Please change my delivery address.", "other"),
                              ("How long do I have to return a lamp?", "other")]:  # faq is not listed here
        message_ = routed(message)
        assert message_.content is None and len(message_.tool_calls) == 1, message_
        call = message_.tool_calls[0].function
        assert call.name == "route" and json.loads(call.arguments) == {"class": expected}, (message, call)


def test_the_free_text_router_still_invents_a_class_without_the_tool():
    """The mistake the schema removes stays visible: support_desk's text answer for URGENT."""
    reply = routed("URGENT!!! Refund order A-1001 right now.", tools=())
    assert reply.tool_calls is None and reply.content == "urgent_refunds"


def test_other_steps_are_support_desks():
    llm = FakeLLM(scenarios.routing_desk(missing=0))
    reply = llm.client().chat.completions.create(model="fake-model", messages=[
        {"role": "system", "content": "Extract the order id."}, {"role": "user", "content": "About A-1001."}])
    assert reply.choices[0].message.content == "A-1001"
