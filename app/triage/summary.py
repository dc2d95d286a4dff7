"""The line that says what happened.

Frameworks wrap the real message in preambles: TensorFlow's ``Graph execution error:`` (the message
follows the frames of ``Detected at node ...``), ``in user code:``, ``2 root error(s) found.``,
Keras 3's ``Exception encountered when calling Reshape.call().``. Alerts, unknown-error groups and
cards quote the line after the preamble, never the preamble, a traceback header or a frame, and
never tpuwatch's own agent output.

>>> summary_line('''tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:
...
... Detected at node model/reshape/Reshape defined at (most recent call last):
...   File "train.py", line 9, in <module>
...
... Input to reshape is a tensor with 16384 values, but the requested shape has 8192
... \t [[{{node model/reshape/Reshape}}]] [Op:__inference_train_function_912]''')
'Input to reshape is a tensor with 16384 values, but the requested shape has 8192'
"""

from __future__ import annotations

import re

from .structure import ErrorDoc, is_own_line, parse

_PREAMBLE = re.compile(
    r"^(?:"
    r"Graph execution error:?|in user code:|Exception encountered when calling .*|"
    r"\d+ root error\(s\) found\.?|From /job:[^ ]+:|Detected at node .*|Caused by op .*|"
    r"\[\[.*|-{4,}.*|=+|For simplicity, JAX has removed .*|Arguments received by .*|•.*|"
    r"Additional GRPC error information.*|\d+ successful operations?\.?|\d+ derived errors? ignored\.?|"
    r"Recent warning and error logs:?|Traceback \(most recent call last\):?|"
    r"The above exception was the direct cause.*|During handling of the above exception.*|"
    r"Errors may have originated from an input operation\.?|Input Source operations connected to.*|"
    r"Function call stack:.*|Call arguments received by .*|See above for more details\.?|"
    r"Encountered an error while .*:|"
    r"Could not automatically infer the output shape.*Error encountered:|"
    r"To get the full stack trace, call:.*|\{\{function_node [^}]*\}\}"
    r")$"
)
_MAX = 400


def is_preamble(line: str) -> bool:
    """True for a line that announces an error without saying what it is."""
    body = line.strip()
    if not body:
        return True
    m = re.match(r"^[\w.]*(?:Error|Exception): ?(.*)$", body)
    if m:
        body = m.group(1).strip()
        if not body:
            return True
    body = re.sub(r"^\(\d+\) \w[\w ]*: ", "", body)
    body = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", body)
    return bool(_PREAMBLE.match(body)) or body.startswith(('File "', "File ~"))


def summary(doc: ErrorDoc) -> tuple[int | None, str]:
    """(line number, text) of the line that says what happened in a parsed error."""
    chain_start = len(doc.exceptions) - 1
    while chain_start > 0 and doc.exceptions[chain_start].chained:
        chain_start -= 1
    candidates = doc.exceptions[chain_start:] + doc.exceptions[:chain_start]
    for exc in candidates:
        for i, text in enumerate(exc.message):
            if not is_preamble(text):
                if i == 0:  # the exception line itself, as printed
                    return exc.line, _line_text(doc, exc.line, text)
                return _find(doc, text, exc.line), text[:_MAX]
    for number, text in doc.checks[:1] + doc.error_lines[:1]:
        return number, text[:_MAX]
    for exc in candidates:
        return exc.line, exc.qualname
    for number, text in reversed(doc.lines):
        if not is_preamble(text):
            return number, text[:_MAX]
    return None, ""


def summary_line(text: str) -> str:
    """The line of an error text (or log) that says what happened, for alerts and titles.

    tpuwatch's own agent lines are skipped; an empty string means the text holds nothing.
    """
    text = "\n".join(line for line in text.splitlines() if not is_own_line(line))
    return summary(parse(text))[1]


def _line_text(doc: ErrorDoc, number: int, fallback: str) -> str:
    for n, text in reversed(doc.lines):
        if n == number:
            return text[:_MAX]
        if n < number:
            break
    return fallback[:_MAX]


def _find(doc: ErrorDoc, text: str, after: int) -> int | None:
    for n, line in doc.lines:
        if n >= after and line == text:
            return n
    return None
