"""Run every bench/bench_*.py in turn and print their figures (`make bench`)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, str(script), *sys.argv[1:]], cwd=HERE.parent)
        print(f"-- {script.name}: {time.monotonic() - t0:.1f} s, exit {proc.returncode}", flush=True)
        if proc.returncode:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
