"""CORS (django-cors-headers): off unless CORS_ALLOWED_ORIGINS names the origins, and then only
for the API, with the headers its clients send and read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
TOOL = "https://tools.example.org"


def _preflight(client, url: str, origin: str = TOOL):
    return client.options(
        url,
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key",
    )


def test_no_origin_is_allowed_by_default(client, umpire_api):
    assert _preflight(client, "/api/v1/campaigns/").get("Access-Control-Allow-Origin") is None
    read = umpire_api.client.get("/api/v1/campaigns/", HTTP_ORIGIN=TOOL)
    assert read.status_code == 200
    assert "Access-Control-Allow-Origin" not in read


@override_settings(CORS_ALLOWED_ORIGINS=[TOOL])
def test_an_allowed_origin_may_call_the_api_with_a_token(client, umpire_api):
    preflight = _preflight(client, "/api/v1/campaigns/")
    assert preflight.status_code == 200
    assert preflight["Access-Control-Allow-Origin"] == TOOL
    allowed = {h.strip() for h in preflight["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "if-none-match"} <= allowed
    assert "Access-Control-Allow-Credentials" not in preflight

    read = umpire_api.client.get("/api/v1/campaigns/", HTTP_ORIGIN=TOOL)
    assert read["Access-Control-Allow-Origin"] == TOOL
    exposed = {h.strip() for h in read["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "location", "retry-after", "x-request-id"} <= exposed

    other = umpire_api.client.get("/api/v1/campaigns/", HTTP_ORIGIN="https://elsewhere.example")
    assert "Access-Control-Allow-Origin" not in other
    page = client.get("/login/", HTTP_ORIGIN=TOOL)
    assert "Access-Control-Allow-Origin" not in page


def test_the_origins_come_from_the_environment():
    env = {**os.environ, "CORS_ALLOWED_ORIGINS": f"{TOOL},http://localhost:5173"}
    env.pop("DATABASE_URL", None)
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from config.settings import base; print(base.CORS_ALLOWED_ORIGINS)",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == str([TOOL, "http://localhost:5173"])
