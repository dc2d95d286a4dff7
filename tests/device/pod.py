"""A slice of real agents for the device tests: ``hosts`` real ``tpuwatch.Monitor``s of one job
(one run id, host indexes 0..n-1), each with the real libtpu metrics source reading its own fake
runtime metrics service (tests/agent/tpu_fake.py) and sending to a real server over HTTP.

Synchronous training is one loop that records a step on every host at once (all hosts step
together, as in a slice); ``hang()`` stops it while every host's heartbeats go on.
"""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack

from tests.agent.tpu_fake import MetricService
from tpuwatch.monitor import Monitor
from tpuwatch.sources.tpu_metrics import TpuMetricsSource

STACK = (
    "Thread 0x7f3a (most recent call first):\n"
    '  File "/usr/lib/python3.11/threading.py", line 331 in wait\n'
    "Current thread 0x7f00 (most recent call first):\n"
    '  File "/job/train.py", line {line} in {fn}\n'
    '  File "/job/train.py", line 120 in train_step\n'
    '  File "/job/train.py", line 150 in <module>\n'
)


class Pod:
    def __init__(self, server: str, token: str, run_id: str, spool, hosts: int = 64, every: float = 0.1):
        self.every = every
        self._stack = ExitStack()
        self.fakes = [self._stack.enter_context(MetricService(chips=4, host=f"w-{h}")) for h in range(hosts)]
        self.mons = [
            Monitor(
                run_id,
                server=server,
                token=token,
                run_id=run_id,
                host_index=h,
                spool_dir=spool / f"h{h}",
                send=True,
                flush_interval=0.2,
                send_interval=1.0,
            )
            for h in range(hosts)
        ]
        self.sources = [
            TpuMetricsSource(mon, fake.address, every=5.0, timeout=2.0).start()
            for mon, fake in zip(self.mons, self.fakes, strict=True)
        ]
        self.stepping = threading.Event()
        self.stepping.set()
        self.stop = threading.Event()
        self.last_step_at = 0.0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        beat = time.monotonic()
        while not self.stop.is_set():
            if self.stepping.is_set():
                time.sleep(self.every)
                for mon in self.mons:
                    mon.record_step(self.every, input_wait=0.002)
                self.last_step_at = time.time()
            else:
                time.sleep(0.05)
            if time.monotonic() - beat > 0.5:  # the sidecars' heartbeats, sped up
                for mon in self.mons:
                    mon.heartbeat()
                beat = time.monotonic()

    def hang(self, stacks: dict[int, tuple[str, int]] | None = None, default=("all_reduce", 88)) -> float:
        """Stop stepping; each host sends the Python stack its stall watcher would take."""
        self.stepping.clear()
        time.sleep(self.every * 2)
        for h, mon in enumerate(self.mons):
            fn, line = (stacks or {}).get(h, default)
            mon.event("stacks", STACK.format(fn=fn, line=line), method="faulthandler")
        return self.last_step_at

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for source in self.sources:
            source.stop()
        for mon in self.mons:
            mon.close(timeout=5)
        self._stack.close()
