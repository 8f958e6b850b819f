"""The webhooks API: the umpire's only, every request typed, every refusal in the error shape."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.tokens import token_issue
from eventlog import store
from tests.api.test_members import raise_force
from tests.webhooks.conftest import note
from webhooks.models import Delivery, Webhook, WebhookAudit

pytestmark = pytest.mark.django_db


def test_the_umpire_registers_a_webhook_and_sees_its_secret_once(
    umpire_api, campaign, webhooks_url, receiver
):
    response = umpire_api.post(
        webhooks_url,
        {"url": receiver.url, "event_types": ["campaigns.NoteRecorded", "campaigns.NoteRecorded"]},
    )
    assert response.status_code == 201, response.json()
    created = response.json()
    assert created["secret"].startswith("whsec_")
    assert created["url"] == receiver.url
    assert created["event_types"] == ["campaigns.NoteRecorded"]
    assert created["active"] is True
    assert created["starts_after"] == store.last_sequence(campaign["id"])
    assert response.headers["Location"].endswith(f"{webhooks_url}{created['id']}/")

    shown = umpire_api.get(f"{webhooks_url}{created['id']}/").json()
    listed = umpire_api.get(webhooks_url).json()
    assert "secret" not in shown
    assert listed["count"] == 1
    assert "secret" not in listed["results"][0]
    assert shown == {k: v for k, v in created.items() if k != "secret"}


def test_registering_is_audited_and_appends_nothing_to_the_log(
    umpire_api, umpire, campaign, register
):
    before = store.last_sequence(campaign["id"])
    created = register()
    (audit,) = WebhookAudit.objects.all()
    assert (audit.action, str(audit.webhook_id), audit.actor_id) == (
        "registered",
        created["id"],
        umpire.pk,
    )
    assert store.last_sequence(campaign["id"]) == before


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"url": "ftp://example.org/x"}, "webhook.url_scheme", "url"),
        ({"url": "http://10.0.0.7/x"}, "webhook.private_address", "url"),
        ({}, "invalid.required", "url"),
        ({"url": "LOCAL", "event_types": "all"}, "invalid.not_a_list", "event_types"),
    ],
)
def test_a_bad_webhook_is_refused_with_400(umpire_api, webhooks_url, body, code, field):
    response = umpire_api.post(webhooks_url, body)
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == (code, field)
    assert not Webhook.objects.exists()


def test_every_unknown_event_type_is_named(umpire_api, webhooks_url, receiver, local_receivers):
    response = umpire_api.post(
        webhooks_url,
        {"url": receiver.url, "event_types": ["campaigns.NoteRecorded", "x.Nope", "y.Nope"]},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "webhook.unknown_event_type"
    assert [p["field"] for p in body["problems"]] == ["event_types.1", "event_types.2"]


def test_a_campaign_has_a_limited_number_of_webhooks(umpire_api, webhooks_url, register, settings):
    settings.MUSTER_WEBHOOKS_PER_CAMPAIGN = 2
    register()
    register()
    response = umpire_api.post(webhooks_url, {"url": "http://127.0.0.1:1/x"})
    assert response.status_code == 409
    assert response.json()["code"] == "webhook.too_many"


@pytest.fixture(params=["player", "observer"])
def member_api(request, api_for, make_user, join, campaign):
    member = make_user(request.param)
    forces = [raise_force(campaign["id"])] if request.param == "player" else []
    join(campaign["id"], member, request.param, forces)
    return api_for(member)


def test_players_and_observers_may_not_see_or_touch_webhooks(member_api, webhooks_url, register):
    created = register()
    detail = f"{webhooks_url}{created['id']}/"
    answers = [
        member_api.get(webhooks_url),
        member_api.post(webhooks_url, {"url": "http://127.0.0.1:1/x"}),
        member_api.get(detail),
        member_api.delete(detail),
        member_api.get(f"{detail}deliveries/"),
    ]
    assert [a.status_code for a in answers] == [403] * 5
    assert {a.json()["code"] for a in answers} == {"campaign.umpire_only"}
    assert Webhook.objects.count() == 1


def test_strangers_do_not_learn_the_campaign_exists(api_for, stranger, webhooks_url, register):
    created = register()
    stranger_api = api_for(stranger)
    assert stranger_api.get(webhooks_url).status_code == 404
    assert stranger_api.get(f"{webhooks_url}{created['id']}/").status_code == 404
    assert APIClient().get(webhooks_url).status_code == 401


def test_a_read_only_token_may_list_but_not_register(umpire, webhooks_url, register):
    client = APIClient()
    secret = token_issue(user=umpire, name="ro", read_only=True).secret
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    register()
    assert client.get(webhooks_url).status_code == 200
    refused = client.post(webhooks_url, {"url": "http://127.0.0.1:1/x"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "token.read_only")


def test_another_campaigns_webhook_is_not_found(umpire_api, webhooks_url, register):
    created = register()
    other = umpire_api.post("/api/v1/campaigns/", {"name": "Elsewhere"}).json()
    response = umpire_api.get(f"/api/v1/campaigns/{other['id']}/webhooks/{created['id']}/")
    assert (response.status_code, response.json()["code"]) == (404, "webhook.not_found")


def test_deleting_a_webhook_stops_it_and_is_audited(umpire_api, campaign, webhooks_url, register):
    created = register()
    note(umpire_api, campaign, "Sent.")
    response = umpire_api.delete(f"{webhooks_url}{created['id']}/")
    assert response.status_code == 204
    assert not Webhook.objects.exists()
    assert not Delivery.objects.exists()
    assert [a.action for a in WebhookAudit.objects.all()] == ["registered", "deleted"]
    assert umpire_api.get(f"{webhooks_url}{created['id']}/").status_code == 404


def test_the_delivery_log_pages_by_a_cursor(umpire_api, campaign, webhooks_url, register, receiver):
    created = register()
    for text in ("One.", "Two.", "Three."):
        note(umpire_api, campaign, text)
    url = f"{webhooks_url}{created['id']}/deliveries/"

    first = umpire_api.get(url, {"limit": 2}).json()
    second = umpire_api.get(first["next"]).json()

    assert [d["sequence"] for d in first["results"]] == [2, 3]
    assert [d["sequence"] for d in second["results"]] == [4]
    assert second["next"] is None
    delivery = first["results"][0]
    assert delivery["status"] == "delivered"
    assert delivery["event_type"] == "campaigns.NoteRecorded"
    assert delivery["attempt_count"] == 1
    (attempt,) = delivery["attempts"]
    assert (attempt["number"], attempt["status_code"], attempt["error"]) == (1, 200, "")
    assert attempt["response_excerpt"] == "thanks"


def test_the_delivery_log_filters_by_status(umpire_api, campaign, webhooks_url, register, receiver):
    created = register()
    receiver.script = [500]
    note(umpire_api, campaign, "Refused once.")
    url = f"{webhooks_url}{created['id']}/deliveries/"
    assert [d["status"] for d in umpire_api.get(url, {"status": "pending"}).json()["results"]] == [
        "pending"
    ]
    assert umpire_api.get(url, {"status": "delivered"}).json()["results"] == []
    refused = umpire_api.get(url, {"status": "lost"})
    assert (refused.status_code, refused.json()["field"]) == (400, "status")


def test_redelivering_sends_the_event_again_as_a_new_delivery(
    umpire_api, umpire, campaign, webhooks_url, register, receiver
):
    created = register()
    note(umpire_api, campaign, "Once more, please.")
    (first,) = Delivery.objects.all()
    url = f"{webhooks_url}{created['id']}/deliveries/{first.id}/redeliver/"

    response = umpire_api.post(url)

    assert response.status_code == 202, response.json()
    again = response.json()
    assert again["redelivery_of"] == first.id
    assert again["requested_by"] == umpire.pk
    assert again["sequence"] == first.sequence
    assert again["status"] == "pending"  # as it was queued; it has been sent since
    assert Delivery.objects.get(pk=again["id"]).status == "delivered"
    assert [r.delivery_id for r in receiver.requests] == [str(first.id), str(again["id"])]
    assert [a.action for a in WebhookAudit.objects.all()] == ["registered", "redelivered"]


def test_an_event_already_waiting_is_not_queued_twice(
    umpire_api, campaign, webhooks_url, register, receiver
):
    created = register()
    receiver.script = [500]
    note(umpire_api, campaign, "Refused.")
    (pending,) = Delivery.objects.all()
    url = f"{webhooks_url}{created['id']}/deliveries/{pending.id}/redeliver/"
    response = umpire_api.post(url)
    assert (response.status_code, response.json()["code"]) == (409, "delivery.already_queued")
    assert Delivery.objects.count() == 1


def test_redelivering_an_unknown_delivery_is_not_found(umpire_api, webhooks_url, register):
    created = register()
    response = umpire_api.post(f"{webhooks_url}{created['id']}/deliveries/999/redeliver/")
    assert (response.status_code, response.json()["code"]) == (404, "delivery.not_found")
