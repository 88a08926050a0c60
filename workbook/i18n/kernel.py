"""In a learner's kernel: the test cells' messages in the notebook's language.

The code cells of a translated chapter are the English edition's, byte for byte (one set of tests
grades both editions), so an assert says its message in English. When the kernel's language
(`workbook.i18n.current()`: its notebook's metadata, else AGENT_LOOP_LANG) is not English, two
hooks translate what the learner reads, at display time, with the language's catalog:

- IPython's custom exception handler, for AssertionError and NotImplementedError: the message
  (`assert ..., "..."`, a helper's failure, the stub's "not answered yet") is translated, then
  IPython shows the traceback as usual;
- a hook on the kernel's stdout: a printed line that a template made ("first_reply: visible tests
  passed") is translated.

`import workbook` installs them (every test cell imports `workbook.checks`), once per kernel.
Nothing here runs outside a kernel: IPython is looked up, never imported, so the judge and the
command line pay nothing. Graded, a test cell runs in the judge and no hook is involved: a
translation only ever changes what is shown, never what is decided.
"""

from __future__ import annotations

import sys
from typing import Any

from workbook.i18n import ENGLISH, current, translate

MARK = "_workbook_language"  # set on the shell once the hooks are in
MAX_LINE = 2000  # longer printed lines are left as they are
SHOWN_IN = (AssertionError, NotImplementedError)


def retell(error: BaseException, lang: str) -> None:
    """Give `error` its message in `lang` when it has one plain message that a template made."""
    args: tuple = getattr(error, "args", ())
    if len(args) == 1 and type(args[0]) is str and str(error) == args[0]:
        said = translate(lang, args[0])
        if said != args[0]:
            error.args = (said,)


def lines_in(lang: str, text: str) -> str:
    """Each whole line of `text` that a template made, in `lang`."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        out.append(translate(lang, body) + line[len(body):] if len(body) <= MAX_LINE else line)
    return "".join(out)


def _exception_handler(lang: str):
    def shown(shell, etype, value, tb, tb_offset=None):
        retell(value, lang)
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)

    return shown


def _stream_hook(lang: str):
    def hook(msg):
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            content["text"] = lines_in(lang, content["text"])
        return msg

    return hook


def install() -> str | None:
    """In a kernel whose language is not English, install both hooks (once); return the kernel's
    language, or None outside a kernel."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "kernel", None) is None:
        return None
    if getattr(shell, MARK, None):
        return getattr(shell, MARK)
    lang = current()
    setattr(shell, MARK, lang)
    if lang == ENGLISH:
        return lang
    if not shell.custom_exceptions:  # a handler the notebook set itself stays
        shell.set_custom_exc(SHOWN_IN, _exception_handler(lang))
    stdout: Any = sys.stdout
    if callable(getattr(stdout, "register_hook", None)) and getattr(stdout, "pub_thread", None) is not None:
        # the hooks are the IO thread's own (thread-local): register it there
        stdout.pub_thread.schedule(lambda: stdout.register_hook(_stream_hook(lang)))
    return lang
