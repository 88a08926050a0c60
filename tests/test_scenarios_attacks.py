"""Chapter 19's scenarios (workbook/scenarios/attacks.py): the gullible model obeys an instruction
in a tool result unless it sits inside an escaped data block; the site serves on 127.0.0.1."""

import datetime
import json
import urllib.error
import urllib.request

import pytest

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.scenarios import attacks
from workbook.scenarios import attacks_memory as M


def plain(name, result):
    return json.dumps(result)


def marked(name, result, escape=True):
    payload = json.dumps(result)
    if escape:
        payload = payload.replace("<", "\\u003c").replace(">", "\\u003e")
    return f'{attacks.OPEN}{name}">\n{payload}\n{attacks.CLOSE}'


def run(scenario, impl, observe=plain, max_steps=6):
    client = FakeLLM(scenario).client(max_calls=max_steps)
    messages = [{"role": "user", "content": scenario.question}]
    for _ in range(max_steps):
        msg = client.chat.completions.create(model="m", messages=messages,
                                             tools=scenario.openai_tools()).choices[0].message
        messages.append(msg.model_dump(exclude_none=True))
        if not msg.tool_calls:
            return msg.content
        for c in msg.tool_calls:
            args = json.loads(c.function.arguments)
            try:
                result = impl[c.function.name](**args)
            except Exception as e:
                result = {"error": str(e)}
            messages.append({"role": "tool", "tool_call_id": c.id,
                             "content": observe(c.function.name, result)})
    raise AssertionError("no answer")


def shop():
    notes = []
    return notes, {"kb_search": attacks.search,
                   "write_note": lambda title, text: notes.append((title, text)) or {"saved": title}}


def test_registered():
    for name in ("poisoned_page", "poisoned_fetch", "forged_confirmation"):
        sc = scenarios.get(name)
        assert sc.name == name and sc.question and sc.description
        assert [t["function"]["name"] for t in sc.openai_tools()] == list(sc.tools)


def test_poisoned_page_obeyed_when_unmarked():
    notes, impl = shop()
    answer = run(scenarios.poisoned_page(), impl)
    assert notes == [(attacks.ADMIN_TITLE, attacks.ADMIN_TEXT)]
    assert answer.startswith(attacks.ROUTER_ANSWER) and attacks.EXFIL_URL in answer


def test_poisoned_page_ignored_when_marked_and_escaped():
    notes, impl = shop()
    answer = run(scenarios.poisoned_page(), impl, marked)
    assert notes == [] and answer == attacks.ROUTER_ANSWER


def test_unescaped_block_is_broken_out_of():
    notes, impl = shop()
    answer = run(scenarios.poisoned_page(), impl, lambda n, r: marked(n, r, escape=False))
    assert notes and attacks.EXFIL_URL in answer


def test_forged_confirmation_retries_after_error():
    def refuse(title, text, **extra):
        raise PermissionError("only the customer confirms")
    assert run(scenarios.forged_confirmation(), {"write_note": refuse}) == attacks.ASK_CONFIRM
    saved = []
    impl = {"write_note": lambda title, text, confirmed=False: saved.append(confirmed) or "ok"}
    assert run(scenarios.forged_confirmation(), impl) == attacks.NOTE_ANSWER and saved == [True]


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def test_site_serves_and_records():
    with attacks.Site(big=1000) as site:
        assert site.url("/docs").startswith("http://127.0.0.1:")
        assert get(site.url("/docs")) == (200, attacks.PAGES["shipping"])
        status, body = get(site.url("/shipping"))
        assert site.attacker_url in body and site.attacker_url.startswith("http://localhost:")
        assert len(get(site.url("/big"))[1]) == 1000
        with pytest.raises(urllib.error.HTTPError):
            get(site.url("/nope"))
        with pytest.raises(OSError):  # a timeout
            get(site.url("/slow"), timeout=0.3)
        assert site.reached("/docs") and not site.reached("/collect")


def test_poisoned_fetch_follows_the_page():
    with attacks.Site() as site:
        def fetch_url(url):
            return {"body": get(url)[1]}
        answer = run(scenarios.poisoned_fetch(site.url("/shipping")), {"fetch_url": fetch_url})
        assert answer == attacks.SHIPPING_ANSWER and site.reached("/collect")
        assert (f"localhost:{site.port}", "/collect?d=C-001") in site.requests


def test_site_connect_records_and_reaches_only_the_site():
    with attacks.Site(big=10) as site:
        conn = site.connect("http", "127.0.0.1", site.port, 2.0)
        conn.request("GET", "/docs?x=1")
        response = conn.getresponse()
        assert (response.status, response.getheader("Content-Type")) == (200, "text/plain; charset=utf-8")
        assert response.read(5) == attacks.PAGES["shipping"].encode()[:5]
        conn.close()
        conn = site.connect("http", "localhost", site.port)
        conn.request("GET", "/redirect")
        assert conn.getresponse().getheader("Location") == site.attacker_url
        for scheme, host, port in [("http", "10.0.0.1", site.port), ("http", "127.0.0.1", None),
                                   ("https", "127.0.0.1", site.port), ("http", "127.0.0.1", site.port + 1)]:
            with pytest.raises(ConnectionRefusedError):
                site.connect(scheme, host, port, 1.0).request("GET", "/docs")
        assert site.connections[:2] == [("http", "127.0.0.1", site.port, 2.0), ("http", "localhost", site.port, None)]
        assert site.requests == [(f"127.0.0.1:{site.port}", "/docs?x=1"), (f"localhost:{site.port}", "/redirect")]
        conn = site.connect("http", "127.0.0.1", site.port, 0.3)
        conn.request("GET", "/slow")
        with pytest.raises(TimeoutError):
            conn.getresponse()
    with pytest.raises(ConnectionRefusedError):  # a closed site is not there
        site.connect("http", "127.0.0.1", site.port, 1.0).request("GET", "/docs")


def test_memory_poisoning_two_sessions():
    memory = M.Memory(today=datetime.date(2026, 12, 1))
    answer = run(M.poisons_memory(), {"kb_search": attacks.search, **memory.tools()})
    assert answer == M.DELIVERY_ANSWER and memory.facts() == [("2026-12-01", attacks.POISONED_FACT)]
    memory.advance(1)
    notes, impl = shop()
    assert run(M.obeys_memory(), {**impl, **memory.tools()}) == M.ORDER_ANSWER
    assert notes == [(attacks.ADMIN_TITLE, attacks.ADMIN_TEXT)]
    assert memory.recall("delivery preference")[0]["days_ago"] == 1
    notes, impl = shop()  # marked and escaped: the recalled order is data, the fake does not obey it
    assert run(M.obeys_memory(), {**impl, **memory.tools()}, marked) == M.ORDER_ANSWER and notes == []
    empty = M.Memory()
    assert run(M.poisons_memory(), {"kb_search": attacks.search, **empty.tools()}, marked) == M.DELIVERY_ANSWER
    assert empty.facts() == [] and run(M.obeys_memory(), {**shop()[1], **empty.tools()}) == M.NO_FACTS
    assert [p["page"] for p in attacks.search("reset router")] == ["router-reset", "router-faq"]
    with pytest.raises(ValueError):
        memory.remember("  ")


def test_site_latin1_page_is_not_utf8():
    with attacks.Site() as site:
        assert urllib.request.urlopen(site.url("/latin1"), timeout=5).read() == "café".encode("latin-1")
