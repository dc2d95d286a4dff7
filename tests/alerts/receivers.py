"""Real receivers on loopback: a webhook endpoint (http.server in a thread) and an SMTP server
(aiosmtpd), each recording what arrives with the time it arrived."""

from __future__ import annotations

import json
import socket
import threading
import time
from email import message_from_bytes
from email.policy import default as default_policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class WebhookReceiver:
    """Records every JSON body POSTed to it. ``fail_next`` answers that many requests with 500;
    ``redirect`` (status, location) answers every request with that redirect. ``host`` is the
    loopback address to listen on ("127.0.0.1" or "::1")."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.bodies: list[dict] = []
        self.times: list[float] = []
        self.fail_next = 0
        self.status = 200  # what every request gets once fail_next is used up
        self.redirect: tuple[int, str] | None = None
        self.requests = 0  # every request that reached this receiver, whatever it was answered
        self.delay = 0.0  # seconds each request takes (a slow receiver)
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if receiver.delay:
                    time.sleep(receiver.delay)
                with receiver.lock:
                    receiver.requests += 1
                    if receiver.redirect is not None:
                        self.send_response(receiver.redirect[0])
                        self.send_header("Location", receiver.redirect[1])
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    if receiver.fail_next > 0:
                        receiver.fail_next -= 1
                        self.send_response(500)
                        self.end_headers()
                        return
                    if receiver.status != 200:
                        self.send_response(receiver.status)
                        self.end_headers()
                        return
                    receiver.bodies.append(json.loads(raw))
                    receiver.times.append(time.time())
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

        self.server = Server((host, 0), Handler)
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def texts(self) -> list[str]:
        with self.lock:
            return [b["text"] for b in self.bodies]

    def firing(self) -> list[str]:
        return [t for t in self.texts() if "[FIRING]" in t]

    def resolved(self) -> list[str]:
        return [t for t in self.texts() if "resolved" in t]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class SmtpReceiver:
    """An aiosmtpd server on a free loopback port; ``messages`` are parsed email messages."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list = []
        receiver = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                msg = message_from_bytes(envelope.original_content, policy=default_policy)
                receiver.messages.append((envelope.rcpt_tos, msg))
                return "250 OK"

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def subjects(self) -> list[str]:
        return [str(m["Subject"]) for _, m in self.messages]

    def close(self) -> None:
        self.controller.stop()
