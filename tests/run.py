"""Run the whole test suite, the way the README's test command and CI do.

Pass 1 runs everything on the embedded default (SQLite, eager Celery) and measures branch
coverage of the framework-free ``rules`` package. Pass 2 runs everything again against PostgreSQL
and Redis, with the integration tests starting real Celery worker processes. Pass 2 is skipped
with a notice when the services cannot be reached, unless ``MUSTER_REQUIRE_SERVICES=1`` (as in CI),
which turns that into a failure.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
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


def pytest(env: dict[str, str], extra: list[str]) -> int:
    command = [sys.executable, "-m", "pytest", *extra]
    print("$", " ".join(command), flush=True)
    return subprocess.call(command, env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedded-only", action="store_true")
    parser.add_argument("--services-only", action="store_true")
    parser.add_argument("pytest_args", nargs="*", help="Passed on to pytest.")
    args = parser.parse_args()

    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    status = 0

    if not args.services_only:
        print("== Pass 1: embedded default (SQLite, eager Celery) ==", flush=True)
        status |= pytest(
            base,
            [
                "--cov=rules",
                "--cov-branch",
                "--cov-report=term-missing:skip-covered",
                "--cov-fail-under=100",
                *args.pytest_args,
            ],
        )

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
            print("== Pass 2: PostgreSQL, Redis and live Celery workers ==", flush=True)
            env = {**base, "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url}
            status |= pytest(env, ["-p", "no:cacheprovider", *args.pytest_args])
    return status


if __name__ == "__main__":
    sys.exit(main())
