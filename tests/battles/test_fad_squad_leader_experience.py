# ruff: noqa: F811 (the fixtures of test_after_action_fad, imported to be reused)
"""Squad leader experience bought with campaign points, through HTTP (FaD p.11, p.66).

The book's price list (p.66 EXPERIENCE) has no price for a squad leader's experience
(Inexperienced, Experienced, Veteran, p.11), so by default none is sold. With the option
``campaign_squad_leader_improvement`` a point raises a squad's leader one level, up to Veteran:
1 point, as an officer's leadership step costs (the service's reading). The campaign is that of
``test_after_action_fad``: after Valley road the Federation has 2 points; its squad leaders came
from a roster file that gives no experience, so they start Inexperienced (p.51).
"""

from __future__ import annotations

import pytest

from rosters.models import Trooper, TrooperRecordEntry, Vehicle
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.battles.test_after_action_fad import (  # noqa: F401 (fixtures)
    FEDERATION_DICE,
    INSURGENT_DICE,
    after_action,
    battle,
    campaign,
    end,
    forces,
    fought,
    history,
    losses,
    members,
    refused,
    resolved,
    unit,
)

pytestmark = pytest.mark.django_db


def set_option(api, campaign, name: str, value: object) -> None:
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {name: value}, "reason": "house rule"},
    )
    assert response.status_code == 200, response.json()


def spend_url(force) -> str:
    return f"/api/v1/forces/{force.id}/campaign-points/spend/"


def leader_of(unit_row) -> Trooper:
    return next(t for t in members(unit_row) if t.role == "leader" and t.status == "fit")


def test_a_point_raises_a_squad_leader_one_level_only_with_the_option_p66(
    umpire_api, campaign, forces, resolved
):
    """With the option on: Rifle Squad 1's Sgt Sandoval, Inexperienced as every squad leader
    starts (p.51), becomes Experienced for 1 of the Federation's 2 points; the other is lost
    (no banking)."""
    fed = forces["Federation"]
    squad1 = unit(fed, "Rifle Squad 1")
    sandoval = leader_of(squad1)
    assert (sandoval.name, sandoval.experience) == ("Sgt Alan Sandoval", "inexperienced")
    set_option(umpire_api, campaign, "campaign_squad_leader_improvement", True)

    response = umpire_api.post(
        spend_url(fed), {"purchases": [{"kind": "squad_leader_step", "target": str(squad1.id)}]}
    )

    assert response.status_code == 201, response.json()
    (spent,) = [e["payload"] for e in response.json()["events"]]
    assert (spent["spent"], spent["lost"], spent["balance"]) == (1, 1, 0)
    (bought,) = spent["purchases"]
    assert (bought["cost"], bought["before"], bought["after"]) == (
        1,
        "inexperienced",
        "experienced",
    )
    assert bought["trooper_id"] == str(sandoval.id)
    sandoval.refresh_from_db()
    assert sandoval.experience == "experienced"
    assert history(squad1)[-1] == (
        "Squad leader Sgt Alan Sandoval raised from Inexperienced to Experienced for 1 campaign "
        "point after Valley road (campaign option, FaD p.66)."
    )
    record = TrooperRecordEntry.objects.filter(trooper_id=sandoval.id).order_by("sequence")
    assert record.values_list("summary", flat=True).last() == (
        "Experience raised from Inexperienced to Experienced for 1 campaign point after Valley "
        "road."
    )
    points = umpire_api.get(f"/api/v1/forces/{fed.id}/campaign-points/").json()
    assert points["balance"] == 0
    assert_rebuild_keeps_rows()


def test_squad_leader_experience_is_not_for_sale_by_default_p66(
    umpire_api, campaign, forces, resolved
):
    """The book gives no price (p.66): without the option the same purchase is refused, and
    nothing is appended."""
    fed = forces["Federation"]
    squad1 = unit(fed, "Rifle Squad 1")
    body = refused(
        umpire_api,
        campaign,
        "post",
        spend_url(fed),
        {"purchases": [{"kind": "squad_leader_step", "target": str(squad1.id)}]},
        422,
        "campaign_points.not_allowed",
    )
    assert body["field"] == "purchases.0.kind"
    assert leader_of(squad1).experience == "inexperienced"
    points = umpire_api.get(f"/api/v1/forces/{fed.id}/campaign-points/").json()
    assert points["balance"] == 2


def test_two_points_make_a_veteran_and_a_unit_without_a_squad_leader_buys_none_p11(
    umpire_api, campaign, forces, resolved
):
    """Two steps in one spending take Rifle Squad 2's Cpl Griffin to Veteran, the top of p.11.
    The Platoon Command Squad is led by an officer, whose rating is leadership (p.32), not a
    squad leader's experience: refused."""
    fed = forces["Federation"]
    squad2, command = unit(fed, "Rifle Squad 2"), unit(fed, "Platoon Command Squad")
    set_option(umpire_api, campaign, "campaign_squad_leader_improvement", True)
    body = refused(
        umpire_api,
        campaign,
        "post",
        spend_url(fed),
        {"purchases": [{"kind": "squad_leader_step", "target": str(command.id)}]},
        422,
        "campaign_points.not_eligible",
    )
    assert body["field"] == "purchases.0"

    step = {"kind": "squad_leader_step", "target": str(squad2.id)}
    response = umpire_api.post(spend_url(fed), {"purchases": [step, step]})

    assert response.status_code == 201, response.json()
    assert leader_of(squad2).experience == "veteran"
    assert history(squad2)[-2:] == [
        "Squad leader Cpl Sofia Griffin raised from Inexperienced to Experienced for 1 campaign "
        "point after Valley road (campaign option, FaD p.66).",
        "Squad leader Cpl Sofia Griffin raised from Experienced to Veteran for 1 campaign point "
        "after Valley road (campaign option, FaD p.66).",
    ]
    assert_rebuild_keeps_rows()


@pytest.fixture
def leader_killed(umpire_api, battle, forces):
    """Valley road as in ``fought``, but Rifle Squad 1 loses its leader among its 3 losses: the
    same dice roll the same steps."""
    fed, ins = forces["Federation"], forces["Insurgents"]
    rs1, rs2, rs3 = (members(unit(fed, f"Rifle Squad {n}")) for n in (1, 2, 3))
    squad1 = unit(fed, "Rifle Squad 1")
    losses(umpire_api, battle, squad1, killed=[rs1[0], rs1[6]], wounded=rs1[7:8])
    losses(umpire_api, battle, unit(fed, "Rifle Squad 2"), killed=rs2[4:8])
    losses(umpire_api, battle, unit(fed, "Rifle Squad 3"), killed=rs3[4:6])
    militia = unit(ins, "Militia Squad")
    technical = Vehicle.objects.get(unit_id=militia.id)
    losses(umpire_api, battle, militia, killed=members(militia)[4:5])
    losses(umpire_api, battle, militia, vehicles=[(technical, "destroyed")])
    losses(umpire_api, battle, unit(ins, "Sniper"), killed=members(unit(ins, "Sniper")))
    end(umpire_api, battle)
    assert after_action(umpire_api, battle, FEDERATION_DICE + INSURGENT_DICE).status_code == 201
    return battle


def test_a_replacement_squad_leader_is_as_experienced_as_the_option_says_p25(
    umpire_api, campaign, forces, leader_killed
):
    """Sgt Sandoval is killed; his replacement leads Rifle Squad 1. The book does not say how
    experienced he is (option ``leaders_replacement_experience``): made Experienced here, a
    point makes him Veteran; a second step would pass Veteran and is refused."""
    fed = forces["Federation"]
    squad1 = unit(fed, "Rifle Squad 1")
    replacement = leader_of(squad1)
    assert replacement.name == "Replacement for Sgt Alan Sandoval"
    set_option(umpire_api, campaign, "leaders_replacement_experience", "experienced")
    set_option(umpire_api, campaign, "campaign_squad_leader_improvement", True)
    step = {"kind": "squad_leader_step", "target": str(squad1.id)}
    refused(
        umpire_api,
        campaign,
        "post",
        spend_url(fed),
        {"purchases": [step, step]},
        422,
        "campaign_points.over_cap",
    )

    response = umpire_api.post(spend_url(fed), {"purchases": [step]})

    assert response.status_code == 201, response.json()
    replacement.refresh_from_db()
    assert replacement.experience == "veteran"
