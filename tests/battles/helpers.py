"""Setup for the battle tests done as the umpire does it, through the API, so that every row the
tests read comes from events: rosters loaded from files, casualties named in battle, treatment
rolled, and the rebuild that proves it."""

from __future__ import annotations

from collections import defaultdict
from io import StringIO
from typing import Any

import yaml
from django.core.management import call_command

from eventlog.projections import dump_rows
from rosters.models import Trooper
from tests.battles.conftest import EXAMPLES
from tests.factories import campaign_for

BLUE = "sg2-scenario-1-blue.yaml"
RED = "sg2-scenario-1-red.yaml"

# The treatment D6 that stabilises a casualty without a medic or medical unit (P.39: 3-5).
STABILISING_FACE = 4


def _units(units: list[dict[str, Any]]):
    for unit in units:
        yield unit
        yield from _units(unit.get("units", []))


def blue_roster(*, medics: tuple[str, ...] = (), tired: tuple[str, ...] = ()) -> str:
    """The Blue roster of SG2 scenario 1 with the troopers named in ``medics`` made medics and
    the units named in ``tired`` Tired (P.19)."""
    roster = yaml.safe_load((EXAMPLES / BLUE).read_text())
    units = {unit["name"]: unit for unit in _units(roster["units"])}
    for name in tired:
        units[name]["fatigue"] = "tired"
    troopers = {t["name"]: t for unit in units.values() for t in unit.get("troopers", [])}
    for name in medics:
        troopers[name]["role"] = "medic"
    return yaml.safe_dump(roster, sort_keys=False)


def scenario_campaign(umpire, api, *, blue: str | None = None):
    """A campaign with both forces of SG2 scenario 1, Blue's from ``blue`` if given."""
    campaign = campaign_for(umpire, name="Recon in force")
    rosters = [
        (BLUE, blue if blue is not None else (EXAMPLES / BLUE).read_text()),
        (RED, (EXAMPLES / RED).read_text()),
    ]
    for source, text in rosters:
        response = api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    return campaign


def _action(api, battle, name: str, body: dict[str, Any]) -> dict[str, Any]:
    response = api.post(f"/api/v1/battles/{battle['id']}/actions/{name}/", body)
    assert response.status_code == 201, response.json()
    return response.json()


def name_casualties(api, battle, result: str, *troopers: Trooper) -> None:
    """The umpire names the troopers ``wounded`` or ``killed``, one casualties action per unit.
    None of the scenario's troopers wears power armour, so no P.40 die is due."""
    by_unit: dict[Any, list[Trooper]] = defaultdict(list)
    for trooper in troopers:
        by_unit[trooper.unit_id].append(trooper)
    for unit_id, hit in by_unit.items():
        _action(
            api,
            battle,
            "casualties",
            {
                "unit_id": str(unit_id),
                "mode": "named",
                "casualties": [{"trooper_id": str(t.id), "result": result} for t in hit],
                "dice": [],
            },
        )


def wound(api, battle, *troopers: Trooper) -> None:
    name_casualties(api, battle, "wounded", *troopers)


def kill(api, battle, *troopers: Trooper) -> None:
    name_casualties(api, battle, "killed", *troopers)


def stabilise(api, battle, *troopers: Trooper) -> None:
    """Wound the troopers, then treat each unit's casualties with a stabilising die (P.39).
    Their units must have no other untreated casualties and no medic."""
    wound(api, battle, *troopers)
    for unit_id in dict.fromkeys(t.unit_id for t in troopers):
        casualties = sum(1 for t in troopers if t.unit_id == unit_id)
        _action(
            api,
            battle,
            "medical_treatment",
            {"unit_id": str(unit_id), "dice": [STABILISING_FACE] * casualties},
        )


def set_leadership(api, unit, leadership: int) -> None:
    response = api.post(
        f"/api/v1/units/{unit.id}/leadership/",
        {"leadership": leadership, "reason": "set for the scenario"},
    )
    assert response.status_code == 201, response.json()


def assert_rebuild_keeps_rows() -> None:
    """Every read-model row is what folding the event log again gives."""
    before = dump_rows()
    call_command("rebuild_projections", "--no-progress", stdout=StringIO())
    assert dump_rows() == before
