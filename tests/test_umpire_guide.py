"""Runs every command of docs/umpire-guide.md against a fresh server, in order."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "umpire-guide.md"
GUIDE_PASSWORD = "quartermaster-ledger-1947"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


@pytest.fixture
def server(tmp_path):
    for tool in ("curl", "jq", "bash"):
        assert shutil.which(tool), f"the umpire guide's test needs {tool} (.ci/run installs it)"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(MUSTER_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings.dev")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [
            *manage,
            "shell",
            "-c",
            "from django.contrib.auth.models import User; "
            f"User.objects.create_user('umpire', password='{GUIDE_PASSWORD}')",
        ],
        cwd=ROOT,
        env=env,
        check=True,
    )
    port = free_port()
    # The server's log goes to a file: a pipe nobody reads fills up (64 KiB of request lines)
    # and then blocks the server in mid-request.
    server_log = tmp_path / "server.log"
    with server_log.open("wb") as log:
        process = subprocess.Popen(
            [*manage, "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{base}/healthz", timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise AssertionError(server_log.read_text()) from None
            time.sleep(0.3)
    yield f"{base}/api/v1"
    process.terminate()
    process.wait(timeout=10)


def test_every_command_in_the_umpire_guide_works(server):
    blocks = shell_blocks(GUIDE.read_text())
    assert len(blocks) >= 10
    script = "set -euo pipefail\n" + "\n".join(blocks)
    result = subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env={
            **os.environ,
            "MUSTER": server,
            "MUSTER_USER": "umpire",
            "MUSTER_PASSWORD": GUIDE_PASSWORD,
        },
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    assert "rosters.ReplacementsAssigned" in out or "ReplacementsAssigned" in out
    assert "Hold the ford: resolved, won by Red" in out
    assert "Breakthrough: resolved, won by Blue" in out
    assert "battles.CasualtiesResolved" in out
    # Section 8's conditional read, and section 9's archive.
    assert "\n304\n" in out
    assert "cache-control: private, max-age=31536000, immutable" in out.lower()
    assert '{"format":"muster-campaign-archive","muster_version":' in out
    # The first battle's server dice, recomputed once its dice epoch is closed.
    assert re.search(r'\{"ok":true,"checked":[1-9]\d*,"mismatched":0,"unrevealed":0\}', out)
    assert "The dice verify:" in out
