"""Fast and Dirty unit state through HTTP with table dice (FaD p.12-14, p.24-25): initiative,
Checking Resolve and the Morale Test at activation, the end of an activation, Losing Heart and
Command Response.

The rifle platoon of ``examples/fad-rifle-platoon.yaml`` against an insurgent force of four
units. Casualties are named with ``fad_losses`` or shot with ``fad_shoot``; every expected
result is worked out by hand from the tables of p.13-14 and p.25.
"""

from __future__ import annotations

import pytest

from battles.fad.state import medical_state
from rosters.models import Trooper, Unit, UnitHistoryEntry, Vehicle
from rules.fad.wounded import MedicalState
from tests.battles.fad.table import done, fad_battle, members, refused, unit
from tests.battles.helpers import assert_rebuild_keeps_rows

pytestmark = pytest.mark.django_db

INSURGENTS = """\
name: Valley insurgents
side: Insurgents
ruleset: fad
units:
  - name: Militia Squad
    kind: squad
    quality: conscript
    resolve: uncertain
    toe_strength: 9
    troopers:
      - {name: Boss Hale, role: leader, weapon: low-tech rifle, armour: none}
      - {name: Gun Odell, weapon: low-tech rifle, armour: none}
      - {name: Rifle Pike, weapon: low-tech rifle, armour: none}
      - {name: Rifle Voss, weapon: low-tech rifle, armour: none}
      - {name: Rifle Ward, weapon: low-tech rifle, armour: none}
  - name: Armoured Car Crew
    kind: vehicle_crew
    quality: conscript
    resolve: steady
    troopers:
      - {name: Driver Lusk, role: crew, weapon: pistol}
    vehicles:
      - {name: Sabre, class: armoured car, size: 2, capacity: 0, armour: 3}
  - name: Lookouts
    kind: squad
    quality: rabble
    resolve: reluctant
    troopers:
      - {name: Lookout Finn, role: leader, weapon: low-tech rifle, armour: none}
      - {name: Lookout Gray, weapon: low-tech rifle, armour: none}
  - name: Sniper
    kind: independent
    quality: regular
    resolve: steady
    troopers:
      - {name: Eyes Kerr, role: leader, weapon: sniper rifle}
"""


def make_battle(umpire, umpire_api, options=None):
    return fad_battle(umpire, umpire_api, INSURGENTS, options)


@pytest.fixture
def setup(umpire, umpire_api):
    return make_battle(umpire, umpire_api)


def losses(api, url, unit_row, *, killed=(), wounded=()) -> None:
    done(
        api,
        url,
        "fad_losses",
        {
            "unit_id": str(unit_row.id),
            "casualties": [{"trooper_id": str(t.id), "result": "killed"} for t in killed]
            + [{"trooper_id": str(t.id), "result": "wounded"} for t in wounded],
        },
    )


def shown(api, url, unit_row) -> dict:
    (row,) = [p for p in api.get(url).json()["participants"] if p["unit_id"] == str(unit_row.id)]
    return row


def last_line(api, url) -> str:
    return api.get(f"{url}log/").json()["results"][-1]["summary"]


def squad_lost(api, url, squad: Unit, killed: int, wounded: int = 0) -> list[Trooper]:
    """The last ``killed`` then ``wounded`` troopers of the squad named casualties."""
    troopers = list(members(squad).values())
    hit = troopers[len(troopers) - killed - wounded :]
    losses(api, url, squad, killed=hit[:killed], wounded=hit[killed:])
    return hit


# --- Checking Resolve and the Morale Test (p.13) ------------------------------------------------


def test_a_squad_short_of_its_break_point_is_not_broken_and_rolls_nothing(umpire_api, setup):
    """Rifle Squad 1, Steady, 8 figures at the start: breaks at 4 casualties (50%, p.13)."""
    _campaign, forces, url = setup
    squad = unit(forces, "Federation", "Rifle Squad 1")
    squad_lost(umpire_api, url, squad, killed=2, wounded=1)
    (checked,) = done(umpire_api, url, "fad_check_resolve", {"unit_id": str(squad.id)})
    p = checked["payload"]
    assert (p["losses"], p["original_size"], p["break_point"], p["broken"]) == (3, 8, 4, False)
    assert p["morale"] is None
    assert p["dice"] == []
    assert shown(umpire_api, url, squad)["broken"] is False
    assert last_line(umpire_api, url) == (
        "Rifle Squad 1 activated and checked Resolve (steady): 3 casualties of 8, breaking at 4: "
        "not broken."
    )


def test_a_broken_squad_takes_its_morale_test_in_the_same_action(umpire_api, setup):
    """Four casualties of 8 break Rifle Squad 1 (Regular, 3+). Its squad leader is
    Inexperienced, as every squad leader starts (p.51): -1 on each die (p.11), so a die needs 4.
    Morale Test 4, 3, 1: one success, it stays broken (p.13); at its next activation 4, 5, 1:
    two successes, it rallies."""
    _campaign, forces, url = setup
    squad = unit(forces, "Federation", "Rifle Squad 1")
    squad_lost(umpire_api, url, squad, killed=3, wounded=1)
    (checked,) = done(umpire_api, url, "fad_check_resolve", {"unit_id": str(squad.id)}, [4, 3, 1])
    p = checked["payload"]
    assert (p["broken_by_check"], p["broken"], p["removed_as"]) == (True, True, None)
    assert (p["morale"]["target_number"], p["morale"]["leader_modifier"]) == (3, -1)
    assert (p["morale"]["successes"], p["morale"]["result"]) == (1, "stays_broken")
    assert [d["purpose"] for d in p["dice"]] == ["morale test"] * 3
    row = shown(umpire_api, url, squad)
    assert (row["broken"], row["status"]) == (True, "fighting")
    assert last_line(umpire_api, url) == (
        "Rifle Squad 1 activated and checked Resolve (steady): 4 casualties of 8, breaking at 4: "
        "Broken. Morale Test: 3d6 at 3+ (squad leader -1), rolled 4, 3, 1: 1 success; Rifle "
        "Squad 1 stays broken: it falls back away from the enemy unless it is in cover with no "
        'enemy within 8", may not start a close assault and shoots at -3. [d6 4, d6 3, d6 1; '
        "table]"
    )
    # Its next activation is next turn: a unit activates once a turn (p.12).
    assert umpire_api.post(f"{url}turn/").status_code == 200
    done(umpire_api, url, "fad_check_resolve", {"unit_id": str(squad.id)}, [4, 5, 1])
    assert shown(umpire_api, url, squad)["broken"] is False
    assert "rallied and acts normally this turn" in last_line(umpire_api, url)
    assert_rebuild_keeps_rows()


def test_the_squad_leaders_experience_and_automatic_successes(umpire_api, setup):
    """Rifle Squad 2 (Conscript 4+, Inexperienced leader: a die needs 5) with 4 of 8 down.
    Within 8" of a tank and in a trench: one automatic success (they do not add up by default),
    so 2d6: 5 and 4, two successes, rallied."""
    _campaign, forces, url = setup
    squad = unit(forces, "Federation", "Rifle Squad 2")
    squad_lost(umpire_api, url, squad, killed=4)
    body = {
        "unit_id": str(squad.id),
        "morale": {"auto_successes": ["armour_nearby", "fortified"]},
    }
    (checked,) = done(umpire_api, url, "fad_check_resolve", body, [5, 4])
    morale = checked["payload"]["morale"]
    assert (morale["dice_rolled"], morale["auto_successes_counted"]) == (2, 1)
    assert (morale["successes"], morale["result"]) == (2, "rallied")
    assert shown(umpire_api, url, squad)["broken"] is False


def test_stacking_automatic_successes_with_the_option(umpire, umpire_api):
    _campaign, forces, url = make_battle(umpire, umpire_api, {"morale_auto_success_stacking": True})
    squad = unit(forces, "Federation", "Rifle Squad 2")
    squad_lost(umpire_api, url, squad, killed=4)
    body = {"unit_id": str(squad.id), "morale": {"auto_successes": ["armour_nearby", "fortified"]}}
    (checked,) = done(umpire_api, url, "fad_check_resolve", body, [1])
    morale = checked["payload"]["morale"]
    assert (morale["dice_rolled"], morale["successes"], morale["result"]) == (1, 2, "rallied")


@pytest.mark.parametrize(
    ("option", "size", "losses"), [(None, 7, 5), ("subtract_from_casualties", 6, 4)]
)
def test_an_attached_officer_steadies_the_squad(umpire, umpire_api, option, size, losses):
    """Rifle Squad 3 (Determined, 6 figures) breaks at 5 casualties (75% of 6 = 4.5). An
    officer raises its strength by 1 (p.32): by default its size is 7, breaking at 6 (5.25);
    with resolve_officer_bonus_mode = subtract_from_casualties it counts 4 casualties against
    5. Either way 5 dead do not break it."""
    options = {"resolve_officer_bonus_mode": option} if option else None
    _campaign, forces, url = make_battle(umpire, umpire_api, options)
    squad = unit(forces, "Federation", "Rifle Squad 3")
    squad_lost(umpire_api, url, squad, killed=5)
    body = {"unit_id": str(squad.id), "officer_attached": True}
    (checked,) = done(umpire_api, url, "fad_check_resolve", body)
    p = checked["payload"]
    assert (p["original_size"], p["losses"], p["broken"]) == (size, losses, False)


@pytest.mark.parametrize(
    ("option", "successes", "result", "status"),
    [(None, 0, "removed", "routed"), ("successes", 1, "stays_broken", "fighting")],
)
def test_the_squad_leaders_modifier_option(umpire, umpire_api, option, successes, result, status):
    """Rifle Squad 1 broken (4 of 8), Regular 3+, its leader Inexperienced (-1, p.11), rolls 3,
    3, 1. Per die (the default) each 3 counts as 2: no success, it routs. With
    morale_leader_modifier_mode = successes it counts two successes less one: it stays broken."""
    options = {"morale_leader_modifier_mode": option} if option else None
    _campaign, forces, url = make_battle(umpire, umpire_api, options)
    squad = unit(forces, "Federation", "Rifle Squad 1")
    squad_lost(umpire_api, url, squad, killed=4)
    (checked,) = done(umpire_api, url, "fad_check_resolve", {"unit_id": str(squad.id)}, [3, 3, 1])
    morale = checked["payload"]["morale"]
    assert (morale["successes"], morale["result"]) == (successes, result)
    assert shown(umpire_api, url, squad)["status"] == status


@pytest.mark.parametrize(
    ("option", "size", "break_point", "dice"),
    [(None, 5, 2, [5, 5, 1]), ("initial_strength", 9, 3, [])],
)
def test_the_original_size_option(umpire, umpire_api, option, size, break_point, dice):
    """The Militia Squad was raised 9 strong (its TO&E) and brings 5 to this battle. Uncertain
    breaks at 25%: of the 5 on the table (the default), 2 casualties; of its initial 9 with
    resolve_original_size = initial_strength, 3. Two dead break it only by default (its Morale
    Test 5, 5, 1 rallies it: Conscript 4+, Inexperienced leader -1)."""
    options = {"resolve_original_size": option} if option else None
    _campaign, forces, url = make_battle(umpire, umpire_api, options)
    militia = unit(forces, "Insurgents", "Militia Squad")
    squad_lost(umpire_api, url, militia, killed=2)
    (checked,) = done(umpire_api, url, "fad_check_resolve", {"unit_id": str(militia.id)}, dice)
    p = checked["payload"]
    assert (p["original_size"], p["break_point"]) == (size, break_point)
    assert p["broken_by_check"] is (option is None)
    assert p["broken"] is False


def test_a_squad_that_routs_leaves_the_battle_and_counts_so_after_it(umpire, umpire_api):
    """Militia Squad, Uncertain: 2 of 5 break it (25% of 5 = 1.25). Conscript 4+: 1, 2, 3, no
    success: it routs and is removed (p.13), marked routed, so it can do nothing more; with
    campaign_routed_unit_fate = counts_as_eliminated the after-action counts its three
    survivors as lost with the two dead (FaD p.66, step 1: d6 1, none replaced; step 4: d6 3,
    resolve unchanged)."""
    campaign, forces, url = make_battle(
        umpire, umpire_api, {"campaign_routed_unit_fate": "counts_as_eliminated"}
    )
    militia = unit(forces, "Insurgents", "Militia Squad")
    squad_lost(umpire_api, url, militia, killed=2)
    body = {"unit_id": str(militia.id), "morale": {"removed_as": "surrendered"}}
    (checked,) = done(umpire_api, url, "fad_check_resolve", body, [1, 2, 3])
    p = checked["payload"]
    assert (p["morale"]["successes"], p["morale"]["result"], p["removed_as"]) == (
        0,
        "removed",
        "surrendered",
    )
    assert shown(umpire_api, url, militia)["status"] == "surrendered"
    assert last_line(umpire_api, url).startswith(
        "Militia Squad activated and checked Resolve (uncertain): 2 casualties of 5, breaking at "
        "2: Broken. Morale Test: 3d6 at 4+ (squad leader -1), rolled 1, 2, 3: 0 successes; "
        "Militia Squad "
        "surrendered and is removed from play."
    )
    refused(
        umpire_api,
        campaign,
        url,
        "fad_check_resolve",
        {"unit_id": str(militia.id)},
        409,
        "battle.unit_gone",
        [1, 1, 1],
    )
    assert umpire_api.post(f"{url}end/", {"winner": "Federation"}).status_code == 200
    response = umpire_api.post(f"{url}after-action/", {"dice": [1, 3]})
    assert response.status_code == 201, response.json()
    (replaced,) = [
        e["payload"]
        for e in response.json()["events"]
        if e["type"] == "battles.FadInfantryReplacementsRolled"
    ]
    assert (replaced["unit_id"], replaced["losses"], replaced["replaced"]) == (
        str(militia.id),
        5,
        0,
    )


def test_a_vehicle_is_checked_only_under_fire_and_its_crew_may_bail_out(umpire_api, setup):
    """The Sabre (crew Steady, Conscript 4+) activates unmarked: not checked. Shot at (a Fire
    Effect of 1 from 1, 1 against hard cover scores no hit) it is Under Fire; with 3 penetrating
    hits it breaks (p.13), and immobilised, one success (4, 1, 1) makes its crew bail out: the
    vehicle is abandoned and the crew leave the battle."""
    _campaign, forces, url = setup
    crew = unit(forces, "Insurgents", "Armoured Car Crew")
    sabre = Vehicle.objects.get(unit_id=crew.id)
    (quiet,) = done(umpire_api, url, "fad_check_resolve", {"unit_id": str(crew.id)})
    assert (quiet["payload"]["checked"], quiet["payload"]["broken"]) == (False, False)
    assert last_line(umpire_api, url) == (
        "Armoured Car Crew activated without an Under Fire marker: its crew's Resolve is not "
        "checked."
    )
    # It ends its activation (p.12) with no marker to remove; then another unit may shoot.
    (ended,) = done(umpire_api, url, "fad_activation_end", {"unit_id": str(crew.id)})
    assert ended["payload"]["marker_removed"] is None
    assert last_line(umpire_api, url) == "Armoured Car Crew finished its activation."
    shot = {
        "unit_id": str(unit(forces, "Federation", "Rifle Squad 2").id),
        "target_id": str(crew.id),
        "vehicle_id": str(sabre.id),
        "distance": 10,
        "basic_weapon": "assault_rifles",
        "riflemen": 7,
        "concealment": "hard_cover",
    }
    events = done(umpire_api, url, "fad_shoot_vehicle", shot, [1, 1])
    assert events[0]["payload"]["hits"] == 0
    assert shown(umpire_api, url, crew)["marker"] == "under_fire"
    assert umpire_api.post(f"{url}turn/").status_code == 200  # it activates next turn (p.12)
    body = {
        "unit_id": str(crew.id),
        "penetrating_hits": 3,
        "morale": {"immobilised": True},
    }
    checked, lost = done(umpire_api, url, "fad_check_resolve", body, [4, 1, 1])
    p = checked["payload"]
    assert (p["vehicle"], p["losses"], p["break_point"], p["broken_by_check"]) == (
        True,
        3,
        3,
        True,
    )
    assert (p["morale"]["result"], p["morale"]["crew_bailed_out"], p["removed_as"]) == (
        "removed",
        True,
        "routed",
    )
    assert lost["type"] == "battles.FadLossesRecorded"
    assert lost["payload"]["vehicles"] == [
        {"vehicle_id": str(sabre.id), "condition": "abandoned", "state_before": "operational"}
    ]
    assert shown(umpire_api, url, crew)["status"] == "routed"
    lines = [line["summary"] for line in umpire_api.get(f"{url}log/").json()["results"]]
    assert lines[-2].endswith(
        "1 success; Armoured Car Crew bail out of their immobilised vehicle and flee: it is "
        "removed. "
        "[d6 4, d6 1, d6 1; table]"
    )
    assert lines[-1] == "Armoured Car Crew, abandoned by its broken crew: Sabre abandoned."


def test_check_resolve_refusals(umpire_api, setup):
    campaign, forces, url = setup
    squad = unit(forces, "Federation", "Rifle Squad 1")
    crew = unit(forces, "Insurgents", "Armoured Car Crew")
    cases = [
        ({"unit_id": str(squad.id), "penetrating_hits": 2}, "resolve.not_a_vehicle"),
        ({"unit_id": str(squad.id), "morale": {"immobilised": True}}, "resolve.not_a_vehicle"),
        ({"unit_id": str(crew.id), "officer_attached": True}, "resolve.not_infantry"),
        (
            {"unit_id": str(crew.id), "morale": {"auto_successes": ["brave"]}},
            "resolve.not_infantry",
        ),
    ]
    for body, code in cases:
        refused(umpire_api, campaign, url, "fad_check_resolve", body, 400, code)
    # A squad that is not broken given a die it does not need.
    refused(
        umpire_api,
        campaign,
        url,
        "fad_check_resolve",
        {"unit_id": str(squad.id)},
        400,
        "dice.unused",
        [4],
    )


def test_a_fanatic_unit_checks_no_resolve(umpire_api, setup):
    """p.39: Fanatics never check Resolve, whatever their casualties."""
    _campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    squad_lost(umpire_api, url, militia, killed=3)
    body = {"unit_id": str(militia.id), "exempt": "fanatic"}
    (checked,) = done(umpire_api, url, "fad_check_resolve", body)
    p = checked["payload"]
    assert (p["checked"], p["broken"], p["morale"], p["dice"]) == (False, False, None, [])
    assert last_line(umpire_api, url) == (
        "Militia Squad activated and checks no Resolve: it is Fanatic (p.39)."
    )


def test_a_terrifying_squad_forces_a_test_on_an_unbroken_unit(umpire_api, setup):
    """p.41: a unit activating within 8" of a Terrifying squad tests even unbroken. Rifle Squad
    1 (Regular, no casualties, Inexperienced leader) rolls 3, 2, 6: one success (3 - 1 fails),
    it is broken this turn."""
    _campaign, forces, url = setup
    squad = unit(forces, "Federation", "Rifle Squad 1")
    body = {"unit_id": str(squad.id), "forced_by": "terrifying"}
    (checked,) = done(umpire_api, url, "fad_check_resolve", body, [3, 2, 6])
    p = checked["payload"]
    assert (p["broken_by_check"], p["broken"], p["morale"]["forced_by"]) == (
        False,
        True,
        "terrifying",
    )
    assert 'Morale Test forced by a Terrifying squad is within 8"' in last_line(umpire_api, url)


def test_stabilised_and_recovered_figures_are_not_casualties():
    """p.35: the stabilised do not count when Checking Resolve; a recovered figure is fit."""
    states = {
        status: medical_state(Trooper(status=status))
        for status in ("fit", "wounded", "stabilised", "dead", "captured")
    }
    assert states == {
        "fit": MedicalState.HEALTHY,
        "wounded": MedicalState.WOUNDED,
        "stabilised": MedicalState.STABILISED,
        "dead": MedicalState.DEAD,
        "captured": MedicalState.DEAD,
    }


# --- Under Fire and the end of an activation (p.24) -----------------------------------------------

# Rifle Squad 1 at the militia 10" away: Fire Effect best of 5, 3 = 5 +1 Regular +2 riflemen
# +2 SAW = 10, three hits; damage (1 v 6, 2 v 4, 5 v 2): Pike unharmed, Voss wounded, Odell
# killed (p.18-19, p.35). The militia are Under Fire.
SHOT_DICE = [5, 3, 1, 6, 2, 4, 5, 2]
ORDER = ("Rifle Pike", "Rifle Voss", "Gun Odell", "Rifle Ward", "Boss Hale")


def shoot_militia(api, url, forces) -> None:
    militia = unit(forces, "Insurgents", "Militia Squad")
    figures = members(militia)
    body = {
        "unit_id": str(unit(forces, "Federation", "Rifle Squad 1").id),
        "target_id": str(militia.id),
        "distance": 10,
        "basic_weapon": "assault_rifles",
        "riflemen": 7,
        "support_weapons": ["squad_automatic_weapon"],
        "target_order": [str(figures[name].id) for name in ORDER],
    }
    done(api, url, "fad_shoot", body, SHOT_DICE)


def test_the_marker_comes_off_when_the_activation_ends(umpire_api, setup):
    campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    shoot_militia(umpire_api, url, forces)
    assert shown(umpire_api, url, militia)["marker"] == "under_fire"
    (ended,) = done(umpire_api, url, "fad_activation_end", {"unit_id": str(militia.id)})
    assert ended["payload"]["marker_removed"] == "under_fire"
    assert ended["payload"].get("dice", []) == []
    assert shown(umpire_api, url, militia)["marker"] == ""
    assert last_line(umpire_api, url) == (
        "Militia Squad finished its activation: its Under Fire marker was removed."
    )
    refused(
        umpire_api,
        campaign,
        url,
        "fad_activation_end",
        {"unit_id": str(militia.id)},
        409,
        "activation.no_marker",
    )


# --- Command Response (p.25) ----------------------------------------------------------------------


def test_command_response_reads_the_wounded_from_the_battle(umpire_api, setup):
    """The militia (Conscript 4+) activate Under Fire with Rifle Voss lying wounded: -1. A 4
    makes 3, a failure; the side's HQ re-roll, a 6, makes 5: passed. The re-roll is spent for
    the turn."""
    campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    shoot_militia(umpire_api, url, forces)
    body = {"unit_id": str(militia.id), "hq_reroll": True}
    (tested,) = done(umpire_api, url, "fad_command_response", body, [4, 6])
    p = tested["payload"]
    assert p["modifiers"] == [["untreated wounded", -1]]
    assert (p["faces"], p["total"], p["passed"], p["rerolled"]) == ([4, 6], 5, True, True)
    assert last_line(umpire_api, url) == (
        "Militia Squad activated Under Fire and took a Command Response test: d6 4 then 6 (HQ "
        "re-roll), untreated wounded -1, total 5 against 4+, passed: it acts as its player "
        "chooses. [d6 4, d6 6; table]"
    )
    refused(
        umpire_api,
        campaign,
        url,
        "fad_command_response",
        body,
        409,
        "command_response.reroll_used",
        [4],
    )
    (again,) = done(umpire_api, url, "fad_command_response", {"unit_id": str(militia.id)}, [3])
    assert (again["payload"]["total"], again["payload"]["passed"]) == (2, False)
    assert "failed: it may Move only to improve cover and Rush only away" in last_line(
        umpire_api, url
    )


def test_command_response_only_when_due_and_with_the_option(umpire, umpire_api, setup):
    campaign, forces, url = setup
    squad = unit(forces, "Federation", "Rifle Squad 1")
    refused(
        umpire_api,
        campaign,
        url,
        "fad_command_response",
        {"unit_id": str(squad.id)},
        422,
        "command_response.not_due",
        [6],
    )
    (near,) = done(
        umpire_api,
        url,
        "fad_command_response",
        {"unit_id": str(squad.id), "enemy_within_10": True, "officer_present": True},
        [2],
    )
    assert (near["payload"]["total"], near["payload"]["passed"]) == (3, True)
    off_campaign, off_forces, off_url = make_battle(
        umpire, umpire_api, {"adv_command_response": False}
    )
    refused(
        umpire_api,
        off_campaign,
        off_url,
        "fad_command_response",
        {
            "unit_id": str(unit(off_forces, "Federation", "Rifle Squad 1").id),
            "enemy_within_10": True,
        },
        422,
        "command_response.off",
        [6],
    )


# --- Losing Heart (p.14) --------------------------------------------------------------------------


def test_losing_heart_at_half_and_three_quarters(umpire_api, setup):
    """The insurgents field four units. The sniper killed: 1 of 4, nothing. The militia routed
    too: 2 of 4, 50%: every remaining unit drops a level; the Lookouts, Reluctant, are
    eliminated instead. That makes 3 of 4, 75%: one more level, the crew Uncertain to
    Reluctant."""
    campaign, forces, url = setup
    sniper = unit(forces, "Insurgents", "Sniper")
    militia = unit(forces, "Insurgents", "Militia Squad")
    crew = unit(forces, "Insurgents", "Armoured Car Crew")
    lookouts = unit(forces, "Insurgents", "Lookouts")
    body = {"side": "Insurgents"}
    losses(umpire_api, url, sniper, killed=list(members(sniper).values()))
    refused(umpire_api, campaign, url, "fad_losing_heart", body, 409, "losing_heart.not_due")
    squad_lost(umpire_api, url, militia, killed=2)
    done(umpire_api, url, "fad_check_resolve", {"unit_id": str(militia.id)}, [1, 1, 1])
    (half,) = done(umpire_api, url, "fad_losing_heart", body)
    p = half["payload"]
    assert (p["army_size"], p["eliminated"], p["levels_before"], p["levels_after"]) == (4, 2, 0, 1)
    assert {(s["unit_id"], s["before"], s["after"]) for s in p["shifts"]} == {
        (str(crew.id), "steady", "uncertain"),
        (str(lookouts.id), "reluctant", None),
    }
    assert shown(umpire_api, url, crew)["resolve"] == "uncertain"
    assert shown(umpire_api, url, lookouts)["status"] == "routed"
    assert last_line(umpire_api, url) == (
        "Insurgents lost heart: 2 of 4 units eliminated, at least 50%; Resolve drops 1 level for "
        "the rest of the battle: Armoured Car Crew steady to uncertain; Lookouts, Reluctant, is "
        "eliminated."
    )
    (most,) = done(umpire_api, url, "fad_losing_heart", body)
    p = most["payload"]
    assert (p["eliminated"], p["levels_before"], p["levels_after"]) == (3, 1, 2)
    assert [(s["before"], s["after"]) for s in p["shifts"]] == [("uncertain", "reluctant")]
    assert shown(umpire_api, url, crew)["resolve"] == "reluctant"
    refused(umpire_api, campaign, url, "fad_losing_heart", body, 409, "losing_heart.not_due")
    # The roster keeps its Resolve: Losing Heart lasts this battle (the default).
    crew.refresh_from_db()
    assert crew.resolve == "steady"
    assert_rebuild_keeps_rows()


def test_losing_heart_may_persist_on_the_roster(umpire, umpire_api):
    _campaign, forces, url = make_battle(umpire, umpire_api, {"morale_losing_heart_persists": True})
    for name in ("Sniper", "Militia Squad"):
        row = unit(forces, "Insurgents", name)
        losses(umpire_api, url, row, killed=list(members(row).values()))
    done(umpire_api, url, "fad_losing_heart", {"side": "Insurgents"})
    crew = unit(forces, "Insurgents", "Armoured Car Crew")
    assert crew.resolve == "uncertain"
    lines = UnitHistoryEntry.objects.filter(unit_id=crew.id).values_list("summary", flat=True)
    assert list(lines)[-1] == (
        "Lost heart at Valley road, turn 1: resolve from Steady to Uncertain (FaD p.14)."
    )
    lookouts = unit(forces, "Insurgents", "Lookouts")
    assert lookouts.resolve == "reluctant"
    assert_rebuild_keeps_rows()


def test_losing_heart_refusals(umpire, umpire_api, setup):
    campaign, _forces, url = setup
    refused(
        umpire_api,
        campaign,
        url,
        "fad_losing_heart",
        {"side": "Martians"},
        400,
        "battle.unknown_side",
    )
    refused(
        umpire_api,
        campaign,
        url,
        "fad_losing_heart",
        {"side": "Insurgents", "hard_points": 2, "hard_points_destroyed": 2},
        422,
        "losing_heart.hard_points_off",
    )
    off_campaign, _forces, off_url = make_battle(umpire, umpire_api, {"morale_losing_heart": False})
    refused(
        umpire_api,
        off_campaign,
        off_url,
        "fad_losing_heart",
        {"side": "Insurgents"},
        422,
        "losing_heart.off",
    )


def test_hard_points_count_with_the_option(umpire, umpire_api):
    """With morale_losing_heart_hard_points: four units and two bunkers, the sniper dead and
    both bunkers destroyed: 3 of 6, 50%."""
    _campaign, forces, url = make_battle(
        umpire, umpire_api, {"morale_losing_heart_hard_points": True}
    )
    sniper = unit(forces, "Insurgents", "Sniper")
    losses(umpire_api, url, sniper, killed=list(members(sniper).values()))
    body = {"side": "Insurgents", "hard_points": 2, "hard_points_destroyed": 2}
    (lost,) = done(umpire_api, url, "fad_losing_heart", body)
    assert (lost["payload"]["army_size"], lost["payload"]["eliminated"]) == (6, 3)
    assert "(hard points included)" in last_line(umpire_api, url)


# --- Initiative (p.12) ----------------------------------------------------------------------------


def test_initiative_each_turn_and_the_draw(umpire_api, setup):
    """Turn 1: Federation 2, Insurgents 5: the Insurgents go first. Turn 2: 4 and 4, a draw: the
    Federation lost last turn and go first (p.12)."""
    campaign, _forces, url = setup
    (first,) = done(umpire_api, url, "fad_initiative", {}, [2, 5])
    assert (first["payload"]["first"], first["payload"]["by_tie"]) == ("Insurgents", False)
    assert last_line(umpire_api, url) == (
        "Initiative for turn 1: Federation 2, Insurgents 5. Insurgents activates first. "
        "[d6 2, d6 5; table]"
    )
    refused(
        umpire_api, campaign, url, "fad_initiative", {}, 409, "initiative.already_rolled", [1, 2]
    )
    assert umpire_api.post(f"{url}turn/").status_code in (200, 201)
    (second,) = done(umpire_api, url, "fad_initiative", {}, [4, 4])
    p = second["payload"]
    assert (p["turn"], p["first"], p["by_tie"], p["lost_last_turn"]) == (
        2,
        "Federation",
        True,
        "Federation",
    )
    assert "a draw, and Federation lost the initiative last turn" in last_line(umpire_api, url)


def test_improved_intel_until_a_natural_one(umpire_api, setup):
    campaign, _forces, url = setup
    body = {"improved_intel": ["Federation"]}
    (first,) = done(umpire_api, url, "fad_initiative", body, [4, 4])
    assert first["payload"]["first"] == "Federation"
    assert "Federation 4 +1 Improved Intel" in last_line(umpire_api, url)
    refused(
        umpire_api,
        campaign,
        url,
        "fad_initiative",
        {"improved_intel": ["Martians"]},
        400,
        "battle.unknown_side",
        [1, 2],
    )


def test_the_server_rolls_a_morale_test_in_a_job(umpire_api, setup):
    """Without table dice a job rolls the Morale Test of a broken squad: three d6 from the
    server, and the participant follows the result."""
    _campaign, forces, url = setup
    squad = unit(forces, "Federation", "Rifle Squad 1")
    squad_lost(umpire_api, url, squad, killed=4)
    response = umpire_api.post(f"{url}actions/fad_check_resolve/", {"unit_id": str(squad.id)})
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    checked = job["events"][0]["payload"]
    assert [(d["die"], d["source"]) for d in checked["dice"]] == [(6, "server")] * 3
    faces = [d["result"] for d in checked["dice"]]
    successes = sum(1 for face in faces if face - 1 >= 3)  # Regular 3+, Inexperienced -1
    result = ("removed", "stays_broken", "rallied", "rallied")[successes]
    assert (checked["morale"]["successes"], checked["morale"]["result"]) == (successes, result)
    row = shown(umpire_api, url, squad)
    assert row["broken"] is (result != "rallied")
    assert row["status"] == ("routed" if result == "removed" else "fighting")


@pytest.mark.parametrize(
    ("mode", "broken", "successes"),
    [("resolve_plus_one", False, None), ("quality_plus_one", True, 2)],
)
def test_a_grizzled_squad_by_the_option_p40(umpire, umpire_api, mode, broken, successes):
    """FaD p.40 Grizzled mixes Resolve and Quality (option traits_grizzled_mode). Four casualties
    of 8: Steady breaks at 4, but checked as Determined it breaks at 6 (p.13). Checked as Steady
    it breaks, and its Morale Test is taken as Elite (2+, leader -1): 4 and 3 succeed where a
    Regular's 3+ would let only the 4 through."""
    _campaign, forces, url = make_battle(umpire, umpire_api, {"traits_grizzled_mode": mode})
    squad = unit(forces, "Federation", "Rifle Squad 1")
    squad_lost(umpire_api, url, squad, killed=3, wounded=1)
    body = {"unit_id": str(squad.id), "grizzled": True}
    (checked,) = done(umpire_api, url, "fad_check_resolve", body, [4, 3, 1] if broken else [])
    p = checked["payload"]
    assert p["broken_by_check"] is broken
    if successes is None:
        assert p["morale"] is None
    else:
        assert (p["morale"]["successes"], p["morale"]["result"]) == (successes, "rallied")
