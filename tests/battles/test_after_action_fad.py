"""Fast and Dirty after a battle, through HTTP with table dice (FaD p.64-66).

A FaD campaign with the rifle platoon of ``examples/fad-rifle-platoon.yaml`` against a small
insurgent force: the umpire names the losses (``fad_losses``), ends the battle and resolves it
after the action; then spends campaign points and rolls the reinforcement pool. Every expected
state is worked out by hand from the tables of FaD p.66, not by calling the rules code.
"""

from __future__ import annotations

import pytest

from eventlog import jobs, store
from rosters.models import Force, Trooper, Unit, UnitHistoryEntry, Vehicle
from tests.battles.conftest import EXAMPLES
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

PLATOON = "fad-rifle-platoon.yaml"

INSURGENTS = """\
name: Valley insurgents
side: Insurgents
ruleset: fad
units:
  - name: Militia Squad
    kind: squad
    quality: conscript
    resolve: uncertain
    troopers:
      - {name: Boss Hale, role: leader, weapon: rifle}
      - {name: Gun Odell, weapon: rifle}
      - {name: Rifle Pike, weapon: rifle}
      - {name: Rifle Voss, weapon: rifle}
      - {name: Rifle Ward, weapon: rifle}
    vehicles:
      - {name: Technical, class: armed pickup, size: 2, capacity: 4, armour: 0}
  - name: Sniper
    kind: independent
    quality: regular
    resolve: steady
    troopers:
      - {name: Eyes Kerr, role: leader, weapon: sniper rifle}
"""


@pytest.fixture
def campaign(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    for source, text in ((PLATOON, (EXAMPLES / PLATOON).read_text()), ("insurgents", INSURGENTS)):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    return campaign


@pytest.fixture
def forces(campaign):
    return {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}


def unit(force, name: str) -> Unit:
    return Unit.objects.get(force_id=force.id, name=name)


def members(unit_row: Unit) -> list[Trooper]:
    return list(Trooper.objects.filter(unit_id=unit_row.id).order_by("order"))


def present(unit_row: Unit) -> int:
    return sum(1 for t in members(unit_row) if t.status in ("fit", "wounded", "stabilised"))


@pytest.fixture
def battle(umpire_api, campaign, forces):
    """A battle planned, every unit committed and started: Federation first, then Insurgents."""
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Valley road",
            "day": 2,
            "attacker": "Federation",
            "sides": [
                {"side": "Federation", "force_ids": [str(forces["Federation"].id)]},
                {"side": "Insurgents", "force_ids": [str(forces["Insurgents"].id)]},
            ],
        },
    )
    assert response.status_code == 201, response.json()
    battle = response.json()
    fighting = [
        str(u.id)
        for side in ("Federation", "Insurgents")
        for u in Unit.objects.filter(force_id=forces[side].id).exclude(kind="platoon")
    ]
    url = f"/api/v1/battles/{battle['id']}/"
    assert umpire_api.post(f"{url}commit/", {"unit_ids": fighting}).status_code == 200
    assert umpire_api.post(f"{url}start/").status_code == 200
    return url


def losses(api, url, unit_row, *, killed=(), wounded=(), vehicles=()):
    body = {
        "unit_id": str(unit_row.id),
        "casualties": [{"trooper_id": str(t.id), "result": "killed"} for t in killed]
        + [{"trooper_id": str(t.id), "result": "wounded"} for t in wounded],
        "vehicles": [{"vehicle_id": str(v.id), "condition": c} for v, c in vehicles],
        "dice": [],
    }
    response = api.post(f"{url}actions/fad_losses/", body)
    assert response.status_code == 201, response.json()


def end(api, url, winner="Federation"):
    response = api.post(f"{url}end/", {"winner": winner})
    assert response.status_code == 200, response.json()


def after_action(api, url, dice):
    return api.post(f"{url}after-action/", {"dice": dice})


def history(unit_row: Unit) -> list[str]:
    return list(
        UnitHistoryEntry.objects.filter(unit_id=unit_row.id)
        .order_by("sequence", "key")
        .values_list("summary", flat=True)
    )


def refused(api, campaign, method, path, body, status: int, code: str) -> dict:
    before = store.last_sequence(campaign.id)
    response = getattr(api, method)(path, body)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code, response.json()
    assert store.last_sequence(campaign.id) == before
    return response.json()


@pytest.fixture
def fought(umpire_api, battle, forces):
    """The battle's losses, named by the umpire, and its end."""
    fed, ins = forces["Federation"], forces["Insurgents"]
    rs1, rs2, rs3 = (members(unit(fed, f"Rifle Squad {n}")) for n in (1, 2, 3))
    losses(umpire_api, battle, unit(fed, "Rifle Squad 1"), killed=rs1[5:7], wounded=rs1[7:8])
    losses(umpire_api, battle, unit(fed, "Rifle Squad 2"), killed=rs2[4:8])
    losses(umpire_api, battle, unit(fed, "Rifle Squad 3"), killed=rs3[4:6])
    militia = unit(ins, "Militia Squad")
    technical = Vehicle.objects.get(unit_id=militia.id)
    losses(umpire_api, battle, militia, killed=members(militia)[4:5])
    losses(umpire_api, battle, militia, vehicles=[(technical, "destroyed")])
    losses(umpire_api, battle, unit(ins, "Sniper"), killed=members(unit(ins, "Sniper")))
    end(umpire_api, battle)
    return battle


# Federation (FaD p.66), units in roster order, steps 1 to 4:
#   step 1: Squad 1 lost 3: d6 4, half replaced, rounded up: 2. Squad 2 lost 4: d6 6, full: 4.
#           Squad 3 lost 2: d6 1, none. The command squad lost none and does not roll.
#   step 3: Squad 2 took 4 of its 8, half its strength: d6 2, Conscript drops to Rabble.
#           Squad 1 took 2 of 8: no roll.
#   step 4: Squad 1 d6 1, Steady to Uncertain; Squad 2 d6 5, Steady to Determined; Squad 3 d6 3,
#           Determined stays.
# Insurgents:
#   step 1: Militia lost 1: d6 3, half of 1 rounded up: 1. Sniper lost himself: d6 3, half, but
#           a lone figure is not returned.
#   step 2: the Technical, destroyed: d6 4, not replaced.
#   step 4: Militia d6 6, Uncertain to Steady; Sniper d6 4, stays Steady.
FEDERATION_DICE = [4, 6, 1, 2, 1, 5, 3]
INSURGENT_DICE = [3, 3, 4, 6, 4]


def test_after_action_steps_and_campaign_points(umpire_api, campaign, forces, fought):
    fed, ins = forces["Federation"], forces["Insurgents"]
    squad1, squad2, squad3 = (unit(fed, f"Rifle Squad {n}") for n in (1, 2, 3))
    response = after_action(umpire_api, fought, FEDERATION_DICE + INSURGENT_DICE)
    assert response.status_code == 201, response.json()
    types = [e["type"] for e in response.json()["events"]]
    assert types[-1] == "battles.AfterActionResolved"
    assert types.count("battles.FadCampaignPointsAwarded") == 2

    # Step 1: the wounded trooper left the platoon, the dead stay dead; replacements joined.
    rs1 = members(squad1)
    assert [t.status for t in rs1[5:8]] == ["dead", "dead", "evacuated"]
    assert [t.name for t in rs1[8:]] == [
        "Replacement for Pte Kieran Crane",
        "Replacement for Pte Simon Tierney",
    ]
    assert rs1[8].weapon == "assault rifle"
    assert rs1[8].status == "fit"
    assert (present(squad1), present(squad2), present(squad3)) == (7, 8, 4)
    militia, sniper = unit(ins, "Militia Squad"), unit(ins, "Sniper")
    assert (present(militia), present(sniper)) == (5, 0)
    assert Vehicle.objects.get(unit_id=militia.id).state == "destroyed"

    # Steps 3 and 4.
    for unit_row in (squad1, squad2, squad3, militia, sniper):
        unit_row.refresh_from_db()
    assert (squad1.quality, squad1.resolve) == ("regular", "uncertain")
    assert (squad2.quality, squad2.resolve) == ("rabble", "determined")
    assert (squad3.quality, squad3.resolve) == ("conscript", "determined")
    assert (militia.quality, militia.resolve) == ("conscript", "steady")
    assert sniper.resolve == "steady"

    # Each change is in the unit's history with its battle and dice.
    assert history(squad1)[-2:] == [
        "After Valley road: 3 losses (Pte Kieran Crane, Pte Simon Tierney, Pte Alice Irving); "
        "infantry replacements d6 4: half the losses replaced, 2 replacements joined.",
        "After Valley road: resolve loss d6 1, from Steady to Uncertain.",
    ]
    assert (
        "After Valley road: 4 replacements of 8, quality loss d6 2: drops from Conscript to Rabble."
        in history(squad2)
    )
    assert history(sniper)[-2] == (
        "After Valley road: 1 loss (Eyes Kerr); infantry replacements d6 3: half the losses "
        "replaced, 0 replacements joined (a lone figure is not returned on 3-4)."
    )
    assert (
        "After Valley road: Technical (destroyed), vehicle replacements d6 4: not replaced."
        in history(militia)
    )
    line = UnitHistoryEntry.objects.filter(unit_id=squad2.id, event_type__contains="Quality").get()
    assert [d["result"] for d in line.dice] == [2]
    assert line.battle_id is not None

    # Campaign points: 2 per reinforced platoon; the insurgents have no platoon and count one.
    for force in (fed, ins):
        points = umpire_api.get(f"/api/v1/forces/{force.id}/campaign-points/").json()
        assert points["balance"] == 2
        assert points["history"][0]["points"] == 2
    battle = umpire_api.get(fought).json()
    assert battle["status"] == "resolved"
    assert_rebuild_keeps_rows()


def test_dice_must_match_the_steps(umpire_api, campaign, fought):
    refused(
        umpire_api,
        campaign,
        "post",
        f"{fought}after-action/",
        {"dice": FEDERATION_DICE},
        400,
        "dice.missing",
    )
    refused(
        umpire_api,
        campaign,
        "post",
        f"{fought}after-action/",
        {"dice": [*FEDERATION_DICE, *INSURGENT_DICE, 1]},
        400,
        "dice.unused",
    )
    refused(
        umpire_api,
        campaign,
        "post",
        f"{fought}after-action/",
        {"dice": [7, *FEDERATION_DICE[1:], *INSURGENT_DICE]},
        400,
        "dice.impossible",
    )
    assert after_action(umpire_api, fought, FEDERATION_DICE + INSURGENT_DICE).status_code == 201
    refused(
        umpire_api,
        campaign,
        "post",
        f"{fought}after-action/",
        {"dice": FEDERATION_DICE + INSURGENT_DICE},
        409,
        "after_action.already_resolved",
    )


@pytest.mark.parametrize(
    ("condition", "face", "state", "words"),
    [
        ("damaged", 2, "disabled", "not repaired"),
        ("damaged", 3, "operational", "repaired"),
        ("destroyed", 4, "destroyed", "not replaced"),
        ("destroyed", 5, "operational", "replaced"),
        ("abandoned", 1, "disabled", "not repaired"),
        ("abandoned", 6, "operational", "repaired"),
    ],
)
def test_vehicle_replacements_table(
    umpire_api, campaign, forces, battle, condition, face, state, words
):
    """FaD p.66 VEHICLE REPLACEMENTS: 1-2 neither, 3-4 a damaged vehicle is repaired, 5-6
    repaired or replaced. An abandoned vehicle rolls as damaged (option default)."""
    militia = unit(forces["Insurgents"], "Militia Squad")
    technical = Vehicle.objects.get(unit_id=militia.id)
    losses(umpire_api, battle, militia, vehicles=[(technical, condition)])
    end(umpire_api, battle)
    # Step 2's die, then the militia's resolve die (damage is a loss, p.66): 3, no change.
    response = after_action(umpire_api, battle, [face, 3])
    assert response.status_code == 201, response.json()
    technical.refresh_from_db()
    assert technical.state == state
    counted = "" if condition != "abandoned" else ", counted as damaged"
    assert (
        f"After Valley road: Technical ({condition}{counted}), vehicle replacements d6 {face}: "
        f"{words}." in history(militia)
    )


@pytest.mark.parametrize(
    ("face", "replaced", "quality"),
    [(2, 0, "regular"), (3, 4, "regular"), (4, 4, "regular"), (5, 8, None), (6, 8, None)],
)
def test_infantry_replacements_and_quality_loss(
    umpire_api, campaign, forces, battle, face, replaced, quality
):
    """FaD p.66: Squad 1 is wiped out (8 lost). 1-2 none; 3-4 half (4), which is half its
    strength, so it rolls quality loss, a 3: it stays Regular; 5-6 full (8), quality loss 1:
    Regular drops to Conscript."""
    squad1 = unit(forces["Federation"], "Rifle Squad 1")
    losses(umpire_api, battle, squad1, killed=members(squad1))
    end(umpire_api, battle)
    quality_die = [] if replaced == 0 else [3] if replaced == 4 else [1]
    response = after_action(umpire_api, battle, [face, *quality_die, 4])
    assert response.status_code == 201, response.json()
    squad1.refresh_from_db()
    assert present(squad1) == replaced
    assert squad1.quality == (quality or "conscript")
    assert squad1.resolve == "steady"


@pytest.mark.parametrize("dice", [[5, 4], [5, 2, 4]])
def test_a_rabble_units_quality_loss_die_may_be_rolled_as_the_book_says(umpire_api, umpire, dice):
    """FaD p.66: a Rabble unit that took half its strength in replacements rolls quality loss,
    though it cannot drop lower. The Militia (Rabble, 5) loses 3: d6 5, all 3 replaced, then
    resolve d6 4. The quality die may be left out or entered in its place (a 2): recorded as
    moot, and the unit stays Rabble either way."""
    campaign = campaign_for(umpire, name="Rabble", ruleset="fad")
    rabble = INSURGENTS.replace("quality: conscript", "quality: rabble")
    rabble = rabble[: rabble.index("    vehicles:")]
    for text in ((EXAMPLES / PLATOON).read_text(), rabble):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    militia = unit(forces["Insurgents"], "Militia Squad")
    planned = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {"name": "Culvert", "day": 1, "sides": [
            {"side": side, "force_ids": [str(forces[side].id)]}
            for side in ("Insurgents", "Federation")
        ]},
    )  # fmt: skip
    assert planned.status_code == 201, planned.json()
    url = f"/api/v1/battles/{planned.json()['id']}/"
    # A Federation squad that loses nobody rolls nothing after the action.
    committed = [militia, unit(forces["Federation"], "Rifle Squad 1")]
    response = umpire_api.post(f"{url}commit/", {"unit_ids": [str(u.id) for u in committed]})
    assert response.status_code == 200, response.json()
    assert umpire_api.post(f"{url}start/").status_code == 200
    losses(umpire_api, url, militia, killed=members(militia)[2:5])
    end(umpire_api, url, winner="Insurgents")
    needs = umpire_api.get(f"{url}after-action/", {"dice": "5"}).json()["dice"]
    assert [(d["purpose"], d["moot"]) for d in needs if d["for"] == str(militia.id)][1] == (
        "quality loss",
        True,
    )
    response = after_action(umpire_api, url, dice)
    assert response.status_code == 201, response.json()
    losses_rolled = [e["payload"] for e in response.json()["events"]
                     if e["type"] == "battles.FadQualityLossRolled"]  # fmt: skip
    assert [[(d["result"], d["moot"]) for d in p["dice"]] for p in losses_rolled] == (
        [[(2, True)]] if len(dice) == 3 else []
    )
    if len(dice) == 3:
        assert (
            "After Culvert: 3 replacements of 5, quality loss d6 2: stays Rabble, Rabble cannot "
            "drop lower." in history(militia)
        )
    militia.refresh_from_db()
    assert militia.quality == "rabble"
    assert present(militia) == 5


def test_losses_are_named_by_the_umpire_and_checked(umpire_api, campaign, forces, battle):
    squad1 = unit(forces["Federation"], "Rifle Squad 1")
    rs1 = members(squad1)
    path = f"{battle}actions/fad_losses/"
    stranger = members(unit(forces["Insurgents"], "Militia Squad"))[0]
    refused(
        umpire_api,
        campaign,
        "post",
        path,
        {"unit_id": str(squad1.id), "casualties": [{"trooper_id": str(stranger.id)}], "dice": []},
        400,
        "casualties.not_in_unit",
    )
    refused(
        umpire_api,
        campaign,
        "post",
        path,
        {"unit_id": str(squad1.id), "dice": []},
        400,
        "action.invalid",
    )
    losses(umpire_api, battle, squad1, killed=rs1[:1])
    refused(
        umpire_api,
        campaign,
        "post",
        path,
        {"unit_id": str(squad1.id), "casualties": [{"trooper_id": str(rs1[0].id)}], "dice": []},
        409,
        "casualties.not_on_table",
    )
    # The SG2 casualty action does not serve FaD campaigns; fad_losses does.
    refused(
        umpire_api,
        campaign,
        "post",
        f"{battle}actions/casualties/",
        {
            "unit_id": str(squad1.id),
            "mode": "named",
            "casualties": [{"trooper_id": str(rs1[1].id), "result": "killed"}],
            "dice": [],
        },
        400,
        "battle.not_in_ruleset",
    )
    refused(
        umpire_api,
        campaign,
        "post",
        f"{battle}after-action/",
        {"dice": [1]},
        409,
        "after_action.not_ended",
    )


@pytest.fixture
def resolved(umpire_api, fought):
    assert after_action(umpire_api, fought, FEDERATION_DICE + INSURGENT_DICE).status_code == 201
    return fought


def test_spending_campaign_points_and_rolling_reinforcements(
    umpire_api, campaign, forces, resolved
):
    fed = forces["Federation"]
    squad1, squad2, squad3 = (unit(fed, f"Rifle Squad {n}") for n in (1, 2, 3))
    spend = f"/api/v1/forces/{fed.id}/campaign-points/spend/"
    # Over budget: a trait (2) and a quality step (1) cost 3 of the 2 points.
    body = refused(
        umpire_api,
        campaign,
        "post",
        spend,
        {
            "purchases": [
                {"kind": "trait", "target": str(squad1.id), "detail": "Hardened"},
                {"kind": "quality_step", "target": str(squad2.id)},
            ]
        },
        422,
        "campaign_points.over_budget",
    )
    assert body["field"] == "purchases.1"
    # Over a cap: no unit may be raised to Elite (Squad 1 is Regular).
    refused(
        umpire_api,
        campaign,
        "post",
        spend,
        {"purchases": [{"kind": "quality_step", "target": str(squad1.id)}]},
        422,
        "campaign_points.over_cap",
    )
    # Nor resolve above Determined (Squad 2 rolled up to it).
    refused(
        umpire_api,
        campaign,
        "post",
        spend,
        {"purchases": [{"kind": "resolve_step", "target": str(squad2.id)}]},
        422,
        "campaign_points.over_cap",
    )
    # Reinforcements cannot be rolled over a unit's initial strength.
    reinforce = f"/api/v1/forces/{fed.id}/reinforcements/"
    refused(
        umpire_api,
        campaign,
        "post",
        reinforce,
        {"assignment": [{"unit_id": str(squad1.id), "troopers": 2}], "dice": [6, 6]},
        422,
        "reinforcements.over_cap",
    )
    refused(
        umpire_api,
        campaign,
        "post",
        reinforce,
        {"new_squad_size": 4, "dice": [6, 6]},
        422,
        "reinforcements.new_squad_size",
    )

    response = umpire_api.post(
        spend,
        {
            "purchases": [
                {"kind": "quality_step", "target": str(squad2.id)},
                {"kind": "reinforcement_die"},
            ]
        },
    )
    assert response.status_code == 201, response.json()
    squad2.refresh_from_db()
    assert squad2.quality == "conscript"
    assert history(squad2)[-1] == (
        "Quality raised from Rabble to Conscript for 1 campaign point after Valley road (FaD p.66)."
    )
    points = umpire_api.get(f"/api/v1/forces/{fed.id}/campaign-points/").json()
    assert (points["balance"], points["extra_reinforcement_dice"]) == (0, 1)
    refused(
        umpire_api,
        campaign,
        "post",
        spend,
        {"purchases": [{"kind": "reinforcement_die"}]},
        409,
        "campaign_points.step_over",
    )

    # Pool: 2d6 and the bought die, 3 + 4 + 2 = 9. Squad 1 fills to 8 (1), Squad 3 to 6 (2),
    # and the 6 left form a new squad: Conscript, Uncertain (p.66).
    response = umpire_api.post(
        reinforce,
        {
            "assignment": [
                {"unit_id": str(squad1.id), "troopers": 1},
                {"unit_id": str(squad3.id), "troopers": 2},
            ],
            "new_squad_size": 6,
            "dice": [3, 4, 2],
        },
    )
    assert response.status_code == 201, response.json()
    assert (present(squad1), present(squad3)) == (8, 6)
    new_squad = unit(fed, "New Squad 1")
    assert (new_squad.quality, new_squad.resolve, present(new_squad)) == (
        "conscript",
        "uncertain",
        6,
    )
    assert members(new_squad)[0].role == "leader"
    # Its leader's experience: option leaders_replacement_experience (the book is silent).
    assert members(new_squad)[0].experience == "inexperienced"
    assert members(new_squad)[1].weapon == "assault rifle"
    assert history(squad3)[-1].startswith(
        "After Valley road: 2 reinforcements joined (Reinforcement 7, Reinforcement 8) from the "
        "reinforcement pool 2d6 + 1 bought (d6 3, d6 4, d6 2) = 9."
    )
    refused(
        umpire_api,
        campaign,
        "post",
        reinforce,
        {"dice": [1, 1]},
        409,
        "reinforcements.already_rolled",
    )
    points = umpire_api.get(f"/api/v1/forces/{fed.id}/campaign-points/").json()
    assert [h["type"] for h in points["history"]] == [
        "battles.FadCampaignPointsAwarded",
        "battles.FadCampaignPointsSpent",
        "battles.FadReinforcementsRolled",
    ]
    assert_rebuild_keeps_rows()


def test_points_can_only_be_spent_once_awarded(umpire_api, campaign, forces, battle):
    fed = forces["Federation"]
    refused(
        umpire_api,
        campaign,
        "post",
        f"/api/v1/forces/{fed.id}/campaign-points/spend/",
        {"purchases": [{"kind": "reinforcement_die"}]},
        409,
        "campaign_points.none_awarded",
    )
    refused(
        umpire_api,
        campaign,
        "post",
        f"/api/v1/forces/{fed.id}/reinforcements/",
        {"dice": [1, 1]},
        409,
        "reinforcements.not_due",
    )


def test_the_server_rolls_the_reinforcement_pool_once(
    umpire_api, campaign, forces, resolved, monkeypatch
):
    fed = forces["Federation"]
    reinforce = f"/api/v1/forces/{fed.id}/reinforcements/"
    monkeypatch.setattr(jobs, "dispatch", lambda job_id: None)  # the worker is busy
    response = umpire_api.post(reinforce, {})
    assert response.status_code == 202, response.json()
    refused(umpire_api, campaign, "post", reinforce, {}, 409, "reinforcements.already_requested")
    job = jobs.run_job(response.json()["id"])
    assert job is not None
    assert job.status == "succeeded"
    points = umpire_api.get(f"/api/v1/forces/{fed.id}/campaign-points/").json()
    assert points["reinforcements_rolled"] is True
    assert points["history"][-1]["type"] == "battles.FadReinforcementsRolled"
    refused(umpire_api, campaign, "post", reinforce, {}, 409, "reinforcements.already_rolled")


def test_two_purchases_for_one_unit_both_stand_in_its_history(umpire_api, forces, resolved):
    """FaD p.66: points may buy several things for one unit; its history tells each of them."""
    fed = forces["Federation"]
    squad3 = unit(fed, "Rifle Squad 3")
    response = umpire_api.post(
        f"/api/v1/forces/{fed.id}/campaign-points/spend/",
        {
            "purchases": [
                {"kind": "quality_step", "target": str(squad3.id)},
                {"kind": "personality", "target": str(squad3.id), "detail": "Lucky"},
            ]
        },
    )
    assert response.status_code == 201, response.json()
    told = history(squad3)[-2:]
    assert told[0].startswith("Quality raised from ")
    assert told[1].startswith("Given the personality Lucky for 1 campaign point after ")
