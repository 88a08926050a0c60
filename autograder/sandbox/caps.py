"""Bounds on every byte the grader keeps of what a kernel sends back (issue 25, item 2).

Each output message is first cut field by field (an error's `ename`, `evalue` and each traceback
frame, the number of frames, an output's metadata), then charged, as the bytes of its JSON text,
to its cell (`cell_bytes`, `Limits.output_chars`) and to the notebook (`NOTEBOOK_BYTES`). What
does not fit is dropped, and the cell gets one short marker saying so. The first error of a cell
is always kept, cut to a few hundred bytes, even past both caps: it decides the cell's score.

So an autograded notebook is at most its sources plus `ceiling(code_cells)` bytes of outputs
(and the grader's own metadata), whatever the kernel sends.

Before any of that, a message must be read: the grader's sockets to a kernel refuse a message part
over MAX_MESSAGE bytes (ZMQ_MAXMSGSIZE: the kernel's socket is disconnected before the part is
buffered). A red team's cell published four 400 MB displays, and the grader's worker held
2-2.8 GB parsing them (red team 13). Past the cap the kernel's messages are lost from there on, so
its cell never says it ended: it is ended as unresponsive, and the notebook's row says `timeout`
(the notebook's own doing; a plot, a table or any print a learner makes is far under 64 MB).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import zmq
from jupyter_client.manager import AsyncKernelManager

ENAME = 100  # characters of an exception's name
EVALUE = 4_000  # characters of its message
FRAME = 1_500  # characters of one traceback frame
FRAMES = 40  # frames kept: the first FRAMES // 5 and the last, a marker between
METADATA = 4_000  # bytes of one output's metadata (JSON)
MAX_OUTPUTS = 200  # outputs per cell
NOTEBOOK_BYTES = 2_000_000  # outputs of one notebook, all cells together
FIRST_ERROR = (80, 300)  # a cell's first error past the caps: name and message, cut to these
MARK = "... dropped by the grader ..."
ITEM = 8  # bytes of JSON around one list item or dict entry (comma, newline, indentation)
LINE = 12  # bytes nbformat adds per line of text (each line its own indented, quoted string)
OUTPUT = 100  # bytes of JSON around one output (its keys, output_type, indentation)
# What a cell may hold beyond its share of NOTEBOOK_BYTES: its first error and its reply's error,
# short (at most 6 bytes a character once escaped), and a marker.
CELL_EXTRA = 12_000
OUTPUT_KINDS = ("stream", "display_data", "execute_result", "error")
MAX_MESSAGE = 64 << 20  # bytes of one part of a message the grader reads from a kernel


class CappedKernelManager(AsyncKernelManager):
    """A kernel manager whose clients' sockets read no message part over MAX_MESSAGE bytes."""

    def client(self, **kwargs):
        kc = super().client(**kwargs)
        kc.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)  # the client's own context: sockets made later take it
        return kc


def ceiling(code_cells: int) -> int:
    """The most bytes of outputs an autograded notebook can hold."""
    return NOTEBOOK_BYTES + code_cells * CELL_EXTRA


def text_bytes(value: str) -> int:
    """Bytes of `value` as a JSON string in a notebook file, at least: escapes and UTF-8 counted,
    and each line as nbformat writes it (its own quoted, indented string)."""
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")) + LINE * value.count("\n")


def measure(value, limit: int) -> int:
    """Bytes of `value` as JSON, counted only up to a little past `limit` (a huge or deeply
    nested value costs no more time than `limit` does)."""
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += text_bytes(item[:limit + 1])
        elif isinstance(item, dict):
            total += 2 + ITEM * len(item)
            stack.extend(k for k in list(item)[:limit] if isinstance(k, str))
            stack.extend(list(item.values())[:limit])
        elif isinstance(item, (list, tuple)):
            total += 2 + ITEM * len(item)
            stack.extend(item[:limit])
        else:
            total += len(str(item)[:limit]) if isinstance(item, (int, float, bool)) or item is None else limit + 1
    return total


def cut(text, limit: int, what: str) -> str:
    """`text` (made a string) at most `limit` characters, with a marker if it was longer."""
    text = text if isinstance(text, str) else f"<{type(text).__name__}, not text>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit}+ characters of {what} {MARK[4:-4]}]"


def shrink_error(content: dict, ename: int = ENAME, evalue: int = EVALUE) -> dict:
    """An error's content with each field within its cap; traceback frames cut and counted."""
    frames = content.get("traceback")
    frames = list(frames[:FRAMES * 10]) if isinstance(frames, list) else []
    if len(frames) > FRAMES:
        head = FRAMES // 5
        frames = frames[:head] + [f"... [{len(frames) - FRAMES}+ traceback frames {MARK[4:-4]}]"] + frames[-(FRAMES - head):]
    return {"ename": cut(content.get("ename", "Error"), ename, "the error's name"),
            "evalue": cut(content.get("evalue", ""), evalue, "the error's message"),
            "traceback": [cut(f, FRAME, "a traceback frame") for f in frames]}


def first_error(content: dict) -> dict:
    """A cell's first error when it does not fit: its name and message, short, as one frame."""
    short = shrink_error({"ename": content.get("ename", "Error"), "evalue": content.get("evalue", "")}, *FIRST_ERROR)
    return {**short, "traceback": [f"{short['ename']}: {short['evalue']}"]}


def reply_error(content: dict, outputs: list) -> dict:
    """An execute_reply's error as nbgrader may copy it into the cell (it does when no error output
    has the reply's name): the name of the error the cell kept, or the reply's error, short."""
    content = content if isinstance(content, dict) else {}
    raw = content.get("ename", "Error")
    names = {cut(raw, ENAME, "the error's name"), first_error({"ename": raw})["ename"]}
    kept = next((o for o in outputs if o.get("output_type") == "error" and o.get("ename") in names), None)
    if kept is not None:
        return {**content, "ename": kept["ename"], "evalue": "", "traceback": []}
    return {**content, **first_error(content)}


def shrink_metadata(metadata) -> dict:
    if not isinstance(metadata, dict):
        return {}
    size = measure(metadata, METADATA)
    return metadata if size <= METADATA else {"autograder": f"metadata of {size}+ bytes {MARK[4:-4]}"}


def shrink(kind: str, content: dict) -> dict:
    """A copy of a message's content with every field within its own cap (not yet charged)."""
    if kind == "error":
        return shrink_error(content)
    if kind == "stream":
        name = content.get("name")
        return {"name": name if name in ("stdout", "stderr") else "stdout", "text": content.get("text", "")}
    data = content.get("data")
    kept = {**{k: v for k, v in content.items() if k == "execution_count"},
            "data": data if isinstance(data, dict) else {}, "metadata": shrink_metadata(content.get("metadata"))}
    return kept


@dataclass
class Ledger:
    """What one notebook's outputs have cost so far, per cell and in all."""

    cell_bytes: int = 100_000
    notebook_bytes: int = NOTEBOOK_BYTES
    used: dict[int, int] = field(default_factory=dict)
    total: int = 0
    errors: set[int] = field(default_factory=set)  # cells that kept an error
    marked: set[int] = field(default_factory=set)  # cells that got their marker

    def admit(self, cell: int, kind: str, content: dict, outputs: int) -> tuple[dict | None, str | None]:
        """(content to keep or None, a marker to append after it or None) for one output message."""
        content = content if isinstance(content, dict) else {}
        if kind not in OUTPUT_KINDS:
            return content, None
        kept = shrink(kind, content)
        room = max(0, min(self.cell_bytes - self.used.get(cell, 0), self.notebook_bytes - self.total))
        cost = measure(kept, room) + OUTPUT
        open_ = outputs < MAX_OUTPUTS and cell not in self.marked
        if open_ and cost <= room:
            self._charge(cell, cost, kind)
            return kept, None
        if open_ and kind == "stream":  # what fits, then the marker
            kept["text"] = kept["text"][:max(room - 2 * OUTPUT, 0)]
            cost = measure(kept, room) + OUTPUT
            if kept["text"] and cost <= room:
                self._charge(cell, cost, kind)
                return kept, self._marker(cell)
        marker = self._marker(cell)
        if kind == "error" and cell not in self.errors:
            kept = first_error(content)
            self._charge(cell, measure(kept, CELL_EXTRA) + OUTPUT, kind)
            return kept, marker
        return None, marker

    def _charge(self, cell: int, cost: int, kind: str) -> None:
        self.used[cell] = self.used.get(cell, 0) + cost
        self.total += cost
        if kind == "error":
            self.errors.add(cell)

    def _marker(self, cell: int) -> str | None:
        if cell in self.marked:
            return None
        self.marked.add(cell)
        if self.total >= self.notebook_bytes:
            return f"\n... the notebook's output is over {self.notebook_bytes} bytes: the rest {MARK[4:]}\n"
        return f"\n... output over {self.cell_bytes} bytes per cell (or {MAX_OUTPUTS} outputs) {MARK[4:]}\n"
