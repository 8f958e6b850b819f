"""Webhooks in the admin: read-only, for the campaigns one umpires, and never the secret."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import campaign_for
from webhooks import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_umpire(make_user):
    return make_user("staff-umpire", is_staff=True)


def test_a_staff_umpire_sees_their_webhooks_without_the_secret(
    staff_umpire, make_user, local_receivers
):
    mine = campaign_for(staff_umpire, name="Kessler Ridge")
    theirs = campaign_for(make_user("other-umpire"), name="Hidden Front")
    registered = services.webhook_create(
        campaign_id=mine.id, url="http://127.0.0.1:9/mine", event_types=[], actor=staff_umpire
    )
    services.webhook_create(
        campaign_id=theirs.id, url="http://127.0.0.1:9/theirs", event_types=[], actor=staff_umpire
    )
    client = Client()
    client.force_login(staff_umpire)

    listed = client.get("/admin/webhooks/webhook/")
    page = client.get(f"/admin/webhooks/webhook/{registered.webhook.id}/change/")
    audit = client.get("/admin/webhooks/webhookaudit/")

    assert [str(w.campaign_id) for w in listed.context["cl"].result_list] == [str(mine.id)]
    assert page.status_code == 200
    assert registered.secret.encode() not in page.content
    assert b"/mine" in page.content
    assert [a.action for a in audit.context["cl"].result_list] == ["registered"]
    assert (
        client.post(f"/admin/webhooks/webhook/{registered.webhook.id}/delete/").status_code == 403
    )
