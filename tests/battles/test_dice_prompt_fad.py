"""The dice prompt and dice keyed by what they are for, over HTTP, for the Fast and Dirty
after-action and reinforcement pool (FaD p.66; issue 11, "dice that go where the umpire means").

The battle is ``tests/battles/test_after_action_fad.py``'s, with its hand-worked outcomes."""

from __future__ import annotations

import pytest

from eventlog import store
from rosters.models import Vehicle
from tests.battles import test_after_action_fad as fad
from tests.battles.test_after_action_fad import FEDERATION_DICE, INSURGENT_DICE, unit

# The FaD battle's fixtures, shared with its own tests.
campaign, forces, battle, fought, resolved = (
    fad.campaign,
    fad.forces,
    fad.battle,
    fad.fought,
    fad.resolved,
)

pytestmark = pytest.mark.django_db


def test_the_fad_after_action_prompt_names_each_unit_and_vehicle(
    umpire_api, campaign, forces, fought
):
    """FaD p.66 steps 1-4, force by force in the roster's reading order: the prompt lists the
    twelve d6s in the order the ordered form takes them, each for its unit; the Technical's
    vehicle-replacement die for the vehicle within the Militia Squad. Nothing is written."""
    fed, ins = forces["Federation"], forces["Insurgents"]
    squads = [str(unit(fed, f"Rifle Squad {n}").id) for n in (1, 2, 3)]
    militia, sniper = (str(unit(ins, n).id) for n in ("Militia Squad", "Sniper"))
    technical = str(Vehicle.objects.get(unit_id=militia).id)
    before = store.last_sequence(campaign.id)
    first = umpire_api.get(f"{fought}after-action/")
    assert first.status_code == 200, first.json()
    assert first.json()["complete"] is False
    assert (first.json()["dice"][0]["for"], first.json()["dice"][0]["face"]) == (squads[0], None)
    # With the faces so far the prompt follows the steps as they will go (step 3 rolls only
    # for a squad given half its strength, so what is due depends on step 1's faces).
    faces = ",".join(str(f) for f in FEDERATION_DICE + INSURGENT_DICE)
    response = umpire_api.get(f"{fought}after-action/", {"dice": faces})
    assert response.status_code == 200, response.json()
    assert response.json()["complete"] is True
    dice = response.json()["dice"]
    assert [(d["die"], d["for"], d["purpose"]) for d in dice] == [
        (6, squads[0], "infantry replacements"),
        (6, squads[1], "infantry replacements"),
        (6, squads[2], "infantry replacements"),
        (6, squads[1], "quality loss"),
        (6, squads[0], "resolve loss"),
        (6, squads[1], "resolve loss"),
        (6, squads[2], "resolve loss"),
        (6, militia, "infantry replacements"),
        (6, sniper, "infantry replacements"),
        (6, technical, "vehicle replacement (destroyed)"),
        (6, militia, "resolve loss"),
        (6, sniper, "resolve loss"),
    ]
    assert dice[9]["within"] == [militia]
    assert store.last_sequence(campaign.id) == before


def test_fad_after_action_dice_keyed_by_unit_give_the_ordered_forms_outcome(
    umpire_api, forces, fought
):
    """The hand-worked faces of the ordered form, each keyed by the unit (or vehicle) and
    purpose the prompt names and entered backwards, give the same steps (FaD p.66)."""
    faces = ",".join(str(f) for f in FEDERATION_DICE + INSURGENT_DICE)
    needs = umpire_api.get(f"{fought}after-action/", {"dice": faces}).json()["dice"]
    keyed = [{"face": d["face"], "for": d["for"], "purpose": d["purpose"]} for d in needs]
    response = umpire_api.post(f"{fought}after-action/", {"dice": keyed[::-1]})
    assert response.status_code == 201, response.json()
    fed, ins = forces["Federation"], forces["Insurgents"]
    squad1, squad2, squad3 = (unit(fed, f"Rifle Squad {n}") for n in (1, 2, 3))
    militia = unit(ins, "Militia Squad")
    # The outcome test_after_action_steps_and_campaign_points works out by hand.
    assert (squad1.quality, squad1.resolve) == ("regular", "uncertain")
    assert (squad2.quality, squad2.resolve) == ("rabble", "determined")
    assert (squad3.quality, squad3.resolve) == ("conscript", "determined")
    assert (militia.quality, militia.resolve) == ("conscript", "steady")
    assert Vehicle.objects.get(unit_id=militia.id).state == "destroyed"


def test_the_reinforcement_prompt_lists_the_pools_dice_for_the_force(
    umpire_api, campaign, forces, resolved
):
    """FaD p.66 REINFORCEMENTS: 2d6 for the force (no extra die bought)."""
    fed = forces["Federation"]
    before = store.last_sequence(campaign.id)
    response = umpire_api.get(f"/api/v1/forces/{fed.id}/reinforcements/")
    assert response.status_code == 200, response.json()
    assert [(d["die"], d["for"], d["purpose"]) for d in response.json()["dice"]] == [
        (6, str(fed.id), "reinforcements, die 1"),
        (6, str(fed.id), "reinforcements, die 2"),
    ]
    assert store.last_sequence(campaign.id) == before


@pytest.mark.parametrize("keyed", [False, True])
def test_reinforcement_dice_keyed_by_force_give_the_ordered_forms_pool(
    umpire_api, forces, resolved, keyed
):
    """FaD p.66: the pool is the sum of the dice, 5 + 6 = 11, in either form."""
    fed = forces["Federation"]
    dice = [{"face": f, "for": str(fed.id)} for f in (5, 6)] if keyed else [5, 6]
    response = umpire_api.post(f"/api/v1/forces/{fed.id}/reinforcements/", {"dice": dice})
    assert response.status_code == 201, response.json()
    (rolled,) = [
        e["payload"]
        for e in response.json()["events"]
        if e["type"] == "battles.FadReinforcementsRolled"
    ]
    assert rolled["pool"] == 11
    assert [d["result"] for d in rolled["dice"]] == [5, 6]
