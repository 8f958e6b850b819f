"""Battle reports on the pages: each side's player files a report from a form, the umpire sees
both beside the log with the disagreement marked and decides it, and each player reads the
decision on their own report."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from eventlog import store
from rosters.models import Trooper
from tests.battles.conftest import battle, forces, members, plan_body, squads  # noqa: F401
from tests.battles.test_battle_reports import campaign, ended, visibility  # noqa: F401

pytestmark = pytest.mark.django_db


def field_error(page: str, field: str) -> str:
    found = re.search(rf'class="field-error" data-field="{re.escape(field)}">([^<]*)<', page)
    return html.unescape(found.group(1)) if found else ""


@pytest.fixture
def browsers(make_user, join, campaign, forces, umpire):  # noqa: F811
    blue, red = make_user("blue_player"), make_user("red_player")
    join(campaign.id, blue, "player", [str(forces["Blue"].id)])
    join(campaign.id, red, "player", [str(forces["Red"].id)])
    clients = {}
    for side, user in (("Blue", blue), ("Red", red), ("umpire", umpire)):
        clients[side] = Client()
        clients[side].force_login(user)
    return clients


@pytest.fixture
def red_men(forces):  # noqa: F811
    return members(squads(forces["Red"])[0])


def test_players_file_disagreeing_reports_and_the_umpire_decides_on_the_page(
    ended,  # noqa: F811
    browsers,
    red_men,
):
    battle_id = ended["id"]
    hurt = red_men[1]
    blue_form = browsers["Blue"].get(f"/battles/{battle_id}/report/")
    assert blue_form.status_code == 200
    page = blue_form.content.decode()
    # Blue names Red's men too (the campaign shows forces whole); his own are fit by default.
    assert f'name="trooper-{hurt.id}"' in page
    filed = browsers["Blue"].post(
        f"/battles/{battle_id}/report/",
        {"side": "Blue", f"trooper-{hurt.id}": "killed", "objective-0": "met", "notes": "Got him"},
    )
    assert filed.status_code == 302
    # Red's own men start as the log has them: the wounded man wounded, the others fit.
    red_form = browsers["Red"].get(f"/battles/{battle_id}/report/").content.decode()
    select = re.search(rf'name="trooper-{hurt.id}">(.*?)</select>', red_form, re.S)
    assert select is not None
    assert '<option value="wounded" selected>' in select.group(1)
    filed = browsers["Red"].post(
        f"/battles/{battle_id}/report/", {"side": "Red", f"trooper-{hurt.id}": "wounded"}
    )
    assert filed.status_code == 302

    page = browsers["umpire"].get(f"/battles/{battle_id}/reconcile/").content.decode()
    card = re.search(rf'<li class="card point (\w+)"[^>]*data-point="trooper:{hurt.id}"', page)
    assert card is not None
    assert card.group(1) == "disagreement"
    # The casualty in dispute and Blue's objective, which the log holds nothing for.
    assert "<strong>2</strong> points to decide" in page
    accept_blue = re.search(
        rf'data-point="trooper:{hurt.id}".*?value="accept:([0-9a-f-]+)"[^>]*> Accept Blue',
        page,
        re.S,
    )
    assert accept_blue is not None
    blue_report_id = accept_blue.group(1)
    decided = browsers["umpire"].post(
        f"/battles/{battle_id}/reconcile/",
        {"point": f"trooper:{hurt.id}", "choice": f"accept:{blue_report_id}"},
    )
    assert decided.status_code == 302
    assert Trooper.objects.get(pk=hurt.pk).status == "dead"
    unit_page = browsers["umpire"].get(f"/units/{hurt.unit_id}/").content.decode()
    assert "casualties from a player's battle report" in unit_page or "dead" in unit_page

    red_page = browsers["Red"].get(f"/battles/{battle_id}/report/").content.decode()
    assert "You said wounded; the umpire accepted: <strong>killed</strong> stands" in red_page
    assert "(your report not upheld)" in red_page
    battle_page = browsers["Red"].get(f"/battles/{battle_id}/").content.decode()
    assert "Red's report: 1 point decided" in battle_page


def test_a_refused_report_shows_the_rules_message_beside_its_field_and_writes_nothing(
    ended,  # noqa: F811
    browsers,
    red_men,
    campaign,  # noqa: F811
):
    battle_id = ended["id"]
    before = store.last_sequence(campaign.id)
    # The umpire decides a point of Red's report; then Red cannot replace it.
    browsers["Red"].post(
        f"/battles/{battle_id}/report/", {"side": "Red", f"trooper-{red_men[1].id}": "fit"}
    )
    refused = browsers["umpire"].post(
        f"/battles/{battle_id}/reconcile/",
        {"point": f"trooper:{red_men[1].id}", "choice": "correct", "value": "fit"},
    )
    assert refused.status_code == 422
    page = refused.content.decode()
    point = re.search(rf'data-point="trooper:{red_men[1].id}".*?</li>', page, re.S)
    assert point is not None
    assert 'data-field="point">Say why.</p>' in point.group(0)
    assert store.last_sequence(campaign.id) == before + 2  # the report and its hiding only
