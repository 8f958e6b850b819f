"""The battle at the table on the pages: commit, start, next turn, and any battle action as a
generated form whose dice fields come from the dice prompt, or the server rolls."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from battles.models import Battle, BattleLogEntry, Participant
from campaigns.models import Campaign
from eventlog import store
from eventlog.models import Job
from rosters.models import Force, Trooper, Unit

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def field_error(page: str, field: str) -> str:
    found = re.search(
        rf'class="field-error" role="alert" data-field="{re.escape(field)}">([^<]*)<', page
    )
    return html.unescape(found.group(1)) if found else ""


@pytest.fixture
def campaign(umpire_api):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Recon in force"}).json()
    for name in ("sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml"):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign['id']}/forces/",
            {"roster": (EXAMPLES / name).read_text()},
        )
        assert response.status_code == 201, response.json()
    return Campaign.objects.get(pk=campaign["id"])


@pytest.fixture
def battle(umpire_api, campaign):
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Recon in force",
            "day": 0,
            "attacker": "Blue",
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert response.status_code == 201, response.json()
    return Battle.objects.get(pk=response.json()["id"])


@pytest.fixture
def as_umpire(client, umpire, django_capture_on_commit_callbacks):
    client.force_login(umpire)

    def post(path: str, data: dict, **extra):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, data, **extra)

    client.post_committed = post
    return client


def squad(campaign, side: str, name: str) -> Unit:
    force = Force.objects.get(campaign_id=campaign.id, side=side)
    return Unit.objects.get(force_id=force.id, name=name)


def started(as_umpire, campaign, battle) -> None:
    blue = squad(campaign, "Blue", "Recon Squad 1")
    red = squad(campaign, "Red", "Squad 2")
    committed = as_umpire.post(
        f"/battles/{battle.id}/commit/", {"unit_ids": [str(blue.id), str(red.id)]}, follow=True
    )
    assert "2 unit(s) committed to Recon in force." in committed.content.decode()
    page = as_umpire.post(f"/battles/{battle.id}/step/start/", follow=True).content.decode()
    assert "Recon in force: turn 1." in page


def test_the_umpire_commits_starts_and_moves_the_turn_on(as_umpire, campaign, battle):
    page = as_umpire.get(f"/battles/{battle.id}/").content.decode()
    assert f'href="/battles/{battle.id}/commit/"' in page
    started(as_umpire, campaign, battle)
    page = as_umpire.get(f"/battles/{battle.id}/").content.decode()
    assert f'href="/battles/{battle.id}/actions/"' in page
    assert "Next turn (now turn 1)" in page
    page = as_umpire.post(f"/battles/{battle.id}/step/turn/", follow=True).content.decode()
    assert "Recon in force: turn 2." in page
    assert Battle.objects.get(pk=battle.id).turn == 2


def test_a_refused_commit_shows_its_message_and_writes_nothing(as_umpire, campaign, battle):
    before = store.last_sequence(campaign.id)
    response = as_umpire.post(f"/battles/{battle.id}/commit/", {})
    assert response.status_code == 422
    assert field_error(response.content.decode(), "unit_ids") == "Name the units to commit."
    assert store.last_sequence(campaign.id) == before


def test_every_action_of_the_ruleset_has_a_form(as_umpire, campaign, battle):
    started(as_umpire, campaign, battle)
    page = as_umpire.get(f"/battles/{battle.id}/actions/").content.decode()
    names = re.findall(rf'href="/battles/{battle.id}/actions/([a-z_]+)/"', page)
    assert {"direct_fire", "casualties", "medical_treatment", "fire_support_request"} <= set(names)
    assert not any(name.startswith("fad_") for name in names)
    for name in names:
        form = as_umpire.get(f"/battles/{battle.id}/actions/{name}/")
        assert form.status_code == 200, name


def test_direct_fire_with_the_dice_the_prompt_asks_for_p35(as_umpire, campaign, battle):
    started(as_umpire, campaign, battle)
    firer = squad(campaign, "Blue", "Recon Squad 1")
    target = squad(campaign, "Red", "Squad 2")
    url = f"/battles/{battle.id}/actions/direct_fire/"
    form = as_umpire.get(url).content.decode()
    # Ids are chosen by name, grouped by side.
    assert f'<option value="{target.id}">Squad 2</option>' in form
    assert '<optgroup label="Red">' in form
    fire = {
        "unit_id": str(firer.id),
        "target_id": str(target.id),
        "range_bands": "2",
        "cover": "soft",
        "men_firing": "5",
        "small_arms_firepower": "2",
        "support_weapons": '[{"name": "SAW", "firepower_die": 8}]',
        "impact_die": "10",
    }
    # The prompt: a field per die, labelled with the die, its purpose and whom it is for.
    before = store.last_sequence(campaign.id)
    asked = as_umpire.post(url, {**fire, "step": "prompt"})
    assert store.last_sequence(campaign.id) == before  # the prompt writes nothing
    page = html.unescape(asked.content.decode())
    assert asked.status_code == 200, page
    assert "d8 · range die · for Recon Squad 1" in page
    assert "d8 · quality die · for Recon Squad 1" in page
    assert page.count('name="face"') == 4
    # The faces so far extend the prompt with the left-over roll and the hits' dice.
    asked = as_umpire.post(url, {**fire, "step": "prompt", "face": ["3", "6", "7", "5"]})
    assert "left-over 2 against a possible extra hit" in asked.content.decode()
    # Recorded with the P.35-36 faces: the battle log tells it at once.
    done = as_umpire.post(
        url,
        {**fire, "step": "table", "face": ["3", "6", "7", "5", "2", "1", "2", "2", "3", "1", "4"]},
        follow=True,
    )
    page = html.unescape(done.content.decode())
    assert "total 18 for 3 potential hits" in page
    assert Participant.objects.get(battle_id=battle.id, unit_id=target.id).suppression == 1


def test_a_refused_action_shows_the_rules_message_beside_its_field(as_umpire, campaign, battle):
    started(as_umpire, campaign, battle)
    firer = squad(campaign, "Blue", "Recon Squad 1")
    before = store.last_sequence(campaign.id)
    response = as_umpire.post(
        f"/battles/{battle.id}/actions/direct_fire/",
        {
            "unit_id": str(firer.id),
            "target_id": str(firer.id),
            "range_bands": "1",
            "men_firing": "5",
            "small_arms_firepower": "2",
            "impact_die": "10",
            "step": "table",
            "face": ["3"],
        },
    )
    assert response.status_code == 422
    assert field_error(response.content.decode(), "target_id") == "A unit cannot fire at itself."
    assert store.last_sequence(campaign.id) == before


def test_medical_treatment_rolled_by_the_server(as_umpire, umpire_api, campaign, battle):
    started(as_umpire, campaign, battle)
    blue = squad(campaign, "Blue", "Recon Squad 1")
    wounded = Trooper.objects.filter(unit_id=blue.id).order_by("order")[1]
    named = umpire_api.post(
        f"/api/v1/battles/{battle.id}/actions/casualties/",
        {
            "unit_id": str(blue.id),
            "mode": "named",
            "casualties": [{"trooper_id": str(wounded.id), "result": "wounded"}],
            "dice": [],
        },
    )
    assert named.status_code == 201, named.json()
    done = as_umpire.post_committed(
        f"/battles/{battle.id}/actions/medical_treatment/",
        {"unit_id": str(blue.id), "in_cover": "on", "step": "server"},
    )
    assert done.status_code == 302
    job = Job.objects.get(pk=done["Location"].rstrip("/").rsplit("/", 1)[1])
    assert job.status == "succeeded", job.error
    (treated,) = BattleLogEntry.objects.filter(
        battle_id=battle.id, event_type="battles.CasualtiesTreated"
    )
    assert wounded.name in treated.summary
    assert "server" in str(treated.dice)


def test_a_player_cannot_open_the_table_forms(client, make_user, join, campaign, battle):
    player = make_user("player")
    red = Force.objects.get(campaign_id=campaign.id, side="Red")
    join(campaign.id, player, "player", [red.id])
    client.force_login(player)
    assert client.get(f"/battles/{battle.id}/actions/").status_code == 403
    assert client.post(f"/battles/{battle.id}/step/start/").status_code == 403


def live_version(page: str) -> str:
    found = re.search(r'data-live="(\d+)"', page)
    assert found is not None, "the battle page carries its version"
    return found.group(1)


def test_an_open_page_is_not_modified_until_something_happens(as_umpire, campaign, battle):
    """The page's script asks with the version it shows (ADR 24): 304 until the log moves."""
    started(as_umpire, campaign, battle)
    page = as_umpire.get(f"/battles/{battle.id}/").content.decode()
    version = live_version(page)
    assert as_umpire.get(f"/battles/{battle.id}/?version={version}").status_code == 304
    as_umpire.post(f"/battles/{battle.id}/step/turn/")
    fresh = as_umpire.get(f"/battles/{battle.id}/?version={version}")
    assert fresh.status_code == 200
    assert live_version(fresh.content.decode()) != version
    assert "Turn 2." in fresh.content.decode()


def test_the_umpire_plans_a_battle_on_a_page(as_umpire, campaign, battle):
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    dashboard = as_umpire.get(f"/campaigns/{campaign.id}/").content.decode()
    assert f'href="/campaigns/{campaign.id}/battles/new/"' in dashboard
    done = as_umpire.post(
        f"/campaigns/{campaign.id}/battles/new/",
        {
            "name": "Hold the ford",
            "day": "3",
            "side0-side": "Blue",
            "side0-forces": [str(forces["Blue"].id)],
            "side0-motivation": "high",
            "side0-objectives": "Hold the ford\nKeep the road open",
            "side0-casevac": "on",
            "side0-casevac_box": "2",
            "side0-capacity": "8",
            "side1-side": "Red",
            "side1-forces": [str(forces["Red"].id)],
            "attacker": "Red",
            "next_on_attacker_win": str(battle.id),
            "next_on_defender_win": str(battle.id),
        },
        follow=True,
    )
    assert "Hold the ford planned for day 3." in done.content.decode()
    planned = Battle.objects.get(campaign_id=campaign.id, name="Hold the ford")
    assert (planned.attacker, planned.next_on_attacker_win) == ("Red", battle.id)


def test_a_refused_plan_shows_the_message_and_writes_nothing(as_umpire, campaign, battle):
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    before = store.last_sequence(campaign.id)
    response = as_umpire.post(
        f"/campaigns/{campaign.id}/battles/new/",
        {
            "name": "Twice over",
            "day": "3",
            "side0-side": "Blue",
            "side0-forces": [str(forces["Blue"].id)],
            "side1-side": "Red",
            "side1-forces": [str(forces["Blue"].id)],
        },
    )
    assert response.status_code == 422
    assert field_error(response.content.decode(), "form") == "A force can fight on one side only."
    assert store.last_sequence(campaign.id) == before
