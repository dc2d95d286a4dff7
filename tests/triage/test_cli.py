"""`tpuwatch triage` as a user runs it: a real process, files, stdin, JSON and errors."""

from __future__ import annotations

import json
import subprocess
import sys

from . import logs

CMD = [sys.executable, "-m", "tpuwatch.cli", "triage"]


def _run(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_json_is_one_object_per_file_in_order(tmp_path):
    files = []
    for name, text in (("oom.log", logs.OOM_JAX), ("unknown.log", logs.UNKNOWN), ("fs.log", logs.LOCAL_FS)):
        path = tmp_path / name
        path.write_text(text)
        files.append(str(path))
    proc = _run("--json", *files)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["file"] for r in rows] == files
    assert [r["cards"][0]["category"] if r["cards"] else "unknown" for r in rows] == [
        "oom",
        "unknown",
        "local_filesystem",
    ]
    card = rows[0]["cards"][0]
    assert list(card) == [
        "category",
        "subtype",
        "title",
        "confidence",
        "evidence",
        "line",
        "explanation",
        "fixes",
    ]
    assert card["line"] == 26
    assert "Ran out of memory in memory space hbm" in card["evidence"]
    assert isinstance(card["fixes"], list) and card["fixes"]


def test_stdin_with_dash():
    proc = _run("--json", "-", stdin=logs.INPUT)
    assert proc.returncode == 0
    row = json.loads(proc.stdout)
    assert row["file"] == "-"
    assert row["cards"][0]["category"] == "input_pipeline"


def test_human_output_has_title_evidence_and_numbered_fixes(tmp_path):
    path = tmp_path / "train.log"
    path.write_text(logs.STRATEGY)
    proc = _run(str(path))
    assert proc.returncode == 0
    out = proc.stdout
    assert "[strategy_scope]" in out
    assert "line 4: ValueError: Trying to create optimizer slot variable" in out
    assert "in your code: /home/me/finetune.py:58" in out
    assert "\n    1. Create the model, the optimizer and the metrics" in out
    assert "\n    2. " in out


def test_human_output_for_unknown_names_the_root_error(tmp_path):
    path = tmp_path / "x.log"
    path.write_text(logs.UNKNOWN)
    out = _run(str(path)).stdout
    assert "unknown: no known error signature matched." in out
    assert "line 5: KeyError: 'learning_rate'" in out


def test_missing_file_is_a_clear_error_with_exit_2(tmp_path):
    good = tmp_path / "ok.log"
    good.write_text(logs.NAN_KERAS)
    proc = _run("--json", str(tmp_path / "nope.log"), str(good))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "cannot read" in proc.stderr and "nope.log" in proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows[0]["cards"] == [] and "error" in rows[0]
    assert rows[1]["cards"][0]["category"] == "nan_inf"


def test_large_log_streams_with_no_progress_when_stderr_is_not_a_terminal(tmp_path):
    path = tmp_path / "big.log"
    with path.open("w") as fh:
        for _ in range(400):  # ~30 MB of ordinary lines, the error near the end
            fh.write(logs.STEPS * 40)
        fh.write(logs.CONNECTION_JAX)
    proc = _run("--json", str(path))
    assert proc.returncode == 0
    assert proc.stderr == ""
    card = json.loads(proc.stdout)["cards"][0]
    assert card["category"] == "connection_loss"
    assert card["line"] == 400 * 40 * 20 + 22


def test_help_lists_triage():
    proc = subprocess.run(
        [sys.executable, "-m", "tpuwatch.cli", "--help"], capture_output=True, text=True, timeout=60
    )
    assert "triage" in proc.stdout
