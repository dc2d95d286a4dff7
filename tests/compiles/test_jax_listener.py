"""The agent's JAX compile listener, in a fresh interpreter each (JAX is imported once per process):
``tpuwatch.init()`` before or after ``import jax``, real compilations on the CPU."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import json, sys, tempfile
    {first}
    seen = []  # what the recorder hands the monitor (its writer thread drains the queue meanwhile)
    record = mon.event_at
    def event_at(ts, kind, message, **data):
        seen.append([message, data])
        record(ts, kind, message, **data)
    mon.event_at = event_at
    import numpy as np
    @jax.jit
    def train_step(x):
        return (x * 2.0).sum()
    for n in {shapes}:
        with mon.step():
            train_step(np.ones((n, 4), np.float32)).block_until_ready()
    print(json.dumps(seen))
    mon.close()
    """
)
INIT = "import tpuwatch\nmon = tpuwatch.init(job='c', spool_dir=tempfile.mkdtemp(), send=False)"


def _run(first: str, shapes: list[int]) -> list:
    code = SCRIPT.format(first=first, shapes=shapes)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_init_before_jax_records_one_event_per_compilation_with_the_function_and_durations():
    events = _run(INIT + "\nassert 'jax' not in sys.modules\nimport jax", [1, 2, 3, 1, 4, 5, 5, 2])
    assert [d["function"] for _, d in events] == ["train_step"] * 5
    assert [d["step"] for _, d in events] == [1, 2, 3, 5, 6]  # steps 4, 7, 8 reuse a shape
    for message, d in events:
        assert d["framework"] == "jax" and message.startswith("compiled train_step in ")
        assert d["compile_s"] > 0 and d["trace_s"] > 0 and d["lower_s"] > 0
        assert abs(d["duration"] - (d["trace_s"] + d["lower_s"] + d["compile_s"])) < 1e-5


def test_init_after_jax_is_imported_attaches_at_once_and_a_steady_run_compiles_once():
    events = _run("import jax\n" + INIT, [8] * 6)
    assert [d["function"] for _, d in events] == ["train_step"]


def test_init_in_a_process_without_jax_never_imports_it():
    code = "import sys, tempfile\n" + INIT + "\nmon.close()\nprint('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
