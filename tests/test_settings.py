"""Production settings refuse unsafe configuration; the embedded default needs no servers."""

from __future__ import annotations

import json
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


def settings_value(settings_module: str | None, expression: str, **env: str) -> str:
    """``expression`` evaluated in a fresh process on ``settings_module`` (None: the default)."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")
    }
    if settings_module is not None:
        clean["DJANGO_SETTINGS_MODULE"] = settings_module
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {expression}"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize(
    ("settings_module", "env", "debug"),
    [
        ("config.settings.base", {}, "False"),
        # The observed case: pointed at PostgreSQL, DEBUG was on unless someone turned it off.
        ("config.settings.base", {"DATABASE_URL": "postgres://u@db.invalid:5432/m"}, "False"),
        ("config.settings.test", {}, "False"),
        ("config.settings.production", {"SECRET_KEY": GOOD_SECRET}, "False"),
        ("config.settings.dev", {}, "True"),
        ("config.settings.dev", {"DEBUG": "false"}, "False"),
    ],
)
def test_debug_is_on_only_in_the_development_settings(settings_module, env, debug):
    expression = "from django.conf import settings; print(settings.DEBUG)"
    assert settings_value(settings_module, expression, **env) == debug


def test_a_served_process_defaults_to_the_production_settings():
    """gunicorn or uvicorn started without DJANGO_SETTINGS_MODULE refuses to run without a real
    secret, rather than falling back to DEBUG on."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")
    }
    for module in ("config.wsgi", "config.asgi"):
        result = subprocess.run(
            [sys.executable, "-c", f"import {module}"],
            cwd=ROOT,
            env=clean,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode != 0
        assert "Set SECRET_KEY" in result.stderr


def test_production_passes_the_deploy_check():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")},
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": GOOD_SECRET + "-Zq8",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


PRODUCTION_HEADERS = """
import json
from django.test import Client
plain, tls = Client(), Client(headers={"X-Forwarded-Proto": "https"})
page, probe, secure = plain.get("/"), plain.get("/livez"), tls.get("/livez")
print(json.dumps({
    "page": [page.status_code, page.get("Location")],
    "probe": probe.status_code,
    "hsts": secure.get("Strict-Transport-Security"),
    "csp": secure.get("Content-Security-Policy"),
}))
"""


def test_production_redirects_to_https_sends_hsts_and_a_csp_but_lets_probes_in():
    answer = json.loads(
        settings_value("config.settings.production", PRODUCTION_HEADERS, SECRET_KEY=GOOD_SECRET)
    )
    assert answer["page"] == [301, "https://testserver/"]
    assert answer["probe"] == 200
    assert answer["hsts"] == "max-age=31536000; includeSubDomains"
    assert "default-src 'self'" in answer["csp"]


def test_production_security_is_settable_from_the_environment():
    answer = json.loads(
        settings_value(
            "config.settings.production",
            PRODUCTION_HEADERS,
            SECRET_KEY=GOOD_SECRET,
            SECURE_SSL_REDIRECT="false",
            SECURE_HSTS_SECONDS="0",
            CONTENT_SECURITY_POLICY="default-src 'none'",
        )
    )
    assert answer["page"] == [302, "/login/"]
    assert answer["hsts"] is None
    assert answer["csp"] == "default-src 'none'"
