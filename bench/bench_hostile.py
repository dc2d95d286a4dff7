"""Hostile load: 100 slow uploads trickling a byte at a time and one project flooding the server
with 10,000 short jobs (each one batch, then silence: a lost alert), while a real agent of another
project records steps and one of that project's jobs fails. A real `tpuwatch server` on PostgreSQL.

    python bench/bench_hostile.py [--jobs 10000] [--slow 100] [--threads 8]

Figures: how long the real agent's steps took to be stored, how long the failed job's webhook took
to arrive, what the slow uploads cost (the server ends each at its deadline), and what the flooding
project was sent (one message per alert up to its minute's budget, then a summary).
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import fresh_postgres, make_token, server_process  # noqa: E402


class Hook:
    """A webhook receiver on loopback: every message's text and when it came."""

    def __init__(self) -> None:
        self.got: list[tuple[float, str]] = []
        me = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                me.got.append((time.monotonic(), body.get("text", "")))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def texts(self, mark: str) -> list[str]:
        return [t for _, t in list(self.got) if mark in t]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _request(url: str, token: str, path: str, body: dict | None = None, headers: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    h = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", **(headers or {})}
    req = urllib.request.Request(url + path, data=data, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except OSError:
        return 0, None


def trickle(url: str, token: str, n: int, stop: threading.Event, counts: dict) -> None:
    """``n`` uploads from 127.0.0.2, a byte every 0.5 s; each the server ends is opened again."""
    host, port = url.removeprefix("http://").split(":")
    head = (
        f"POST /api/v1/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    ).encode()
    socks: list[socket.socket] = []
    while not stop.is_set():
        while len(socks) < n:
            try:
                s = socket.create_connection((host, int(port)), timeout=5, source_address=("127.0.0.2", 0))
                s.sendall(head)
                socks.append(s)
                counts["opened"] += 1
            except OSError:
                break
        alive = []
        for s in socks:
            try:
                s.send(b" ")
                alive.append(s)
            except OSError:
                s.close()
                counts["ended"] += 1
        socks = alive
        stop.wait(0.5)
    for s in socks:
        s.close()


def flood(url: str, token: str, jobs: int, threads: int, stop: threading.Event, done: list) -> None:
    now = time.time()

    def one(i: int) -> None:
        if stop.is_set():
            return
        batch = {"stream": f"f{i}", "seq": 0, "run": {"run_id": f"f{i}", "job": f"short-{i}"}}
        batch["steps"] = [[1, now, 0.1, 0.0]]
        done.append(_request(url, token, "/api/v1/ingest", batch, {"X-Tpuwatch-Host": f"h{i}"})[0])

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, range(jobs)))


def run(db_url: str, jobs: int, slow: int, threads: int) -> None:
    from tpuwatch.monitor import Monitor

    noisy_hook, quiet_hook = Hook(), Hook()
    env = {
        "TPUWATCH_ALERT_EVAL_SECONDS": "1",
        "TPUWATCH_LOST_AFTER_SECONDS": "5",
        "TPUWATCH_ALERT_WEBHOOK_ALLOW": "127.0.0.1",
        "TPUWATCH_MAX_CONNECTIONS_PER_ADDRESS": "64",
    }
    noisy, quiet = make_token(db_url, "noisy"), make_token(db_url, "quiet")
    stop, counts, done = threading.Event(), {"opened": 0, "ended": 0}, []
    with tempfile.TemporaryDirectory() as tmp, server_process(db_url, f"{tmp}/data", env) as (url, _):
        for token, hook in ((noisy, noisy_hook), (quiet, quiet_hook)):
            _request(url, token, "/api/v1/alerts/channels", {"kind": "webhook", "target": hook.url})
        threading.Thread(target=trickle, args=(url, noisy, slow, stop, counts), daemon=True).start()
        started = time.monotonic()
        flooder = threading.Thread(target=flood, args=(url, noisy, jobs, threads, stop, done), daemon=True)
        flooder.start()
        while len(done) < min(jobs, 1000) and time.monotonic() - started < 120:
            time.sleep(0.2)
        mon = Monitor(
            "real-agent",
            server=url,
            token=quiet,
            spool_dir=f"{tmp}/spool",
            send=True,
            flush_interval=0.1,
            send_interval=0.2,
        )
        for _ in range(3):
            with mon.step():
                time.sleep(0.01)
        sent = time.monotonic()
        stored_s = None
        while time.monotonic() - sent < 60:
            _, body = _request(url, quiet, "/api/v1/jobs")
            if body and any(j["name"] == "real-agent" and j["steps"] >= 3 for j in body["jobs"]):
                stored_s = time.monotonic() - sent
                break
            time.sleep(0.1)
        now = time.time()
        crash = {
            "stream": "crash",
            "seq": 0,
            "run": {"run_id": "crash", "job": "crash"},
            "steps": [[1, now, 0.1, 0.0]],
            "events": [[now, "exit", "", {"code": 1}]],
        }
        failed_at = time.monotonic()
        _request(url, quiet, "/api/v1/ingest", crash)
        webhook_s = None
        while time.monotonic() - failed_at < 120:
            if quiet_hook.texts("quiet/crash"):
                webhook_s = time.monotonic() - failed_at
                break
            time.sleep(0.05)
        mon.close(timeout=5)
        flooder.join(600)
        flood_s = time.monotonic() - started
        time.sleep(5)  # the last minute's summary
        stop.set()
        _, health = _request(url, quiet, "/healthz")
    stored = done.count(200)
    print(
        f"hostile: real agent's steps stored in {_s(stored_s)} with {slow} slow uploads trickling and "
        f"{jobs} jobs flooding ({stored} stored at {stored / flood_s:.0f} jobs/s; "
        f"other answers {sorted({s for s in done if s != 200})})"
    )
    print(f"hostile: another project's failed-job webhook arrived in {_s(webhook_s)}")
    print(
        f"hostile: slow uploads opened {counts['opened']}, ended by the server {counts['ended']} "
        "(408 at the body deadline, or 503 past the address's connections)"
    )
    print(
        f"hostile: the flooding project was sent {len(noisy_hook.texts('[FIRING]'))} alerts one by one "
        f"and {len(noisy_hook.texts('[SUMMARY]'))} summaries, e.g. "
        f"{(noisy_hook.texts('[SUMMARY]') or [''])[0].splitlines()[0][:100]!r}"
    )
    print(f"hostile: ingest gate {json.dumps((health or {}).get('ingest', {}).get('refused'))} refused")
    noisy_hook.close()
    quiet_hook.close()


def _s(v: float | None) -> str:
    return "never (timed out)" if v is None else f"{v:.2f} s"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--jobs", type=int, default=10_000)
    p.add_argument("--slow", type=int, default=100)
    p.add_argument("--threads", type=int, default=8)
    args, _ = p.parse_known_args()
    with fresh_postgres() as url:
        from tpuwatch.server.db import upgrade

        upgrade(url)
        run(url, args.jobs, args.slow, args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
