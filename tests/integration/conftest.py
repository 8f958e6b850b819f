"""Real services for integration tests: PostgreSQL, Redis, and Celery worker processes.

These tests commit their data (``transactional_db``) so that worker processes, which have their
own database connections, can see it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from config.celery import app as celery_app
from eventlog.signals import HEARTBEAT_PREFIX

ROOT = Path(__file__).resolve().parents[2]


def wait_for(predicate, *, timeout: float, interval: float = 0.1, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"Timed out after {timeout}s waiting for {what}.")


def run_threads(work: Callable[[int], object], count: int = 8) -> list[BaseException]:
    """Run ``work(index)`` on ``count`` threads started together; the errors they raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(count)

    def thread(index: int) -> None:
        try:
            start.wait()
            work(index)
        except BaseException as exc:  # reported to the test, not swallowed
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=thread, args=(i,)) for i in range(count)]
    for each in threads:
        each.start()
    for each in threads:
        each.join()
    return errors


@pytest.fixture
def broker():
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    # Start from an empty queue: no message left over from another test.
    client.delete(settings.CELERY_TASK_DEFAULT_QUEUE, "unacked", "unacked_index")
    for key in client.scan_iter(f"{HEARTBEAT_PREFIX}*"):
        client.delete(key)
    yield client
    client.delete(settings.CELERY_TASK_DEFAULT_QUEUE, "unacked", "unacked_index")


class CeleryProcess:
    """A ``celery worker`` or ``celery beat`` process on the test database."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self._log_file = log.open("wb")
        self.process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=self._log_file, stderr=subprocess.STDOUT
        )

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to acknowledge, requeue or clean up."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log_file.close()

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def celery_processes(transactional_db, broker, tmp_path):
    """Start worker and beat processes that use the test database; stop them afterwards."""
    started: list[CeleryProcess] = []
    database = settings.DATABASES["default"]
    database_url = (
        f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    )

    def environment(extra: dict[str, str]) -> dict[str, str]:
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            # Redeliver an unacknowledged message soon after its worker dies.
            "CELERY_VISIBILITY_TIMEOUT": "2",
            "CELERY_RESTORE_INTERVAL": "1",
            "CELERY_RESTORE_THROTTLE": "1",
            "MUSTER_WORKER_HEARTBEAT_INTERVAL": "1",
            "PYTHONUNBUFFERED": "1",
            **extra,
        }

    def worker(**extra: str) -> CeleryProcess:
        name = f"w{uuid.uuid4().hex[:8]}"
        process = CeleryProcess(
            [
                sys.executable, "-m", "celery", "-A", "config", "worker",
                "--pool=solo", "--loglevel=INFO", "--without-gossip", "--without-mingle",
                "-Q", settings.CELERY_TASK_DEFAULT_QUEUE, "-n", f"{name}@%h",
            ],
            environment(extra),
            tmp_path / f"{name}.log",
        )  # fmt: skip
        started.append(process)
        wait_for(
            lambda: (
                broker.exists(f"{HEARTBEAT_PREFIX}{name}@{os.uname().nodename}")
                or process.process.poll() is not None
            ),
            timeout=60,
            what=f"worker {name} to start",
        )
        assert process.process.poll() is None, process.output()
        return process

    def beat(**extra: str) -> CeleryProcess:
        process = CeleryProcess(
            [
                sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO",
                "--schedule", str(tmp_path / "beat-schedule"),
            ],
            environment(extra),
            tmp_path / "beat.log",
        )  # fmt: skip
        started.append(process)
        return process

    yield type("Celery", (), {"worker": staticmethod(worker), "beat": staticmethod(beat)})
    for process in started:
        process.stop()
    celery_app.conf.task_always_eager = False
    connection.close()
