"""Every between-battle command costs the same queries for a platoon as for a company.

The book's reinforced combat company (SG2 P.8, 113 troopers in 25 units) and the same company cut
down to its first platoon go through the same campaign, step by step through the API: a battle
with casualties and a disabled APC in every platoon's first squad, its after-action and the
reads of the battle and the rosters after it, the moves to a rear area, the umpire's
adjustments, supplies, replacements, the calendar that brings the injured back and repairs the
vehicles, a transfer, a regroup and a disbanding. Each step is counted; the company's count is
the platoon's, so nothing a command or a read does goes one query per unit or per trooper.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.conftest import EXAMPLES
from tests.battles.helpers import kill, stabilise, wound
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

COMPANY = "sg2-reinforced-combat-company.yaml"
RED = "sg2-scenario-1-red.yaml"
PLATOON = "1st Platoon"
FIRST, SECOND, THIRD = (f"{n} Squad, 1st Platoon" for n in ("1st", "2nd", "3rd"))
HQ = "1st Platoon Command Unit"
# Each step's most queries, for the company or the platoon. Generous on purpose: the test's
# point is that the two counts are equal, this only keeps a step from growing unnoticed.
MAX_QUERIES = 40
# Treatment and recovery dice that send the injured to hospital for a few days (P.39, P.61).
HOSPITAL_FACE = 4


def _one_platoon(company: str) -> str:
    roster = yaml.safe_load(company)
    (top,) = roster["units"]
    top["units"] = [unit for unit in top["units"] if unit.get("key") == "p1"]
    return yaml.safe_dump(roster, sort_keys=False)


class Steps:
    """Runs the API calls of the campaign, counting the queries of each named step."""

    def __init__(self, api) -> None:
        self.api = api
        self.queries: dict[str, int] = {}

    def post(self, step: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._count(step, lambda: self.api.post(url, body or {}))

    def get(self, step: str, url: str) -> dict[str, Any]:
        return self._count(step, lambda: self.api.get(url))

    def _count(self, step: str, call) -> dict[str, Any]:
        with CaptureQueriesContext(connection) as captured:
            response = call()
        assert response.status_code in (200, 201), (step, response.json())
        # Not counted: the note of when the token was last used, written once every few minutes
        # whatever the request. A step run once per unit (the moves) counts its dearest run.
        queries = sum('"accounts_apitoken" SET' not in q["sql"] for q in captured.captured_queries)
        self.queries[step] = max(self.queries.get(step, 0), queries)
        return response.json()


def _hit(api, url: str, vehicle: Vehicle) -> None:
    """A heavy hit on the vehicle, every die of it showing 4."""
    body: dict[str, Any] = {
        "vehicle_id": str(vehicle.id),
        "impact_die": 12,
        "impact_multiplier": 3,
        "suspension": "tracked",
    }
    faces: list[int] = []
    action = f"{url}actions/vehicle_hit/"
    while not api.get(action, {**body, "dice": ",".join(map(str, faces))}).json()["complete"]:
        faces.append(4)
    hit = api.post(action, {**body, "dice": faces})
    assert hit.status_code == 201, hit.json()
    assert hit.json()["events"][0]["payload"]["state_after"] == "disabled"


def _table_dice(api, url: str) -> list[int]:
    """``HOSPITAL_FACE`` for every die the after-action's prompt asks the table for."""
    faces: list[int] = []
    while not api.get(f"{url}after-action/", {"dice": ",".join(map(str, faces))}).json()[
        "complete"
    ]:
        faces.append(HOSPITAL_FACE)
    return faces


def _between_battles(umpire, api, blue_roster: str) -> tuple[Any, dict[str, int]]:
    campaign = campaign_for(umpire, name="Between battles")
    steps = Steps(api)
    forces_url = f"/api/v1/campaigns/{campaign.id}/forces/"
    steps.post("force_import", forces_url, {"roster": blue_roster, "source": COMPANY})
    steps.post("force_import_red", forces_url, {"roster": (EXAMPLES / RED).read_text()})
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    blue = forces["Blue"]

    def unit(name: str) -> Unit:
        return Unit.objects.get(force_id=blue.id, name=name)

    def men(name: str) -> list[Trooper]:
        return list(Trooper.objects.filter(unit_id=unit(name).id).order_by("order"))

    def on_unit(step: str, name: str, action: str, body: dict[str, Any]) -> dict[str, Any]:
        return steps.post(step, f"/api/v1/units/{unit(name).id}/{action}/", body)

    battle = steps.post(
        "battle_plan",
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Hill 402",
            "day": 1,
            "attacker": "Blue",
            "sides": [
                {"side": side, "force_ids": [str(forces[side].id)]} for side in ("Blue", "Red")
            ],
        },
    )
    url = f"/api/v1/battles/{battle['id']}/"
    manned = Trooper.objects.filter(campaign_id=campaign.id).values_list("unit_id", flat=True)
    steps.post(
        "battle_commit", f"{url}commit/", {"unit_ids": [str(u) for u in dict.fromkeys(manned)]}
    )
    steps.post("battle_start", f"{url}start/")
    red_squad = Unit.objects.filter(force_id=forces["Red"].id, kind="squad").order_by("order")[0]
    red = list(Trooper.objects.filter(unit_id=red_squad.id).order_by("order"))
    # Every platoon's first squad has a man dead, one stabilised and one left wounded.
    first_squads = Unit.objects.filter(force_id=blue.id, name__startswith="1st Squad, ")
    for squad in first_squads.order_by("order"):
        first = list(Trooper.objects.filter(unit_id=squad.id).order_by("order"))
        kill(api, battle, first[1])
        stabilise(api, battle, first[2])
        wound(api, battle, first[3])
    stabilise(api, battle, red[1])
    # And its APC is hit.
    for squad in first_squads.order_by("order"):
        _hit(api, url, Vehicle.objects.get(unit_id=squad.id))
    steps.post("battle_end", f"{url}end/", {"winner": "Blue", "objectives_met": []})
    steps.post("after_action", f"{url}after-action/", {"dice": _table_dice(api, url)})
    # What the umpire reads after it.
    for read, path in (
        ("read_battle", url),
        ("read_battle_log", f"{url}log/"),
        ("read_battle_casualties", f"{url}casualties/"),
        ("read_hospital", f"/api/v1/campaigns/{campaign.id}/hospital/"),
        ("read_force", f"/api/v1/forces/{blue.id}/"),
        ("read_force_units", f"/api/v1/forces/{blue.id}/units/"),
        ("read_force_troopers", f"/api/v1/forces/{blue.id}/troopers/"),
        ("read_unit", f"/api/v1/units/{unit(FIRST).id}/"),
        ("read_unit_history", f"/api/v1/units/{unit(FIRST).id}/history/"),
        ("read_unit_progression", f"/api/v1/units/{unit(FIRST).id}/progression/"),
        ("read_campaign_history", f"/api/v1/campaigns/{campaign.id}/history/"),
    ):
        steps.get(read, path)

    for name in dict.fromkeys(
        Unit.objects.filter(id__in=manned, force_id=blue.id).values_list("name", flat=True)
    ):
        # A rear area: a safe area where disabled vehicles are repaired too (P.61).
        on_unit("unit_move", name, "move", {"to": "rear_area", "reason": "refit"})
    on_unit("unit_quality_set", SECOND, "quality", {"quality": "veteran", "reason": "drill"})
    on_unit(
        "unit_leadership_set", SECOND, "leadership", {"leadership": 3, "reason": "lost his nerve"}
    )
    steps.post(
        "supplies_set_force",
        f"/api/v1/forces/{blue.id}/supplies/",
        {"supplied": False, "reason": "convoy lost"},
    )
    on_unit(
        "supplies_set_unit", "B Company", "supplies", {"supplied": True, "reason": "resupplied"}
    )
    on_unit("replacements_request", PLATOON, "replacements/request", {"dice": [5]})
    on_unit(
        "replacements_assign",
        PLATOON,
        "replacements/assign",
        {"assignments": [{"unit_id": str(unit(FIRST).id), "count": 2}], "dice": [6]},
    )
    steps.post("calendar_advance_1", f"/api/v1/campaigns/{campaign.id}/calendar/", {"days": 1})
    steps.post("calendar_advance_20", f"/api/v1/campaigns/{campaign.id}/calendar/", {"days": 20})

    # Two men of the second and third squads go to the platoon's HQ: both squads are depleted.
    for step, squad_name in (("trooper_transfer", SECOND), ("trooper_transfer_again", THIRD)):
        steps.post(
            step,
            f"/api/v1/troopers/{men(squad_name)[-1].id}/transfer/",
            {"to_unit_id": str(unit(HQ).id), "reason": "cross-posted"},
        )
    steps.post(
        "trooper_rename",
        f"/api/v1/troopers/{men(HQ)[-1].id}/rename/",
        {"name": "Pte Last", "reason": "typo"},
    )
    on_unit("unit_attach", FIRST, "attach", {"to_unit_id": str(unit(HQ).id), "reason": "escort"})
    on_unit("unit_detach", FIRST, "detach", {"reason": "escort over"})
    on_unit(
        "units_regroup", SECOND, "regroup", {"with_unit_id": str(unit(THIRD).id), "reason": "merge"}
    )
    on_unit("unit_disband", FIRST, "disband", {"reason": "gone"})
    on_unit("unit_move_back", SECOND, "move", {"to": "in_the_line", "reason": "ready"})
    return campaign, steps.queries


def test_between_battle_commands_cost_the_same_queries_for_a_platoon_as_for_a_company(
    umpire, umpire_api
):
    company = (EXAMPLES / COMPANY).read_text()
    _, platoon = _between_battles(umpire, umpire_api, _one_platoon(company))
    campaign, queries = _between_battles(umpire, umpire_api, company)
    assert queries == platoon
    assert max(queries.values()) <= MAX_QUERIES
    # What the steps did to the company.
    blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
    assert Trooper.objects.filter(force_id=blue.id).count() == 113 + 2  # two replacements
    assert not Unit.objects.filter(force_id=blue.id, supplied=False).exists()
    assert set(Vehicle.objects.filter(force_id=blue.id).values_list("state", flat=True)) == {
        "operational"
    }
    second, third = (Unit.objects.get(force_id=blue.id, name=n) for n in (SECOND, THIRD))
    assert (second.status, third.merged_into) == ("in_the_line", second.id)
    assert Unit.objects.get(force_id=blue.id, name=FIRST).status == "disbanded"
