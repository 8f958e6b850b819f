"""A webhook receiver for the tests: a real HTTP server on 127.0.0.1, in a thread.

It answers each request with the next status of its script (200 once the script is spent),
keeps every request it got, and processes a delivery the way docs/webhooks.md asks receivers to:
it checks the signature, and it skips a ``Muster-Delivery-Id`` it has processed already (a
delivery is sent again if its sender died before it could record the answer). So ``requests``
is what came over the wire, repeats included, and ``processed`` is what a receiver acted on.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from webhooks import signing


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes
    status: int
    signed: bool

    @property
    def delivery_id(self) -> str:
        return self.headers["Muster-Delivery-Id"]

    @property
    def event(self) -> dict[str, Any]:
        return json.loads(self.body)["event"]

    @property
    def sequence(self) -> int:
        return self.event["sequence"]


class Receiver:
    def __init__(self, script: list[int] | None = None, *, secret: str = "") -> None:
        self.script = list(script or [])
        self.secret = secret
        self.requests: list[Received] = []
        self.processed: list[Received] = []
        self.lock = threading.Lock()
        # Set hold_sequence to stop on the first request for that event until release is set.
        self.hold_sequence: int | None = None
        self.holding = threading.Event()
        self.release = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/hooks/muster?from=tests"

    def sequences(self, received: list[Received]) -> list[int]:
        return [r.sequence for r in received]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                headers = dict(self.headers.items())
                signed = signing.verify(receiver.secret, headers.get("Muster-Signature", ""), body)
                with receiver.lock:
                    status = receiver.script.pop(0) if receiver.script else 200
                hold = (
                    receiver.hold_sequence is not None
                    and json.loads(body)["event"]["sequence"] == receiver.hold_sequence
                    and not receiver.holding.is_set()
                )
                if hold:
                    receiver.holding.set()
                    receiver.release.wait(timeout=60)
                received = Received(headers, body, status, signed)
                with receiver.lock:
                    receiver.requests.append(received)
                    seen = {r.delivery_id for r in receiver.processed}
                    if 200 <= status < 300 and signed and received.delivery_id not in seen:
                        receiver.processed.append(received)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/plain")
                    self.end_headers()
                    self.wfile.write(b"thanks" if status < 300 else b"not now")
                except OSError:
                    pass  # the sender is gone (killed while it waited for this answer)

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler


@contextmanager
def running(receiver: Receiver) -> Iterator[Receiver]:
    thread = threading.Thread(
        target=receiver.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release.set()
        receiver.server.shutdown()
        receiver.server.server_close()
        thread.join(timeout=5)
