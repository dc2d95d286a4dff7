"""Fixtures for the alert tests: receivers, fast alert settings, and a job driven by the agent."""

from __future__ import annotations

import threading
import time

import pytest

from tests.alerts.receivers import SmtpReceiver, WebhookReceiver


@pytest.fixture
def webhook():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


@pytest.fixture
def smtp():
    receiver = SmtpReceiver()
    yield receiver
    receiver.close()


def fast(settings, webhook_url: str = "", **extra):
    """``settings`` with thresholds short enough for a test to watch a whole alert's life."""
    values = dict(
        alert_eval_seconds=0.3,
        stall_floor_seconds=2.0,
        lost_after_seconds=30.0,
        alert_webhook_url=webhook_url,
        public_url="http://tpuwatch.test",
    )
    values.update(extra)
    return settings.model_copy(update=values)


class SteppingJob:
    """A training loop on a thread, recorded by a real ``tpuwatch.Monitor`` sending to a server.

    ``hang()`` stops stepping while heartbeats go on (as a hung process under the sidecar);
    ``resume()`` starts again."""

    def __init__(
        self, server: str, token: str, job: str, spool, every: float = 0.1, run_id: str | None = None
    ):
        from tpuwatch.monitor import Monitor

        self.mon = Monitor(
            job,
            server=server,
            token=token,
            spool_dir=spool,
            send=True,
            flush_interval=0.1,
            send_interval=0.1,  # time is scaled ~30x in these tests: batches too
            run_id=run_id,
        )
        self.every = every
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
                with self.mon.step():
                    time.sleep(self.every)
                self.last_step_at = time.time()
            else:
                time.sleep(0.05)
            if time.monotonic() - beat > 0.5:  # the sidecar's heartbeats, sped up
                self.mon.heartbeat()
                beat = time.monotonic()

    def hang(self) -> float:
        self.stepping.clear()
        time.sleep(self.every * 2)
        return self.last_step_at

    def resume(self) -> None:
        self.stepping.set()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.mon.close(timeout=10)  # a slow fsync must not leave the writer thread running
