"""The umpire's forms on the dashboard and the battle page, and the job page, as people use them:
every state is built through the API or the forms themselves."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from django.test import Client

from battles.models import Battle
from campaigns import services as campaign_services
from campaigns.models import Campaign
from eventlog import store
from eventlog.models import Job
from rosters.models import Force, Trooper, Unit

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# A fixed seed, so the server's dice put one of the wounded in hospital after the battle.
SEED = "5eed" * 16

BLUE = """\
name: Blue patrol
side: Blue
units:
  - name: Alpha Squad
    kind: squad
    quality: regular
    leadership: 2
    fatigue: fresh
    toe_strength: 6
    troopers:
      - {name: Sgt Able, role: leader, armour_die: 4}
      - {name: Pte Baker, armour_die: 4}
      - {name: Pte Charlie, armour_die: 4}
      - {name: Pte Dog, armour_die: 4}
      - {name: Pte Easy, armour_die: 4}
      - {name: Pte Fox, armour_die: 4}
"""

RED = """\
name: Red militia
side: Red
units:
  - name: Red Squad
    kind: squad
    quality: green
    leadership: 3
    troopers:
      - {name: Boss Red, role: leader, armour_die: 4}
      - {name: Gun Red, armour_die: 4}
"""


def field_error(page: str, field: str) -> str:
    """The message shown beside a field, or "" if none is."""
    found = re.search(rf'class="field-error" data-field="{re.escape(field)}">([^<]*)<', page)
    return html.unescape(found.group(1)) if found else ""


@pytest.fixture
def campaign(umpire_api):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()
    for name in ("sg2-reinforced-combat-company.yaml", "sg2-scenario-1-red.yaml"):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign['id']}/forces/",
            {"roster": (EXAMPLES / name).read_text()},
        )
        assert response.status_code == 201, response.json()
    return Campaign.objects.get(pk=campaign["id"])


@pytest.fixture
def company(campaign):
    return Force.objects.get(campaign_id=campaign.id, name__contains="Company")


@pytest.fixture
def members(campaign, join, make_user, company):
    player, observer = make_user("player"), make_user("observer")
    join(campaign.id, player, "player", [company.id])
    join(campaign.id, observer, "observer")
    return player, observer


@pytest.fixture
def as_umpire(client, umpire, django_capture_on_commit_callbacks):
    """The umpire's browser; a POST runs the jobs it requests when its transaction commits, as
    a real request does (eagerly here, on a worker in production)."""
    client.force_login(umpire)

    def post(path: str, data: dict, **extra):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, data, **extra)

    client.post_committed = post
    return client


def dashboard(client, campaign, query: str = "") -> str:
    response = client.get(f"/campaigns/{campaign.id}/{query}")
    assert response.status_code == 200
    return response.content.decode()


def unit_named(campaign, name: str) -> Unit:
    return Unit.objects.get(campaign_id=campaign.id, name=name)


# --- The calendar ---------------------------------------------------------------------------------


def test_advancing_the_calendar(as_umpire, campaign):
    page = dashboard(as_umpire, campaign)
    assert f'action="/campaigns/{campaign.id}/calendar/"' in page
    response = as_umpire.post(f"/campaigns/{campaign.id}/calendar/", {"days": "3"}, follow=True)
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == f"/campaigns/{campaign.id}/"
    assert 'Day <strong id="campaign-day">3</strong>' in page
    assert "The calendar moved from day 0 to day 3" in page
    # The campaign history tells it among the recent events.
    assert "Calendar advanced from day 0 to day 3." in page


def test_a_refused_advance_is_shown_beside_its_field_and_appends_nothing(as_umpire, campaign):
    before = store.last_sequence(campaign.id)
    response = as_umpire.post(f"/campaigns/{campaign.id}/calendar/", {"to_day": "0"}, follow=True)
    page = response.content.decode()
    assert "the calendar only moves forward" in field_error(page, "to_day")
    assert 'value="0"' in page  # the form keeps what was typed
    assert store.last_sequence(campaign.id) == before
    # Shown once: the next visit is clean.
    assert field_error(dashboard(as_umpire, campaign), "to_day") == ""

    both = as_umpire.post(
        f"/campaigns/{campaign.id}/calendar/", {"days": "1", "to_day": "4"}, follow=True
    )
    assert field_error(both.content.decode(), "to_day") == "Give either to_day or days."
    assert store.last_sequence(campaign.id) == before


# --- Moving units ---------------------------------------------------------------------------------


def test_moving_a_unit_to_a_safe_area(as_umpire, campaign):
    squad = unit_named(campaign, "1st Squad, 1st Platoon")
    page = dashboard(as_umpire, campaign)
    assert f'<option value="{squad.id}">1st Squad, 1st Platoon (in the line)</option>' in page
    response = as_umpire.post(
        f"/campaigns/{campaign.id}/move/",
        {"unit": str(squad.id), "to": "safe_area", "reason": "refit"},
        follow=True,
    )
    page = response.content.decode()
    assert "1st Squad, 1st Platoon moved to safe area." in page
    assert f'<option value="{squad.id}">1st Squad, 1st Platoon (safe area)</option>' in page


def test_a_refused_move_names_its_field(as_umpire, campaign):
    squad = unit_named(campaign, "1st Squad, 1st Platoon")
    before = store.last_sequence(campaign.id)
    response = as_umpire.post(
        f"/campaigns/{campaign.id}/move/", {"unit": str(squad.id), "to": "in_the_line"}, follow=True
    )
    page = response.content.decode()
    assert field_error(page, "to") == "1st Squad, 1st Platoon is already there."
    platoon = unit_named(campaign, "1st Platoon")
    response = as_umpire.post(
        f"/campaigns/{campaign.id}/move/", {"unit": str(platoon.id), "to": "safe_area"}, follow=True
    )
    assert "it has no quality or troopers of its own" in field_error(
        response.content.decode(), "unit"
    )
    assert store.last_sequence(campaign.id) == before


# --- Replacements ---------------------------------------------------------------------------------


def test_rolling_and_assigning_a_platoons_replacements(as_umpire, campaign):
    platoon = unit_named(campaign, "1st Platoon")
    first, second = (unit_named(campaign, f"{n} Squad, 1st Platoon") for n in ("1st", "2nd"))
    for squad in (first, second):
        as_umpire.post(f"/campaigns/{campaign.id}/move/", {"unit": squad.id, "to": "safe_area"})

    rolled = as_umpire.post_committed(
        f"/campaigns/{campaign.id}/replacements/",
        {"action": "request", "unit": str(platoon.id)},
    )
    job = Job.objects.get(campaign_id=campaign.id, kind="rosters.replacements_request")
    assert rolled["Location"] == f"/jobs/{job.id}/"
    page = as_umpire.get(rolled["Location"]).content.decode()
    assert "Replacement roll" in page
    assert "Succeeded" in page
    assert re.search(r"Day 0: replacements rolled, d\d+ \d+: \d+ replacements? available", page)
    assert 'http-equiv="refresh"' not in page
    assert f"/campaigns/{campaign.id}/?platoon={platoon.id}#replacements" in page

    page = dashboard(as_umpire, campaign, f"?platoon={platoon.id}")
    found = re.search(r'<strong class="left">(\d+) left</strong>', page)
    assert found is not None
    left = int(found.group(1))
    assert left >= 1
    assert f'name="count-{first.id}"' in page
    assert f'name="count-{second.id}"' in page

    assigned = as_umpire.post_committed(
        f"/campaigns/{campaign.id}/replacements/",
        {"action": "assign", "unit": str(platoon.id), f"count-{first.id}": "1"},
    )
    job = Job.objects.get(campaign_id=campaign.id, kind="rosters.replacements_assign")
    assert assigned["Location"] == f"/jobs/{job.id}/"
    page = as_umpire.get(assigned["Location"]).content.decode()
    assert "Replacements assigned" in page
    assert "Succeeded" in page
    assert "1 replacement assigned (1st Squad, 1st Platoon 1)" in page
    page = dashboard(as_umpire, campaign, f"?platoon={platoon.id}")
    assert f"{left - 1} left</strong>" in page
    assert "On the way: 1 to 1st Squad, 1st Platoon (day 1)." in page


def test_refused_replacements_show_beside_the_platoon_or_the_squad(as_umpire, campaign):
    platoon = unit_named(campaign, "1st Platoon")
    first, second = (unit_named(campaign, f"{n} Squad, 1st Platoon") for n in ("1st", "2nd"))
    url = f"/campaigns/{campaign.id}/replacements/"
    before = store.last_sequence(campaign.id)
    # Every squad is still in the line.
    response = as_umpire.post(url, {"action": "request", "unit": str(platoon.id)}, follow=True)
    page = response.content.decode()
    assert "replacements are only received in a safe area" in field_error(page, "unit")
    assert not Job.objects.filter(campaign_id=campaign.id).exists()

    as_umpire.post(f"/campaigns/{campaign.id}/move/", {"unit": first.id, "to": "safe_area"})
    before = store.last_sequence(campaign.id)
    response = as_umpire.post(
        url, {"action": "assign", "unit": str(platoon.id), f"count-{first.id}": "1"}, follow=True
    )
    page = response.content.decode()
    assert "request them first" in field_error(page, "assignments")

    as_umpire.post_committed(url, {"action": "request", "unit": str(platoon.id)})
    before = store.last_sequence(campaign.id)
    response = as_umpire.post(
        url, {"action": "assign", "unit": str(platoon.id), f"count-{second.id}": "1"}, follow=True
    )
    page = response.content.decode()
    # The refusal names the first assignment: the form shows it beside that squad's count.
    message = field_error(page, "assignments.0.unit_id")
    assert "2nd Squad, 1st Platoon is in the line" in message
    squad_row = page[page.index(f'name="count-{second.id}"') :]
    assert squad_row.index('data-field="assignments.0.unit_id"') < squad_row.index("</tr>")
    assert store.last_sequence(campaign.id) == before
    assert not Job.objects.filter(kind="rosters.replacements_assign").exists()


# --- Voiding --------------------------------------------------------------------------------------


def test_voiding_an_event_listed_on_the_dashboard(as_umpire, campaign):
    as_umpire.post(f"/campaigns/{campaign.id}/calendar/", {"days": "2"})
    advanced = store.last_sequence(campaign.id)
    page = dashboard(as_umpire, campaign)
    assert f"<td>{advanced}</td><td>Calendar advanced</td>" in page
    response = as_umpire.post(
        f"/campaigns/{campaign.id}/void/",
        {"sequence": str(advanced), "reason": "Wrong day"},
        follow=True,
    )
    page = response.content.decode()
    assert f"Event #{advanced} (campaigns.CalendarAdvanced) is voided" in page
    assert 'Day <strong id="campaign-day">0</strong>' in page
    assert f"Event #{advanced} voided: Wrong day" in page
    assert "(voided)" in page


def test_a_refused_void_names_its_field(as_umpire, campaign):
    before = store.last_sequence(campaign.id)
    url = f"/campaigns/{campaign.id}/void/"
    page = as_umpire.post(url, {"sequence": "1", "reason": "oops"}, follow=True).content.decode()
    assert "cannot be voided" in field_error(page, "sequence")
    page = as_umpire.post(url, {"sequence": str(before), "reason": " "}, follow=True)
    assert field_error(page.content.decode(), "reason") == "Say why the event is voided."
    page = as_umpire.post(url, {"sequence": "99999", "reason": "x"}, follow=True)
    assert field_error(page.content.decode(), "sequence") == "Event #99999 is not in this campaign."
    assert store.last_sequence(campaign.id) == before


# --- The battle -----------------------------------------------------------------------------------


@pytest.fixture
def patrol(umpire, umpire_api):
    """Two squads in a battle on day 2, three of Alpha Squad wounded."""
    campaign = campaign_services.campaign_create(name="Patrol", seed=SEED, actor=umpire)
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    alpha, red = unit_named(campaign, "Alpha Squad"), unit_named(campaign, "Red Squad")
    plan = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Hill 402",
            "day": 2,
            "attacker": "Blue",
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    ).json()
    url = f"/api/v1/battles/{plan['id']}/"
    umpire_api.post(f"{url}commit/", {"unit_ids": [str(alpha.id), str(red.id)]})
    assert umpire_api.post(f"{url}start/").status_code == 200
    names = ["Pte Baker", "Pte Charlie", "Pte Dog"]
    wounded = Trooper.objects.filter(unit_id=alpha.id, name__in=names)
    response = umpire_api.post(f"{url}actions/casualties/", {
        "unit_id": str(alpha.id), "mode": "named", "dice": [],
        "casualties": [{"trooper_id": str(t.id), "result": "wounded"} for t in wounded],
    })  # fmt: skip
    assert response.status_code == 201, response.json()
    return Campaign.objects.get(pk=campaign.id), Battle.objects.get(pk=plan["id"]), alpha, red


def test_ending_a_battle_and_resolving_it_after_the_action(as_umpire, patrol):
    campaign, battle, alpha, red = patrol
    page = as_umpire.get(f"/battles/{battle.id}/").content.decode()
    assert f'action="/battles/{battle.id}/end/"' in page
    assert f'name="objective-{alpha.id}"' in page

    response = as_umpire.post(
        f"/battles/{battle.id}/end/",
        {"winner": "Blue", f"objective-{alpha.id}": "1", f"fate-{red.id}": "routed"},
        follow=True,
    )
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == f"/battles/{battle.id}/"
    assert "Hill 402 has ended: Blue won." in page
    battle.refresh_from_db()
    assert (battle.status, battle.winner) == ("ended", "Blue")
    assert f'action="/battles/{battle.id}/after-action/"' in page
    assert "Nobody is in hospital." in dashboard(as_umpire, campaign)

    resolved = as_umpire.post_committed(f"/battles/{battle.id}/after-action/", {})
    job = Job.objects.get(campaign_id=campaign.id, kind="battles.after_action")
    assert resolved["Location"] == f"/jobs/{job.id}/"
    page = as_umpire.get(resolved["Location"]).content.decode()
    assert "After-action resolution" in page
    assert "Succeeded" in page
    # In the units' histories' words, not event type names.
    assert "Alpha Squad: After Hill 402 (won, objective met): +4 quality points" in page
    assert "Quality points awarded" not in page
    assert f'href="/battles/{battle.id}/"' in page
    assert f'href="/campaigns/{campaign.id}/"' in page

    page = dashboard(as_umpire, campaign)
    assert "Nobody is in hospital." not in page
    hospital = page[page.index('id="hospital"') :]
    # With this seed Pte Dog's recovery die is a 3: three days in hospital (P.61).
    assert re.search(r">Pte Dog</a></td><td>Alpha Squad</td><td>5</td>", hospital)
    # The void list tells each recent event in words, naming the unit it changed.
    recent = page[page.index('class="list recent-events"') :]
    recent = recent[: recent.index("</table>")]
    assert "<td>Quality points awarded</td><td>Alpha Squad: After Hill 402" in recent
    assert "<td>—</td>" not in recent


def test_refused_battle_commands_name_their_field(as_umpire, patrol):
    campaign, battle, _alpha, red = patrol
    before = store.last_sequence(campaign.id)
    # Not ended yet: the after-action resolution is refused, at the top of its form.
    page = as_umpire.post(f"/battles/{battle.id}/after-action/", {}, follow=True).content.decode()
    assert "end it before resolving it" in field_error(page, "battle")
    assert not Job.objects.filter(campaign_id=campaign.id).exists()

    page = as_umpire.post(
        f"/battles/{battle.id}/end/", {"winner": "Green", f"fate-{red.id}": "routed"}, follow=True
    ).content.decode()
    assert field_error(page, "winner") == "The winner is one of Blue, Red, or 'draw'."
    # The form keeps what was chosen.
    assert re.search(rf'name="fate-{red.id}"[^>]*>\s*(<option[^>]*>[^<]*</option>\s*)*'
                     r'<option value="routed" selected>', page)  # fmt: skip
    assert store.last_sequence(campaign.id) == before


# --- Who may post ---------------------------------------------------------------------------------


def form_urls(campaign, battle) -> list[str]:
    return [
        f"/campaigns/{campaign.id}/calendar/",
        f"/campaigns/{campaign.id}/move/",
        f"/campaigns/{campaign.id}/replacements/",
        f"/campaigns/{campaign.id}/void/",
        f"/battles/{battle.id}/end/",
        f"/battles/{battle.id}/after-action/",
    ]


@pytest.fixture
def patrol_members(patrol, join, make_user):
    campaign = patrol[0]
    player, observer = make_user("player"), make_user("observer")
    blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
    join(campaign.id, player, "player", [blue.id])
    join(campaign.id, observer, "observer")
    return player, observer


def test_only_the_umpire_may_post(client, patrol, patrol_members, stranger):
    campaign, battle, alpha, _red = patrol
    before = store.last_sequence(campaign.id)
    body = {
        "days": "1",
        "unit": str(alpha.id),
        "to": "safe_area",
        "sequence": "2",
        "reason": "x",
        "winner": "Blue",
        "action": "request",
    }
    for user in patrol_members:
        client.force_login(user)
        for url in form_urls(campaign, battle):
            assert client.post(url, body).status_code == 403, (user, url)
        # They read the dashboard and the battle, without the umpire's tools.
        assert "Umpire&#x27;s tools" not in dashboard(client, campaign)
        assert 'id="umpire-tools"' not in dashboard(client, campaign)
        assert 'id="umpire-tools"' not in client.get(f"/battles/{battle.id}/").content.decode()
    client.force_login(stranger)
    for url in form_urls(campaign, battle):
        assert client.post(url, body).status_code == 404, url
    assert store.last_sequence(campaign.id) == before


def test_a_post_without_the_csrf_token_is_refused(umpire, campaign):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(umpire)
    before = store.last_sequence(campaign.id)
    assert browser.post(f"/campaigns/{campaign.id}/calendar/", {"days": "1"}).status_code == 403
    assert store.last_sequence(campaign.id) == before
    # With the token the page gives, the same form goes through.
    page = browser.get(f"/campaigns/{campaign.id}/").content.decode()
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found is not None
    token = found.group(1)
    response = browser.post(
        f"/campaigns/{campaign.id}/calendar/", {"days": "1", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    assert Campaign.objects.get(pk=campaign.id).day == 1


# --- The job page ---------------------------------------------------------------------------------


def test_the_job_page_refreshes_while_the_job_waits(
    client, umpire, patrol, patrol_members, stranger
):
    campaign, battle, _alpha, _red = patrol
    client.force_login(umpire)
    client.post(f"/battles/{battle.id}/end/", {"winner": "draw"})
    # Without committing, the job is recorded but not yet run: as if the worker were busy.
    response = client.post(f"/battles/{battle.id}/after-action/", {})
    job = Job.objects.get(campaign_id=campaign.id)
    assert job.status == "pending"
    page = client.get(response["Location"]).content.decode()
    assert '<meta http-equiv="refresh" content="2">' in page
    assert "Pending" in page
    assert "Back to the campaign" not in page
    # The battle page lists it, and does not offer to resolve the battle twice.
    page = client.get(f"/battles/{battle.id}/").content.decode()
    assert f'href="/jobs/{job.id}/"' in page
    again = client.post(f"/battles/{battle.id}/after-action/", {}, follow=True).content.decode()
    assert "already on its way" in field_error(again, "battle")

    player, observer = patrol_members
    for user in (player, observer):
        client.force_login(user)
        assert client.get(f"/jobs/{job.id}/").status_code == 200
    client.force_login(stranger)
    assert client.get(f"/jobs/{job.id}/").status_code == 404


def test_pages_run_a_bounded_number_of_queries(
    as_umpire, campaign, members, django_assert_max_num_queries
):
    platoon = unit_named(campaign, "1st Platoon")
    squad = unit_named(campaign, "1st Squad, 1st Platoon")
    as_umpire.post(f"/campaigns/{campaign.id}/move/", {"unit": squad.id, "to": "safe_area"})
    response = as_umpire.post_committed(
        f"/campaigns/{campaign.id}/replacements/", {"action": "request", "unit": str(platoon.id)}
    )
    with django_assert_max_num_queries(30):
        page = dashboard(as_umpire, campaign, f"?platoon={platoon.id}")
    assert "1st Squad, 1st Platoon" in page
    assert "Roll for 1st Platoon" in page
    with django_assert_max_num_queries(12):
        page = as_umpire.get(response["Location"]).content.decode()
    assert "Succeeded" in page
    with django_assert_max_num_queries(30):
        response = as_umpire.post(
            f"/campaigns/{campaign.id}/move/", {"unit": squad.id, "to": "in_the_line"}
        )
    assert response.status_code == 302
