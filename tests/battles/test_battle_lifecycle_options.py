"""Campaign options read when a battle is planned and ended, flipped through the options API:
the default mission motivation of a side (SG2 P.19) and who wins a tree battle that ends in a
draw (FaD p.65)."""

from __future__ import annotations

import pytest

from battles.models import Participant
from rosters.models import Force, Unit
from tests.battles.conftest import EXAMPLES, squads
from tests.battles.test_after_action_fad import INSURGENTS, PLATOON
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


def set_options(api, campaign, **changes) -> None:
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": changes, "reason": "the campaign's briefing"},
    )
    assert response.status_code == 200, response.json()


# --- mission motivation (SG2 P.19) ---------------------------------------------------------------


@pytest.mark.parametrize(("option", "expected"), [(None, "medium"), (2, "high"), (0, "low")])
def test_a_side_planned_without_a_mission_motivation_has_the_campaigns_default_p19(
    umpire_api, campaign, forces, option, expected
):
    """P.19: mission motivation is normally written into the scenario; option
    mission_motivation (0 low, 1 medium, 2 high; default medium) is the campaign's default for
    a side whose mission does not say. A side that says keeps its own."""
    if option is not None:
        set_options(umpire_api, campaign, mission_motivation=option)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Recon in force",
            "day": 1,
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {
                    "side": "Red",
                    "force_ids": [str(forces["Red"].id)],
                    "mission_motivation": "medium",
                },
            ],
        },
    )
    assert response.status_code == 201, response.json()
    battle = response.json()
    missions = {side["side"]: side["mission"]["mission_motivation"] for side in battle["sides"]}
    assert missions == {"Blue": expected, "Red": "medium"}
    blue = squads(forces["Blue"])[0]
    committed = umpire_api.post(
        f"/api/v1/battles/{battle['id']}/commit/", {"unit_ids": [str(blue.id)]}
    )
    assert committed.status_code == 200, committed.json()
    participant = Participant.objects.get(battle_id=battle["id"], unit_id=blue.id)
    assert participant.mission_motivation == expected


# --- the winner of a drawn tree battle (FaD p.65) -------------------------------------------------


@pytest.fixture
def fad_campaign(umpire, umpire_api):
    """The FaD campaign of tests/battles/test_after_action_fad.py: a rifle platoon against
    insurgents."""
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    for source, text in ((PLATOON, (EXAMPLES / PLATOON).read_text()), ("insurgents", INSURGENTS)):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    return campaign


@pytest.fixture
def fad_forces(fad_campaign):
    return {f.side: f for f in Force.objects.filter(campaign_id=fad_campaign.id)}


def _tree_battle(api, campaign, forces):
    """A FaD tree battle, Federation attacking: its win leads to one battle, a defender's win
    to another (p.65). Returns (battle, attacker's next, defender's next)."""
    url = f"/api/v1/campaigns/{campaign.id}/battles/"
    sides = [
        {"side": "Federation", "force_ids": [str(forces["Federation"].id)]},
        {"side": "Insurgents", "force_ids": [str(forces["Insurgents"].id)]},
    ]
    following = [
        api.post(url, {"name": name, "day": 3, "sides": sides}).json()["id"]
        for name in ("Breakthrough", "Hold")
    ]
    battle = api.post(
        url,
        {
            "name": "Valley road",
            "day": 2,
            "attacker": "Federation",
            "sides": sides,
            "next_on_attacker_win": following[0],
            "next_on_defender_win": following[1],
        },
    ).json()
    units = [
        str(Unit.objects.filter(force_id=force.id).exclude(kind="platoon")[0].id)
        for force in Force.objects.filter(campaign_id=campaign.id)
    ]
    committed = api.post(f"/api/v1/battles/{battle['id']}/commit/", {"unit_ids": units})
    assert committed.status_code == 200, committed.json()
    assert api.post(f"/api/v1/battles/{battle['id']}/start/").status_code == 200
    return battle, *following


def test_a_drawn_tree_battle_needs_the_umpires_winner_by_default_p65(
    umpire_api, fad_campaign, fad_forces
):
    """FaD p.65 does not say who wins when both sides or neither achieve their missions:
    by default (campaign_battle_winner = umpire_declares) the umpire must name a winner."""
    battle, _, _ = _tree_battle(umpire_api, fad_campaign, fad_forces)
    response = umpire_api.post(f"/api/v1/battles/{battle['id']}/end/", {"winner": "draw"})
    assert (response.status_code, response.json()["code"]) == (400, "battle.draw_in_tree")


def test_a_drawn_tree_battle_goes_to_the_defender_with_the_option_p65(
    umpire_api, fad_campaign, fad_forces
):
    """Option campaign_battle_winner = defender_on_tie: a draw is the defender's win, and the
    campaign goes on along the defender's branch (p.65)."""
    set_options(umpire_api, fad_campaign, campaign_battle_winner="defender_on_tie")
    battle, _, hold = _tree_battle(umpire_api, fad_campaign, fad_forces)
    response = umpire_api.post(f"/api/v1/battles/{battle['id']}/end/", {"winner": "draw"})
    assert response.status_code == 200, response.json()
    assert (response.json()["winner"], response.json()["next_battle_id"]) == ("Insurgents", hold)


# --- where a casevac called from a distance comes in (SG2 P.54) ------------------------------


@pytest.mark.parametrize(("option", "expected"), [(None, 2), (3, 3), (1, 1)])
def test_a_casevac_planned_without_a_start_box_comes_from_the_campaigns_box_p54(
    umpire_api, campaign, forces, option, expected
):
    """P.54 gives no box for a casevac that must come from a distance: option casevac_call_box
    (default 2) is the box for a side whose casevac plan does not name one. The Regular squad
    leader calls with a D6 (one type down) and must beat his LV 2: a 3 does."""
    if option is not None:
        set_options(umpire_api, campaign, casevac_call_box=option)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Recon in force",
            "day": 1,
            "sides": [
                {
                    "side": "Blue",
                    "force_ids": [str(forces["Blue"].id)],
                    "casevac": {"on_call": True, "troop_capacity": 8},
                },
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert response.status_code == 201, response.json()
    battle = response.json()
    blue, red = squads(forces["Blue"])[0], squads(forces["Red"])[0]
    url = f"/api/v1/battles/{battle['id']}/"
    committed = umpire_api.post(f"{url}commit/", {"unit_ids": [str(blue.id), str(red.id)]})
    assert committed.status_code == 200, committed.json()
    assert umpire_api.post(f"{url}start/").status_code == 200
    called = umpire_api.post(f"{url}actions/casevac_call/", {"unit_id": str(blue.id), "dice": [3]})
    assert called.status_code == 201, called.json()
    assert called.json()["events"][0]["payload"]["box"] == expected
