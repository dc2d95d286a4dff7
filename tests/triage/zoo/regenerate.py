#!/usr/bin/env python3
"""Run every failure-zoo script on the CPU and record what a user would see.

Each script under scripts/<family>/<framework>_<variant>.py makes one training mistake and must
fail. This runner executes them with the current interpreter, captures stdout and stderr merged
into one stream (as a terminal shows them), and writes captured.jsonl: one JSON object per script,
sorted by id. It exits non-zero when a script exits 0 or times out, so a mistake that stops
failing after a framework upgrade is noticed.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tpuwatch.server.triage.features import CATEGORIES

ZOO = Path(__file__).resolve().parent
SCRIPTS = ZOO / "scripts"
# The labels a script may carry: the classifier's categories, and "unknown" for what none covers.
LABELS = (*CATEGORIES, "unknown")
FRAMEWORKS = ("tensorflow", "keras", "jax", "flax", "optax", "orbax", "tfdata", "grain", "torchxla")
# PyTorch/XLA lives in its own virtualenv (its torch pin conflicts with nothing here, but it is
# large and optional): torchxla scripts run with this interpreter, or are skipped when it is absent.
TORCH_PYTHON = Path(__file__).resolve().parents[3] / ".venv-torch" / "bin" / "python"
TORCH_PACKAGES = ("torch", "torch_xla", "numpy")
PACKAGES = (
    "tensorflow-cpu",
    "tensorflow",
    "keras",
    "jax",
    "jaxlib",
    "flax",
    "optax",
    "orbax-checkpoint",
    "grain",
    "numpy",
)
MAX_TEXT = 64 * 1024
HEAD = 8 * 1024
TAIL = 56 * 1024


class HeaderError(Exception):
    pass


def read_header(path: Path) -> dict:
    """The script's docstring: a one-line mistake, then `label:`, `family:` and optional `why:`."""
    doc = ast.get_docstring(ast.parse(path.read_text(), str(path)))
    if not doc:
        raise HeaderError(f"{path}: no docstring")
    lines = doc.splitlines()
    fields = {"mistake": lines[0].strip()}
    for line in lines[1:]:
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("label", "family", "why", "source"):
            fields[key.strip()] = value.strip()
    family = path.parent.name
    framework = path.stem.split("_", 1)[0]
    if fields.get("label") not in LABELS:
        raise HeaderError(f"{path}: label {fields.get('label')!r} is not one of {', '.join(LABELS)}")
    if fields.get("family") != family:
        raise HeaderError(f"{path}: family {fields.get('family')!r} differs from its folder {family!r}")
    if framework not in FRAMEWORKS or "_" not in path.stem:
        raise HeaderError(f"{path}: name must be <framework>_<variant>.py, framework one of {FRAMEWORKS}")
    fields["framework"] = framework
    return fields


def versions() -> dict:
    found = {}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    found["python"] = sys.version.split()[0]
    return found


def versions_of(python: Path, packages: tuple[str, ...]) -> dict:
    """The installed versions of packages in another interpreter's environment."""
    code = (
        "import importlib.metadata as m, json, sys\n"
        "v = {}\n"
        f"for n in {list(packages)!r}:\n"
        "    try: v[n] = m.version(n)\n"
        "    except m.PackageNotFoundError: pass\n"
        "v['python'] = sys.version.split()[0]\n"
        "print(json.dumps(v))"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def cut(raw: bytes) -> str:
    if len(raw) > MAX_TEXT:
        dropped = len(raw) - HEAD - TAIL
        raw = raw[:HEAD] + f"\n... [{dropped} bytes cut] ...\n".encode() + raw[-TAIL:]
    return raw.decode("utf-8", errors="replace")


def child_env() -> dict:
    env = dict(os.environ)
    env.update(
        JAX_PLATFORMS="cpu",
        CUDA_VISIBLE_DEVICES="",
        PYTHONUNBUFFERED="1",  # stdout and stderr interleave as they do on a terminal
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)  # keep the frameworks' natural logging
    env.pop("XLA_FLAGS", None)
    env.pop("KERAS_BACKEND", None)
    return env


def run_one(
    path: Path, timeout: float, nice: int, python: str = sys.executable
) -> tuple[int | None, float, bytes]:
    """Run one script in a scratch directory; returns (exit code or None on timeout, seconds, output)."""
    with tempfile.TemporaryDirectory(prefix="zoo-") as scratch:
        start = time.monotonic()
        proc = subprocess.Popen(
            [python, str(path)],
            cwd=scratch,
            env=child_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # so a timeout also ends servers the script started
            preexec_fn=(lambda: os.nice(nice)) if nice else None,
        )
        try:
            out, _ = proc.communicate(timeout=timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            code = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # leftovers: servers, workers
            except ProcessLookupError:
                pass
        return code, time.monotonic() - start, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="FAMILY",
        help="run only this family (repeatable, or comma-separated); other records "
        "in the output file are kept",
    )
    parser.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="LABEL",
        help="run only scripts with this label (repeatable)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="scripts run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per script (default 120)")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the scripts (default 10)")
    parser.add_argument(
        "--output",
        type=Path,
        default=ZOO / "captured.jsonl",
        help="where to write the records (default captured.jsonl beside this file)",
    )
    parser.add_argument(
        "--framework",
        action="append",
        default=[],
        metavar="NAME",
        help=f"run only scripts of this framework (repeatable; one of {', '.join(FRAMEWORKS)})",
    )
    parser.add_argument(
        "--missing",
        action="store_true",
        help="run only scripts that have no record in the output file yet (new scripts); others are kept",
    )
    parser.add_argument(
        "--torch-python",
        type=Path,
        default=TORCH_PYTHON,
        help="interpreter of the torchxla scripts (default .venv-torch/bin/python; absent: skipped)",
    )
    parser.add_argument("--list", action="store_true", help="list the scripts and their labels, run nothing")
    args = parser.parse_args(argv)

    only = {f for item in args.only for f in item.split(",") if f}
    scripts = sorted(SCRIPTS.glob("*/*.py"))
    headers, bad = {}, []
    for path in scripts:
        try:
            headers[path] = read_header(path)
        except HeaderError as err:
            bad.append(str(err))
    if bad:
        print("bad script headers:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 2
    unknown_families = only - {p.parent.name for p in scripts}
    if unknown_families:
        print(f"no such family: {', '.join(sorted(unknown_families))}", file=sys.stderr)
        return 2
    chosen = [
        p
        for p in scripts
        if (not only or p.parent.name in only)
        and (not args.label or headers[p]["label"] in args.label)
        and (not args.framework or headers[p]["framework"] in args.framework)
    ]
    if args.missing and args.output.exists():
        have = {json.loads(line)["id"] for line in args.output.read_text().splitlines() if line.strip()}
        chosen = [p for p in chosen if f"{p.parent.name}/{p.stem}" not in have]
    torch_ok = args.torch_python.exists()
    skipped = [p for p in chosen if headers[p]["framework"] == "torchxla" and not torch_ok]
    if skipped:
        print(f"{len(skipped)} torchxla scripts skipped: no {args.torch_python}", file=sys.stderr)
        chosen = [p for p in chosen if p not in skipped]
    if args.list:
        for p in chosen:
            print(f"{p.parent.name}/{p.stem}\t{headers[p]['label']}")
        return 0
    if not chosen:
        print("nothing to run", file=sys.stderr)
        return 2

    vers = versions()
    has_torch = any(headers[p]["framework"] == "torchxla" for p in chosen)
    torch_vers = versions_of(args.torch_python, TORCH_PACKAGES) if has_torch else {}
    total = len(chosen)
    started = time.monotonic()
    done = 0
    records = {}

    def task(path: Path):
        python = str(args.torch_python) if headers[path]["framework"] == "torchxla" else sys.executable
        return path, run_one(path, args.timeout, args.nice, python)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for path, (code, seconds, out) in pool.map(task, chosen):
            done += 1
            h = headers[path]
            rid = f"{path.parent.name}/{path.stem}"
            status = "TIMEOUT" if code is None else f"exit {code}"
            flag = "  <-- did not fail" if code == 0 else ("  <-- timed out" if code is None else "")
            print(f"[{done}/{total}] {rid} ... {status} ({seconds:.1f} s){flag}", flush=True)
            rec = {
                "id": rid,
                "family": h["family"],
                "framework": h["framework"],
                "label": h["label"],
                "mistake": h["mistake"],
            }
            if h.get("why"):
                rec["why"] = h["why"]
            if h.get("source"):
                rec["repository"] = h["source"]
            rec.update(
                script=str(path.relative_to(ZOO)),
                exit_code=code,
                timed_out=code is None,
                seconds=round(seconds, 1),
                versions=torch_vers if h["framework"] == "torchxla" else vers,
                text=cut(out),
            )
            records[rid] = rec

    if (
        only or args.label or args.framework or args.missing or skipped
    ):  # a partial run updates its records and keeps the others
        if args.output.exists():
            for line in args.output.read_text().splitlines():
                if line.strip():
                    rec = json.loads(line)
                    records.setdefault(rec["id"], rec)
        present = {f"{p.parent.name}/{p.stem}" for p in scripts}
        records = {k: v for k, v in records.items() if k in present}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".captured-", dir=args.output.parent)
    with os.fdopen(fd, "w") as fh:
        for rid in sorted(records):
            fh.write(json.dumps(records[rid], ensure_ascii=False, sort_keys=False) + "\n")
    os.replace(tmp, args.output)

    ran = [records[f"{p.parent.name}/{p.stem}"] for p in chosen]
    by_label = Counter(r["label"] for r in records.values())
    by_fw = Counter(r["framework"] for r in records.values())
    print(
        f"\nran {total} scripts in {(time.monotonic() - started) / 60:.1f} min; "
        f"wrote {len(records)} records to {args.output}"
    )
    print("per label:     " + ", ".join(f"{k} {by_label[k]}" for k in LABELS))
    print("per framework: " + ", ".join(f"{k} {v}" for k, v in sorted(by_fw.items())))
    passed = [r["id"] for r in ran if r["exit_code"] == 0]
    timed = [r["id"] for r in ran if r["timed_out"]]
    if passed or timed:
        if passed:
            print(
                "\nFAIL: these scripts exited 0, so their mistake no longer fails:\n  " + "\n  ".join(passed),
                file=sys.stderr,
            )
        if timed:
            print(
                f"\nFAIL: these scripts ran past {args.timeout:.0f} s:\n  " + "\n  ".join(timed),
                file=sys.stderr,
            )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
