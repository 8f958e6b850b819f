"""Fast and Dirty traits the service applies, through HTTP with table dice: mission bonus traits
given to units (FaD p.62-63), kept after the battle only with the option; Under Fire and Pinned
ignored (p.24; Last Stand p.31, Hardened p.40, Relentless p.41); an attached heavy weapons team
counted with its squad (p.29); Embolden (p.34).

The rifle platoon of ``examples/fad-rifle-platoon.yaml`` against a militia squad, a sniper and a
mortar team. Every number is worked out by hand from the book's tables.
"""

from __future__ import annotations

import pytest

from battles.models import Participant
from rosters.models import Unit
from tests.battles.fad.table import (
    MILITIA_SQUAD,
    act,
    fight,
    insurgents,
    load_forces,
    members,
    planned_battle,
    refused,
    side,
    unit,
)
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

INSURGENTS = insurgents(
    MILITIA_SQUAD,
    """\
  - name: Fighters
    kind: squad
    quality: conscript
    resolve: steady
    specialists: [Relentless]
    troopers:
      - {name: Fighter Amos, role: leader, weapon: low-tech rifle, armour: none}
      - {name: Fighter Bell, weapon: low-tech rifle, armour: none}
      - {name: Fighter Cole, weapon: low-tech rifle, armour: none}
  - name: Mortar Team
    kind: independent
    quality: conscript
    resolve: steady
    troopers:
      - {name: Mortar Dunn, role: leader, weapon: light mortar, armour: none}
      - {name: Mortar Esk, weapon: low-tech rifle, armour: none}
      - {name: Mortar Frey, weapon: low-tech rifle, armour: none}
""",
)

# Scenario generation (p.59-61), no unit on recon duty. Recon Points: the Federation 1 platoon
# + 2 offensive + 0 aggressive = 3, the Insurgents 1 - 1 passive + 0 defensive = 0; edge 2 + 3
# against 3 + 0: the Federation chooses. Federation's Mission Table: Assault 5 + 2 + 1 = 8;
# the Insurgents': Hold 6 + 2 + 2 = 10. Markers 9 against 6: no placement roll.
GENERATION_DICE = [2, 3, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6, 1, 1, 1, 1, 1]


def generated_battle(api, campaign, forces) -> str:
    """An Assault mission for the Federation, Hold for the Insurgents (p.61-62)."""
    response = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/generate/",
        {
            "name": "Valley road",
            "day": 2,
            "sides": [
                side(forces, "Federation", stance="offensive", attitude="aggressive"),
                side(forces, "Insurgents", stance="defensive", attitude="passive"),
            ],
            "dice": GENERATION_DICE,
        },
    )
    assert response.status_code == 201, response.json()
    return fight(api, response.json()["id"], forces)


def mark(url, unit_row: Unit, marker: str) -> None:
    """The marker a shot placed (p.24), set as the shooting actions leave it."""
    battle_id = url.rstrip("/").rsplit("/", 1)[1]
    Participant.objects.filter(battle_id=battle_id, unit_id=unit_row.id).update(marker=marker)


ORDER = ("Rifle Pike", "Rifle Voss", "Gun Odell", "Rifle Ward", "Boss Hale")


def squad1_shoots(forces, riflemen: int = 7, **extra) -> dict:
    """Rifle Squad 1 (Regular, assault rifles and a SAW) at the militia 10" away: close range."""
    militia = unit(forces, "Insurgents", "Militia Squad")
    figures = members(militia)
    return {
        "unit_id": str(unit(forces, "Federation", "Rifle Squad 1").id),
        "target_id": str(militia.id),
        "distance": 10,
        "basic_weapon": "assault_rifles",
        "riflemen": riflemen,
        "support_weapons": ["squad_automatic_weapon"],
        "target_order": [str(figures[name].id) for name in ORDER],
    } | extra


# Fire Effect best of 2d6 (5, 3) = 5, Regular +1, riflemen +2, SAW +2 = 10: three hits (p.18),
# each saved (assault rifle 1 + 2 against 6 - 2, p.19). Under Fire -3 (p.24): 7, two hits.
CLEAR = [5, 3, 1, 6, 1, 6, 1, 6]
UNDER_FIRE = [5, 3, 1, 6, 1, 6]


def shot(api, url, body, dice) -> dict:
    response = act(api, url, "fad_shoot", body, dice)
    assert response.status_code == 201, response.json()
    return response.json()["events"][0]["payload"]


def under_fire_penalty(payload: dict) -> bool:
    return ("shooter Under Fire or Broken", -3) in [
        (m["name"], m["value"]) for m in payload["modifiers"]
    ]


def give_assault_bonus(api, url, squad: Unit) -> dict:
    body = {
        "side": "Federation",
        "units": [{"unit_id": str(squad.id), "traits": ["Hardened", "assault_troops"]}],
    }
    response = act(api, url, "fad_mission_bonus", body)
    assert response.status_code == 201, response.json()
    return response.json()["events"][0]["payload"]


@pytest.mark.parametrize("persists", [False, True])
def test_mission_bonus_traits_last_the_battle_or_with_the_option_the_campaign_p62_p63(
    umpire, umpire_api, persists
):
    """The Assault mission gives one Assault Troops and one Hardened trait "to assign as you
    wish" (p.62). Rifle Squad 1 receives both: Hardened, it ignores Under Fire until its first
    casualty (p.40), so its Fire Effect is 10, not 7. In the next battle it is Hardened only if
    the campaign keeps mission bonuses (campaign_mission_bonus_persists; the book is silent)."""
    options = {"campaign_mission_bonus_persists": True} if persists else None
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad", options=options)
    forces = load_forces(umpire_api, campaign, INSURGENTS)
    url = generated_battle(umpire_api, campaign, forces)
    squad1 = unit(forces, "Federation", "Rifle Squad 1")

    given = give_assault_bonus(umpire_api, url, squad1)
    assert given["mission"] == "assault"
    assert given["units"] == [{"unit_id": str(squad1.id), "traits": ["hardened", "assault_troops"]}]
    assert given["persists"] is persists
    lines = [line["summary"] for line in umpire_api.get(f"{url}log/").json()["results"]]
    lasting = "kept after the battle" if persists else "for this battle only"
    assert lines[-1] == (
        f"Federation gave its Assault mission's bonus traits (FaD p.62-63), {lasting}: "
        "Rifle Squad 1 Hardened and Assault Troops."
    )
    roster = umpire_api.get(f"/api/v1/units/{squad1.id}/").json()
    assert roster["specialists"] == (["Hardened", "Assault Troops"] if persists else [])

    # Hardened: Under Fire and no casualty yet, no -3.
    mark(url, squad1, "under_fire")
    assert not under_fire_penalty(shot(umpire_api, url, squad1_shoots(forces), CLEAR))
    # Its first casualty: Under Fire tells again. 5 + 1 + 2 + 2, Under Fire -3, the militia
    # now Under Fire -1 (p.18) = 6: two hits.
    irving = members(squad1)["Pte Alice Irving"]
    lost = {"unit_id": str(squad1.id), "casualties": [{"trooper_id": str(irving.id)}]}
    assert act(umpire_api, url, "fad_losses", lost).status_code == 201
    mark(url, squad1, "under_fire")
    after = shot(umpire_api, url, squad1_shoots(forces, riflemen=6), UNDER_FIRE)
    assert under_fire_penalty(after)
    assert (after["fire_effect"], after["hits"]) == (6, 2)
    assert umpire_api.post(f"{url}end/", {"winner": "Federation"}).status_code == 200

    # The next battle: no casualty yet, Under Fire.
    url = planned_battle(umpire_api, campaign, forces, "Ridge line", 3)
    mark(url, squad1, "under_fire")
    body = squad1_shoots(forces, riflemen=6)
    if persists:
        assert not under_fire_penalty(shot(umpire_api, url, body, CLEAR))
    else:
        assert under_fire_penalty(shot(umpire_api, url, body, UNDER_FIRE))
    # The markers set by hand above are no event's: take them off before folding the log again.
    Participant.objects.filter(unit_id=squad1.id).update(marker="")
    assert_rebuild_keeps_rows()


def test_a_missions_assault_troops_bonus_counts_in_the_squads_close_assault_p62_p39(
    umpire, umpire_api
):
    """Rifle Squad 1 given the Assault mission's Assault Troops (p.62): +2 to all its close
    assaults (p.39), without the table naming the trait. Four riflemen charge the militia (no
    defensive fire): best of 2, 1 = 2, charging +1, better armour +1, higher quality +2, Assault
    Troops +2 = 8, against the militia's best of 6, 5 = 6, outnumbering +1 = 7 (p.22). Kill dice
    all 1s: no kill."""
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    forces = load_forces(umpire_api, campaign, INSURGENTS)
    url = generated_battle(umpire_api, campaign, forces)
    squad1 = unit(forces, "Federation", "Rifle Squad 1")
    give_assault_bonus(umpire_api, url, squad1)
    body = {
        "unit_id": str(squad1.id),
        "target_id": str(unit(forces, "Insurgents", "Militia Squad").id),
        "attacker": {"figures": [str(t.id) for t in list(members(squad1).values())[:4]]},
    }
    response = act(umpire_api, url, "fad_close_assault", body, [2, 1, 6, 5] + [1] * 9)
    assert response.status_code == 201, response.json()
    fought = response.json()["events"][0]["payload"]
    assert ["assault troops", 2] in fought["attacker_roll"]["modifiers"]
    assert (fought["attacker_roll"]["total"], fought["defender_roll"]["total"]) == (8, 7)
    assert fought["result"] == "attacker_won"


def test_a_squad_hardened_by_its_mission_leaves_its_wounded_without_a_roll_p62_p40_p35(
    umpire, umpire_api
):
    """Hardened troops "may always leave wounded behind" (p.40): Rifle Squad 1, Hardened by the
    Assault mission's bonus (p.62), moves off 6" from its wounded Pte Irving (outside its 3"
    coherency, p.35) and rolls no Leave No One Behind die."""
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    forces = load_forces(umpire_api, campaign, INSURGENTS)
    url = generated_battle(umpire_api, campaign, forces)
    squad1 = unit(forces, "Federation", "Rifle Squad 1")
    give_assault_bonus(umpire_api, url, squad1)
    irving = members(squad1)["Pte Alice Irving"]
    wounded = {
        "unit_id": str(squad1.id),
        "casualties": [{"trooper_id": str(irving.id), "result": "wounded"}],
    }
    assert act(umpire_api, url, "fad_losses", wounded).status_code == 201
    body = {
        "unit_id": str(squad1.id),
        "trooper_ids": [str(irving.id)],
        "gaps_inches": [6],
        "coherency_inches": 3,
    }
    response = act(umpire_api, url, "fad_leave_wounded", body)
    assert response.status_code == 201, response.json()
    left = response.json()["events"][0]["payload"]
    assert (left["abandoned"], left["reason"], left["resolve_penalty"]) == (
        True,
        "hardened",
        False,
    )
    assert left["dice"] == []


def test_a_mission_bonus_must_match_the_mission_card_and_refusals_append_nothing_p62_p63(
    umpire, umpire_api
):
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    forces = load_forces(umpire_api, campaign, INSURGENTS)
    url = generated_battle(umpire_api, campaign, forces)
    squad1 = unit(forces, "Federation", "Rifle Squad 1")
    squad2 = unit(forces, "Federation", "Rifle Squad 2")
    militia = unit(forces, "Insurgents", "Militia Squad")

    def body(side="Federation", **units) -> dict:
        return {
            "side": side,
            "units": [{"unit_id": str(u.id), "traits": t} for u, t in units.values()],
        }

    # Hold's bonus is three field defences, not a trait (p.62).
    refused(
        umpire_api, campaign, url, "fad_mission_bonus",
        body("Insurgents", a=(militia, ["hardened"])), 422, "mission_bonus.no_traits",
    )  # fmt: skip
    # The Assault card gives Assault Troops and Hardened, each once (p.62).
    refused(
        umpire_api, campaign, url, "fad_mission_bonus",
        body(a=(squad1, ["brave", "hardened"])), 422, "mission_bonus.wrong_traits",
    )  # fmt: skip
    refused(
        umpire_api, campaign, url, "fad_mission_bonus",
        body(a=(squad1, ["hardened"])), 422, "mission_bonus.wrong_traits",
    )  # fmt: skip
    refused(
        umpire_api, campaign, url, "fad_mission_bonus",
        body(a=(squad1, ["hardened"]), b=(militia, ["assault_troops"])), 400,
        "mission_bonus.other_side",
    )  # fmt: skip
    refused(
        umpire_api, campaign, url, "fad_mission_bonus",
        body("Rebels", a=(squad1, ["hardened", "assault_troops"])), 400, "battle.unknown_side",
    )  # fmt: skip
    # Split between two units (p.62): Hardened to one, Assault Troops to the other.
    split = body(a=(squad1, ["hardened"]), b=(squad2, ["assault_troops"]))
    response = act(umpire_api, url, "fad_mission_bonus", split)
    assert response.status_code == 201, response.json()
    # Once per side and battle.
    refused(
        umpire_api, campaign, url, "fad_mission_bonus", split, 409,
        "mission_bonus.already_given",
    )  # fmt: skip

    # A battle planned by hand has no mission the service knows.
    assert umpire_api.post(f"{url}end/", {"winner": "Federation"}).status_code == 200
    url = planned_battle(umpire_api, campaign, forces, "Ridge line", 3)
    refused(
        umpire_api, campaign, url, "fad_mission_bonus",
        body(a=(squad1, ["hardened", "assault_troops"])), 409, "mission_bonus.no_mission",
    )  # fmt: skip


@pytest.fixture
def battle(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad")
    forces = load_forces(umpire_api, campaign, INSURGENTS)
    return campaign, forces, planned_battle(umpire_api, campaign, forces, "Valley road", 2)


def fighters_shoot(forces, **extra) -> dict:
    """The Fighters (Conscript, three low-tech rifles) at Rifle Squad 3 10" away."""
    squad3 = unit(forces, "Federation", "Rifle Squad 3")
    return {
        "unit_id": str(unit(forces, "Insurgents", "Fighters").id),
        "target_id": str(squad3.id),
        "distance": 10,
        "basic_weapon": "low_tech_rifles",
        "riflemen": 3,
        "target_order": [str(t.id) for t in members(squad3).values()],
    } | extra


def test_relentless_troops_ignore_under_fire_and_pinned_p41_p24(umpire_api, battle):
    """The Fighters are Relentless on their roster: "Troops that are Relentless ignore the
    effects of being Under Fire or Pinned" (p.41). Pinned, they still shoot (p.24 forbids it
    to other squads) and start a close assault; Under Fire, they shoot without -3."""
    campaign, forces, url = battle
    fighters = unit(forces, "Insurgents", "Fighters")
    militia = unit(forces, "Insurgents", "Militia Squad")
    mark(url, fighters, "pinned")
    # Fire Effect 1 (best of 1, 1) + 1 rifleman point: no hit.
    pinned = shot(umpire_api, url, fighters_shoot(forces), [1, 1])
    assert not under_fire_penalty(pinned)
    mark(url, fighters, "under_fire")
    assert not under_fire_penalty(shot(umpire_api, url, fighters_shoot(forces), [1, 1]))

    # The militia, not Relentless, cannot shoot Pinned; and can if the table declares a Last
    # Stand (p.31: "they ignore being Under Fire and Pinned").
    mark(url, militia, "pinned")
    body = fighters_shoot(forces, unit_id=str(militia.id), riflemen=5)
    refused(umpire_api, campaign, url, "fad_shoot", body, 422, "fire.pinned")
    declared = shot(umpire_api, url, body | {"firer_ignores_marker": "last_stand"}, [1, 1])
    assert not under_fire_penalty(declared)

    # Close assault (p.22): Pinned, the militia may not start one; the Relentless Fighters may.
    squad3 = unit(forces, "Federation", "Rifle Squad 3")
    assault = {"unit_id": str(militia.id), "target_id": str(squad3.id)}
    refused(umpire_api, campaign, url, "fad_close_assault", assault, 422, "close_assault.pinned")
    mark(url, fighters, "pinned")
    charge = assault | {"unit_id": str(fighters.id)}
    response = act(umpire_api, url, "fad_close_assault", charge, [6] * 13)
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["unit_id"] == str(fighters.id)


def test_a_hardened_unit_declared_at_the_table_ignores_under_fire_not_pinned_p40(
    umpire_api, battle
):
    campaign, forces, url = battle
    squad1 = unit(forces, "Federation", "Rifle Squad 1")
    mark(url, squad1, "under_fire")
    body = squad1_shoots(forces, firer_ignores_marker="hardened")
    assert not under_fire_penalty(shot(umpire_api, url, body, CLEAR))
    mark(url, squad1, "pinned")
    refused(umpire_api, campaign, url, "fad_shoot", body, 422, "fire.pinned")


def _lose(api, url, unit_row: Unit, names: list[str]) -> None:
    figures = members(unit_row)
    body = {
        "unit_id": str(unit_row.id),
        "casualties": [{"trooper_id": str(figures[n].id)} for n in names],
    }
    response = act(api, url, "fad_losses", body)
    assert response.status_code == 201, response.json()


def test_an_attached_heavy_weapons_team_is_counted_with_its_squad_p29(umpire_api, battle):
    """The militia (Steady, 5 figures) breaks at 3 casualties (50% of 5 rounded up, p.13). With
    the mortar team of 3 attached, "the numbers of the two squads are combined" (p.29): 8
    figures, breaking at 4. Three casualties (two militia, one of the team) do not break it; a
    fourth does, and both take the Morale Test's outcome: no success, they rout together."""
    campaign, forces, url = battle
    militia = unit(forces, "Insurgents", "Militia Squad")
    team = unit(forces, "Insurgents", "Mortar Team")
    _lose(umpire_api, url, militia, ["Rifle Pike", "Rifle Voss"])
    _lose(umpire_api, url, team, ["Mortar Esk"])
    body = {"unit_id": str(militia.id), "attached_team_id": str(team.id)}
    response = act(umpire_api, url, "fad_check_resolve", body)
    assert response.status_code == 201, response.json()
    checked = response.json()["events"][0]["payload"]
    assert (checked["original_size"], checked["losses"], checked["break_point"]) == (8, 3, 4)
    assert checked["broken"] is False
    assert checked["attached_team_id"] == str(team.id)

    _lose(umpire_api, url, militia, ["Gun Odell"])
    assert umpire_api.post(f"{url}turn/").status_code == 200  # it activates next turn (p.12)
    # Conscript: 4+ (p.13); 3, 2, 1 no success: routed, and the team with it.
    response = act(umpire_api, url, "fad_check_resolve", body, [3, 2, 1])
    assert response.status_code == 201, response.json()
    checked = response.json()["events"][0]["payload"]
    assert (checked["losses"], checked["broken_by_check"]) == (4, True)
    assert checked["removed_as"] == "routed"
    statuses = dict(
        Participant.objects.filter(unit_id__in=[militia.id, team.id]).values_list(
            "unit_id", "status"
        )
    )
    assert statuses == {militia.id: "routed", team.id: "routed"}
    lines = [line["summary"] for line in umpire_api.get(f"{url}log/").json()["results"]]
    assert "Mortar Team, attached to it, is counted with it (p.29)." in lines[-1]

    squad1 = unit(forces, "Federation", "Rifle Squad 1")
    refused(
        umpire_api, campaign, url, "fad_check_resolve",
        {"unit_id": str(squad1.id), "attached_team_id": str(squad1.id)}, 400,
        "resolve.not_an_attached_team",
    )  # fmt: skip
    assert_rebuild_keeps_rows()


def test_an_emboldened_unit_takes_no_morale_test_p34(umpire_api, battle):
    """Embolden: "One friendly unit does not have to take a morale test the next time they
    activate" (p.34). The militia with 3 casualties of 5 is Broken by its check (p.13) but rolls
    no die and acts normally; the next activation it tests as usual."""
    _campaign, forces, url = battle
    militia = unit(forces, "Insurgents", "Militia Squad")
    _lose(umpire_api, url, militia, ["Rifle Pike", "Rifle Voss", "Gun Odell"])
    body = {"unit_id": str(militia.id), "emboldened": True}
    response = act(umpire_api, url, "fad_check_resolve", body)
    assert response.status_code == 201, response.json()
    checked = response.json()["events"][0]["payload"]
    assert (checked["broken_by_check"], checked["morale"], checked["broken"]) == (True, None, False)
    assert checked["dice"] == []
    lines = [line["summary"] for line in umpire_api.get(f"{url}log/").json()["results"]]
    assert lines[-1].endswith("Emboldened (p.34): it takes no Morale Test and acts normally.")

    assert umpire_api.post(f"{url}turn/").status_code == 200  # it activates next turn (p.12)
    # Not emboldened: 3 dice at 4+ (Conscript), the Inexperienced squad leader -1 a die (p.11,
    # p.51): 5, 6, 1 give two successes, it rallies.
    response = act(umpire_api, url, "fad_check_resolve", {"unit_id": str(militia.id)}, [5, 6, 1])
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["morale"]["result"] == "rallied"
