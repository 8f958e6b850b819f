"""The published OpenAPI schema is a contract a client can be written from alone: every
operation's bodies are typed, every error it can answer is documented in the one error shape,
lists are pages, and the schema validates without a warning."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator

METHODS = ("get", "post", "put", "patch", "delete")
# Bodies that are bytes by nature, not JSON: a campaign archive, the event stream.
NOT_JSON = {"application/x-ndjson", "text/event-stream"}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(schema: dict[str, Any]):
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                yield method.upper(), path, item[method]


def _answers(operation: dict[str, Any], component: str) -> bool:
    body = operation["responses"].get("200", {}).get("content", {}).get("application/json", {})
    return body.get("schema") == {"$ref": f"#/components/schemas/{component}"}


def _loose(body: dict[str, Any] | None) -> bool:
    """A body a client generator can only turn into a dict of anything."""
    if body is None:
        return True
    if "$ref" in body or "oneOf" in body or "anyOf" in body or "allOf" in body:
        return False
    if body.get("type") == "array":
        return _loose(body.get("items"))
    return body.get("type") == "object" and "properties" not in body


def _json_schema(content: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    media_type = next(iter(content))
    return media_type, content[media_type].get("schema")


def test_the_schema_validates_without_warnings(tmp_path):
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(tmp_path / "schema.yaml"),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )


def test_every_request_and_success_body_is_typed(schema):
    untyped = []
    for method, path, operation in _operations(schema):
        request = operation.get("requestBody")
        if request is not None:
            media_type, body = _json_schema(request["content"])
            if media_type not in NOT_JSON and _loose(body):
                untyped.append(f"{method} {path} request")
        for code, response in operation["responses"].items():
            if not code.startswith("2") or code == "204":
                continue
            content = response.get("content")
            if content is None:
                untyped.append(f"{method} {path} {code} has no body")
                continue
            media_type, body = _json_schema(content)
            if media_type not in NOT_JSON and _loose(body):
                untyped.append(f"{method} {path} {code}")
    assert untyped == []


def test_every_operation_documents_its_errors_in_the_one_error_shape(schema):
    error = {"$ref": "#/components/schemas/Error"}
    missing = []
    for method, path, operation in _operations(schema):
        responses = operation["responses"]
        expected = {"401", "429", "503"}
        if {} not in operation.get("security", []):
            expected.add("403")
        if "{" in path:
            expected.add("404")
        if method != "GET":
            expected |= {"400", "409", "422"}
        elif _answers(operation, "DicePrompt"):
            expected |= {"409", "422"}  # a prompt follows the command's decision
        for code in sorted(expected):
            body = responses.get(code, {}).get("content", {}).get("application/json", {})
            if body.get("schema") != error:
                missing.append(f"{method} {path} {code}")
    assert missing == [], "\n".join(missing)
    assert set(schema["components"]["schemas"]["Error"]["required"]) == {
        "code",
        "message",
        "field",
        "problems",
    }


def test_every_list_that_grows_with_a_campaign_is_a_page(schema):
    arrays = []
    for method, path, operation in _operations(schema):
        if method != "GET":
            continue
        body = operation["responses"]["200"].get("content", {}).get("application/json", {})
        if body.get("schema", {}).get("type") == "array":
            arrays.append(path)
    # The catalogues are fixed by the code, not by what a campaign holds.
    assert sorted(arrays) == ["/api/v1/event-types/", "/api/v1/rulesets/"]


def test_the_api_root_links_every_top_level_resource(api_for):
    response = api_for(None).get("/api/v1/")
    assert response.status_code == 200
    links = response.json()["links"]
    assert links["campaigns"] == "http://testserver/api/v1/campaigns/"
    assert links["schema"] == "http://testserver/api/v1/schema/"
    assert {"rulesets", "event_types", "invitations", "auth_tokens", "docs"} <= set(links)


def test_a_form_is_refused_with_415_and_appends_nothing(umpire_api, umpire):
    created = umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()
    journal = f"/api/v1/campaigns/{created['id']}/journal/"
    response = umpire_api.send("post", journal, "text=Dawn.", "application/x-www-form-urlencoded")
    assert (response.status_code, response.json()["code"]) == (415, "unsupported_media_type")
    assert umpire_api.get(journal).json()["results"] == []
