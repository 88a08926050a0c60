"""What the notebook sends is kept out of a hidden test's message (workbook/link/heard.py)."""

from workbook.link.heard import (
    MAX_WALK,
    MIN_CHARS,
    NAME,
    REDACTED,
    UNREAD,
    VALUE,
    Heard,
    mask_values,
)

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


def test_values_a_message_quotes_are_masked_and_its_words_stay():
    """Short pieces pass the heard texts (the red team cut a result into 11-character strings):
    a quiet message masks every value it quotes, and keeps the grader's words."""
    chunks = "a call that works returns its response; got ['retryable=r', 'eference_re', 'tryable/ref']"
    assert mask_values(chunks) == f"a call that works returns its response; got {VALUE}"
    pairs = "('call_1', 'A-10', 12) and ('call_1', 'A-101', 2) are different requests: use hashlib (or the parts)"
    assert mask_values(pairs) == f"{VALUE} and {VALUE} are different requests: use hashlib (or the parts)"
    assert mask_values("got 2305843009213693951, at most 255 characters") == f"got {VALUE}, at most 255 characters"
    assert mask_values("the student's key, {'a': [1, (2, 3)]}") == f"the student's key, {VALUE}"
    assert mask_values('expected "done", got "x" (see above)') == f"expected {VALUE}, got {VALUE} (see above)"


def test_a_name_the_notebook_chose_is_taken_out_whatever_its_length():
    """Red team 5: a record class named after 11 characters of a hidden tool's docstring, printed
    by the test's own `type(x).__name__`. Names the test's code says stay (the grader's words)."""
    heard = Heard()
    heard.add({"ok": {"$rec": "__main__:Spending_fo", "f": {"x": 1}}})
    heard.add({"$h": 3, "kind": "function", "name": "__main__:Leaky", "short": "Leaky"})
    heard.add({"$e": "__main__:Refund_mone", "msg": "no"})
    source = "assert type(r) is str, f'should be a str, got {type(r).__name__} {r!r}'  # AgentResult"
    out = heard.redact("should be a str, got Spending_fo Spending_fo[…], Leaky, Refund_mone", source)
    assert "Spending_fo" not in out and "Leaky" not in out and "Refund_mone" not in out, out
    heard.add({"$rec": "__main__:AgentResult", "f": {}})
    assert heard.redact("must return an AgentResult", source) == "must return an AgentResult"


def test_kept_messages_are_read_when_a_message_is_redacted_or_past_the_cap():
    """Heard keeps the kernel's messages unread (most tests pass and are never redacted) and reads
    them when a quiet message needs them, or once PENDING wait: the same texts either way."""
    heard = Heard()
    heard.add({"ok": {"$rec": "__main__:Leak", "f": {"note": "the hidden docstring's words"}}})
    heard.add_body(b'{"messages": [{"content": "a body the SDK client posted"}]}')
    said = heard.redact("got the hidden docstring's words and a body the SDK client posted from Leak")
    assert "hidden docstring" not in said and "SDK client" not in said and "Leak" not in said, said
    many = Heard()
    for i in range(Heard.PENDING + 1):
        many.add(f"message number {i:06d}")
    assert not many._pending and "message number 000000" in many._texts


def test_a_long_text_or_name_cut_short_by_a_message_is_taken_out():
    """Red team 16: `short()` cuts a long value, so only its start is in the message."""
    from workbook.compare import short

    heard = Heard()
    secret = "the hidden test asked about order A-1234 for customer Jane, and more " * 3
    name = "a_name_that_carries_" + "x" * 120
    heard.add({"ok": secret, "f": {"$h": 5, "side": "k", "kind": "object", "name": name}})
    said = heard.redact(f"got str {short(secret, 80)} and {short(name, 50)}")
    assert "hidden test" not in said and "carries" not in said and said.count(REDACTED) == 2, said
    assert mask_values(f"got str {short(secret, 80)}") == f"got str {VALUE}", "a cut string is a value too"


def test_a_kernel_objects_name_is_a_plain_name_or_none():
    from workbook.link.kernel_objects import KernelRef

    def ref(name):
        return KernelRef(None, 1, {"kind": "object", "name": name})

    assert repr(ref("Agent")) == "<the notebook's object Agent>"
    assert repr(ref("Outer.Inner")) == "<the notebook's object Outer.Inner>"
    for odd in ("1get_weathe", "a b", "x" * 61, "<lambda>", None, 7):
        assert repr(ref(odd)) == "<the notebook's object object>", odd


def test_a_records_field_names_are_names_the_notebook_chose():
    """Red team 17: a record whose field names were a hidden input in 11-character pieces, and a
    repr cut at its length cap before its group closed, so no value was masked."""
    heard = Heard()
    pieces = ["Q: Taxi spe", "nding in Se", "ptember, pl"]
    heard.add({"ok": {"$rec": "__main__:R", "f": {p: 0 for p in pieces} | {"pad": [0] * 5}}})
    shown = f"got R({', '.join(f'{p}=0' for p in pieces)}, pad=[0, 0, 0"  # cut, never closed
    out = mask_values(heard.redact(shown, "assert r == 'x', f'got {r!r}'"))
    assert not any(p.split()[-1] in out for p in pieces), out
    assert out == f"got {NAME}{VALUE}", out
    assert mask_values("expected a list (of dicts") == f"expected a list {VALUE}"


def test_zero_width_characters_do_not_hide_a_text():
    heard = Heard()
    hidden = "W: {\"tool\": \"get_weath\u200ber\", \"args\"\u200b: {\"city\": \u200b\"Almaty\"}}"
    heard.add({"ok": {"$rec": "__main__:R", "f": {hidden: 0}}})
    out = heard.redact(f"wanted_tool returned R({hidden}=0)")
    assert "get_weath" not in out and "Almaty" not in out, out


def test_a_message_too_big_to_read_whole_leaves_only_the_graders_words():
    """Red team 17: 200,001 parts before the field names, so the walk never reached them."""
    heard = Heard()
    heard.add({"ok": {"$rec": "__main__:R", "f": {"pad": [0] * (MAX_WALK + 1), "Taxi spe": 0}}})
    assert heard.redact("got R(pad=[0, 0], Taxi spe=0)") == UNREAD


def test_an_exercises_name_stays():
    """Red team 17: after a hidden test, "save_checkpoint must create the file" read "[text from
    your notebook] must create the file": the kernel had sent the exercise's name."""
    heard = Heard()
    heard.add({"$h": 3, "kind": "function", "name": "save_checkpoint", "short": "save_checkpoint"})
    heard.add(["save_checkpoint", "a hidden sentence the notebook echoed"])
    source = 'assert ok, "save_checkpoint must create the file at path"'
    said = "save_checkpoint must create the file at path; a hidden sentence the notebook echoed"
    assert heard.redact(said, source).startswith(REDACTED), "a text the kernel sent, unless kept"
    out = heard.redact(said, source, keep={"save_checkpoint"})
    assert out == f"save_checkpoint must create the file at path; {REDACTED}", out
