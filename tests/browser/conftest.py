"""The served demo campaign, and headless Chromium to look at it.

The server runs ``manage.py demo`` on a scratch SQLite database in a subprocess, exactly as the
README's run command does, and Playwright drives Debian's Chromium (no browser is downloaded).
Screenshots of every page visited go to ``artifacts/screenshots/`` for a person to look at.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class DemoServer:
    url: str
    token: str
    campaign_id: str

    def api(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            f"{self.url}/api/v1{path}",
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")


@contextlib.contextmanager
def serving(env: dict[str, str], port: int, log_path: Path) -> Iterator[None]:
    """``manage.py runserver`` on ``port`` until the block ends, once it answers ``/healthz``.

    The server's log (a line per request) goes to ``log_path``: a pipe nobody reads fills up at
    64 KiB and then blocks the server in mid-request, and every later page times out."""
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise AssertionError(log_path.read_text()) from None
            time.sleep(0.3)
    try:
        yield
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="session")
def demo_server(tmp_path_factory):
    assert os.path.exists(CHROMIUM), (
        "the browser tests need Debian's chromium (.ci/run installs it)"
    )
    var = tmp_path_factory.mktemp("demo-server")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(MUSTER_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings.dev")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    demo = subprocess.run(
        [*manage, "demo", "--url", url],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    token_line = re.search(r"API token (\w+)", demo.stdout)
    campaign_line = re.search(r"\(([0-9a-f-]{36})\)\n", demo.stdout)
    assert token_line is not None, demo.stdout
    assert campaign_line is not None, demo.stdout
    token, campaign_id = token_line.group(1), campaign_line.group(1)
    with serving(env, port, var / "server.log"):
        yield DemoServer(url=url, token=token, campaign_id=campaign_id)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shots = iter(range(1, 100))

    def screenshot(name: str) -> Path:
        path = SCREENSHOTS / f"{request.node.name}-{next(shots):02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    page.screenshot_as = screenshot
    yield page
    context.close()


def log_in(page, server: DemoServer, username: str, password: str = "muster-demo") -> None:
    page.goto(f"{server.url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/campaigns/$"))
