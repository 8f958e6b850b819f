"""Roster read models in the admin: a staff umpire sees their campaign's rows, read-only."""

from __future__ import annotations

import pytest

from rosters.models import Unit
from tests.factories import campaign_for
from tests.rosters.conftest import find_unit

pytestmark = pytest.mark.django_db


def test_a_staff_umpire_sees_their_units_read_only(platoon, umpire, client, make_user, api_for):
    umpire.is_staff = True
    umpire.save()
    other_umpire = make_user("other")
    elsewhere = campaign_for(other_umpire, name="Elsewhere")
    api_for(other_umpire).post(
        f"/api/v1/campaigns/{elsewhere.id}/forces/",
        {"roster": "name: Militia\nside: Red\nunits:\n  - {name: Rabble, kind: squad, "
         "quality: green, leadership: 3}\n"},
    )  # fmt: skip
    client.force_login(umpire)
    page = client.get("/admin/rosters/unit/")
    assert page.status_code == 200
    assert b"1st Squad" in page.content
    assert b"Rabble" not in page.content
    first = find_unit(platoon, "1st Squad")
    detail = client.get(f"/admin/rosters/unit/{first['id']}/change/")
    assert detail.status_code == 200
    assert b"Save" not in detail.content
    assert client.get("/admin/rosters/unit/add/").status_code == 403
    assert (
        client.post(f"/admin/rosters/unit/{first['id']}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert Unit.objects.filter(name="1st Squad").exists()


def test_players_without_staff_status_do_not_get_the_admin(platoon, client, make_user):
    client.force_login(make_user("player"))
    assert client.get("/admin/rosters/unit/").status_code == 302
