"""The service around the API: health, schema, docs and error pages."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_health_reports_database_broker_and_workers(client):
    response = client.get("/healthz")
    body = response.json()
    assert body["database"]["ok"] is True
    assert "broker" in body
    assert "workers" in body
    # No worker leaves the web ready ("degraded"); only the database or the broker makes it 503.
    assert response.status_code == (503 if body["status"] == "unavailable" else 200)


def test_the_openapi_schema_describes_the_api(api_for):
    response = api_for().get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    paths = (
        response.json()["paths"]
        if response["Content-Type"].startswith("application/json")
        else None
    )
    if paths is None:
        import yaml

        paths = yaml.safe_load(response.content)["paths"]
    assert "/api/v1/campaigns/{campaign_id}/events/" in paths
    assert "/api/v1/jobs/{job_id}/" in paths


def test_the_interactive_docs_are_served_without_the_internet(client):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    assert b"cdn." not in response.content
    assert b"jsdelivr" not in response.content


def test_unknown_urls_answer_with_a_json_error(client, settings):
    settings.DEBUG = False
    response = client.get("/api/v1/nowhere/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_token_is_obtained_with_username_and_password(client, umpire):
    response = client.post(
        "/api/v1/auth/token/",
        {"username": "umpire", "password": "correct horse battery"},
        content_type="application/json",
    )
    assert response.status_code == 200
    token = response.json()["token"]
    assert token.startswith("mst_")
    assert len(token) == 52


def test_the_home_page_leads_to_the_login(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/login/"
