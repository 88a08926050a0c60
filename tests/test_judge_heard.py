"""What the notebook sends is kept out of a hidden test's message (autograder/judge/heard.py)."""

from autograder.judge.heard import MIN_CHARS, REDACTED, Heard

DOC = "Refund money for one order.\n\nChanges state: needs the customer's confirmation."


def test_a_text_the_kernel_sent_is_taken_out_of_a_message():
    heard = Heard()
    heard.add({"ok": ["refund", {"msg": f"LEAK refund(order_id: str) doc={DOC!r}"}]})
    message = f"@tool raised RuntimeError: LEAK refund(order_id: str) doc={DOC!r}"
    out = heard.redact(message)
    assert "Changes state" not in out and "Refund money" not in out, out
    assert out.startswith("@tool raised RuntimeError: ") and REDACTED in out


def test_a_quoted_value_and_its_lines_are_taken_out_too():
    heard = Heard()
    heard.add(["x", DOC])
    assert "needs the customer" not in heard.redact(f"expected ['refund'], got [{DOC!r}]")
    assert "needs the customer" not in heard.redact("got: Changes state: needs the customer's confirmation.")


def test_short_texts_and_numbers_stay():
    heard = Heard()
    heard.add({"ok": ["refund", "x" * (MIN_CHARS - 1), 42]})
    message = "expected ['refund'] and 42 calls, got ['refund', 'xxxxxxxxxxx']"
    assert heard.redact(message) == message


def test_an_http_body_the_kernel_posted_is_heard():
    heard = Heard()
    heard.add_body(b'{"messages": [{"role": "user", "content": "the hidden scenario\'s question"}]}')
    assert heard.redact("the request said: the hidden scenario's question") == f"the request said: {REDACTED}"
