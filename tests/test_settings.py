"""Production settings refuse unsafe configuration; the embedded default needs no servers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOOD_SECRET = "k" * 50


def check(settings_module: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": settings_module, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("env", "complaint"),
    [
        ({"DEBUG": "true", "SECRET_KEY": GOOD_SECRET}, "DEBUG must be off"),
        ({"DEBUG": "false"}, "Set SECRET_KEY"),
        ({"DEBUG": "false", "SECRET_KEY": "short"}, "Set SECRET_KEY"),
    ],
)
def test_production_refuses_to_start_with_debug_or_a_default_secret(env, complaint):
    result = check("config.settings.production", **env)
    assert result.returncode != 0
    assert complaint in result.stderr


def test_production_starts_with_a_real_secret_and_debug_off():
    result = check("config.settings.production", DEBUG="false", SECRET_KEY=GOOD_SECRET)
    assert result.returncode == 0, result.stderr


def test_the_embedded_default_is_sqlite_and_eager(settings):
    if os.environ.get("DATABASE_URL") or os.environ.get("CELERY_BROKER_URL"):
        pytest.skip("the suite is running against configured services")
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert settings.CELERY_TASK_ALWAYS_EAGER is True
