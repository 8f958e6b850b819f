"""People get pages when something is not there, not theirs, or broken; the API keeps answering
JSON (config/errors.py)."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client, RequestFactory

from config.errors import server_error
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(make_user):
    client = Client()
    user = make_user("reader")
    client.force_login(user)
    return client, user


def test_a_page_that_is_not_there_is_a_page(signed_in):
    client, _ = signed_in
    for url in (f"/campaigns/{uuid.uuid4()}/", f"/units/{uuid.uuid4()}/", "/no-such-page/"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response["Content-Type"].startswith("text/html"), url
        text = response.content.decode()
        assert "<h1>Not found</h1>" in text
        assert 'href="#main"' in text  # the skip link of every page


def test_the_api_still_answers_json(signed_in):
    client, _ = signed_in
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response.json() == {
        "code": "not_found",
        "message": "Not found.",
        "field": None,
        "problems": [{"code": "not_found", "message": "Not found.", "field": None}],
    }


def test_a_form_that_is_not_yours_is_a_page(signed_in, umpire, join, api_for):
    client, user = signed_in
    campaign = campaign_for(umpire)
    join(campaign.id, user, "observer")
    response = client.post(f"/campaigns/{campaign.id}/calendar/", {"days": 1})
    assert response.status_code == 403
    assert "<h1>Not yours to see</h1>" in response.content.decode()


def test_a_broken_page_is_a_page_and_a_broken_api_call_is_json():
    factory = RequestFactory()
    page = server_error(factory.get("/campaigns/"))
    assert page.status_code == 500
    assert b"<h1>Something went wrong</h1>" in page.content
    api = server_error(factory.get("/api/v1/campaigns/"))
    assert api.status_code == 500
    assert api["Content-Type"] == "application/json"
