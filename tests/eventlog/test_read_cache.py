"""API reads kept under their campaign's log position (eventlog.api.read_cache, ADR 27): served
again only while the log has not moved, only to the reader they were rendered for, and only
after the request was authenticated."""

from __future__ import annotations

import gzip
import json

import pytest
from rest_framework.test import APIClient

from accounts.tokens import token_issue, token_revoke
from eventlog import store
from tests.factories import join_by_invitation
from tests.rosters.conftest import PLATOON

pytestmark = pytest.mark.django_db


@pytest.fixture
def platoon(umpire_api, campaign_of_umpire):
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign_of_umpire.id}/forces/", {"roster": PLATOON}
    )
    assert response.status_code == 201, response.json()
    return response.json()


@pytest.fixture
def campaign_of_umpire(umpire):
    from tests.factories import campaign_for

    return campaign_for(umpire)


def _squad(force: dict, name: str) -> dict:
    def walk(units):
        for unit in units:
            yield unit
            yield from walk(unit.get("units", []))

    return next(unit for unit in walk(force["units"]) if unit["name"] == name)


def test_a_second_read_of_an_unmoved_log_is_served_kept_in_one_query(
    platoon, umpire_api, django_assert_num_queries
):
    url = f"/api/v1/units/{_squad(platoon, '1st Squad')['id']}/"
    first = umpire_api.get(url)
    assert first.status_code == 200
    # The token and the campaign's position, asked in one statement: nothing of the roster is
    # read again.
    with django_assert_num_queries(1) as asked:
        again = umpire_api.get(url)
    assert again.status_code == 200
    assert again.content == first.content
    assert again["ETag"] == first["ETag"]
    (statement,) = [query["sql"] for query in asked.captured_queries]
    assert "accounts_apitoken" in statement
    assert "eventlog_campaignhead" in statement


def test_a_read_by_session_is_kept_under_the_position_asked_on_its_own(
    platoon, umpire, client, django_assert_num_queries
):
    # The browser's pages ask the API with their session: no token to ask the position with.
    client.force_login(umpire)
    url = f"/api/v1/units/{_squad(platoon, '1st Squad')['id']}/"
    first = client.get(url)
    assert first.status_code == 200
    with django_assert_num_queries(3) as asked:  # the session, its user, the position
        again = client.get(url)
    assert again.content == first.content
    assert any("eventlog_campaignhead" in query["sql"] for query in asked.captured_queries)


def test_an_append_moves_the_log_and_the_next_read_shows_it(platoon, umpire_api):
    url = f"/api/v1/units/{_squad(platoon, '2nd Squad')['id']}/"
    assert umpire_api.get(url).json()["quality"] == "green"
    changed = umpire_api.post(f"{url}quality/", {"quality": "regular", "reason": "held"})
    assert changed.status_code in (200, 201), changed.json()
    assert umpire_api.get(url).json()["quality"] == "regular"
    history = umpire_api.get(f"{url}history/").json()["results"]
    assert history[-1]["changes"] == {"quality": ["green", "regular"]}


def test_an_answer_kept_for_the_umpire_is_never_served_to_a_player_of_another_side(
    platoon, umpire_api, api_for, make_user, campaign_of_umpire
):
    militia = umpire_api.post(
        f"/api/v1/campaigns/{campaign_of_umpire.id}/forces/",
        {"roster": "name: Militia\nside: Red\nunits:\n  - {name: Rabble, kind: squad, "
         "quality: green, leadership: 3}\n"},
    ).json()  # fmt: skip
    rival = make_user("rival")
    join_by_invitation(umpire_api, campaign_of_umpire.id, rival, "player", [militia["id"]])
    url = f"/api/v1/units/{_squad(platoon, '1st Squad')['id']}/"
    assert umpire_api.get(url).status_code == 200
    assert umpire_api.get(url).status_code == 200  # kept now
    refused = api_for(rival).get(url)
    assert (refused.status_code, refused.json()["code"]) == (404, "unit.not_found")
    force_url = f"/api/v1/forces/{platoon['id']}/"
    assert umpire_api.get(force_url).status_code == 200
    refused = api_for(rival).get(force_url)
    assert (refused.status_code, refused.json()["code"]) == (403, "force.not_yours")


def test_a_revoked_token_is_refused_though_its_answer_was_kept(platoon, umpire):
    issued = token_issue(user=umpire, name="kept")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.secret}")
    url = f"/api/v1/units/{_squad(platoon, '1st Squad')['id']}/"
    assert client.get(url).status_code == 200
    assert client.get(url).status_code == 200
    token_revoke(issued.token)
    refused = client.get(url)
    assert refused.status_code == 401


def test_an_answer_as_of_a_point_stays_pinned_when_served_kept(
    platoon, umpire_api, campaign_of_umpire
):
    point = store.last_sequence(campaign_of_umpire.id)
    url = f"/api/v1/units/{_squad(platoon, '2nd Squad')['id']}/?as_of={point}"
    first = umpire_api.get(url)
    again = umpire_api.get(url)
    assert first.status_code == again.status_code == 200
    assert (
        again["Cache-Control"] == first["Cache-Control"] == ("private, max-age=31536000, immutable")
    )


def test_the_links_of_a_kept_page_name_the_host_asked(platoon, umpire_api):
    url = f"/api/v1/forces/{platoon['id']}/troopers/?limit=2"
    here = umpire_api.get(url, Host="localhost").json()
    there = umpire_api.get(url, Host="testserver").json()
    assert here["next"].startswith("http://localhost/")
    assert there["next"].startswith("http://testserver/")


def test_a_kept_answer_is_sent_compressed_and_tagged_as_a_rendered_one(
    platoon, umpire_api, django_assert_max_num_queries
):
    url = f"/api/v1/forces/{platoon['id']}/"
    rendered = umpire_api.get(url, **{"Accept-Encoding": "gzip"})
    with django_assert_max_num_queries(1):
        kept = umpire_api.get(url, **{"Accept-Encoding": "gzip"})
    assert rendered["Content-Encoding"] == kept["Content-Encoding"] == "gzip"
    assert rendered["ETag"] == kept["ETag"]
    assert kept["ETag"].startswith('W/"')
    assert gzip.decompress(kept.content) == gzip.decompress(rendered.content)
    assert json.loads(gzip.decompress(kept.content))["id"] == platoon["id"]
    plain = umpire_api.get(url)
    assert "Content-Encoding" not in plain
    assert json.loads(plain.content) == json.loads(gzip.decompress(kept.content))
    unchanged = umpire_api.get(url, **{"Accept-Encoding": "gzip", "If-None-Match": kept["ETag"]})
    assert (unchanged.status_code, unchanged.content) == (304, b"")


def test_a_rendered_answer_is_compressed_once(platoon, umpire_api, monkeypatch):
    import django.middleware.gzip
    from django.utils import text

    import eventlog.caching

    compressed = []

    def counted(content, **kwargs):
        compressed.append(len(content))
        return text.compress_string(content, **kwargs)

    monkeypatch.setattr(eventlog.caching, "compress_string", counted)
    monkeypatch.setattr(django.middleware.gzip, "compress_string", counted)
    rendered = umpire_api.get(f"/api/v1/forces/{platoon['id']}/", **{"Accept-Encoding": "gzip"})
    assert rendered["Content-Encoding"] == "gzip"
    assert compressed == [len(gzip.decompress(rendered.content))]
    assert json.loads(gzip.decompress(rendered.content))["id"] == platoon["id"]
