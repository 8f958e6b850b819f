"""``manage.py demo``: the campaign the README's run command plays and serves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_demo(var_dir: Path, *extra: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(MUSTER_VAR_DIR=str(var_dir), DJANGO_SETTINGS_MODULE="config.settings.dev")
    for command in (["migrate", "--no-input", "-v", "0"], ["demo", *extra]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
    return result.stdout


def summary(output: str) -> str:
    """The campaign as the demo tells it, without the ids and token that differ per run."""
    return output.split("\nDemo campaign:")[0]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    return run_demo(tmp_path_factory.mktemp("demo-a"))


def test_the_demo_plays_three_linked_battles_and_tells_them(first_run):
    told = summary(first_run)
    assert told.count(": resolved, won by ") == 3
    assert "Day 1: Recon in force" in told
    assert "Day 8: Breakthrough at Kessler" in told
    assert "Blue casualties:" in told
    assert "Recon Squad 2: veteran, 6 -> " in told
    assert "In hospital:" in told
    assert "Log in as umpire / muster-demo" in first_run


def test_the_same_seed_gives_the_same_campaign(first_run, tmp_path):
    assert summary(run_demo(tmp_path)) == summary(first_run)


def test_another_seed_gives_another_campaign(first_run, tmp_path):
    other = run_demo(tmp_path, "--seed", "0" * 64)
    assert summary(other) != summary(first_run)


def test_running_the_demo_again_keeps_the_campaign(tmp_path):
    once = run_demo(tmp_path)
    twice = run_demo(tmp_path)
    assert summary(twice) == summary(once)
