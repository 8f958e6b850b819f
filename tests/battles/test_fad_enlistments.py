# ruff: noqa: F811 (the fixtures of test_after_action_fad, imported to be reused)
"""Fast and Dirty newcomers on the rosters (FaD p.66): the replacements of POST-BATTLE STEPS 1-2
and the troopers of the reinforcement pool are enlisted on their own streams, in the command
that brings them, and each one's service record starts with the battle that brought him.
After-actions and pools recorded before (version 1 of their events, which carried the
replacements themselves) still fold into the same troopers and records."""

from __future__ import annotations

import uuid

import pytest

from eventlog import store
from eventlog.projections import rebuild
from eventlog.store import NewEvent
from rosters.models import Trooper
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.battles.test_after_action_fad import (  # noqa: F401 (fixtures)
    FEDERATION_DICE,
    INSURGENT_DICE,
    after_action,
    battle,
    end,
    forces,
    fought,
    losses,
    members,
    unit,
)

# Its campaign: the insurgents have a Gun Truck too, which loses nothing in ``fought``.
from tests.battles.test_fad_empty_units_and_crews import campaign  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

ENLISTED = "rosters.TrooperEnlisted"


def service_record(api, trooper: Trooper) -> list[dict]:
    response = api.get(f"/api/v1/troopers/{trooper.id}/")
    assert response.status_code == 200, response.json()
    return response.json()["service_record"]


def battle_id(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def enlistment(campaign, trooper: Trooper):
    """The trooper's first event on his own stream."""
    return next(iter(store.read(campaign.id, stream=f"trooper:{trooper.id}")))


def test_a_replacement_is_enlisted_on_his_stream_and_his_record_starts_with_the_battle(
    umpire_api, campaign, forces, fought
):
    """FaD p.66 INFANTRY REPLACEMENTS: Rifle Squad 1 lost 3, d6 4, half replaced rounded up: 2
    replacements join it in the after-action's own append, each enlisted before the roll that
    brought him."""
    squad1 = unit(forces["Federation"], "Rifle Squad 1")
    response = after_action(umpire_api, fought, FEDERATION_DICE + INSURGENT_DICE)
    assert response.status_code == 201, response.json()
    events = response.json()["events"]
    newcomers = members(squad1)[8:]
    assert [t.name for t in newcomers] == [
        "Replacement for Pte Kieran Crane",
        "Replacement for Pte Simon Tierney",
    ]
    enlisted = [e for e in events if e["type"] == ENLISTED]
    assert {e["stream"] for e in enlisted} >= {f"trooper:{t.id}" for t in newcomers}
    rolled = next(
        e
        for e in events
        if e["type"] == "battles.FadInfantryReplacementsRolled"
        and e["payload"]["unit_id"] == str(squad1.id)
    )
    assert rolled["payload"]["trooper_ids"] == [str(t.id) for t in newcomers]
    assert rolled["payload"]["enlisted"] == []
    for trooper in newcomers:
        first = enlistment(campaign, trooper)
        assert first.type == ENLISTED
        assert first.sequence < rolled["sequence"]
        record = service_record(umpire_api, trooper)
        assert record[0]["summary"] == "Joined Rifle Squad 1 as a replacement after Valley road."
        assert record[0]["battle_id"] == battle_id(fought)
        assert record[0]["event_type"] == ENLISTED
        assert len(record) == 1
    assert_rebuild_keeps_rows()


def test_reinforcements_records_start_with_the_battle_whose_pool_brought_them(
    umpire_api, campaign, forces, fought
):
    """FaD p.66 REINFORCEMENTS: a pool of 2d6 3 + 4 = 7; Rifle Squad 3 (4 of its 6 left) takes
    2 and the 5 left form a new squad, its first trooper its leader."""
    fed = forces["Federation"]
    squad3 = unit(fed, "Rifle Squad 3")
    assert after_action(umpire_api, fought, FEDERATION_DICE + INSURGENT_DICE).status_code == 201
    response = umpire_api.post(
        f"/api/v1/forces/{fed.id}/reinforcements/",
        {
            "assignment": [{"unit_id": str(squad3.id), "troopers": 2}],
            "new_squad_size": 5,
            "dice": [3, 4],
        },
    )
    assert response.status_code == 201, response.json()
    joined = members(squad3)[-2:]
    assert [t.name for t in joined] == ["Reinforcement 7", "Reinforcement 8"]
    for trooper in joined:
        assert enlistment(campaign, trooper).type == ENLISTED
        record = service_record(umpire_api, trooper)
        assert [(r["summary"], r["battle_id"]) for r in record] == [
            ("Joined Rifle Squad 3 as a reinforcement after Valley road.", battle_id(fought))
        ]
    leader, *others = members(unit(fed, "New Squad 1"))
    assert [(r["summary"], r["battle_id"]) for r in service_record(umpire_api, leader)] == [
        ("Joined New Squad 1 as leader after Valley road (a reinforcement).", battle_id(fought))
    ]
    assert service_record(umpire_api, others[0])[0]["summary"] == (
        "Joined New Squad 1 as a reinforcement after Valley road."
    )
    assert_rebuild_keeps_rows()


def test_crew_back_with_the_repair_are_enlisted_after_the_battle(
    umpire_api, campaign, forces, battle
):
    """FaD p.66, crew killed on a vehicle that survived counted as damage (option
    campaign_vehicle_crew_losses, default): the Gun Truck's gunner is killed; vehicle
    replacements d6 3, repaired, and the crew back with it; resolve d6 4."""
    truck = unit(forces["Insurgents"], "Gun Truck")
    losses(umpire_api, battle, truck, killed=members(truck)[1:2])
    end(umpire_api, battle)
    response = after_action(umpire_api, battle, [3, 4])
    assert response.status_code == 201, response.json()
    (back,) = members(truck)[2:]
    assert (back.name, back.role, back.status) == ("Replacement for Gunner Maro", "crew", "fit")
    rolled = next(
        e for e in response.json()["events"] if e["type"] == "battles.FadVehicleReplacementRolled"
    )
    assert rolled["payload"]["trooper_ids"] == [str(back.id)]
    assert enlistment(campaign, back).type == ENLISTED
    assert [(r["summary"], r["battle_id"]) for r in service_record(umpire_api, back)] == [
        ("Joined Gun Truck as crew after Valley road (a replacement).", battle_id(battle))
    ]
    assert_rebuild_keeps_rows()


def _stored_before(campaign, *events: tuple[str, int, dict, str]) -> None:
    """Events as the log stored them before the newcomers were enlisted on their own streams
    (type, schema version, payload and stream), appended as they stand, then every row folded
    again from the log as it now reads."""
    new = [NewEvent(type_, payload, stream, version) for type_, version, payload, stream in events]
    store.append(campaign.id, new, project=False)
    rebuild(campaign.id)


def test_replacements_and_reinforcements_recorded_before_still_fold(
    umpire_api, campaign, forces, fought
):
    """A version-1 ``FadInfantryReplacementsRolled`` carried its replacements and joined them
    itself; a version-1 ``FadReinforcementsRolled`` followed enlistments that did not name the
    battle. Both still fold into the rows and records they gave: the replacement joins his
    squad, the reinforcement's record tells the battle once."""
    fed = forces["Federation"]
    squad1, squad3 = unit(fed, "Rifle Squad 1"), unit(fed, "Rifle Squad 3")
    rs1 = members(squad1)
    lost = rs1[5]
    replacement_id, reinforcement_id = uuid.uuid4(), uuid.uuid4()
    rolled = {
        "battle_id": battle_id(fought),
        "unit_id": str(squad1.id),
        "lost": [{"trooper_id": str(lost.id), "fate": "killed"}],
        "losses": 1,
        "strength_before": 8,
        "initial_strength": 8,
        "lone_figure": False,
        "row": "full",
        "replaced": 1,
        "enlisted": [
            {
                "trooper_id": str(replacement_id),
                "order": 8,
                "name": f"Replacement for {lost.name}",
                "role": "line",
                "weapon": lost.weapon,
                "armour": lost.armour,
                "armour_die": lost.armour_die,
                "power_armour": lost.power_armour,
                "specialism": lost.specialism,
            }
        ],
        "dice": [],
        "removed": False,
    }
    stream = f"battle:{battle_id(fought)}"
    _stored_before(campaign, ("battles.FadInfantryReplacementsRolled", 1, rolled, stream))
    replacement = Trooper.objects.get(pk=replacement_id)
    assert (replacement.unit_id, replacement.status) == (squad1.id, "fit")
    assert [(r["summary"], r["battle_id"]) for r in service_record(umpire_api, replacement)] == [
        ("Joined Rifle Squad 1 as a replacement after Valley road.", battle_id(fought))
    ]
    # Read as version 2: the replacement is named among the newcomers.
    types = ["battles.FadInfantryReplacementsRolled"]
    (upcast,) = list(store.read(campaign.id, stream=stream, types=types))
    assert upcast.payload["trooper_ids"] == [str(replacement_id)]

    enlisted = {
        "trooper_id": str(reinforcement_id),
        "unit_id": str(squad3.id),
        "force_id": str(fed.id),
        "order": 8,
        "name": "Reinforcement 9",
        "role": "line",
        "weapon": "",
        "armour": "",
        "armour_die": None,
        "power_armour": False,
        "specialism": "",
        "experience": "",
    }
    pool = {
        "force_id": str(fed.id),
        "battle_id": battle_id(fought),
        "extra_dice": 0,
        "pool": 2,
        "units": [{"unit_id": str(squad3.id), "trooper_ids": [str(reinforcement_id)]}],
        "new_squad": None,
        "unused": 1,
        "dice": [],
    }
    _stored_before(
        campaign,
        (ENLISTED, 1, enlisted, f"trooper:{reinforcement_id}"),
        ("battles.FadReinforcementsRolled", 1, pool, f"force:{fed.id}"),
    )
    reinforcement = Trooper.objects.get(pk=reinforcement_id)
    assert [(r["summary"], r["battle_id"]) for r in service_record(umpire_api, reinforcement)] == [
        ("Joined Rifle Squad 3.", None),
        ("Joined as a reinforcement after Valley road.", battle_id(fought)),
    ]
    assert_rebuild_keeps_rows()
