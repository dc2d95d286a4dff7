#!/usr/bin/env python3
"""Run the supplement's scripts on the CPU and record what they print (captured.jsonl).

The failure zoo (``tests/triage/zoo``) is the main training and cross-validation set of the triage
scorer; these scripts add real errors of the categories the scorer must also learn to weigh
(shape mismatches, input pipelines, checkpoints, strategies, numerics, lost peers). Each script
under scripts/<family>/<framework>_<variant>.py makes one mistake and must fail; its docstring
names the mistake, then ``label:`` and ``family:``. Run: ``python tests/triage/supplement/capture.py``.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAX_TEXT = 64 * 1024


def header(path: Path) -> dict:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    fields = {"mistake": doc.splitlines()[0] if doc else ""}
    for line in doc.splitlines()[1:]:
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("label", "family"):
            fields[key.strip()] = value.strip()
    if fields.get("family") != path.parent.name:
        raise SystemExit(f"{path}: family must be its folder's name")
    return fields


def run(path: Path) -> tuple[int | None, str]:
    env = dict(os.environ, JAX_PLATFORMS="cpu", CUDA_VISIBLE_DEVICES="", PYTHONUNBUFFERED="1")
    with tempfile.TemporaryDirectory(prefix="supplement-") as scratch:
        try:
            proc = subprocess.run(
                [sys.executable, str(path)],
                cwd=scratch,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=120,
            )
        except subprocess.TimeoutExpired as exc:
            return None, (exc.output or b"").decode("utf-8", "replace")
    text = proc.stdout.decode("utf-8", "replace")
    return proc.returncode, text[-MAX_TEXT:]


def main() -> int:
    scripts = sorted((HERE / "scripts").glob("*/*.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, scripts))
    bad = []
    with open(HERE / "captured.jsonl", "w") as out:
        for path, (code, text) in zip(scripts, results, strict=False):
            h = header(path)
            rid = f"{path.parent.name}/{path.stem}"
            print(f"{rid}: exit {code}")
            if not code:
                bad.append(rid)
            record = {
                "id": rid,
                "family": h["family"],
                "framework": path.stem.split("_", 1)[0],
                "label": h["label"],
                "mistake": h["mistake"],
                "exit_code": code,
                "text": text,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    if bad:
        print("these scripts did not fail: " + ", ".join(bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
