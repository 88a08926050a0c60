"""What the notebook said while it was judged, so a hidden test's message never carries it out.

A hidden test's feedback shows its error name and message: words the grader wrote, and values the
message quotes ("got {x!r}"). The notebook's code sees what a hidden test hands it (arguments, a
tool's docstring and signature, the fake model's replies) and chooses what it sends back, so a
value it sends, an exception message it raises or an HTTP body it posts could carry hidden test
text into that message (red team, issue 44: a `@tool` that raised with the docstring of the
function the hidden test registered). Every text the kernel sends is heard here, and a hidden
test's message has each one of at least MIN_CHARS characters (and each of its lines, and its
escaped form as `repr` shows it) replaced before it leaves the judge. Short texts and numbers stay
(a count, a status, a tool's name), so most messages still say what was wrong.

Short pieces can still carry text out (red team: a result cut into 11-character strings, echoed by
"got {x!r}"), so such a message also has every value it quotes masked (`mask_values`): a quoted
string, a bracketed group that holds quotes, digits or punctuation, a long number. The grader's
words stay; the values become VALUE. The judge does both for a hidden test and for every test after
it (by then the notebook has seen hidden inputs it could send back through a visible test).

Names are texts too. The notebook names its classes and functions, and a test's message may say a
name ("got {type(x).__name__}"): red team 5 named a record class after the first 11 characters of
a hidden tool's docstring. Every class name a value came back as (a record, a named tuple, a model,
an exception) and every name of a kernel function is kept, whatever its length, and a quiet message
has each one that its test's own source does not say replaced by NAME.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable

MIN_CHARS = 12  # shorter texts are names and values a message needs ("refund", "STOPPED: timeout")
MAX_TEXTS = 20_000  # texts kept (past it, the longest are kept: they carry the most)
MAX_WALK = 200_000  # parts of one message walked
REDACTED = "[text from your notebook]"  # what a hidden test's message shows in its place
VALUE = "[…]"  # what a quoted value in such a message becomes
NAME = "[a name from your notebook]"  # what a name the notebook chose becomes
UNREAD = ("the message is not shown: your notebook sent the grader more at once than it reads "
          "for its messages")  # a quiet message once a message from the kernel was too big to read whole
# Keys of the link's data whose value is a class path ("module:Name") or a name the notebook chose.
NAMED = ("$rec", "$nt", "$pyd", "$sdk", "$e")
HANDLE_NAMES = ("name", "short")  # a handle's ($h) names: its function's or class's
_QUOTED = re.compile(r"""(?<![\w])(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")(?![\w])""")
# A string `compare.short` cut: its opening quote, then no closing one before "... (N chars)".
_CUT = re.compile(r"""(?<![\w])['"][^\n]*?\.\.\. \(\d+ chars\)""")
_NUMBER = re.compile(r"-?\b\d{6,}\b")
_OPEN, _CLOSE = "([{", ")]}"


def mask_values(message: str) -> str:
    """`message` with the values it quotes replaced by VALUE: quoted strings, then bracketed groups
    holding quotes, digits, commas or colons (a repr of a list, a tuple, a dict), then long numbers.
    A group of plain words ("(hashlib)") stays; a group the message never closes is a value cut
    short, and goes to the end (red team 17: a record's repr cut at its length cap)."""
    message = _QUOTED.sub(VALUE, _CUT.sub(VALUE, message))
    out: list[str] = []
    stack: list[tuple[int, str]] = []  # stack: (where the group starts in out, its opening bracket)
    for ch in message:
        if ch in _OPEN:
            stack.append((len(out), ch))
            out.append(ch)
        elif ch in _CLOSE and stack and _OPEN.index(stack[-1][1]) == _CLOSE.index(ch):
            start, _ = stack.pop()
            inner = "".join(out[start + 1:])
            if VALUE in inner or any(c.isdigit() or c in ",:=" for c in inner):
                del out[start:]
                out.append(VALUE)
            else:
                out.append(ch)
        else:
            out.append(ch)
    if stack:
        del out[stack[0][0]:]
        out.append(VALUE)
    return _NUMBER.sub(VALUE, "".join(out))


def plain(text: str) -> str:
    """`text` without format characters (zero-width spaces and joiners, marks of direction):
    invisible on a page, they would keep a text the notebook sent from matching (red team 17)."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf") if not text.isascii() else text


class Heard:
    """The texts a notebook sent while it was judged.

    What the kernel sends is kept as it came (a message's raw JSON, or a copy of an HTTP body) and
    read only when a quiet message needs it (`redact`), or when PENDING items are waiting: most
    tests pass, and their messages are never redacted (reading every message as it came cost ~17 s
    of CPU over the gates' run). Nothing changes the raw JSON afterwards: the link reads it into
    new lists and dicts (codec.Decoder); only an SDK model's untyped field may hold a part of it
    as it is, and only the grader's own test code, never the notebook, holds that model."""

    PENDING = 4_096  # messages kept unread; past it, they are read into texts and names

    def __init__(self) -> None:
        self._texts: set[str] = set()
        self._names: set[str] = set()
        self._pending: list[tuple[bool, object]] = []  # (is an HTTP body, the data)
        self.unread = False  # a message had more parts than MAX_WALK: what it held is not known

    @property
    def texts(self) -> set[str]:
        self._read()
        return self._texts

    @property
    def names(self) -> set[str]:
        self._read()
        return self._names

    def add(self, data: object) -> None:
        """Every string in a message from the kernel (JSON data: dicts, lists, strings)."""
        self._keep(False, data)

    def add_body(self, body: bytes) -> None:
        """An HTTP body the kernel's SDK client posted: its JSON's strings, or its text."""
        self._keep(True, bytes(body))

    def _keep(self, body: bool, data: object) -> None:
        self._pending.append((body, data))
        if len(self._pending) > self.PENDING:
            self._read()

    def _read(self) -> None:
        pending, self._pending = self._pending, []
        for body, data in pending:
            if body:
                self._read_body(data)
            else:
                self._walk(data)

    def _walk(self, data: object) -> None:
        stack, budget = [data], MAX_WALK
        while stack and budget > 0:
            value = stack.pop()
            budget -= 1
            if type(value) is str:
                self.add_text(value)
            elif type(value) is dict:
                self._names_in(value)
                stack.extend(value.keys())
                stack.extend(value.values())
            elif type(value) is list:
                stack.extend(value)
        self.unread = self.unread or bool(stack)

    def _read_body(self, body) -> None:
        text = body.decode("utf-8", "replace")
        try:
            self._walk(json.loads(text))
        except ValueError:
            self.add_text(text)

    def add_text(self, text: str) -> None:
        # a class path "module:Name" too: its parts are names the notebook chose (red team 3)
        text = plain(text)
        for piece in (text, *text.splitlines(), repr(text)[1:-1], *re.split(r"[:.]", text)):
            piece = piece.strip()
            if len(piece) >= MIN_CHARS:
                self._texts.add(piece)
        if len(self._texts) > MAX_TEXTS:
            self._texts = set(sorted(self._texts, key=len, reverse=True)[:MAX_TEXTS // 2])

    def _names_in(self, node: dict) -> None:
        paths = [node.get(tag) for tag in NAMED]
        if "$h" in node:
            paths += [node.get(key) for key in HANDLE_NAMES]
        for path in paths:
            if type(path) is str and len(self._names) < MAX_TEXTS:
                self._names.update(p for p in re.split(r"[:.<>]", plain(path[:1000])) if p.isidentifier())
        fields = node.get("f") if "$rec" in node else node.get("v") if "$pyd" in node else None
        if type(fields) is dict and len(self._names) < MAX_TEXTS:  # a record's field names are its own
            self._names.update(n for n in map(plain, fields) if 0 < len(n) <= 1000)

    def redact(self, message: str, source: str = "", keep: Iterable[str] = ()) -> str:
        """`message` with every text the notebook sent (the longest first) replaced, but those in
        `keep` (the chapter's exercise names, which come back as its functions' names), and every
        name it chose that `source` (the test's own code) does not say. Only UNREAD once a message
        from the notebook was too big to read whole (red team 17 hid names behind 200,000 parts)."""
        self._read()
        if self.unread:
            return UNREAD
        message = plain(message)
        texts = self.texts - set(keep)  # an exercise's name is the course's word (red team 17)
        for text in sorted((t for t in texts if t in message), key=len, reverse=True):
            message = message.replace(text, REDACTED)
        for text in sorted((t for t in texts if t[:MIN_CHARS] in message), key=len, reverse=True):
            message = cut_short(message, text, REDACTED)  # a long text, cut short
        own = set(re.findall(r"\w+", source))
        for name in sorted((n for n in self.names if n not in own and n in message), key=len, reverse=True):
            message = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", NAME, message)
        for name in (n for n in self.names if len(n) >= MIN_CHARS and n[:MIN_CHARS] in message):
            message = cut_short(message, name, NAME)  # a long name, cut short
        return message


CUT_MARKS = ("...", "…")  # what follows a value a message cut short (`compare.short`), else its end


def cut_short(message: str, text: str, said: str) -> str:
    """`message` with the start of `text` it shows, where it cut `text` short ("'abc... (300
    chars)", red team 16, or the message's own end), replaced by `said`. The longest start of at
    least MIN_CHARS it holds; a start followed by anything else is the grader's words, and stays."""
    low, high = MIN_CHARS, len(text)  # holding a start means holding every shorter one
    while low < high:
        mid = (low + high + 1) // 2
        if text[:mid] in message:
            low = mid
        else:
            high = mid - 1
    start = text[:low]
    for mark in CUT_MARKS:
        message = message.replace(start + mark, said + mark)
    return message[: -len(start)] + said if message.endswith(start) else message
