"""The fake payments service: refunds once per key, scripted ambiguous timeouts, a full record."""

import pytest

from workbook.payments import IdempotencyError, Payments, PaymentTimeout


def test_a_refund_is_made_and_recorded():
    pay = Payments()
    got = pay.refund("A-1001", 2450, idempotency_key="k1")
    assert got == {"refund_id": "rf_0001", "order_id": "A-1001", "amount": 2450, "status": "refunded"}
    assert pay.refunds == [{**got, "idempotency_key": "k1"}]
    assert pay.requests == [{"order_id": "A-1001", "amount": 2450, "idempotency_key": "k1",
                             "outcome": "refunded"}]
    assert pay.refunded("A-1001") == 2450 and pay.refunded("A-1002") == 0


def test_the_same_key_replays_the_first_result_and_refunds_once():
    pay = Payments()
    first = pay.refund("A-1001", 2450, "k1")
    again = pay.refund("A-1001", 2450, "k1")
    assert again == first and pay.refunds_for("A-1001") == [first]
    assert [r["outcome"] for r in pay.requests] == ["refunded", "replayed"]
    again["status"] = "changed by the caller"
    assert pay.refund("A-1001", 2450, "k1")["status"] == "refunded"  # callers get copies


def test_different_keys_are_different_refunds():
    pay = Payments()
    pay.refund("A-1001", 2450, "k1")
    pay.refund("A-1001", 2450, "k2")
    assert [r["refund_id"] for r in pay.refunds] == ["rf_0001", "rf_0002"]
    assert pay.refunded("A-1001") == 4900


def test_a_key_reused_with_other_parameters_is_refused():
    pay = Payments()
    pay.refund("A-1001", 2450, "k1")
    with pytest.raises(IdempotencyError, match="already used for a refund of 2450 KZT on order A-1001"):
        pay.refund("A-1002", 1290, "k1")
    with pytest.raises(ValueError):  # IdempotencyError is a ValueError
        pay.refund("A-1001", 1000, "k1")
    assert len(pay.refunds) == 1 and pay.requests[-1]["outcome"] == "rejected"


def test_timeout_after_success_is_ambiguous_and_a_retry_with_the_key_is_safe():
    pay = Payments(script=["timeout"])
    with pytest.raises(PaymentTimeout, match="may or may not"):
        pay.refund("A-1001", 2450, "k1")
    assert len(pay.refunds) == 1, "the server carried out the timed-out request"
    got = pay.refund("A-1001", 2450, "k1")
    assert got["refund_id"] == "rf_0001" and len(pay.refunds) == 1
    assert [r["outcome"] for r in pay.requests] == ["refunded", "replayed"]


def test_a_retry_with_a_new_key_after_a_timeout_refunds_twice():
    pay = Payments(script=["timeout"])
    with pytest.raises(TimeoutError):  # PaymentTimeout is the builtin TimeoutError
        pay.refund("A-1001", 2450, "attempt-1")
    pay.refund("A-1001", 2450, "attempt-2")
    assert pay.refunded("A-1001") == 4900 and len(pay.refunds) == 2


def test_a_lost_request_is_not_carried_out_and_its_key_stays_free():
    pay = Payments(script=["lost", "timeout"])
    with pytest.raises(PaymentTimeout):
        pay.refund("A-1001", 2450, "k1")
    assert pay.refunds == [] and pay.requests[0]["outcome"] == "lost"
    with pytest.raises(PaymentTimeout):
        pay.refund("A-1001", 2450, "k1")
    assert len(pay.refunds) == 1
    assert pay.refund("A-1001", 2450, "k1")["refund_id"] == "rf_0001"
    assert [r["outcome"] for r in pay.requests] == ["lost", "refunded", "replayed"]


def test_the_script_runs_out_into_ok():
    pay = Payments(script=("timeout", "timeout"))
    for _ in range(2):
        with pytest.raises(PaymentTimeout):
            pay.refund("A-1001", 2450, "k")
    assert pay.refund("A-1001", 2450, "k")["status"] == "refunded"
    assert pay.refund("A-1002", 1290, "k2")["refund_id"] == "rf_0002"
    assert "2 refund(s) made" in repr(pay)


@pytest.mark.parametrize(("args", "match"), [
    (("", 10, "k"), "order_id"),
    ((None, 10, "k"), "order_id"),
    (("A-1001", 0, "k"), "amount"),
    (("A-1001", -5, "k"), "amount"),
    (("A-1001", 10.5, "k"), "amount"),
    (("A-1001", True, "k"), "amount"),
    (("A-1001", "2450", "k"), "amount"),
    (("A-1001", 10, ""), "idempotency_key"),
    (("A-1001", 10, None), "idempotency_key"),
    (("A-1001", 10, "k" * 256), "at most 255"),
])
def test_malformed_requests_are_refused_before_anything_happens(args, match):
    pay = Payments(script=["timeout"])
    with pytest.raises(ValueError, match=match):
        pay.refund(*args)
    assert pay.refunds == [] and pay.requests == []
    with pytest.raises(PaymentTimeout):  # the scripted outcome was not used up
        pay.refund("A-1001", 10, "k")


def test_the_key_is_required_and_the_script_is_checked():
    with pytest.raises(TypeError):
        Payments().refund("A-1001", 2450)
    with pytest.raises(ValueError, match="unknown outcome"):
        Payments(script=["slow"])


def test_state_is_per_instance():
    a, b = Payments(script=["timeout"]), Payments()
    assert b.refund("A-1001", 2450, "k")["refund_id"] == "rf_0001"
    assert a.refunds == [] and a.refund.__self__ is a
    with pytest.raises(PaymentTimeout):
        a.refund("A-1001", 2450, "k")


def test_a_private_copy_of_the_workbook_raises_a_timeout_the_callers_except_catches():
    from workbook.checks import fresh

    copy = fresh().payments
    assert copy.Payments is not Payments
    try:
        copy.Payments(script=["timeout"]).refund("A-1001", 2450, "k")
    except PaymentTimeout:  # the name a student's tool imported from the shared workbook
        pass
