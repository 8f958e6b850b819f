"""The load ``bench.scale`` puts on a served Muster: one GET, over and over, as fast as it answers.

Each simulated client asks for ``BENCH_PATH`` with ``Authorization: Token BENCH_TOKEN`` and waits
for nothing between requests, so requests per second measure the server, not think time.
"""

from __future__ import annotations

import os

from locust import FastHttpUser, constant, task


class Reader(FastHttpUser):
    wait_time = constant(0)

    @task
    def read(self) -> None:
        token = os.environ.get("BENCH_TOKEN", "")
        headers = {"Authorization": f"Token {token}"} if token else {}
        self.client.get(os.environ["BENCH_PATH"], headers=headers, name="read")
