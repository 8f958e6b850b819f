"""Schemathesis against the whole published API: every operation of the OpenAPI schema, with
requests generated from the schema (valid and invalid), answers without a server error.

It complements ``test_fuzz_write_endpoints.py``: that one throws arbitrary JSON at the writes in
a campaign with forces and battles; this one follows the schema's own shapes, reads included,
for a user who belongs to nothing (most ids it invents are 404s, which is what a stranger
probing the API gets).
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings

from accounts.tokens import token_issue

pytestmark = pytest.mark.django_db

# A campaign archive (POST /campaigns/import/) is a body of bytes, sent as they are.
schemathesis.serializer.alias("application/x-ndjson", "application/octet-stream")

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
schema.app = get_wsgi_application()


@pytest.fixture(autouse=True)
def _connections_kept_open():
    """Schemathesis calls the WSGI handler itself; like Django's test client, keep the handler
    from closing the test's database connection at the end of each request (PostgreSQL would
    otherwise lose the test's transaction)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def authorization(umpire) -> dict[str, str]:
    return {"Authorization": f"Token {token_issue(user=umpire, name='tests').secret}"}


@schema.parametrize()
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_no_operation_answers_with_a_server_error(case, authorization):
    response = case.call(headers=authorization)
    assert response.status_code < 500, (case.method, case.formatted_path, response.text[:300])
