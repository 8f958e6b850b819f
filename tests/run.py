"""Run the whole test suite, the way the README's test command and CI do.

Pass 1 runs everything on the embedded default (SQLite, eager Celery) and measures branch
coverage of the framework-free ``rules`` package. Pass 2 runs everything again against PostgreSQL
and Redis, with the integration tests starting real Celery worker processes. Pass 2 is skipped
with a notice when the services cannot be reached, unless ``MUSTER_REQUIRE_SERVICES=1`` (as in CI),
which turns that into a failure.

The two passes share nothing (pass 1 reaches neither PostgreSQL nor Redis), and each keeps about
one CPU busy, so they run at the same time: pass 1's output as it comes, pass 2's after it
(``--one-pass-at-a-time`` runs them one after the other, both as they come).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from urllib.parse import urlparse

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/muster"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/0"


def reachable(url: str) -> bool:
    parts = urlparse(url)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=2):
            return True
    except OSError:
        return False


def pytest_command(extra: list[str]) -> list[str]:
    command = [sys.executable, "-m", "pytest", *extra]
    print("$", " ".join(command), flush=True)
    return command


def pytest(env: dict[str, str], extra: list[str]) -> int:
    return subprocess.call(pytest_command(extra), env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedded-only", action="store_true")
    parser.add_argument("--services-only", action="store_true")
    parser.add_argument(
        "--one-pass-at-a-time",
        action="store_true",
        help="Run pass 2 after pass 1 rather than beside it, its output as it comes.",
    )
    parser.add_argument("pytest_args", nargs="*", help="Passed on to pytest.")
    args = parser.parse_args()

    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    embedded = [
        "--cov=rules",
        "--cov-branch",
        "--cov-report=term-missing:skip-covered",
        "--cov-fail-under=100",
        *args.pytest_args,
    ]
    services: tuple[dict[str, str], list[str]] | None = None
    if not args.embedded_only:
        database_url = os.environ.get("MUSTER_TEST_DATABASE_URL", DEFAULT_DATABASE_URL)
        broker_url = os.environ.get("MUSTER_TEST_BROKER_URL", DEFAULT_BROKER_URL)
        required = os.environ.get("MUSTER_REQUIRE_SERVICES") == "1"
        missing = [url for url in (database_url, broker_url) if not reachable(url)]
        if missing:
            message = "cannot reach " + " and ".join(missing)
            if required:
                print(f"== Pass 2 FAILED: {message} ==", flush=True)
                return 1
            print(f"== Pass 2 skipped: {message}. Start PostgreSQL and Redis to run it. ==")
        else:
            env = {**base, "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url}
            services = (env, ["-p", "no:cacheprovider", *args.pytest_args])

    if args.services_only or services is None or args.one_pass_at_a_time:
        status = 0
        if not args.services_only:
            print("== Pass 1: embedded default (SQLite, eager Celery) ==", flush=True)
            status |= pytest(base, embedded)
        if services is not None:
            print("== Pass 2: PostgreSQL, Redis and live Celery workers ==", flush=True)
            status |= pytest(*services)
        return status

    with tempfile.TemporaryFile() as pass_2_output:
        print(
            "== Pass 2: PostgreSQL, Redis and live Celery workers (beside pass 1; its output "
            "follows pass 1's) ==",
            flush=True,
        )
        env, extra = services
        pass_2 = subprocess.Popen(
            pytest_command(extra), env=env, stdout=pass_2_output, stderr=subprocess.STDOUT
        )
        try:
            print("== Pass 1: embedded default (SQLite, eager Celery) ==", flush=True)
            status = pytest(base, embedded)
            pass_2_status = pass_2.wait()
        finally:
            if pass_2.poll() is None:  # pass 1 was interrupted: so is pass 2
                pass_2.terminate()
                pass_2.wait()
        print("== Pass 2: its output ==", flush=True)
        pass_2_output.seek(0)
        shutil.copyfileobj(pass_2_output, sys.stdout.buffer)
        sys.stdout.flush()
        print(f"== Pass 1 {verdict(status)}, pass 2 {verdict(pass_2_status)} ==", flush=True)
    return status | pass_2_status


def verdict(status: int) -> str:
    return "passed" if status == 0 else f"FAILED (exit {status})"


if __name__ == "__main__":
    sys.exit(main())
