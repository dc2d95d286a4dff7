"""The CLI and the server triage a text the same way (issue 26): one function, compared on the zoo.

Each captured error is given to the real ``tpuwatch triage --json`` process as a log file, and to the
server as the agent would send it: the agent's own traceback assembler cuts the log into error events
(the traceback, with the lines before it as context) and the server classifies the last one, the error
that stopped the job. Both must name the same card (category and subtype), and the server's evidence
must be a line of the log (it may quote a later repeat of the line the CLI quotes: the agent sends
the 40 lines before the traceback, the CLI reads the whole log).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tpuwatch.server.triage.engine import triage_error
from tpuwatch.server.triage.service import cards_for_error_event
from tpuwatch.tracebacks import TracebackAssembler

HERE = Path(__file__).parent
SOURCES = [
    HERE / "zoo" / "captured.jsonl",
    HERE / "supplement" / "captured.jsonl",
    HERE / "shapes" / "captured.jsonl",
]


def _rows() -> list[dict]:
    return [json.loads(line) for path in SOURCES for line in path.read_text().splitlines() if line.strip()]


def _last_event(text: str):
    assembler = TracebackAssembler()
    events = []
    for number, line in enumerate(text.splitlines(), 1):
        events += assembler.feed(line, number)
    events += assembler.flush()
    return events[-1] if events else None


def test_cli_and_server_name_the_same_card_for_every_zoo_error(tmp_path):
    rows = _rows()
    files = []
    for i, row in enumerate(rows):
        path = tmp_path / f"{i}.log"
        path.write_text(row["text"])
        files.append(str(path))
    proc = subprocess.run(
        [sys.executable, "-m", "tpuwatch.cli", "triage", "--json", *files],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    cli = [json.loads(line)["cards"] for line in proc.stdout.splitlines()]
    assert len(cli) == len(rows)
    compared, differ = 0, []
    for row, cards in zip(rows, cli, strict=True):
        event = _last_event(row["text"])
        if event is None:  # no traceback: the agent sends no error event (glog F lines aside)
            continue
        server = cards_for_error_event(event.text, {"context": event.context})
        compared += 1
        said_cli = (cards[0]["category"], cards[0]["subtype"]) if cards else ("unknown", "")
        said_server = (server[0]["category"], server[0]["subtype"]) if server else ("unknown", "")
        if said_cli != said_server:
            differ.append((row["id"], said_cli, said_server))
        elif server and server[0]["evidence"][:40] not in row["text"]:
            differ.append((row["id"], "evidence not in the log", server[0]["evidence"]))
    assert compared >= 0.9 * len(rows)
    assert not differ, differ[:5]


def test_error_lines_count_from_the_message_and_context_lines_have_none():
    cards = triage_error("Traceback (most recent call last):\nValueError: bad input", ["step 1", "step 2"])
    assert cards == [] or cards[0].line in (None, 1, 2)
    cards = triage_error("RuntimeError: stopping", ["step 3 loss inf"])
    assert cards[0].category == "nan_inf" and cards[0].line is None
    cards = triage_error("step 3 loss inf\nRuntimeError: stopping", ["step 2 loss 0.4"])
    assert cards[0].category == "nan_inf" and cards[0].line == 1
